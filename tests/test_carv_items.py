"""Every invariant of issue 2, checked on every item of a full build.

The checks recompute from the states recorded in ``meta`` with code written here,
independently of the builder: differences, set operations, application, captions.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter, defaultdict

import pytest

PROPS = ["subject", "subject_number", "object", "object_color", "spatial_relation"]
TABLE1 = {
    "single": ("single", "single", 2), "ss-union-2": ("shared", "union", 2),
    "ss-intersection-2": ("shared", "intersection", 2), "ss-difference-2": ("shared", "difference", 2),
    "ds-union-2": ("different", "union", 2), "ds-intersection-2": ("different", "intersection", 2),
    "ds-difference-2": ("different", "difference", 2), "ss-union-3": ("shared", "union", 3),
    "ss-intersection-3": ("shared", "intersection", 3), "ss-union-4": ("shared", "union", 4),
    "ss-intersection-4": ("shared", "intersection", 4),
}


def diff(a: dict, b: dict) -> set:
    return {(p, a[p], b[p]) for p in PROPS if a[p] != b[p]}


def caption(state: dict, world: dict) -> str:
    noun = world["words"]["subject"][state["subject"]][state["subject_number"] == "two"]
    return (f"{state['subject_number']} {noun} "
            f"{world['words']['spatial_relation'][state['spatial_relation']]} a "
            f"{world['words']['object_color'][state['object_color']]} {state['object']}")


def as_set(atoms) -> set:
    return {tuple(a) for a in atoms}


def test_table1_counts(carv_items):
    counts = Counter(item["task"] for item in carv_items)
    assert len(carv_items) == 5500
    assert counts == {cell: 500 for cell in TABLE1}


def test_every_item_satisfies_the_set_invariants(carv_items, carv_build, carv_world):
    image_of = {}
    with open(carv_build / "states.jsonl") as handle:
        for line in handle:
            row = json.loads(line)
            image_of[tuple(row["state"][p] for p in PROPS)] = row["image"]
    for item in carv_items:
        m = item["meta"]
        setting, op, k = TABLE1[item["task"]]
        assert (m["setting"], m["operation"], m["atomic"]) == (setting, op, k), item["id"]
        s = m["states"]
        t1 = diff(s["source_1"], s["target_1"])
        assert len(t1) == k and t1 == as_set(m["T1"]), item["id"]
        if setting == "single":
            t2, t = set(), t1
            shown = ["source_1", "target_1", "query"]
        else:
            t2 = diff(s["source_2"], s["target_2"])
            assert len(t2) == k and t2 == as_set(m["T2"]), item["id"]
            t = {"union": t1 | t2, "intersection": t1 & t2, "difference": t1 - t2}[op]
            shown = ["source_1", "target_1", "source_2", "target_2", "query"]
        assert t and t == as_set(m["T"]), item["id"]
        if op == "union":
            targets = defaultdict(set)
            for p, _, new in t1 | t2:
                targets[p].add(new)
            assert all(len(v) == 1 for v in targets.values()), f"{item['id']}: conflicting union"
        if op == "intersection":
            assert t1 & t2 and t1 != t2, item["id"]
        if op == "difference":
            assert t1 - t2 and t1 & t2, item["id"]
        q = s["query"]
        assert all(q[p] == old for p, old, _ in t), f"{item['id']}: T not applicable to the query"
        states = [tuple(s[name][p] for p in PROPS) for name in shown]
        if setting == "shared":
            assert s["source_1"] == s["source_2"] == q, item["id"]
        else:
            sources = [s["source_1"], q] + ([s["source_2"]] if setting == "different" else [])
            assert len({tuple(x.values()) for x in sources}) == len(sources), item["id"]
            touched = {p for p, _, _ in t}
            assert all(len({x[p] for x in sources}) == 1 for p in touched), item["id"]
        answer = dict(q)
        for p, _, new in t:
            answer[p] = new
        assert answer == s["answer"], item["id"]
        assert tuple(answer[p] for p in PROPS) not in states, f"{item['id']}: answer is shown"
        assert item["answer"] == caption(answer, carv_world), item["id"]
        assert item["images"] == [image_of[x] for x in states], item["id"]
        assert m["answer_image"] == image_of[tuple(answer[p] for p in PROPS)], item["id"]
        assert all((carv_build / path).is_file() for path in item["images"] + [m["answer_image"]])


def test_no_two_items_are_identical(carv_items):
    keys = Counter((item["task"], tuple(item["images"]), item["answer"]) for item in carv_items)
    assert max(keys.values()) == 1
    assert len({item["id"] for item in carv_items}) == len(carv_items)


def change_type(item) -> str:
    s = item["meta"]["states"]
    key = "+".join(p for p in PROPS if s["source_1"][p] != s["target_1"][p])
    if "source_2" in s:
        key += " | " + "+".join(p for p in PROPS if s["source_2"][p] != s["target_2"][p])
    return key


def test_each_cell_is_balanced_over_changed_properties(carv_items, capsys):
    by_cell = defaultdict(Counter)
    for item in carv_items:
        by_cell[item["task"]][change_type(item)] += 1
    with capsys.disabled():
        print("\nchanged-property spread per cell (types, min-max items per type):")
        for cell, counts in by_cell.items():
            print(f"  {cell:<18} {len(counts):>3} types  {min(counts.values())}-{max(counts.values())}")
    for cell, counts in by_cell.items():
        assert max(counts.values()) - min(counts.values()) <= 1, cell
    # The single-step cell spreads over all 10 property pairs, as the paper does.
    assert len(by_cell["single"]) == 10 and set(by_cell["single"].values()) == {50}


def feasible_shared_types(world: dict, op: str, k: int) -> set[str]:
    """Brute force: which (P1, P2) admit a valid shared-source item from one source."""
    values = world["values"]
    source = {p: values[p][0] for p in PROPS}
    out = set()
    for c1, c2 in itertools.product(itertools.combinations(PROPS, k), repeat=2):
        def changes(props):
            options = [[v for v in values[p] if v != source[p]] for p in props]
            for chosen in itertools.product(*options):
                yield {(p, source[p], v) for p, v in zip(props, chosen)}
        ok = False
        for t1 in changes(c1):
            for t2 in changes(c2):
                if op == "union":
                    news = defaultdict(set)
                    for p, _, v in t1 | t2:
                        news[p].add(v)
                    ok = t1 != t2 and all(len(v) == 1 for v in news.values())
                elif op == "intersection":
                    ok = bool(t1 & t2) and t1 != t2
                else:
                    ok = bool(t1 & t2) and bool(t1 - t2)
                if ok:
                    break
            if ok:
                break
        if ok:
            out.add("+".join(c1) + " | " + "+".join(c2))
    return out


@pytest.mark.parametrize("cell", ["ss-union-2", "ss-intersection-2", "ss-difference-2",
                                  "ss-union-3", "ss-intersection-3", "ss-union-4", "ss-intersection-4"])
def test_shared_source_cells_use_every_feasible_type(cell, carv_items, carv_world):
    _, op, k = TABLE1[cell]
    used = {change_type(item) for item in carv_items if item["task"] == cell}
    assert used == feasible_shared_types(carv_world, op, k)
