"""Function plots of the mathematics domain (generators/symbols/_functions/): every
answer re-derived by ``check``, hand-worked cases, injected inconsistencies confirmed,
wrong answers and bad distractors caught, pictures reproducible, positions balanced."""

from __future__ import annotations

import io
import json
import random
import types
from collections import Counter
from fractions import Fraction as F

import pytest
from PIL import Image

from cogforge.core.positions import Positions
from cogforge.generators.symbols import _functions as fx
from cogforge.generators.symbols import _mathbase as mb
from cogforge.generators.symbols import mcq_prompt

N = 40
YES_NO_TASKS = ("plot-consistency", "vertical-line")


@pytest.fixture(scope="module")
def drafts() -> dict:
    ctx = types.SimpleNamespace(positions=Positions(), dropped=Counter())
    return {name: task.make(ctx, N, random.Random(2024)) for name, task in fx.TASKS.items()}


def _meta(kind: str, shape: dict, **extra) -> dict:
    return fx._meta(kind, shape, fx.plot_of(shape, fx.W6), **extra)


# --------------------------------------------------------------------------- contract


def test_tasks_table():
    assert set(fx.TASKS) == {"keypoints", "function-type", "monotonicity", "global-properties", "domain-value",
                             "plot-consistency", "vertical-line"}
    papers = {name: (t.paper, t.level, t.mcq, t.filtered) for name, t in fx.TASKS.items()}
    assert papers["keypoints"] == ("Math T1", 1, True, True)
    assert papers["function-type"] == ("Math T2", 1, True, True)
    assert papers["monotonicity"] == ("Math T6", 2, True, True)
    assert papers["global-properties"] == ("Math T7", 2, True, False)
    assert papers["domain-value"] == ("Math T8", 2, False, False)
    assert papers["plot-consistency"] == ("Math T13", 3, True, False)
    assert papers["vertical-line"] == ("Math T14", 3, True, False)


def test_counts_meta_and_options(drafts):
    for name, ds in drafts.items():
        assert len(ds) == N, name
        for d in ds:
            json.dumps(d.meta)
            assert d.meta["sub_field"] == "function" and d.meta["question_kind"]
            assert d.unit.startswith(("function:", "curve:"))
            if fx.TASKS[name].mcq:
                assert len(d.options) == (2 if name in YES_NO_TASKS else 4)
                assert len(set(d.options)) == len(d.options) and d.answer in d.options
                assert d.question == mcq_prompt(d.question.split("\n")[0], d.options)
            else:
                assert d.options is None
                assert d.question.endswith(mb.format_text(d.meta["answer_format"], d.answer))
            if fx.TASKS[name].level == 3:
                assert d.options == ["Yes", "No"] and "error_type" in d.meta


def test_deterministic():
    def make():
        ctx = types.SimpleNamespace(positions=Positions(), dropped=Counter())
        return [(d.question, d.answer, json.dumps(d.meta, sort_keys=True))
                for name, task in fx.TASKS.items() for d in task.make(ctx, 12, random.Random(9))]
    assert make() == make()


# --------------------------------------------------------------------------- answers agree with check


def test_every_answer_agrees_with_check(drafts):
    for name, ds in drafts.items():
        for d in ds:
            assert fx.check(name, d.question, d.options, d.answer, d.meta) is None, (name, d.meta, d.answer)


def test_kinds_take_turns(drafts):
    kinds = {name: Counter(d.meta["question_kind"] for d in ds) for name, ds in drafts.items()}
    assert set(kinds["keypoints"]) == set(fx.KEYPOINT_KINDS)
    assert max(kinds["keypoints"].values()) - min(kinds["keypoints"].values()) <= 1
    assert kinds["domain-value"] == Counter({"domain": 10, "range": 10, "value": 10, "zeros-count": 10})
    assert kinds["global-properties"] == Counter({"parity": 20, "period": 20})
    families = Counter(d.meta["family"] for d in drafts["function-type"])
    assert set(families) == set(fx.FAMILY_NAMES) and max(families.values()) - min(families.values()) <= 1
    periods = Counter(d.answer for d in drafts["global-properties"] if d.meta["question_kind"] == "period")
    assert periods == Counter({"2": 5, "4": 5, "6": 5, "8": 5})


# --------------------------------------------------------------------------- hand-worked cases


