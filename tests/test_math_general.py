"""General mathematics of the symbols benchmark (generators/symbols/_general.py): every
draft agrees with the independent sympy check, hand-worked cases, the injected claims
of the L3 task confirmed, the check catching wrong answers and options, reproducible
pictures, balanced answer positions."""

from __future__ import annotations

import io
import random
import types
from collections import Counter

import pytest
from PIL import Image

from cogforge.core.positions import Positions
from cogforge.generators.symbols import _general as gen
from cogforge.generators.symbols._mathbase import SIZE
from cogforge.generators.symbols._molecules import png_text_chunks

N = 40


def _ctx():
    return types.SimpleNamespace(positions=Positions(), dropped=Counter())


@pytest.fixture(scope="module")
def drafts() -> dict[str, list]:
    return {task: t.make(_ctx(), N, random.Random(f"test:{task}")) for task, t in gen.TASKS.items()}


# --------------------------------------------------------------------------- the contract


def test_tasks_and_symbol_table():
    assert {name: (t.level, t.paper, t.mcq, t.filtered) for name, t in gen.TASKS.items()} == {
        "notation": (1, "Math T5", True, False), "combined": (2, "Math T12", False, False),
        "analysis": (3, "Math T17", False, False)}
    meanings = [m for _s, m, _g in gen.SYMBOLS]
    assert len(set(meanings)) == len(meanings), "two symbols share a meaning"
    assert len({s for s, _m, _g in gen.SYMBOLS}) == len(gen.SYMBOLS)
    assert min(Counter(g for _s, _m, g in gen.SYMBOLS).values()) >= 4  # three distractors from the group


@pytest.mark.parametrize("task", list(gen.TASKS))
def test_every_draft_agrees_with_the_check(drafts, task):
    made = drafts[task]
    assert len(made) == N
    for d in made:
        assert gen.check(task, d.question, d.options, d.answer, d.meta) is None, (d.question, d.answer, d.meta)
        assert d.meta["sub_field"] == "general"
        if d.options is None:
            assert d.meta["answer_format"] == "exact" and "\nA. " not in d.question
        else:
            assert len(set(d.options)) == len(d.options) in (2, 4) and d.answer in d.options
            assert "answer_format" not in d.meta
    kinds = Counter(d.meta["question_kind"] for d in made)
    assert max(kinds.values()) - min(kinds.values()) <= {"analysis": 8}.get(task, 1), kinds  # kinds in turn


def test_mixed_task_options_per_item(drafts):
    by_kind = {d.meta["question_kind"]: d.options is not None for d in drafts["analysis"]}
    assert by_kind == {"derivative": False, "integral": False, "limit": False, "solutions": True, "claim": True}
    assert all(d.options is None for d in drafts["combined"])
    assert all(d.options for d in drafts["notation"])


def test_reproducible(drafts):
    for task, t in gen.TASKS.items():
        again = t.make(_ctx(), N, random.Random(f"test:{task}"))
        assert [(d.question, d.answer, d.options, d.meta, d.unit) for d in again] == \
            [(d.question, d.answer, d.options, d.meta, d.unit) for d in drafts[task]]


def test_pictures_redraw_from_meta(drafts):
    for task, made in drafts.items():
        for d in made[:8]:
            lazy = d.images[0]()
            assert gen.pictures(task, d.meta) == [lazy] == gen.pictures(task, d.meta)
            assert not png_text_chunks(lazy)
            assert Image.open(io.BytesIO(lazy)).size == (SIZE, SIZE)


def test_answer_positions_spread(drafts):
    for task in ("notation", "analysis"):
        positions = Counter(d.options.index(d.answer) for d in drafts[task] if d.options and len(d.options) == 4)
        assert len(positions) == 4 and max(positions.values()) - min(positions.values()) <= 2, (task, positions)
    claims = Counter(d.answer for d in drafts["analysis"] if d.meta["question_kind"] == "claim")
    assert abs(claims["Yes"] - claims["No"]) <= 1


