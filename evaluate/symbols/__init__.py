"""Scoring the ``symbols`` benchmark: the paper's per-domain, per-level, per-task accuracy.

Multiple-choice items are scored by the shared evaluator (letters, options,
rotations). Free answers are judged by :mod:`evaluate.symbols.judge` from the format
their ``meta.answer_format`` names (formulas by element counts, coefficient lists as
lists, numbers within a tolerance), so a new domain needs no new judge. A domain's
``evaluate/symbols/<domain>.py`` may add ``extra(row, response)``, per-item measures
(chemistry: the corrected SMILES of a structure-error item, by canonical form) that
:func:`tables` sums up.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections import defaultdict

from cogforge.evaluate.symbols import judge
from cogforge.evaluate.symbols.judge import is_correct  # noqa: F401  (the scorer's hook)
from cogforge.generators.symbols import LEVELS

JUDGE = judge  # what lmms-eval's utils.py embeds: standard library only


def _domain(row: dict):
    name = f"cogforge.evaluate.symbols.{row['meta']['domain']}"
    return importlib.import_module(name) if importlib.util.find_spec(name) else None


def chance(row: dict) -> float:
    """Free answers (a formula, a coefficient list) have no guessing floor worth the name."""
    return 0.0


def strata(row: dict) -> dict[str, str]:
    m = row["meta"]
    return {"domain": m["domain"], "level": f"L{m['level']}", "paper_task": m["paper_task"],
            "error_type": m.get("error_type")}


def extra(row: dict, response: str | None) -> dict:
    module = _domain(row)
    return module.extra(row, response) if module and hasattr(module, "extra") else {}


def _accuracy(records: list[dict]) -> dict:
    n = len(records)
    return {"n": n, "accuracy": sum(r["correct"] for r in records) / n if n else None}


def tables(records: list[dict]) -> dict:
    """Accuracy per domain and level (the paper's layout), per task, and the domains' extras."""
    cells, tasks, extras = defaultdict(list), defaultdict(list), defaultdict(list)
    for r in records:
        s = r["strata"]
        cells[(s["domain"], s["level"])].append(r)
        cells[(s["domain"], "all")].append(r)
        tasks[(s["domain"], s["level"], s["task"], s["paper_task"])].append(r)
        for key, value in (r.get("extra") or {}).items():
            extras[(s["task"], key)].append(value)
    return {"by_domain_level": {f"{d} {lv}": _accuracy(rs) for (d, lv), rs in sorted(cells.items())},
            "by_task": {t: {"domain": d, "level": lv, "paper": p} | _accuracy(rs)
                        for (d, lv, t, p), rs in sorted(tasks.items())},
            "extras": {f"{t}: {k}": {"n": len(v), "rate": sum(v) / len(v)} for (t, k), v in sorted(extras.items())}}


def tables_markdown(results: dict) -> list[str]:
    def pct(x) -> str:
        return "-" if x is None else f"{100 * x:.1f}"

    models = results["models"]
    first = next(iter(models.values()))["tables"]
    md = ["", "## Accuracy per domain and level (%, the paper's layout)", "",
          "Levels: " + "; ".join(f"L{k} {v.split(' ', 1)[1]}" for k, v in LEVELS.items()) + ".", ""]
    cols = list(first["by_domain_level"])
    md += ["| model | " + " | ".join(cols) + " |", "|" + " --- |" * (len(cols) + 1)]
    for model, r in models.items():
        md.append(f"| {model} | " + " | ".join(pct(r["tables"]["by_domain_level"].get(c, {}).get("accuracy"))
                                                for c in cols) + " |")
    tasks = list(first["by_task"])
    md += ["", "## Accuracy per task (%)", "", "| task | level | paper | " + " | ".join(models) + " |",
           "|" + " --- |" * (len(models) + 3)]
    for t in tasks:
        info = first["by_task"][t]
        md.append(f"| {t} | {info['level']} | {info['paper']} | " +
                  " | ".join(pct(r["tables"]["by_task"].get(t, {}).get("accuracy")) for r in models.values()) + " |")
    if first["extras"]:
        md += ["", "## Further measures (%)", "", "| measure | " + " | ".join(models) + " |",
               "|" + " --- |" * (len(models) + 1)]
        for key in first["extras"]:
            md.append(f"| {key} | " + " | ".join(pct(r["tables"]["extras"].get(key, {}).get("rate"))
                                                 for r in models.values()) + " |")
    return md
