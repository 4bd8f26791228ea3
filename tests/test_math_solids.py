"""Solids of unit cubes, their views and the nets of a cube (generators/symbols/_solids.py)."""

from __future__ import annotations

import copy
import json
import random
import types
from collections import Counter

import pytest

from cogforge.core.positions import Positions
from cogforge.generators.symbols import _solids as S

N = 40


def _ctx():
    return types.SimpleNamespace(positions=Positions(), dropped=Counter())


@pytest.fixture(scope="module")
def drafts():
    ctx = _ctx()
    return {"solid-structure": S.make_solid_structure(ctx, N, random.Random(11)),
            "projection": S.make_projection(ctx, N, random.Random(12))}


def _json(meta):
    return json.loads(json.dumps(meta))


# --------------------------------------------------------------------------- every draft


@pytest.mark.parametrize("task", ["solid-structure", "projection"])
def test_answers_agree_with_check(drafts, task):
    for d in drafts[task]:
        assert d.answer in d.options and len(set(d.options)) == len(d.options) == 4
        assert d.meta["sub_field"] == "geometry"
        assert S.check(task, d.question, d.options, d.answer, _json(d.meta)) is None, d.meta


def test_kinds_in_turn(drafts):
    kinds = Counter(d.meta["question_kind"] for d in drafts["solid-structure"])
    assert set(kinds) == set(S.STRUCTURE_KINDS) and max(kinds.values()) - min(kinds.values()) <= 1
    directions = Counter(d.meta["direction"] for d in drafts["projection"])
    assert set(directions) == set(S.DIRECTIONS) and max(directions.values()) - min(directions.values()) <= 1
    changes = [d.meta["change"] for d in drafts["projection"]]
    assert changes == [S.CHANGES[k % 2] for k in range(N)]  # added and removed in turn
    by_direction = Counter((d.meta["direction"], d.meta["change"]) for d in drafts["projection"])
    assert len(by_direction) == 6  # every direction with both changes


def test_deterministic():
    a = S.make_projection(_ctx(), 6, random.Random(5))
    b = S.make_projection(_ctx(), 6, random.Random(5))
    assert [(d.question, d.answer, d.meta) for d in a] == [(d.question, d.answer, d.meta) for d in b]


@pytest.mark.parametrize("task", ["solid-structure", "projection"])
def test_answer_positions_spread(drafts, task):
    by_kind: dict[str, Counter] = {}
    for d in drafts[task]:
        by_kind.setdefault(d.meta["question_kind"], Counter())[d.options.index(d.answer)] += 1
    for kind, used in by_kind.items():
        assert len(used) == 4 and max(used.values()) - min(used.values()) <= 1, (kind, used)


def test_numeric_rank_spread(drafts):
    """The answer is not always the middle value of its options."""
    ranks = Counter(sorted(d.options, key=int).index(d.answer) for d in drafts["solid-structure"]
                    if d.meta["question_kind"] in ("count", "surface-area", "volume"))
    assert len(ranks) == 4 and max(ranks.values()) - min(ranks.values()) <= 3


@pytest.mark.parametrize("task", ["solid-structure", "projection"])
def test_pictures_reproducible(drafts, task):
    for d in drafts[task][:10]:
        lazy = d.images[0]()
        assert S.pictures(task, _json(d.meta)) == [lazy] == S.pictures(task, _json(d.meta))
        assert lazy.startswith(b"\x89PNG") and b"tEXt" not in lazy


def _panel_sets(d):
    return {kind: frozenset(map(tuple, p)) for kind, p in zip(d.meta["distractor_kinds"], d.meta["panels"])}


def test_projection_distractors(drafts):
    """The panels are {V, M, V1, M1}: the right view, its mirror, a one-cell change and its mirror."""
    for d in drafts["projection"]:
        kinds = d.meta["distractor_kinds"]
        assert sorted(kinds) == sorted(S.PANEL_KINDS)
        assert kinds[d.options.index(d.answer)] == "correct"
        assert len({json.dumps(p) for p in d.meta["panels"]}) == 4
        width = S.view_width(d.meta["base"], d.meta["direction"])
        p = _panel_sets(d)
        assert p["correct"] == S.view(S.heights_of(d.meta["voxels"], d.meta["base"]), d.meta["direction"])
        assert p["mirror"] == S.mirror(p["correct"], width)
        assert p["mirror of one cell"] == S.mirror(p["one cell"], width)
        grown = p["one cell"] - p["correct"] if d.meta["change"] == "added" else p["correct"] - p["one cell"]
        assert len(p["one cell"] ^ p["correct"]) == 1 and len(grown) == 1