def test_hand_zeros_of_a_parabola():
    meta = _meta("zeros", {"kind": "quad", "a": F(1, 2), "h": 0, "k": -2})  # x**2/2 - 2: zeros -2 and 2
    assert meta["f"] == "x**2/2 - 2"
    options = ["x = -2 and x = 2", "x = 2", "x = -2 and x = 0", "x = -4 and x = 4"]
    q = mcq_prompt(fx.PROMPTS["zeros"], options)
    assert fx.check("keypoints", q, options, "x = -2 and x = 2", meta) is None
    assert fx.check("keypoints", q, options, "x = 2", meta) is not None  # one zero missing
    twice = ["x = -2 and x = 2", "x = 2 and x = -2", "x = 2", "x = -4 and x = 4"]  # the same set again
    assert "options true" in fx.check("keypoints", mcq_prompt(fx.PROMPTS["zeros"], twice), twice,
                                      "x = -2 and x = 2", meta)


def test_hand_cubic_extrema_and_inflection():
    # (x - 1)**3 - 3*(x - 1): maximum (0, 2), minimum (2, -2), inflection (1, 0)
    meta = _meta("maximum", {"kind": "cubext", "a": F(1), "d": 1, "h": 1, "k": 0})
    options = ["(0, 2)", "(2, -2)", "(2, 0)", "(1, 2)"]
    assert fx.check("keypoints", mcq_prompt(fx.PROMPTS["maximum"], options), options, "(0, 2)", meta) is None
    assert fx.check("keypoints", mcq_prompt(fx.PROMPTS["maximum"], options), options, "(2, -2)", meta)
    meta["question_kind"] = "minimum"
    assert fx.check("keypoints", mcq_prompt(fx.PROMPTS["minimum"], options), options, "(2, -2)", meta) is None
    meta["question_kind"] = "inflection"
    options = ["(1, 0)", "(0, 1)", "(1, 1)", "(2, 0)"]
    assert fx.check("keypoints", mcq_prompt(fx.PROMPTS["inflection"], options), options, "(1, 0)", meta) is None


def test_hand_y_intercept_of_a_logarithm():
    meta = _meta("y-intercept", {"kind": "log", "a": 1, "b": 2, "s": 1, "h": -4, "k": -1})  # log2(x + 4) - 1
    options = ["(0, 1)", "(0, 2)", "(0, 0)", "(0, -1)"]
    q = mcq_prompt(fx.PROMPTS["y-intercept"], options)
    assert fx.check("keypoints", q, options, "(0, 1)", meta) is None
    assert fx.check("keypoints", q, options, "(0, 2)", meta)


def test_hand_monotonicity_of_a_parabola():
    meta = _meta("monotonicity", {"kind": "quad", "a": -1, "h": 1, "k": 3}, direction="increasing")
    options = ["(-∞, 1)", "(1, 3)", "(3, 5)", "(5, ∞)"]
    q = mcq_prompt(fx.PROMPTS["monotonicity"].format(direction="increasing"), options)
    assert fx.check("monotonicity", q, options, "(-∞, 1)", meta) is None
    assert fx.check("monotonicity", q, options, "(1, 3)", meta)
    inside = ["(-∞, 1)", "(-∞, -1)", "(3, 5)", "(5, ∞)"]  # (-oo, -1) is increasing too
    assert fx.check("monotonicity", mcq_prompt(q.split("\n")[0], inside), inside, "(-∞, 1)", meta)


def _free(stem: str, fmt: str) -> str:
    return stem + " " + mb.FORMATS[fmt]


def test_hand_domain_range_value_and_zero_count():
    log = _meta("domain", {"kind": "log", "a": 1, "b": 2, "s": 1, "h": -3, "k": 0}, answer_format="interval")
    assert fx.check("domain-value", _free(fx.PROMPTS["domain"], "interval"), None, "(-3, oo)", log) is None
    assert fx.check("domain-value", _free(fx.PROMPTS["domain"], "interval"), None, "[-3, oo)", log)
    exp = _meta("range", {"kind": "exp", "a": 1, "b": 2, "s": 1, "h": 1, "k": 1}, answer_format="interval")
    assert fx.check("domain-value", _free(fx.PROMPTS["range"], "interval"), None, "(1, oo)", exp) is None
    decay = _meta("range", {"kind": "exp", "a": 1, "b": 2, "s": -1, "h": 1, "k": 0}, answer_format="interval")
    assert fx.check("domain-value", _free(fx.PROMPTS["range"], "interval"), None, "(0, oo)", decay) is None
    rat = _meta("domain", {"kind": "rat", "a": 2, "n": 1, "h": 1, "k": 3}, answer_format="interval")
    stem = _free(fx.PROMPTS["domain"], "interval")
    assert fx.check("domain-value", stem, None, "(-oo, 1) U (1, oo)", rat) is None
    v = _meta("value", {"kind": "abs", "a": 2, "h": 1, "k": -3}, answer_format="exact", at=2)
    stem = _free(fx.PROMPTS["value"].format(a=2), "exact")
    assert fx.check("domain-value", stem, None, "-1", v) is None
    assert fx.check("domain-value", stem, None, "1", v)
    # 2*sin(pi*x/2) + 1 = 0 at x = -1/3 + 4n and 7/3 + 4n: six of them in [-6, 6]
    z = _meta("zeros-count", {"kind": "trig", "fn": "sin", "A": 2, "P": 4, "phi": 0, "k": 1},
              answer_format="exact", interval=[-6, 6])
    stem = _free(fx.PROMPTS["zeros-count"].format(lo=-6, hi=6), "exact")
    assert fx.check("domain-value", stem, None, "6", z) is None
    assert fx.check("domain-value", stem, None, "5", z)


