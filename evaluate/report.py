"""Score reports: JSON with every number, markdown with tables and plots, per-item records."""

from __future__ import annotations

import json
from pathlib import Path

from cogforge.core.buildio import dump_json


def _pct(x) -> str:
    return "-" if x is None else f"{100 * x:.1f}"


def _bars(results: dict, family: str, path: Path) -> Path:
    import numpy as np

    from cogforge.core.plots import figure

    models = list(results["models"])
    strata = sorted({s for m in models for s in results["models"][m]["breakdown"].get(family, {})})
    width = 0.8 / len(models)
    x = np.arange(len(strata))
    with figure(path, (max(6, 0.9 * len(strata) * max(1, len(models) / 2) + 2), 4.2)) as (fig, ax):
        for i, model in enumerate(models):
            b = results["models"][model]["breakdown"].get(family, {})
            acc = [100 * b[s]["accuracy"] if s in b else 0 for s in strata]
            lo = [max(0.0, 100 * (b[s]["accuracy"] - b[s]["ci95"][0])) if s in b else 0 for s in strata]
            hi = [max(0.0, 100 * (b[s]["ci95"][1] - b[s]["accuracy"])) if s in b else 0 for s in strata]
            ax.bar(x + i * width - 0.4 + width / 2, acc, width, yerr=[lo, hi], capsize=2, label=model)
        chance = {s: v["chance"] for r in results["models"].values() for s, v in r["breakdown"].get(family, {}).items()}
        ax.scatter(x, [100 * chance.get(s, 0) for s in strata],
                   marker="_", s=400, color="black", zorder=3, label="chance")
        ax.set_xticks(x, strata, rotation=30, ha="right")
        ax.set_ylabel("accuracy (%)")
        ax.set_ylim(0, 105)
        ax.set_title(f"Accuracy by {family} (95% CI)")
        ax.legend(fontsize=8)
    return path


def write(results: dict, out_dir: Path) -> dict[str, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {"json": out_dir / "scores.json", "markdown": out_dir / "report.md",
             "items": out_dir / "per_item.jsonl"}
    light = {**results, "models": {m: {k: v for k, v in r.items() if k != "records"}
                                   for m, r in results["models"].items()}}
    paths["json"].write_text(dump_json(light))
    with open(paths["items"], "w", encoding="utf-8") as handle:
        for model, r in results["models"].items():
            for record in r["records"]:
                handle.write(json.dumps({"model": model, **record}, ensure_ascii=False) + "\n")
    rel = results["release"]
    md = [f"# Scores on {rel['benchmark']} {rel['version']}", ""]
    if not rel["verified"]:
        md += [f"**The release did not verify** ({len(rel['verification_problems'])} problems); "
               "scored anyway because --allow-unverified was given.", ""]
    md += ["| model | items | accuracy (%) | 95% CI | chance (%) | chance-normalised | answers not parsed | missing |",
           "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for model, r in results["models"].items():
        o, e = r["overall"], r["answer_extraction"]
        md.append(f"| {model} | {o['n']} | {_pct(o['accuracy'])} | {_pct(o['ci95'][0])}-{_pct(o['ci95'][1])} | "
                  f"{_pct(o['chance'])} | {_pct(o['chance_normalised'])} | {_pct(e['fail_rate'])}% | "
                  f"{len(r['problems']['missing_ids'])} |")
    for model, r in results["models"].items():
        if "circular" in r:
            c = r["circular"]
            md += ["", f"Circular evaluation ({model}, {c['items']} items): proportion of rotations correct "
                   f"{_pct(c['proportion_correct'])}%, all rotations correct {_pct(c['strict_all_rotations'])}%."]
    first = next(iter(results["models"].values()))
    if "tables" in first:
        from cogforge.evaluate.score import _plugin

        tables_markdown = getattr(_plugin(rel["benchmark"]), "tables_markdown", None)
        md += tables_markdown(results) if tables_markdown else []
    # models scored on different items (a split each, or one VLMEvalKit file each) may have
    # strata the others lack (symbols' error_type exists only for error items)
    families = list(dict.fromkeys(f for r in results["models"].values() for f in r["breakdown"]))
    for family in families:
        png = _bars(results, family, out_dir / f"by-{family.replace(' ', '-').lower()}.png")
        paths[f"plot-{family}"] = png
        md += ["", f"## By {family}", "", f"![accuracy by {family}]({png.name})", "",
               "| " + family + " | " + " | ".join(results["models"]) + " |",
               "|" + " --- |" * (len(results["models"]) + 1)]
        values = sorted({v for r in results["models"].values() for v in r["breakdown"].get(family, {})})
        for value in values:
            cells = []
            for r in results["models"].values():
                s = r["breakdown"].get(family, {}).get(value)
                cells.append("-" if s is None else f"{_pct(s['accuracy'])} (n={s['n']})")
            md.append(f"| {value} | " + " | ".join(cells) + " |")
    md += ["", "## Answer extraction", ""]
    for model, r in results["models"].items():
        e, p = r["answer_extraction"], r["problems"]
        md.append(f"- {model}: " + ", ".join(f"{k} {v}" for k, v in e["methods"].items())
                  + f"; fail rate {_pct(e['fail_rate'])}%. Malformed lines {len(p['malformed'])}, "
                  f"duplicates {len(p['duplicate_ids'])}, unknown ids {len(p['unknown_ids'])}, "
                  f"missing {len(p['missing_ids'])}.")
    md.append(f"\nPer-item records for error analysis: `{paths['items'].name}`.")
    paths["markdown"].write_text("\n".join(md) + "\n")
    return paths