def test_no_structural_shortcut(drafts):
    """Comparing the panels alone (which is a mirror of which, which is one cell from which)
    does not find the answer: every panel scores the same, so the right one is never the
    unique best, and every panel has exactly one mirror partner and one one-cell partner."""
    for d in drafts["projection"]:
        width = S.view_width(d.meta["base"], d.meta["direction"])
        scores = S.structural_scores(d.meta["panels"], width)
        right = d.options.index(d.answer)
        assert len(set(scores)) == 1, (scores, d.meta["distractor_kinds"])
        assert scores.count(max(scores)) > 1 or scores[right] != max(scores)
        panels = [frozenset(map(tuple, p)) for p in d.meta["panels"]]
        for k, p in enumerate(panels):
            others = panels[:k] + panels[k + 1:]
            assert sum(S.mirror(p, width) == q for q in others) == 1
            assert any(len(p ^ q) == 1 for q in others)
    # the old panel set (right view, its mirror, two one-cell changes of it) did give it away
    d = drafts["projection"][0]
    width = S.view_width(d.meta["base"], d.meta["direction"])
    p = _panel_sets(d)
    old = [p["correct"], p["mirror"], p["one cell"]]
    heights = S.heights_of(d.meta["voxels"], d.meta["base"])
    more = [S.view(m, d.meta["direction"]) for kind in S.CHANGES for m in S._mutations(heights, d.meta["direction"])[kind]]
    old.append(next(v for v in more if v not in old and S.mirror(v, width) not in old))
    scores = S.structural_scores(old, width)
    assert scores[0] == 3 and max(scores[1:]) < 3


def test_solids_readable(drafts):
    """Every column's top (or empty floor cell) shows in the drawing, by both methods."""
    for d in drafts["projection"]:
        heights = S.heights_of(d.meta["voxels"], d.meta["base"])
        pixels = S.top_visibility(heights)
        rays = S._ray_visibility({tuple(v) for v in d.meta["voxels"]}, d.meta["base"])
        assert min(pixels.values()) >= S.MIN_VISIBLE and min(rays.values()) >= S.MIN_VISIBLE


# --------------------------------------------------------------------------- hand-worked cases


def test_hand_views():
    heights = [[1, 2], [3, 0]]  # heights[x][y]: x to the right, y backwards
    assert S.view(heights, "front") == {(0, 0), (0, 1), (1, 0), (1, 1), (1, 2)}  # columns 2, 3
    assert S.view(heights, "left") == {(0, 0), (0, 1), (1, 0), (1, 1), (1, 2)}  # back 2, front 3 (on the right)
    assert S.view(heights, "top") == {(0, 0), (0, 1), (1, 0)}
    assert S.mirror(S.view(heights, "front"), 2) == {(1, 0), (1, 1), (0, 0), (0, 1), (0, 2)}


def test_hand_surface_area_and_count():
    # an L of three cubes on the floor (the front-left cell empty) and one on top of its
    # back-right corner: 4 cubes, 6*4 - 2*3 shared faces = 18
    meta = {"sub_field": "geometry", "question_kind": "surface-area", "edge": 1, "base": [2, 2],
            "voxels": [[1, 0, 0], [0, 1, 0], [1, 1, 0], [1, 1, 1]]}
    options = ["16", "18", "20", "22"]
    assert S.check("solid-structure", "q", options, "18", meta) is None
    assert S.surface_faces(S.heights_of(meta["voxels"], meta["base"])) == 18
    meta["question_kind"] = "count"
    assert S.check("solid-structure", "q", ["3", "4", "5", "6"], "4", meta) is None
    meta.update(question_kind="volume", edge=2)
    assert S.check("solid-structure", "cubes with edges of 2 cm", ["24", "32", "40", "48"], "32", meta) is None


def test_hidden_column_is_caught():
    # a column of 3 at the front-left corner hides the empty floor cell diagonally behind it
    meta = {"sub_field": "geometry", "question_kind": "count", "base": [2, 2],
            "voxels": [[0, 0, 0], [0, 0, 1], [0, 0, 2], [1, 0, 0], [0, 1, 0]]}
    assert "hidden" in S.check("solid-structure", "q", ["4", "5", "6", "7"], "5", meta)
    assert S.top_visibility(S.heights_of(meta["voxels"], meta["base"]))[(1, 1)] < S.MIN_VISIBLE
    assert not S.acceptable(S.heights_of(meta["voxels"], meta["base"]))


def test_cross_net_opposites():
    # the Latin cross: a row of four, one square above and one below the second
    cells = [[0, 1], [1, 1], [2, 1], [3, 1], [1, 0], [1, 2]]
    labels = ["E", "F", "G", "H", "K", "L"]
    orient = S.roll_faces([tuple(c) for c in cells])
    face_square = {o["bottom"]: c for c, o in orient.items()}
    opposite = {c: face_square[o["top"]] for c, o in orient.items()}
    assert opposite[(0, 1)] == (2, 1) and opposite[(1, 1)] == (3, 1) and opposite[(1, 0)] == (1, 2)
    meta = {"sub_field": "geometry", "question_kind": "opposite-face", "cells": cells, "labels": labels, "asked": "E"}
    q = "Which face is opposite the face marked E?"
    assert S.check("solid-structure", q, ["Face F", "Face G", "Face K", "Face L"], "Face G", meta) is None
    assert S.check("solid-structure", q, ["Face F", "Face G", "Face K", "Face L"], "Face F", meta)
    assert S.check("solid-structure", q, ["Face E", "Face G", "Face K", "Face L"], "Face G", meta)


