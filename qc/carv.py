"""CARV's own checks: re-verify every item's set-operation ground truth from ``meta``.

Recomputed here from the recorded states, without the builder's code: the pairs'
differences, the composed transformation, its applicability to the query, the
answer state, its caption and its image.
"""

from __future__ import annotations

import json
from collections import Counter

from cogforge.core.record import Item
from cogforge.generators.carv import PROPERTIES, State, load_world
from cogforge.qc.core import Build, CheckResult, Finding

# Two different CARV states must never look alike: a near-duplicate is an error.
NEAR_DUPLICATE_SEVERITY = "error"

_OPS = {
    "single": lambda a, b: a,
    "union": lambda a, b: a | b,
    "intersection": lambda a, b: a & b,
    "difference": lambda a, b: a - b,
}


def _diff(a: dict, b: dict) -> set[tuple[str, str, str]]:
    return {(p, a[p], b[p]) for p in PROPERTIES if a[p] != b[p]}


def _changed(a: dict, b: dict) -> str:
    return "+".join(p for p in PROPERTIES if a[p] != b[p])


def strata(item: Item) -> dict[str, str]:
    """Balance strata: which properties each pair changes, within the item's cell."""
    s = item.meta.get("states", {})
    if "source_1" not in s or "target_1" not in s:
        return {}
    key = _changed(s["source_1"], s["target_1"])
    if "source_2" in s:
        key += " | " + _changed(s["source_2"], s["target_2"])
    return {f"changes in {item.task}": key}


def _item_problems(item: Item, image_of: dict[tuple, str], world) -> list[str]:
    m = item.meta
    s = m["states"]
    problems = []
    t1 = _diff(s["source_1"], s["target_1"])
    t2 = _diff(s["source_2"], s["target_2"]) if "source_2" in s else set()
    if len(t1) != m["atomic"] or (t2 and len(t2) != m["atomic"]):
        problems.append(f"pairs change {len(t1)} and {len(t2)} properties, cell says {m['atomic']}")
    if {tuple(a) for a in m["T1"]} != t1 or (m["T2"] is not None and {tuple(a) for a in m["T2"]} != t2):
        problems.append("T1/T2 in meta are not the pairs' differences")
    t = _OPS[m["operation"]](t1, t2)
    if {tuple(a) for a in m["T"]} != t:
        problems.append(f"T in meta is not {m['operation']}(T1, T2)")
    if not t:
        problems.append("the composed transformation is empty")
    query = s["query"]
    if any(query[p] != old for p, old, _ in t):
        problems.append("T does not apply to the query")
    if m["operation"] == "union":
        targets = Counter(p for p, _, _ in t1 | t2)
        if any(n > 1 for n in targets.values()):
            problems.append("union sends one property to two values")
    if m["setting"] == "shared" and not (s["source_1"] == s.get("source_2", s["source_1"]) == query):
        problems.append("shared source, but the sources and the query differ")
    if m["setting"] == "different":
        sources = [s["source_1"], s["source_2"], query]
        if len({tuple(x.values()) for x in sources}) != 3:
            problems.append("different source, but two of the sources/query are equal")
        if any(len({x[p] for x in sources}) > 1 for p, _, _ in t):
            problems.append("the sources differ in a property that T changes")
    answer = dict(query)
    for p, _, new in t:
        answer[p] = new
    if answer != s["answer"]:
        problems.append("the answer state is not Apply(T, query)")
    if item.answer != world.caption(State(**answer)):
        problems.append(f"answer caption {item.answer!r} does not describe the answer state")
    key = tuple(answer[p] for p in PROPERTIES)
    if image_of and image_of.get(key) != m.get("answer_image"):
        problems.append("answer_image is not the render of the answer state")
    order = ["source_1", "target_1", "source_2", "target_2", "query"]
    shown = [tuple(s[k][p] for p in PROPERTIES) for k in order if k in s]
    if image_of and [image_of.get(x) for x in shown] != item.images:
        problems.append("images are not the renders of the recorded states, in prompt order")
    return problems


def check_carv(build: Build) -> CheckResult:
    out = CheckResult()
    world = load_world()
    image_of: dict[tuple, str] = {}
    states_file = build.path / "states.jsonl"
    if states_file.is_file():
        for line in states_file.read_text().splitlines():
            row = json.loads(line)
            image_of[tuple(row["state"][p] for p in PROPERTIES)] = row["image"]
    else:
        out.findings.append(Finding("error", "carv", "states.jsonl", "missing: the state -> image map"))
    bad = 0
    for item in build.items:
        try:
            problems = _item_problems(item, image_of, world)
        except (KeyError, TypeError, ValueError) as err:
            problems = [f"meta is incomplete or malformed: {err!r}"]
        for problem in problems:
            out.findings.append(Finding("error", "carv", item.id, problem))
        bad += bool(problems)
    cells = {c["id"]: c["count"] for c in build.manifest.get("config", {}).get("cells", [])}
    counts = Counter(item.task for item in build.items)
    for cell, expected in cells.items():
        if counts.get(cell, 0) != expected:
            out.findings.append(Finding("error", "carv", cell,
                                        f"{counts.get(cell, 0)} items, the config asks for {expected}"))
    out.stats = {"items_checked": len(build.items), "items_with_problems": bad,
                 "cells": dict(sorted(counts.items()))}
    return out


def check_refined(build: Build) -> CheckResult:
    """A refined build's images against their renders (``qc/refine.py``); a no-op otherwise."""
    from cogforge.qc.refine import check_refined_build  # numpy and scipy only when asked

    return check_refined_build(build)


CHECKS = [("carv", check_carv), ("refine", check_refined)]