def test_hand_piecewise_value_at_a_jump():
    # x + 1 on [-4, 1), 3 - x on [1, 4]: f(1) = 2 (filled), the open end of the left piece at (1, 2) too
    s = {"kind": "pw", "pieces": [(F(1), F(-2), -4, 1, True, False), (F(-1), F(3), 1, 4, True, True)]}
    meta = _meta("value", s, answer_format="exact", at=1)
    assert {(d["x"], d["y"], d["open"]) for d in meta["plot"]["dots"]} == {
        (-4, -6, False), (1, -1, True), (1, 2, False), (4, -1, False)}
    stem = _free(fx.PROMPTS["value"].format(a=1), "exact")
    assert fx.check("domain-value", stem, None, "2", meta) is None
    assert fx.check("domain-value", stem, None, "-1", meta)  # the open dot's value


def test_hand_parity_and_period():
    cos = _meta("parity", {"kind": "trig", "fn": "cos", "A": 2, "P": 6, "phi": 0, "k": 1})
    options = ["Even, periodic", "Odd, periodic", "Even, not periodic", "Neither even nor odd, periodic"]
    q = mcq_prompt(fx.PROMPTS["parity"], options)
    assert fx.check("global-properties", q, options, "Even, periodic", cos) is None
    assert fx.check("global-properties", q, options, "Odd, periodic", cos)
    cubic = _meta("parity", {"kind": "cubext", "a": F(1, 2), "d": 1, "h": 0, "k": 0})
    options = ["Odd, not periodic", "Odd, periodic", "Even, not periodic", "Neither even nor odd, periodic"]
    assert fx.check("global-properties", mcq_prompt(fx.PROMPTS["parity"], options), options,
                    "Odd, not periodic", cubic) is None
    saw = {"kind": "saw", "m": F(3, 4), "P": 4, "x0": 1, "c": -2}
    meta = fx._meta("period", saw, fx.plot_of(saw, fx.W8), period=4)
    options = ["2", "4", "6", "8"]
    q = mcq_prompt(fx.PROMPTS["period"], options)
    assert fx.check("global-properties", q, options, "4", meta) is None
    assert fx.check("global-properties", q, options, "8", meta)  # a period, not the smallest


def test_hand_plot_consistency():
    stated = {"kind": "exp", "a": 1, "b": 2, "s": 1, "h": 1, "k": 1}
    assert fx.text_of(stated) == "2^(x - 1) + 1"
    drawn = dict(stated, h=2)  # f(x - 1) drawn
    meta = fx._meta("plot-consistency", drawn, fx.plot_of(drawn), error_type="horizontal shift",
                    formula="y = 2^(x - 1) + 1", stated=fx.canon(fx.expr_of(stated)))
    q = mcq_prompt(fx.PROMPTS["plot-consistency"].format(formula="2^(x - 1) + 1"), ["Yes", "No"])
    assert fx.check("plot-consistency", q, ["Yes", "No"], "No", meta) is None
    assert fx.check("plot-consistency", q, ["Yes", "No"], "Yes", meta)
    meta["error_type"] = "reflection"  # the wrong label is refuted
    assert "labelled error" in fx.check("plot-consistency", q, ["Yes", "No"], "No", meta)