def test_eleven_nets():
    shapes = {((0, 0),)}
    for _ in range(5):
        shapes = {S.normalise(s + (n,)) for s in shapes for c in s
                  for n in ((c[0] + 1, c[1]), (c[0] - 1, c[1]), (c[0], c[1] + 1), (c[0], c[1] - 1)) if n not in s}
    free = {min(S.transformed(s, k) for k in range(8)) for s in shapes}
    assert len(shapes) == 216 and len(free) == 35
    assert sum(S.folds(list(s)) for s in free) == 11
    # the rotation-matrix fold of check agrees on every hexomino
    assert all(S.folds(list(s)) == (len(set(S._rotation_normals(list(s)).values())) == 6) for s in free)
    nets, others = S.hexominoes()
    assert len(nets) == 11 and not any(S.folds(list(s)) for s in others)


# --------------------------------------------------------------------------- the check catches errors


def _first(drafts, task, kind):
    return next(d for d in drafts[task] if d.meta["question_kind"] == kind)


@pytest.mark.parametrize("kind", S.STRUCTURE_KINDS)
def test_check_catches_wrong_answer_and_options(drafts, kind):
    d = _first(drafts, "solid-structure", kind)
    wrong = next(o for o in d.options if o != d.answer)
    assert S.check("solid-structure", d.question, d.options, wrong, d.meta)
    duplicated = [o if o != wrong else d.answer for o in d.options]
    assert S.check("solid-structure", d.question, duplicated, d.answer, d.meta)
    if kind == "which-net":  # a second net among the figures
        meta = copy.deepcopy(d.meta)
        k = (d.options.index(d.answer) + 1) % 4
        meta["figures"][k] = meta["figures"][d.options.index(d.answer)]
        assert S.check("solid-structure", d.question, d.options, d.answer, meta)
    elif kind != "opposite-face":  # a cube more in the solid
        meta = copy.deepcopy(d.meta)
        top = max(meta["voxels"], key=lambda v: (-v[2], v))  # a floor cube: put one on its column
        column = [v for v in meta["voxels"] if v[:2] == top[:2]]
        meta["voxels"].append([top[0], top[1], len(column)])
        assert S.check("solid-structure", d.question, d.options, d.answer, meta)


def test_check_catches_bad_panels(drafts):
    d = drafts["projection"][0]
    right = d.options.index(d.answer)
    other = (right + 1) % 4
    meta = copy.deepcopy(d.meta)
    meta["panels"][other] = meta["panels"][right]  # two right views
    assert S.check("projection", d.question, d.options, d.answer, meta)
    meta = copy.deepcopy(d.meta)
    meta["panels"][other] = [c for c in meta["panels"][right]][:-2]  # two cells off
    assert S.check("projection", d.question, d.options, d.answer, meta)
    # the old, asymmetric set: the mirror of the one-cell panel replaced by another one-cell change
    meta = copy.deepcopy(d.meta)
    k = meta["distractor_kinds"].index("mirror of one cell")
    heights = S.heights_of(meta["voxels"], meta["base"])
    taken = [set(map(tuple, p)) for p in meta["panels"]]
    meta["panels"][k] = next([list(c) for c in sorted(v)] for kind in S.CHANGES
                             for m in S._mutations(heights, meta["direction"])[kind]
                             for v in [S.view(m, meta["direction"])] if set(v) not in taken)
    assert "mirror" in S.check("projection", d.question, d.options, d.answer, meta)
    meta = copy.deepcopy(d.meta)  # the labels swapped
    a, b = meta["distractor_kinds"].index("mirror"), meta["distractor_kinds"].index("one cell")
    meta["distractor_kinds"][a], meta["distractor_kinds"][b] = "one cell", "mirror"
    assert S.check("projection", d.question, d.options, d.answer, meta)
    meta = copy.deepcopy(d.meta)  # the wrong change recorded
    meta["change"] = "removed" if meta["change"] == "added" else "added"
    assert S.check("projection", d.question, d.options, d.answer, meta)
    assert S.check("projection", d.question, d.options, d.options[other], d.meta)
    asked = d.meta["direction"]
    other_direction = next(x for x in S.DIRECTIONS if x != asked)
    assert S.check("projection", d.question.replace(f"from the {asked}", f"from the {other_direction}"),
                   d.options, d.answer, d.meta)
