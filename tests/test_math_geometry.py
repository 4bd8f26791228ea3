"""Plane geometry of the mathematics domain: every generated answer agrees with the
independent check, hand-worked cases, the injected definition errors are confirmed,
the check catches wrong answers and distractors, pictures are reproducible."""

from __future__ import annotations

import io
import json
import random
import types
from collections import Counter
from fractions import Fraction

import pytest
import sympy as sp
from PIL import Image

from cogforge.core.positions import Positions
from cogforge.generators.symbols import _geometry as geo
from cogforge.generators.symbols._mathbase import SIZE

COUNTS = {"shape": 42, "elements": 40, "geometry-quantity": 48, "geometry-relation": 40, "definition-check": 40}


def _ctx():
    return types.SimpleNamespace(positions=Positions(), dropped=Counter())


@pytest.fixture(scope="module")
def drafts() -> dict:
    return {task: geo.TASKS[task].make(_ctx(), n, random.Random(f"geometry {task}")) for task, n in COUNTS.items()}


@pytest.mark.parametrize("task", list(COUNTS))
def test_every_draft_agrees_with_check(drafts, task):
    made = drafts[task]
    assert len(made) == COUNTS[task]
    spec = geo.TASKS[task]
    for d in made:
        assert geo.check(task, d.question, d.options, d.answer, d.meta) is None, (d.answer, d.meta)
        json.dumps(d.meta)
        assert d.meta["sub_field"] == "geometry" and d.meta["question_kind"]
        assert d.unit.startswith("figure:")
        if spec.mcq:
            assert d.answer in d.options and len(set(d.options)) == len(d.options)
            assert len(d.options) == (2 if task == "definition-check" else 4)
            assert all(o in d.question for o in d.options)
        else:
            assert d.options is None and d.meta["answer_format"] == "exact"
            assert str(sp.sympify(d.answer)) == d.answer  # canonical sympy text
    kinds = Counter(d.meta["question_kind"] for d in made)
    assert max(kinds.values()) - min(kinds.values()) <= 1  # kinds take turns


def test_same_seed_same_drafts():
    a = geo.make_shape(_ctx(), 8, random.Random(3))
    b = geo.make_shape(_ctx(), 8, random.Random(3))
    assert [(d.question, d.answer, d.meta) for d in a] == [(d.question, d.answer, d.meta) for d in b]


# ----------------------------------------------------------------------------- hand-worked cases


def test_quadrilateral_names_by_hand():
    assert geo._quadrilateral_names([(0, 0), (2, 0), (2, 2), (0, 2)]) == {"square", "rectangle", "rhombus",
                                                                          "parallelogram"}
    assert geo._quadrilateral_names([(0, 0), (4, 0), (3, 2), (1, 2)]) == {"trapezoid", "isosceles-trapezoid"}
    assert geo._quadrilateral_names([(0, 0), (5, 0), (4, 2), (1, 3)]) == set()
    assert geo._quadrilateral_names([(0, 3), (2, 0), (0, -1), (-2, 0)]) == {"kite"}
    assert geo._quadrilateral_names([(0, 0), (5, 0), (8, 4), (3, 4)]) == {"rhombus", "parallelogram"}


def test_triangle_names_by_hand():
    assert geo._triangle_names([("0", "0"), ("4", "0"), ("0", "3")]) == {"right-scalene"}
    assert geo._triangle_names([("0", "0"), ("2", "0"), ("1", "sqrt(3)")]) == {"equilateral", "acute-isosceles"}
    assert geo._triangle_names([("-3", "0"), ("3", "0"), ("0", "1")]) == {"obtuse-isosceles"}


def test_counting_triangles_by_hand():
    f = Fraction
    pts = {"A": (f(2), f(4)), "B": (f(0), f(0)), "C": (f(6), f(0)), "D": (f(3), f(0)), "E": (f(4), f(2))}
    # a cevian from A and one from B: ABC, ABD, ADC, ABE, BEC and the three around their crossing
    assert geo.count_triangles(pts, [["A", "B"], ["B", "C"], ["C", "A"], ["A", "D"], ["B", "E"]]) == 8
    # two cevians from A: C(4, 2) = 6; with the midline as well: twice that
    pts2 = {"A": (f(2), f(4)), "B": (f(0), f(0)), "C": (f(6), f(0)), "X1": (f(2), f(0)), "X2": (f(4), f(0)),
            "P1": (f(1), f(2)), "Q1": (f(4), f(2))}
    sides = [["A", "B"], ["B", "C"], ["C", "A"], ["A", "X1"], ["A", "X2"]]
    assert geo.count_triangles(pts2, sides) == 6
    assert geo.count_triangles(pts2, sides + [["P1", "Q1"]]) == 12


