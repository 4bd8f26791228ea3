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

from cogforge.qc.core import Build, CheckResult, Finding

# Tasks, domains and levels are sized by the paper and the data, not evenly.
# How loose a chengyu rebus is and which edits a sentence carries follow the data (the
# characters of the idioms, what each sentence allows): reported, not judged.
UNBALANCED_BY_DESIGN = frozenset({"task", "domain", "level", "rebus loosest match", "language edits"})
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
    if "rebus" in item.meta:  # a chengyu rebus is as hard as its loosest clue
        kinds = {part["match"] for part in item.meta["rebus"]}
        loosest = ("same pinyin without tone", "same pinyin with tone", "same character")
        out["rebus loosest match"] = next((k for k in loosest if k in kinds), "same character")
    if item.meta.get("domain") == "language" and not item.meta.get("imported"):
        out["language edits"] = "+".join(sorted({f["op"] for f in item.meta.get("fakes", [])} |
                                                    ({"misuse"} if item.meta.get("substitutions") else set()))) or "none"
    return out


def example_matches(item, example: str) -> bool:
    """Whether a model answering with the format example would be scored right (the judge
    of evaluate/symbols: sympy equivalence, element counts, integer lists)."""
    from cogforge.evaluate.symbols.judge import is_correct

    return is_correct(example, {"answer": item.answer, "meta": item.meta})


def problem_key(item) -> str | None:
    """The problem without its style: a force diagram's set-up (no colours, no mirroring,
    the motion only where the picture states it) and its forces; a circuit's parts and
    connections with the switches as drawn (no battery orientation or label style); a
    molecule or reaction with the question; a culture item's word or idiom; a language
    item's sentence; None (the shared default) elsewhere."""
    import json

    m, stem = item.meta, item.question.split("\nA. ")[0]
    if "scene" in m:
        from cogforge.generators.symbols import _forces as fz

        scene = fz.Scene.from_dict(m["scene"])
        shown = {"stem": stem, "setup": scene.setup(),
                 "forces": sorted(json.dumps([f["name"], f["body"], fz.turn(scene, int(f["angle"])), f["magnitude"]])
                                  for f in m["forces"])}  # turn() undoes the mirroring: 180 - a again
        if m.get("show_motion", True):
            shown["motion"] = [scene.state, scene.velocity, str(scene.accel)]
        return json.dumps(shown, sort_keys=True)
    if "tree" in m:
        from cogforge.generators.symbols import _circuits as circ

        tree = circ.set_switches(circ.tree_from_json(m["tree"]), True, symbols=True)
        switches = sorted(p.name for p in circ.parts(circ.tree_from_json(m["tree"])) if p.kind == "switch" and p.closed)
        return json.dumps({"stem": stem, "emf": m["emf"], "tree": circ.tree_to_json(tree), "closed": switches,
                           "error": [m.get(k) for k in ("error_type", "changed", "variant")]})
    if "smiles" in m or "reaction_id" in m:
        return json.dumps({"stem": stem, "smiles": m.get("smiles"), "reaction": m.get("reaction_id")})
    if m.get("domain") == "culture":  # the word or idiom, however its emoji are chosen or drawn
        return json.dumps({"stem": stem, "answer": item.answer.casefold()}, ensure_ascii=False)
    if m.get("domain") == "language" and "sentence_id" in m:  # the sentence, whatever was faked in it
        return json.dumps({"stem": stem, "sentence": m["sentence_id"]})
    return None


def _domain_check(name: str):
    if importlib.util.find_spec(f"cogforge.qc.symbols.{name}") is None:
        return None
    return importlib.import_module(f"cogforge.qc.symbols.{name}").check


def check_symbols(build: Build) -> CheckResult:
    from cogforge.generators.symbols._molecules import png_text_chunks

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
