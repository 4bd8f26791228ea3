"""QC for the ``symbols`` benchmark: each domain's own checks, found by name.

A domain adds ``qc/symbols/<domain>.py`` with ``check(build, items) -> CheckResult``;
it recomputes every answer of its items from ``meta`` (and what the model is shown),
never re-reading the stored answer. Shared here: no image carries text chunks, and
the error types of every error task are spread evenly (and where a task has
consistent items, ``error_type`` "none", they are half of it).
"""

from __future__ import annotations

import importlib
import importlib.util
from collections import Counter, defaultdict

from qc.core import Build, CheckResult, Finding

# Tasks, domains and levels are sized by the paper and the data, not evenly.
UNBALANCED_BY_DESIGN = frozenset({"task", "domain", "level"})
ERROR_SPREAD = 1  # error types of one task may differ by this many items
# the error type of an item with no injected error, where a task balances them (mathematics L3)
CONSISTENT = "none"
# Pictures that differ only in their small print (a force diagram's givens, a circuit's
# values) have near-identical thumbnails yet are different items: reported, not judged
# (identical items and images are still errors).
NEAR_DUPLICATE_SEVERITY = "info"


def strata(item) -> dict[str, str]:
    out = {"domain": item.meta["domain"], "level": f"L{item.meta['level']}"}
    if item.meta.get("error_type") == CONSISTENT:  # half of a task by design, not one type among many
        out[f"{item.task} consistent"] = "yes"
    elif "error_type" in item.meta:
        out[f"{item.task} error type"] = item.meta["error_type"]
    if "reaction_type" in item.meta:
        out["reaction type"] = item.meta["reaction_type"]
    return out


def _domain_check(name: str):
    if importlib.util.find_spec(f"qc.symbols.{name}") is None:
        return None
    return importlib.import_module(f"qc.symbols.{name}").check


def check_symbols(build: Build) -> CheckResult:
    from generators.symbols._molecules import png_text_chunks

    out = CheckResult()
    by_domain = defaultdict(list)
    for item in build.items:
        by_domain[item.meta.get("domain")].append(item)
    for domain, items in sorted(by_domain.items(), key=lambda kv: str(kv[0])):
        check = _domain_check(str(domain))
        if check is None:
            out.findings.append(Finding("error", "symbols", domain or "build",
                                        f"no qc/symbols/{domain}.py: {len(items)} items cannot be re-derived"))
            continue
        result = check(build, items)
        out.findings += result.findings
        out.stats[domain] = result.stats
    chunks = 0
    for rel in sorted({p for i in build.items for p in i.images}):
        found = png_text_chunks((build.path / rel).read_bytes())
        if found:
            chunks += 1
            out.findings.append(Finding("error", "symbols-metadata", rel,
                                        f"PNG carries text chunks ({', '.join(c[:4].decode() for c in found)}): "
                                        "they may hold the answer"))
    out.stats["images_with_text_chunks"] = chunks
    spread = {}
    by_task = defaultdict(Counter)
    for item in build.items:
        if "error_type" in item.meta:
            by_task[item.task][item.meta["error_type"]] += 1
    for task, counts in sorted(by_task.items()):
        spread[task] = dict(sorted(counts.items()))
        errors = {k: v for k, v in counts.items() if k != CONSISTENT}
        if errors and max(errors.values()) - min(errors.values()) > ERROR_SPREAD:
            out.findings.append(Finding("error", "symbols-errors", task,
                                        f"error types unevenly spread: {dict(counts)}"))
        if CONSISTENT in counts and abs(counts[CONSISTENT] - sum(errors.values())) > ERROR_SPREAD:
            out.findings.append(Finding("error", "symbols-errors", task,
                                        f"consistent items are not half the task: {dict(counts)}"))
    out.stats["error_types"] = spread
    return out


CHECKS = [("symbols", check_symbols)]