def test_symbols_are_drawn_large():
    """The ink of a lone symbol spans at least 60 pixels (the smallest glyphs grow to 200 pt)."""
    import numpy as np
    for source in (r"\in", r"<", r"\neg", r"\therefore", r"\sum_{k=1}^{8} k"):
        pixels = np.asarray(Image.open(io.BytesIO(gen.render_math(source))).convert("L")) < 128
        rows, cols = np.nonzero(pixels.any(axis=1))[0], np.nonzero(pixels.any(axis=0))[0]
        assert max(rows[-1] - rows[0], cols[-1] - cols[0]) >= 60, source


# --------------------------------------------------------------------------- hand-worked cases


def _value_item(expr: str, answer: str, others: list[str]) -> tuple:
    meta = {"sub_field": "general", "question_kind": "value", "source": "", "expr": expr, "template": ""}
    options = [answer] + others
    return gen.mcq_prompt(gen.PROMPTS["value"], options), options, answer, meta


@pytest.mark.parametrize("expr, answer, others", [
    ("binomial(5, 2)", "10", ["20", "7", "5"]),  # 5*4/2, not the 20 ordered pairs
    ("floor(Rational(-23, 10))", "-3", ["-2", "2", "-4"]),  # floor of -2.3 is -3, not the truncation -2
    ("Limit(sin(3*x)/x, x, 0)", "3", ["0", "1", "1/3"]),
    ("log(8, 2)", "3", ["4", "2", "256"]),
    ("2**(-3)", "1/8", ["-8", "-6", "1/6"]),
    ("factorial(0)", "1", ["0", "2", "-1"]),
])
def test_hand_worked_values(expr, answer, others):
    question, options, answer, meta = _value_item(expr, answer, others)
    assert gen.check("notation", question, options, answer, meta) is None


def test_hand_worked_combined():
    # the line through (4, 0) and (0, -3) cuts a right triangle of legs 4 and 3 off the axes
    meta = {"sub_field": "general", "question_kind": "axes-triangle", "answer_format": "exact",
            "line": "3*x/4 - 3", "points": [[4, 0], [0, -3]]}
    assert gen.check("combined", "", None, "6", meta) is None
    # y = x^2 - 2x - 3 meets y = x + 1 at (-1, 0) and (4, 5): triangle OPQ has area 5/2, PQ = 5*sqrt(2)
    meta = {"sub_field": "general", "question_kind": "chord-triangle", "answer_format": "exact",
            "parabola": "x**2 - 2*x - 3", "line": "x + 1", "points": [[-1, 0], [4, 5]]}
    assert gen.check("combined", "", None, "5/2", meta) is None
    assert gen.check("combined", "", None, "5*sqrt(2)", meta | {"question_kind": "distance"}) is None
    assert gen.check("combined", "", None, "5", meta) is not None  # the forgotten factor 1/2
    # lines through (-2, 0) and (3, 0) meeting at (1, 3): base 5, height 3
    meta = {"sub_field": "general", "question_kind": "two-lines", "answer_format": "exact",
            "lines": ["x + 2", "-3*x/2 + 9/2"], "points": [[-2, 0], [3, 0], [1, 3]]}
    assert gen.check("combined", "", None, "15/2", meta) is None
    meta = {"sub_field": "general", "question_kind": "slope", "answer_format": "exact",
            "parabola": "x**2/2", "points": [[-2, 2], [4, 8]]}
    assert gen.check("combined", "", None, "1", meta) is not None  # (4, 8) lies outside the window
    meta["points"] = [[0, 0], [2, 2]]
    assert gen.check("combined", "", None, "1", meta) is None


POLY = [[-4, 3], [-1, 0], [1, -2], [4, 1]]  # signed integral over [-4, 4]: 9/2 - 2 - 3/2 = 1; |f|: 9