def test_cevian_feet_by_hand():
    # AB = 13, AC = 20, BC = 21: altitude foot at 5, angle bisector's at 21 * 13 / 33 = 91/11, median's at 21/2
    meta = {"sub_field": "geometry", "question_kind": "bisector",
            "points": {"A": ["5", "12"], "B": ["0", "0"], "C": ["21", "0"], "D": ["5", "0"], "E": ["91/11", "0"],
                       "F": ["21/2", "0"], "G": ["16", "0"]},
            "figure": {"right": [["D", "A", "C"]], "ticks": [["B", "F", 1], ["F", "C", 1]],
                       "arcs": [["A", "B", "E", 1], ["A", "E", "C", 1]]}}
    options = ["AD", "AE", "AF", "AG"]
    assert geo.check("elements", "", options, "AE", meta) is None
    assert geo.check("elements", "", options, "AF", meta) is not None
    assert geo.check("elements", "", options, "AD", meta | {"question_kind": "altitude"}) is None
    assert geo.check("elements", "", options, "AF", meta | {"question_kind": "median"}) is None
    # the 13-14-15 triangle's bisector and median feet (13/2 and 7) are too close to tell apart
    close = meta | {"points": meta["points"] | {"C": ["14", "0"], "E": ["13/2", "0"], "F": ["7", "0"],
                                                "G": ["11", "0"]}}
    assert "4 %" in geo.check("elements", "", options, "AE", close)


def test_quantity_formulas_by_hand():
    g = lambda **kw: {k: sp.Integer(v) for k, v in kw.items()}  # noqa: E731
    assert geo._quantity_formula("sector", g(r=5, theta=90), {}) == 25 * sp.pi / 4
    assert geo._quantity_formula("pythagoras-hypotenuse", g(a=5, b=5), {}) == 5 * sp.sqrt(2)
    assert geo._quantity_formula("trapezoid", g(a=7, b=3, h=4), {}) == 20
    assert geo._quantity_formula("composite", g(w=6, h=7, t=2), {}) == 48
    assert geo._quantity_formula("isosceles", g(apex=40), {}) == 70
    # 30-60-90 with hypotenuse AB = 10: the side AC next to the 30-degree angle is 5*sqrt(3)
    meta = {"angles_given": {"small": 30}, "labels": [["length", ["A", "B"], "side"]],
            "target": {"length": ["A", "C"]}}
    assert geo._same(geo._quantity_formula("30-60-90", g(side=10), meta), 5 * sp.sqrt(3))
    meta = {"angles_given": {"small": 45}, "labels": [["length", ["A", "B"], "side"]],
            "target": {"length": ["B", "C"]}}
    assert geo._same(geo._quantity_formula("45-45-90", g(side=8), meta), 4 * sp.sqrt(2))


def test_quantity_answers_match_hand_formulas(drafts):
    seen = Counter()
    for d in drafts["geometry-quantity"]:
        g = {k: sp.sympify(v) for k, v in d.meta["givens"].items()}
        sub = d.meta["sub_kind"]
        seen[sub] += 1
        by_hand = {"pythagoras-hypotenuse": lambda: sp.sqrt(g["a"] ** 2 + g["b"] ** 2),
                   "triangle": lambda: g["b"] * g["h"] / 2,
                   "angle-sum": lambda: 180 - g["alpha"] - g["beta"],
                   "exterior": lambda: g["alpha"] + g["beta"]}.get(sub)
        if by_hand:
            assert sp.sympify(d.answer) == by_hand()
        assert d.answer not in d.meta["mistakes"]
    assert len(seen) == sum(len(v) for v in geo.QUANTITY_KINDS.values())  # every sub-kind made


def test_relation_solver_and_criteria_by_hand():
    sides = geo._solve("ABC", {"sides": {"AB": "5", "AC": "8"}, "angles": {"A": 60}})
    assert sp.simplify(sides["BC"] - 7) == 0  # 25 + 64 - 40 = 49
    asa = {"ABC": {"sides": {"BC": "6"}, "angles": {"B": 40, "C": 70}},
           "DEF": {"sides": {"DF": "6"}, "angles": {"D": 40, "F": 70}}}
    assert geo._criteria(asa) == ({"ASA"}, {"AA"})
    sas_similar = {"ABC": {"sides": {"AB": "4", "AC": "6"}, "angles": {"A": 50}},
                   "DEF": {"sides": {"EF": "9", "DE": "6"}, "angles": {"E": 50}}}
    assert geo._criteria(sas_similar) == (set(), {"SAS"})
    rhs = {"ABC": {"sides": {"AB": "13", "BC": "5"}, "angles": {"C": 90}},
           "DEF": {"sides": {"DE": "13", "EF": "5"}, "angles": {"F": 90}}}
    assert geo._criteria(rhs)[0] == {"RHS"}