def test_formula_texts_parse_back():
    cases = {"y = (1/2)(x - 1)^2 + 3": "(x - 1)**2/2 + 3", "y = 2sin(pi*(x - 1)/2) + 1": "2*sin(pi*(x - 1)/2) + 1",
             "y = -|x + 2| + 4": "4 - Abs(x + 2)", "y = log2(3 - x) - 1": "log(3 - x, 2) - 1",
             "y = (1/2)x(x - 2)(x + 3)": "x*(x - 2)*(x + 3)/2", "y = -2sqrt(x + 3)": "-2*sqrt(x + 3)",
             "y = 3/(x - 1)^2 - 2": "3/(x - 1)**2 - 2", "y = 2^(-x + 1)": "2**(1 - x)"}
    for text, want in cases.items():
        got = fx.parse_formula(text)
        assert fx._same_function(got, fx._sym(want), fx._probe_points(fx.W6)), text


def test_hand_vertical_line():
    circle = {"window": list(fx.W6), "params": [{"x": "3*cos(t) + 1", "y": "3*sin(t) - 1", "t0": 0, "t1": "2*pi"}]}
    meta = fx._meta("vertical-line", None, circle, error_type="circle or ellipse", curve_kind="circle or ellipse")
    q = mcq_prompt(fx.PROMPTS["vertical-line"], ["Yes", "No"])
    assert fx.check("vertical-line", q, ["Yes", "No"], "No", meta) is None
    assert fx.check("vertical-line", q, ["Yes", "No"], "Yes", meta)
    half = {"window": list(fx.W6), "pieces": [{"expr": "sqrt(9 - (x - 1)**2) - 1", "lo": -2, "hi": 4}]}
    meta = fx._meta("vertical-line", None, half, error_type="none", curve_kind="semicircle")
    assert fx.check("vertical-line", q, ["Yes", "No"], "Yes", meta) is None
    assert fx.check("vertical-line", q, ["Yes", "No"], "No", meta)


# --------------------------------------------------------------------------- the check catches mistakes


def _perturbed(answer: str) -> str:
    """A free answer made wrong: a number moved by one, an interval's end opened or closed."""
    if answer.lstrip("-").isdigit():
        return str(int(answer) + 1)
    if answer.endswith("]"):
        return answer[:-1] + ")"
    if not answer.endswith("oo)"):
        return answer[:-1] + "]"
    if not answer.startswith("(-oo"):
        return {"(": "[", "[": "("}[answer[0]] + answer[1:]
    return answer.replace(" U (", " U [", 1)  # (-oo, h) U (h, oo) -> (-oo, h) U [h, oo)


def test_check_catches_a_wrong_answer(drafts):
    for name, ds in drafts.items():
        for d in ds:
            if d.options is None:
                wrong = _perturbed(d.answer)
                assert wrong != d.answer
                assert fx.check(name, d.question, None, wrong, d.meta), (name, d.answer, wrong)
                continue
            for other in d.options:
                if other != d.answer:
                    assert fx.check(name, d.question, d.options, other, d.meta), (name, d.answer, other)


def _replace_a_distractor(options: list, answer: str, new: str) -> list:
    out = list(options)
    out[next(i for i, o in enumerate(out) if o != answer)] = new
    return out


def test_check_catches_bad_distractors(drafts):
    for name, ds in drafts.items():
        if fx.TASKS[name].mcq:
            for d in ds[:8]:  # a distractor equal to the answer
                assert fx.check(name, d.question, _replace_a_distractor(d.options, d.answer, d.answer), d.answer,
                                d.meta), name
    # a distractor that is also true, in other words: the same zeros listed the other way round
    d = next(d for d in drafts["keypoints"] if d.meta["question_kind"] == "zeros" and d.answer.count("x =") == 2)
    first, second = d.answer.split(" and ")
    same = _replace_a_distractor(d.options, d.answer, f"{second} and {first}")
    assert "options true" in fx.check("keypoints", d.question, same, d.answer, d.meta)
    # a distractor inside the answer's interval (monotone as well)
    d = next(d for d in drafts["monotonicity"] if None not in fx._parse_interval(d.answer))
    lo, hi = fx._parse_interval(d.answer)
    inner = _replace_a_distractor(d.options, d.answer, fx._interval_text(lo + F(1, 2), hi))
    assert fx.check("monotonicity", d.question, inner, d.answer, d.meta)


def test_check_catches_a_drawing_that_is_not_f(drafts):
    d = next(d for d in drafts["function-type"] if d.meta["family"] == "quadratic")
    meta = json.loads(json.dumps(d.meta))
    meta["plot"]["pieces"][0]["expr"] = meta["f"] + " + 1"
    assert "drawn piece" in fx.check("function-type", d.question, d.options, d.answer, meta)


