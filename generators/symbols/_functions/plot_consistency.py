"""Plot consistency (Math T13, L3): is the curve drawn the graph of the stated formula?
Half the items carry one error of :data:`CONSISTENCY_ERRORS` (the curve shifted,
reflected, stretched, or a sine with another period); the check parses the question's
formula and confirms the labelled error."""

from __future__ import annotations

import random
import re
from fractions import Fraction as F

import numpy as np
import sympy as sp

from cogforge.generators.symbols import Draft, mcq_prompt, nth
from cogforge.generators.symbols._functions.derive import X, _periods_of, _probe_points, _same_function, _sym, _value
from cogforge.generators.symbols._functions.shapes import (PROMPTS, W6, YES_NO, _draft, _grid, _meta, _visible_share,
                                                           _ys, canon, expr_of, plot_of, sample_family, shape_json,
                                                           text_of)

CONSISTENCY_ERRORS = {
    "horizontal shift": "the curve drawn is f(x - s) for the stated f(x)",
    "vertical shift": "the curve drawn is f(x) + s",
    "reflection": "the curve drawn is -f(x) (sign flipped)",
    "wrong stretch": "the curve drawn is 2f(x) or f(x)/2",
    "wrong period": "a sine or cosine drawn with twice or half the stated period",
}


def transform(s: dict, error: str, rng: random.Random) -> dict:
    """The shape with one labelled inconsistency (plot-consistency's drawn curve)."""
    g = dict(s)
    k = s["kind"]
    if error == "horizontal shift":
        d = rng.choice([-2, -1, 1, 2])
        if k == "cubic":
            g["roots"] = [F(r) + d for r in s["roots"]]
        else:
            key = "phi" if k == "trig" else "h"
            g[key] = F(s[key]) + d
    elif error == "vertical shift":
        g["k"] = F(s["k"]) + rng.choice([-2, -1, 1, 2])
    elif error == "reflection":
        key = "A" if k == "trig" else "a"
        g[key], g["k"] = -F(s[key]), -F(s["k"])
    elif error == "wrong stretch":
        key = "A" if k == "trig" else "a"
        factor = rng.choice([F(2), F(2), F(1, 2)])
        g[key], g["k"] = F(s[key]) * factor, F(s["k"]) * factor
    elif error == "wrong period":
        P = F(s["P"])
        g["P"] = rng.choice([q for q in (P / 2, P * 2) if q in (2, 3, 4, 6, 8, 12, 16)])
    else:
        raise ValueError(error)
    return g


PC_FAMILIES = ("quadratic", "cubic", "exponential", "logarithmic", "absolute", "sqrt", "rational")


def _differs(stated: dict, drawn: dict, window=W6) -> bool:
    """Somewhere the drawn curve is inside the window and at least 1 grid unit from the
    stated curve (or where the stated one is undefined)."""
    xs = _grid(window, 8)
    a, b = _ys(stated, xs), _ys(drawn, xs)
    seen = np.isfinite(b) & (b >= window[2]) & (b <= window[3])
    with np.errstate(invalid="ignore"):
        gap = np.where(np.isfinite(a), np.abs(a - b), np.inf)
    return bool(np.any(seen & (gap >= 1)))