# ----------------------------------------------------------------------------- L3 errors


def test_definition_errors_are_confirmed(drafts):
    made = drafts["definition-check"]
    answers = Counter(d.answer for d in made)
    assert answers["Yes"] == answers["No"]
    errors = Counter(d.meta["error_type"] for d in made if d.meta["error_type"] != "none")
    assert set(errors) == set(geo.DEFINITION_ERRORS)
    assert max(errors.values()) - min(errors.values()) <= 1
    for d in made:
        found = geo._violations(d.meta["family"], d.meta["marks"])
        if d.meta["error_type"] == "none":
            assert found == [] and d.answer == "Yes"
        else:
            assert found == [d.meta["error_type"]] and d.answer == "No"
    families = Counter(d.meta["family"] for d in made if d.meta["error_type"] == "none")
    assert set(families) == set(geo.DEFINITION_FAMILIES)  # consistent items span every family


def test_check_catches_a_definition_item_whose_error_is_undone(drafts):
    d = next(x for x in drafts["definition-check"] if x.meta["error_type"] == "angle sum")
    meta = json.loads(json.dumps(d.meta))
    angles = meta["marks"]["angles"]
    angles["A"] = 180 - angles["B"] - angles["C"]
    assert geo.check("definition-check", d.question, d.options, d.answer, meta) is not None
    assert geo.check("definition-check", d.question, d.options, "Yes", d.meta) is not None


# ----------------------------------------------------------------------------- the check catches mistakes


@pytest.mark.parametrize("task", ["shape", "elements", "geometry-relation", "definition-check"])
def test_check_catches_a_wrong_answer_and_a_duplicate_option(drafts, task):
    for d in drafts[task][:8]:
        wrong = next(o for o in d.options if o != d.answer)
        assert geo.check(task, d.question, d.options, wrong, d.meta) is not None
        if len(d.options) == 4:
            dup = [d.answer if o == wrong else o for o in d.options]
            assert geo.check(task, d.question, dup, d.answer, d.meta) is not None


def test_check_catches_a_distractor_that_is_also_true(drafts):
    square = next(d for d in drafts["shape"] if d.answer == "square")
    options = [o for o in square.options if o != "square"][:2] + ["square", "rectangle"]
    assert geo.check("shape", square.question, options, "square", square.meta) is not None
    equilateral = next(d for d in drafts["shape"] if d.answer == "equilateral triangle")
    options = ["equilateral triangle", "acute isosceles triangle", "right scalene triangle", "obtuse scalene triangle"]
    assert geo.check("shape", equilateral.question, options, equilateral.answer, equilateral.meta) is not None
    altitude = next(d for d in drafts["elements"] if d.meta["question_kind"] == "altitude")
    assert geo.check("elements", altitude.question, altitude.options[:3] + ["AB"], altitude.answer,
                     altitude.meta) is not None


def test_check_catches_a_wrong_free_answer(drafts):
    for d in drafts["geometry-quantity"][:12]:
        assert geo.check("geometry-quantity", d.question, None, str(sp.sympify(d.answer) + 1), d.meta) is not None
        if d.meta["mistakes"]:
            assert geo.check("geometry-quantity", d.question, None, d.meta["mistakes"][0], d.meta) is not None
        bad = json.loads(json.dumps(d.meta))
        bad["mistakes"] = bad["mistakes"] + [d.answer]
        assert geo.check("geometry-quantity", d.question, None, d.answer, bad) is not None


def test_check_catches_a_figure_that_disagrees_with_its_labels(drafts):
    d = drafts["geometry-quantity"][0]
    meta = json.loads(json.dumps(d.meta))
    for p in meta["figure"]["points"].values():
        p[0] *= 1.2  # stretched: the drawn lengths no longer match the givens
    assert geo.check("geometry-quantity", d.question, None, d.answer, meta) is not None


# ----------------------------------------------------------------------------- pictures and positions


@pytest.mark.parametrize("task", list(COUNTS))
def test_pictures_are_reproducible(drafts, task):
    for d in drafts[task][:3]:
        lazy = d.images[0]()
        assert geo.pictures(task, d.meta) == [lazy] == [geo.pictures(task, json.loads(json.dumps(d.meta)))[0]]
        image = Image.open(io.BytesIO(lazy))
        assert image.size == (SIZE, SIZE) and not image.text


@pytest.mark.parametrize("task", ["shape", "elements", "geometry-relation"])
def test_answer_positions_are_spread(drafts, task):
    positions = Counter(d.options.index(d.answer) for d in drafts[task])
    assert set(positions) == {0, 1, 2, 3}
    assert max(positions.values()) - min(positions.values()) <= 4
