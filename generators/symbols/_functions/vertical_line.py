"""The vertical-line test (Math T14, L3): is the curve drawn the graph of a function of x?
Half the items are functions (some look as if they were not), half relations that fail
the test in one of the ways of :data:`VERTICAL_LINE_ERRORS`; the check looks for an x
with two y values in the drawing spec."""

from __future__ import annotations

import random
from fractions import Fraction as F

import sympy as sp

from cogforge.generators.symbols import Draft, mcq_prompt, nth
from cogforge.generators.symbols._functions.derive import T, X, _solutions, _sym
from cogforge.generators.symbols._functions.shapes import (FAMILY_ORDER, PROMPTS, W6, YES_NO, _draft, _meta, _n,
                                                           _piece, _sign, bounded_pieces, canon, plot_of,
                                                           sample_family)

VERTICAL_LINE_ERRORS = {
    "circle or ellipse": "a closed curve: two points above the centre's x",
    "sideways parabola": "x = a*(y - k)**2 + h: two points at every x past the vertex",
    "two values at a jump": "both endpoints filled at the same x",
    "vertical segment": "a vertical riser joins two pieces",
}
# functions that look like the errors but pass the vertical-line test, in turn
VERTICAL_LINE_VALID = ("ordinary", "jump", "steep", "semicircle", "half parabola")


def _function_curve(kind: str, rng: random.Random) -> dict:
    """A curve that passes the vertical-line test (some of them look as if they did not)."""
    xmin, xmax, ymin, ymax = W6
    if kind == "ordinary":
        s = sample_family(rng.choice(FAMILY_ORDER), rng)
        while s["kind"] in ("log", "rat") and s["h"] == 0:  # the dashed asymptote would hide behind the y-axis
            s = sample_family("logarithmic" if s["kind"] == "log" else "rational", rng)
        return plot_of(s, W6)
    if kind == "jump":
        while True:
            s = {"kind": "pw", "pieces": bounded_pieces(rng, 2)}
            p, q = s["pieces"]
            if F(p[0]) * p[3] + F(p[1]) != F(q[0]) * q[2] + F(q[1]):
                return plot_of(s, W6)
    if kind == "steep":  # steep everywhere but never vertical (a cube root's vertical tangent would look it)
        h, k = rng.randint(-2, 2), rng.randint(-2, 2)
        if rng.random() < 0.5:
            expr = canon(f"{_n(_sign(rng) * rng.choice([2, 3, 4]))}*(x - {_n(h)})**3 + {_n(k)}")
        else:
            expr = canon(f"{_n(_sign(rng) * rng.choice([3, 4, 5]))}*(x - {_n(h)}) + {_n(k)}")
        return {"window": list(W6), "pieces": [_piece(expr, xmin, xmax)], "dots": [], "asym_x": [], "asym_y": []}
    if kind == "semicircle":
        r = rng.choice([2, 3, 4])
        h, k = rng.randint(-5 + r, 5 - r), rng.randint(-5 + r, 5 - r)
        sg = _sign(rng)
        expr = canon(f"{sg}*sqrt({r}**2 - (x - {_n(h)})**2) + {_n(k)}")
        return {"window": list(W6), "pieces": [_piece(expr, h - r, h + r)], "dots": [], "asym_x": [], "asym_y": []}
    # half a sideways parabola: y = k +- sqrt((x - h)/a)
    h, k, side, sg = rng.randint(-4, 0), rng.randint(-3, 3), _sign(rng), _sign(rng)
    c = rng.choice([1, 2])
    if side < 0:
        h = -h
    expr = canon(f"{sg}*{c}*sqrt({side}*(x - {_n(h)})) + {_n(k)}")
    lo, hi = (h, xmax) if side > 0 else (xmin, h)
    return {"window": list(W6), "pieces": [_piece(expr, lo, hi)], "dots": [], "asym_x": [], "asym_y": []}


def _relation_curve(error: str, rng: random.Random) -> dict:
    """A curve that fails the vertical-line test in the way ``error`` names."""
    xmin, xmax, ymin, ymax = W6
    plot = {"window": list(W6), "pieces": [], "params": [], "vsegs": [], "dots": [], "asym_x": [], "asym_y": []}
    if error == "circle or ellipse":
        rx, ry = rng.choice([(2, 2), (3, 3), (4, 4), (3, 2), (2, 3), (4, 2), (4, 3)])
        h, k = rng.randint(-5 + rx, 5 - rx), rng.randint(-5 + ry, 5 - ry)
        plot["params"] = [{"x": str(sp.sympify(f"{h} + {rx}*cos(t)")), "y": str(sp.sympify(f"{k} + {ry}*sin(t)")),
                           "t0": 0, "t1": "2*pi"}]
    elif error == "sideways parabola":
        a = _sign(rng) * rng.choice([F(1, 4), F(1, 2), F(1)])
        h, k = rng.randint(-3, 3), rng.randint(-2, 2)
        plot["params"] = [{"x": str(sp.sympify(f"{_n(a)}*(t - {_n(k)})**2 + {_n(h)}")), "y": "t",
                           "t0": ymin, "t1": ymax}]
    elif error == "two values at a jump":
        while True:
            pieces = [list(p) for p in bounded_pieces(rng, 2)]
            p, q = pieces
            if F(p[0]) * p[3] + F(p[1]) != F(q[0]) * q[2] + F(q[1]):
                break
        p[5], q[4] = True, True  # both ends at the break are filled: the same x has two y values
        drawn = plot_of({"kind": "pw", "pieces": [tuple(p), tuple(q)]}, W6)
        plot["pieces"], plot["dots"] = drawn["pieces"], drawn["dots"]
    else:  # a step with a vertical riser
        c = rng.randint(-2, 2)
        y1, y2 = sorted(rng.sample(range(-4, 5), 2))
        if rng.random() < 0.5:
            y1, y2 = y2, y1
        m1, m2 = F(rng.choice([-1, 0, 1]), 2), F(rng.choice([-1, 0, 1]), 2)
        plot["pieces"] = [_piece(canon(f"{_n(m1)}*(x - {_n(c)}) + {_n(y1)}"), xmin, c),
                          _piece(canon(f"{_n(m2)}*(x - {_n(c)}) + {_n(y2)}"), c, xmax)]
        plot["vsegs"] = [{"x": c, "y0": y1, "y1": y2}]
    return plot