def _analysis(kind: str, **meta) -> dict:
    return {"sub_field": "general", "question_kind": kind, "window": list(gen.WINDOW), **meta}


def test_hand_worked_analysis():
    assert gen.check("analysis", "", None, "1", _analysis("integral", vertices=POLY, a=-4, b=4,
                                                              answer_format="exact")) is None
    assert gen.check("analysis", "", None, "9", _analysis("integral", vertices=POLY, a=-4, b=4,
                                                              answer_format="exact")) is not None
    f = {"f": "2 + (3)/(x - (1))**1", "p": 2, "r": 1, "m": 3, "e": 1, "answer_format": "exact"}
    for place, answer in (("+oo", "2"), ("-oo", "2"), ("right", "oo"), ("left", "-oo")):
        question = "... as " + gen.LIMIT_PLACES[place].format(r=1) + "?"
        assert gen.check("analysis", question, None, answer, _analysis("limit", place=place, **f)) is None
    # f = x^2/2 - 2x + 3/2 passes through P(3, 0); f'(3) = 3 - 2 = 1, so the tangent there is y = x - 3
    meta = _analysis("derivative", a=3, f="x**2/2 - 2*x + 3/2", tangent="x - 3", points=[[3, 0]],
                     answer_format="exact")
    assert gen.check("analysis", "", None, "1", meta) is None
    assert gen.check("analysis", "", None, "-1", meta) is not None
    tent = [[-4, 0], [-2, 4], [0, 0], [2, 4], [4, 0]]
    for k, n in ((2, 4), (4, 2), (0, 3), (5, 0)):
        options = ["0", "1", "2", "3", "4"][:4] if n < 4 else ["1", "2", "3", "4"]
        assert gen.check("analysis", "", options, str(n), _analysis("solutions", vertices=tent, k=k)) is None


@pytest.mark.parametrize("claim, error, answer", [
    ({"template": "integral", "a": -4, "b": 4, "value": "1"}, "none", "Yes"),
    ({"template": "integral", "a": -4, "b": 4, "value": "9"}, "sign of area below the axis ignored", "No"),
    ({"template": "monotone", "sign": -1, "interval": [-4, 1]}, "none", "Yes"),
    ({"template": "monotone", "sign": -1, "interval": [-4, 2]}, "endpoint misread", "No"),
    ({"template": "extremum", "sign": 1, "value": 3}, "none", "Yes"),
])
def test_hand_worked_claims(claim, error, answer):
    meta = _analysis("claim", vertices=POLY, claim=claim | {"text": ""}, error_type=error)
    assert gen.check("analysis", "", gen.YES_NO, answer, meta) is None
    assert gen.check("analysis", "", gen.YES_NO, {"Yes": "No", "No": "Yes"}[answer], meta) is not None


def test_local_extremum_taken_as_global():
    zigzag = [[-4, 0], [-2, 3], [0, -1], [2, 5], [4, 1]]  # local maxima 3 and 5; the maximum is 5
    meta = _analysis("claim", vertices=zigzag, claim={"template": "extremum", "sign": 1, "value": 3, "text": ""},
                     error_type="local extremum taken as global")
    assert gen.check("analysis", "", gen.YES_NO, "No", meta) is None
    # a wrong value that is no local maximum is not the named mistake
    assert gen.check("analysis", "", gen.YES_NO, "No", meta | {"claim": meta["claim"] | {"value": 4}}) is not None


# --------------------------------------------------------------------------- L3 injected claims