# --------------------------------------------------------------------------- L3: injected inconsistencies


@pytest.mark.parametrize("name,errors", [("plot-consistency", fx.CONSISTENCY_ERRORS),
                                         ("vertical-line", fx.VERTICAL_LINE_ERRORS)])
def test_l3_half_consistent_and_errors_spread(drafts, name, errors):
    ds = drafts[name]
    kinds = Counter(d.meta["error_type"] for d in ds)
    assert kinds["none"] == N // 2
    spread = [kinds[e] for e in errors]
    assert set(kinds) == {"none", *errors} and max(spread) - min(spread) <= 1
    assert Counter(d.answer for d in ds) == Counter({"Yes": N // 2, "No": N // 2})
    for d in ds:
        assert (d.answer == "Yes") == (d.meta["error_type"] == "none")
        flipped = "No" if d.answer == "Yes" else "Yes"
        assert fx.check(name, d.question, d.options, flipped, d.meta), (d.meta["error_type"], d.meta.get("f"))


def test_plot_consistency_errors_are_confirmed(drafts):
    for d in drafts["plot-consistency"]:
        stated, drawn = fx._sym(d.meta["stated"]), fx._sym(d.meta["f"])
        assert fx._same_function(stated, drawn, fx._probe_points(fx.W6)) == (d.meta["error_type"] == "none")
        if d.meta["error_type"] == "none":  # a consistent item labelled with an error is refuted
            assert fx.check("plot-consistency", d.question, d.options, "No", dict(d.meta, error_type="vertical shift"))
            continue
        stated_shape = {k: (F(v) if isinstance(v, str) and k not in ("fn", "kind", "b") else v)
                        for k, v in d.meta["stated_shape"].items()}
        drawn_shape = {k: (F(v) if isinstance(v, str) and k not in ("fn", "kind", "b") else v)
                       for k, v in d.meta["shape"].items()}
        for key in ("roots",):
            for sh in (stated_shape, drawn_shape):
                if key in sh:
                    sh[key] = [F(r) for r in sh[key]]
        assert fx._differs(stated_shape, drawn_shape)  # a grid unit apart somewhere in the window
        # another label is refuted, unless the drawing is that change as well
        # (a sine shifted by half its period is also its reflection)
        for other in fx.CONSISTENCY_ERRORS:
            if other != d.meta["error_type"]:
                problem = fx.check("plot-consistency", d.question, d.options, "No", dict(d.meta, error_type=other))
                assert problem or {d.meta["error_type"], other} <= {"horizontal shift", "reflection"}, (d.meta, other)


def test_vertical_line_witnesses(drafts):
    for d in drafts["vertical-line"]:
        plot = d.meta["plot"]
        xs = {fx._sym(p["lo"]) for p in plot.get("pieces", [])} | {fx._sym(v["x"]) for v in plot.get("vsegs", [])}
        two = [x0 for x0 in xs if (vals := fx._values_at(plot, x0)) is None or len(vals) >= 2]
        if d.meta["error_type"] in ("two values at a jump", "vertical segment"):
            assert two, d.meta
        if d.meta["error_type"] == "none":
            assert not two


# --------------------------------------------------------------------------- pictures and positions


def test_pictures_reproducible_and_square(drafts):
    for name, ds in drafts.items():
        for d in ds[:4]:
            lazy = d.images[0]()
            again = fx.pictures(name, json.loads(json.dumps(d.meta)))
            assert again == [lazy] and fx.pictures(name, d.meta) == [lazy]
            image = Image.open(io.BytesIO(lazy))
            assert image.size == (mb.SIZE, mb.SIZE) and image.format == "PNG" and not image.text


def test_no_dot_by_the_origin_label(drafts):
    # the axes' "O" sits just below-left of the origin and would read as an open dot
    for name, ds in drafts.items():
        for d in ds:
            for dot in d.meta["plot"].get("dots", []):
                assert fx._off_origin(dot["x"], dot["y"]), (name, dot)


def test_answer_positions_spread(drafts):
    for name, ds in drafts.items():
        if not fx.TASKS[name].mcq:
            continue
        where = Counter(d.options.index(d.answer) for d in ds)
        n = 2 if name in YES_NO_TASKS else 4
        assert set(where) == set(range(n)), name
        assert max(where.values()) - min(where.values()) <= (2 if n == 2 else 5), (name, where)