def make_vertical_line(ctx, count: int, rng: random.Random) -> list[Draft]:
    """Half functions (kinds of :data:`VERTICAL_LINE_VALID` in turn), half relations
    failing the test (:data:`VERTICAL_LINE_ERRORS` in turn)."""
    out = []
    errors = list(VERTICAL_LINE_ERRORS)
    for i in range(nth(ctx, 0), nth(ctx, count)):
        if i % 2 == 0:
            kind = VERTICAL_LINE_VALID[(i // 2) % len(VERTICAL_LINE_VALID)]
            plot, error, answer = _function_curve(kind, rng), "none", "Yes"
        else:
            kind = error = errors[(i // 2) % len(errors)]
            plot, answer = _relation_curve(error, rng), "No"
        plot = {key: v for key, v in plot.items() if v or key == "window"}
        meta = _meta("vertical-line", None, plot, error_type=error, curve_kind=kind)
        out.append(_draft("vertical-line", mcq_prompt(PROMPTS["vertical-line"], YES_NO), list(YES_NO), answer, meta))
    return out


# --------------------------------------------------------------------------- check


def _dot_points(plot) -> tuple[set, set]:
    filled = {(_sym(d["x"]), _sym(d["y"])) for d in plot.get("dots", []) if not d["open"]}
    hollow = {(_sym(d["x"]), _sym(d["y"])) for d in plot.get("dots", []) if d["open"]}
    return filled, hollow


def _values_at(plot: dict, x0) -> set | None:
    """The y values the drawing has at x = x0 (None: infinitely many, a vertical segment).
    A piece's end belongs to the curve unless an open dot sits there; dots add points."""
    filled, hollow = _dot_points(plot)
    ys = {y for x, y in filled if x == x0}
    for v in plot.get("vsegs", []):
        if _sym(v["x"]) == x0 and _sym(v["y0"]) != _sym(v["y1"]):
            return None
    for p in plot.get("pieces", []):
        lo, hi = _sym(p["lo"]), _sym(p["hi"])
        if lo <= x0 <= hi:
            y = _sym(p["expr"]).subs(X, x0)
            if y.is_real and y.is_finite and (x0, y) not in hollow:
                ys.add(sp.nsimplify(y))
    for c in plot.get("params", []):
        cx, cy = _sym(c["x"]), _sym(c["y"])
        t0, t1 = _sym(c["t0"]), _sym(c["t1"])
        roots, period = _solutions(cx - x0, T)
        for t in roots:
            for n in ((-1, 0, 1) if period is not None else (0,)):
                tt = t + n * period if period is not None else t
                if t0 <= tt <= t1:
                    ys.add(sp.simplify(cy.subs(T, tt)))
    window = plot["window"]
    return {y for y in ys if window[2] <= y <= window[3]}


def _check_vertical_line(question: str, options: list, answer: str, meta: dict) -> str | None:
    plot = meta["plot"]
    xmin, xmax = plot["window"][:2]
    # where two values can be: the x of a parametric curve's points (in quarter steps of
    # its parameter), dots, vertical segments and the ends of pieces (elsewhere, pieces
    # over disjoint x-ranges have one value each)
    candidates = []
    for c in plot.get("params", []):
        cx, t0, t1 = _sym(c["x"]), _sym(c["t0"]), _sym(c["t1"])
        candidates += [cx.subs(T, t0 + (t1 - t0) * sp.Rational(j, 24)) for j in range(25)]
    candidates += [_sym(d["x"]) for d in plot.get("dots", [])] + [_sym(v["x"]) for v in plot.get("vsegs", [])]
    for p in plot.get("pieces", []):
        candidates += [_sym(p["lo"]), _sym(p["hi"])]
    witness = None
    for x0 in dict.fromkeys(v for v in candidates if v.is_rational and xmin <= v <= xmax):
        ys = _values_at(plot, x0)
        if ys is None or len(ys) >= 2:
            witness = (x0, ys)
            break
    if answer == "No":
        if witness is None:
            return "no x with two y values: the curve is a function"
        return None if meta["error_type"] in VERTICAL_LINE_ERRORS else f"unknown error type {meta['error_type']!r}"
    if witness is not None:
        return f"x = {witness[0]} has y values {witness[1]}"
    if plot.get("params") or plot.get("vsegs"):
        return "a parametric curve or a vertical segment in a function"
    spans = sorted((_sym(p["lo"]), _sym(p["hi"])) for p in plot.get("pieces", []))
    for (alo, ahi), (blo, bhi) in zip(spans, spans[1:]):
        if blo < ahi:
            return f"pieces over ({alo}, {ahi}) and ({blo}, {bhi}) overlap"
    return None if meta["error_type"] == "none" else "a function labelled with an error"