def test_claims_balanced_and_confirmed():
    made = gen.make_analysis(_ctx(), 90, random.Random("claims"))
    claims = [d for d in made if d.meta["question_kind"] == "claim"]
    errors = Counter(d.meta["error_type"] for d in claims)
    assert errors["none"] == len(claims) // 2 and all(d.answer == "Yes" for d in claims if
                                                      d.meta["error_type"] == "none")
    wrong = Counter({e: n for e, n in errors.items() if e != "none"})
    assert set(wrong) == set(gen.ANALYSIS_ERRORS) and max(wrong.values()) - min(wrong.values()) <= 1, wrong
    for d in claims:
        assert gen.check("analysis", d.question, d.options, d.answer, d.meta) is None
        if d.meta["error_type"] == "none":  # calling a consistent claim a mistake is caught
            bad = d.meta | {"error_type": "endpoint misread"}
            assert gen.check("analysis", d.question, d.options, "No", bad) is not None
        else:  # an injected error called consistent, or named as another mistake, is caught
            assert gen.check("analysis", d.question, d.options, "Yes", d.meta | {"error_type": "none"}) is not None
            other = next(e for e in gen.ANALYSIS_ERRORS if e != d.meta["error_type"])
            assert gen.check("analysis", d.question, d.options, "No", d.meta | {"error_type": other}) is not None


# --------------------------------------------------------------------------- the check catches mistakes


def test_check_catches_wrong_answers_and_options(drafts):
    for d in drafts["notation"]:
        wrong = next(o for o in d.options if o != d.answer)
        assert gen.check("notation", d.question, d.options, wrong, d.meta) is not None
        duplicate = [d.answer if o == wrong else o for o in d.options]  # a distractor equal to the answer
        assert gen.check("notation", d.question, duplicate, d.answer, d.meta) is not None
        if d.meta["question_kind"] == "value":  # equal in value though written otherwise
            same = [f"({d.answer})*2/2" if o == wrong else o for o in d.options]
            assert gen.check("notation", d.question, same, d.answer, d.meta) is not None
        else:  # a distractor that is no meaning of the table
            assert gen.check("notation", d.question, [("is equal to" if o == wrong else o) for o in d.options],
                             d.answer, d.meta) is not None
    for d in drafts["combined"]:
        assert gen.check("combined", d.question, None, f"({d.answer}) + 1", d.meta) is not None
        assert gen.check("combined", d.question, None, f"({d.answer}) - 1/2", d.meta) is not None
    for d in drafts["analysis"]:
        if d.options is None:
            assert gen.check("analysis", d.question, None, f"({d.answer}) + 1" if d.answer not in ("oo", "-oo")
                             else {"oo": "-oo", "-oo": "oo"}[d.answer], d.meta) is not None
        elif d.meta["question_kind"] == "solutions":
            wrong = next(o for o in d.options if o != d.answer)
            assert gen.check("analysis", d.question, d.options, wrong, d.meta) is not None
            assert gen.check("analysis", d.question, [d.answer] * 4, d.answer, d.meta) is not None


def test_value_distractors_are_not_the_centre():
    """Distractors made from the answer (1/8 beside 1/6 and -8) share its digits; the
    chosen triples keep the option-only cues near chance."""
    made = gen.make_notation(_ctx(), 200, random.Random("cues"))
    values = [d for d in made if d.meta["question_kind"] == "value"]
    for cue in range(len(gen.CUES)):
        rate = sum(gen._cue_picks(d.options)[cue] == d.answer for d in values) / len(values)
        assert abs(rate - 0.25) < 0.06, (gen.CUES[cue], rate)


def test_claim_text_does_not_tell():
    """A round's correct and wrong claims state the same value (or interval length), so a
    claim's text alone does not say whether it holds."""
    made = gen.make_analysis(_ctx(), 72, random.Random("claim text"))  # 24 claims: 4 full rounds

    def stated(c):
        return (c["template"], c.get("sign"), c.get("value"), c["interval"][1] - c["interval"][0]
                if "interval" in c else None)
    claims = [d for d in made if d.meta["question_kind"] == "claim"]
    assert len(claims) == 24
    assert Counter(stated(d.meta["claim"]) for d in claims if d.answer == "Yes") == \
        Counter(stated(d.meta["claim"]) for d in claims if d.answer == "No")
