"""How a QC report reads: a terminal table and a short markdown file."""

from __future__ import annotations

from cogforge.qc.core import Report

MAX_LISTED = 40


def table(report: Report) -> str:
    summary = report.summary()
    names = sorted(set(summary["by_check"]) | set(report.stats))
    width = max([len(n) for n in names] + [5])
    lines = [f"QC of {report.build} ({report.benchmark})", "",
             f"  {'check':<{width}}  errors  warnings  info"]
    for name in names:
        c = summary["by_check"].get(name, {"error": 0, "warning": 0, "info": 0})
        lines.append(f"  {name:<{width}}  {c['error']:>6}  {c['warning']:>8}  {c['info']:>4}")
    verdict = "PASSED" if report.passed else "FAILED"
    lines += ["", f"  {verdict}: {report.errors} errors, {report.warnings} warnings"]
    for f in [f for f in report.findings if f.severity != "info"][:10]:
        lines.append(f"  {f.severity:<7} {f.check:<10} {f.target}: {f.message}")
    if report.errors + report.warnings > 10:
        lines.append(f"  ... {report.errors + report.warnings - 10} more in qc_report.json")
    return "\n".join(lines)


def markdown(report: Report) -> str:
    s = report.summary()
    out = [f"# QC report: {report.benchmark}", "",
           f"Build: `{report.build}`. Result: **{'passed' if report.passed else 'failed'}** "
           f"({s['errors']} errors, {s['warnings']} warnings).", "",
           "| check | errors | warnings |", "| --- | --- | --- |"]
    for name in sorted(set(s["by_check"]) | set(report.stats)):
        c = s["by_check"].get(name, {"error": 0, "warning": 0})
        out.append(f"| {name} | {c['error']} | {c['warning']} |")
    balance = report.stats.get("balance", {})
    if balance:
        out += ["", "## Balance", "", "| stratum family | strata | min | max | balance index | Gini |",
                "| --- | --- | --- | --- | --- | --- |"]
        for family, b in balance.items():
            if "strata" in b:
                out.append(f"| {family} | {b['strata']} | {b['min']} | {b['max']} | "
                           f"{b['balance_index']:.3f} | {b['gini']:.3f} |")
    baselines = report.stats.get("shortcuts", {}).get("baselines", [])
    if baselines:
        out += ["", "## Shortcut baselines (no image, no question)", "",
                "| stratum | baseline | n | accuracy | 95% CI | chance |", "| --- | --- | --- | --- | --- | --- |"]
        for r in baselines:
            lo, hi = r["ci95"]
            out.append(f"| {r['stratum']} | {r['baseline']} | {r['n']} | {r['accuracy']:.1%} | "
                       f"{lo:.1%}-{hi:.1%} | {r['chance']:.1%} |")
    dup = report.stats.get("duplicates", {})
    if dup.get("closest_image_pair_levels") is not None:
        out += ["", f"Closest pair of distinct images: fingerprints {dup['closest_image_pair_levels']} "
                f"levels apart (near-duplicate at <= 16 of 255)."]
    listed = [f for f in report.findings if f.severity != "info"][:MAX_LISTED]
    if listed:
        out += ["", "## Findings", "", "| severity | check | target | message |", "| --- | --- | --- | --- |"]
        out += [f"| {f.severity} | {f.check} | `{f.target}` | {f.message} |" for f in listed]
        if len(listed) < report.errors + report.warnings:
            out.append(f"\n{report.errors + report.warnings - len(listed)} more in `qc_report.json`.")
    return "\n".join(out) + "\n"