def make_plot_consistency(ctx, count: int, rng: random.Random) -> list[Draft]:
    """Half consistent, half with one error of :data:`CONSISTENCY_ERRORS` in turn. A
    "wrong period" needs a sine, so sines are as frequent among the consistent items as
    among the wrong ones (weights 3 of 10 and 1 of 8)."""
    out = []
    errors = list(CONSISTENCY_ERRORS)
    for i in range(count * 20):
        if len(out) == count:
            break
        error = "none" if nth(ctx, len(out)) % 2 == 0 else errors[(nth(ctx, len(out)) // 2) % len(errors)]
        if error == "wrong period":
            family = "trigonometric"
        elif error == "none":
            family = rng.choice(PC_FAMILIES + ("trigonometric",) * 3)
        else:
            family = rng.choice(PC_FAMILIES + ("trigonometric",))
        stated = sample_family(family, rng)
        if stated["kind"] == "cubext":
            continue  # the root form reads better as a formula
        drawn = stated if error == "none" else transform(stated, error, rng)
        if error != "none" and (not _differs(stated, drawn) or _visible_share(drawn, W6) < 0.3):
            continue
        formula = "y = " + text_of(stated)
        meta = _meta("plot-consistency", drawn, plot_of(drawn, W6), error_type=error, formula=formula,
                     stated=canon(expr_of(stated)), stated_shape=shape_json(stated))
        answer = "Yes" if error == "none" else "No"
        question = mcq_prompt(PROMPTS["plot-consistency"].format(formula=text_of(stated)), YES_NO)
        out.append(_draft("plot-consistency", question, list(YES_NO), answer, meta,
                          unit="function:" + meta["stated"]))
    return out


# --------------------------------------------------------------------------- check


def parse_formula(text: str) -> sp.Expr:
    """A plain-text formula as written in the questions: '2|x - 1| - 3', 'log2(x + 3)',
    '(1/2)(x + 1)^2', '2sin(pi*x/2) + 1'."""
    from sympy.parsing.sympy_parser import (convert_xor, implicit_multiplication_application, parse_expr,
                                            standard_transformations)
    s = re.sub(r"^\s*y\s*=\s*", "", text)
    s = re.sub(r"\|([^|]+)\|", r"Abs(\1)", s).replace("log2(", "LOGTWO(").replace("ln(", "log(")
    return parse_expr(s, local_dict={"x": X, "pi": sp.pi, "LOGTWO": lambda z: sp.log(z, 2)},
                      transformations=standard_transformations + (implicit_multiplication_application, convert_xor))


def _shifted(a: sp.Expr, b: sp.Expr, pts) -> bool:
    return any(_same_function(a.subs(X, X - s), b, pts) for s in (-3, -2, -1, 1, 2, 3))


def _check_consistency(question: str, options: list, answer: str, meta: dict) -> str | None:
    m = re.search(r"claimed to be y = (.+?)\. Is the graph", question)
    if not m:
        return "no formula in the question"
    stated, drawn = parse_formula(m.group(1)), _sym(meta["f"])
    window = meta["plot"]["window"]
    pts = _probe_points(window)
    if not _same_function(stated, _sym(meta["stated"]), pts):
        return f"the question's formula {m.group(1)!r} is not meta's stated {meta['stated']}"
    error = meta["error_type"]
    same = _same_function(stated, drawn, pts)
    if (answer == "Yes") != same:
        return f"drawn {'equals' if same else 'differs from'} the formula, answer {answer!r}"
    if error == "none":
        return None if same else "a consistent item whose drawing differs"
    xs = [sp.Rational(window[0]) + sp.Rational(j, 8) for j in range(8 * (window[1] - window[0]) + 1)]
    visible = False
    for v in xs:
        b = _value(drawn, v)
        if b is not None and window[2] <= b <= window[3]:
            a = _value(stated, v)
            if a is None or abs(a - b) >= 1:
                visible = True
                break
    if not visible:
        return "the difference is smaller than a grid unit everywhere in the window"
    confirmed = {
        "horizontal shift": lambda: _shifted(stated, drawn, pts),
        "vertical shift": lambda: any(_same_function(stated + c, drawn, pts) for c in (-3, -2, -1, 1, 2, 3)),
        "reflection": lambda: _same_function(-stated, drawn, pts),
        "wrong stretch": lambda: _same_function(2 * stated, drawn, pts) or _same_function(stated / 2, drawn, pts),
        "wrong period": lambda: set(_periods_of(stated)) != set(_periods_of(drawn)) and bool(_periods_of(drawn)),
    }[error]()
    return None if confirmed else f"the labelled error {error!r} is not what was drawn"
