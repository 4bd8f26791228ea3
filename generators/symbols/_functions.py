"""Function plots for the mathematics domain (sub-field "function"; paper Table 1, Math T1,
T2, T6, T7, T8, T13 and T14): a curve drawn on a grid, questions with exact answers.

Algorithm. Every function is a *shape*: a family with small exact parameters (Fractions)
chosen so that what the question needs lies on the grid: integer zeros, extrema,
inflection points, intercepts and asymptotes (``a*(x - h)**2 + k``,
``a*((x - h)**3 - 3*d**2*(x - h)) + k`` with extrema at ``h -+ d``, a cubic from its
roots, ``a*((x - h)**2 - d**2)**2 + k``, ``a*2**(s*(x - h)) + k``,
``a*log2(s*(x - h)) + k``, ``A*sin(2*pi*(x - phi)/P) + k``, ``a/(x - h)**n + k``,
``a*|x - h| + k``, ``a*sqrt(s*(x - h)) + k``, a sawtooth or a triangle wave, linear
pieces on a bounded domain). The generator knows the answer from the parameters (sympy
only prints the canonical expression); the drawing is a spec in ``meta["plot"]``
(pieces of the canonical sympy expression over x-ranges, dashed asymptotes, filled and
open dots, parametric curves, vertical segments), evaluated with numpy from the
expression strings and drawn by :func:`generators.symbols._mathbase.plot`.
:func:`check` re-derives every answer from ``meta["f"]`` (or the question's formula, or
the drawn curve) with sympy: real roots and solve, derivatives and their signs, the
natural domain from log and root arguments and denominators, the image from critical
values and end limits, exact values, periods proved by shifting the expression; and it
confirms that the drawing is ``meta["f"]``.

Rejection rules. A sampled shape is kept only when its key points are inside the
window with a margin and the family is visible: an exponential shows its flattening
onto the dashed asymptote, a logarithm its vertical asymptote and its slow growth, a
rational function both branches, a sine at least two periods, a cubic turning points
curved enough to place on the grid; a zero count has no zero within 0.25 of the
window's edge and no tangency; no dot sits at the origin (where the axes cross over it).

Options. Answers are never told by the options alone. For points and zero sets the four
options are built first, a seed and three perturbations of it (a zero missing or added
or moved to a neighbouring grid value, coordinates swapped, a sign flipped); the cluster
is kept only if a function can be built through each member, and the answer is one of
the four in balanced turn. Monotonicity's options are the four intervals into which
three grid cuts divide the line; the function is built so that each of them in turn is
where it goes the way asked (the others are pieces of its other monotonic intervals, or
run across an extremum). Parity is asked with periodicity (six combinations, three
others as distractors), the period always with the options 2, 4, 6, 8. Family names
are answered in turn with three other families chosen evenly.

Critical thinking (L3): half the items are consistent (``error_type`` "none"), the
other half carry one labelled inconsistency, the types taken in turn.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
from fractions import Fraction
from functools import lru_cache, partial

import numpy as np
import sympy as sp

from cogforge.generators.symbols import Draft, Task, mcq_prompt
from cogforge.generators.symbols import _mathbase as mb

F = Fraction
W6 = (-6, 6, -6, 6)  # most plots: a square grid, every whole number labelled
W8 = (-8, 8, -5, 5)  # periods up to 8 (two periods visible)
SUB_FIELD = "function"

FAMILY_NAMES = {
    "quadratic": "Quadratic",
    "cubic": "Polynomial (cubic)",
    "exponential": "Exponential",
    "logarithmic": "Logarithmic",
    "trigonometric": "Trigonometric (sine or cosine)",
    "rational": "Rational",
    "absolute": "Absolute value",
    "sqrt": "Square root",
}
PARITY_OPTIONS = {
    ("even", True): "Even, periodic",
    ("odd", True): "Odd, periodic",
    ("neither", True): "Neither even nor odd, periodic",
    ("even", False): "Even, not periodic",
    ("odd", False): "Odd, not periodic",
    ("neither", False): "Neither even nor odd, not periodic",
}
PERIODS = (2, 4, 6, 8)  # the answers in turn, and always the four options
CONSISTENCY_ERRORS = {
    "horizontal shift": "the curve drawn is f(x - s) for the stated f(x)",
    "vertical shift": "the curve drawn is f(x) + s",
    "reflection": "the curve drawn is -f(x) (sign flipped)",
    "wrong stretch": "the curve drawn is 2f(x) or f(x)/2",
    "wrong period": "a sine or cosine drawn with twice or half the stated period",
}
VERTICAL_LINE_ERRORS = {
    "circle or ellipse": "a closed curve: two points above the centre's x",
    "sideways parabola": "x = a*(y - k)**2 + h: two points at every x past the vertex",
    "two values at a jump": "both endpoints filled at the same x",
    "vertical segment": "a vertical riser joins two pieces",
}
# functions that look like the errors but pass the vertical-line test, in turn
VERTICAL_LINE_VALID = ("ordinary", "jump", "steep", "semicircle", "half parabola")
YES_NO = ["Yes", "No"]

DOTS_NOTE = "Filled dots belong to the graph and open dots do not."
EDGE_NOTE = ("Where the curve reaches the edge of the picture it continues beyond it in the same way; "
             "dashed lines are asymptotes.")
PROMPTS = {
    "zeros": "The graph of y = f(x) is drawn, and every zero of f lies in the window. What are the zeros of f?",
    "maximum": "The graph of y = f(x) is drawn. Which point is a local maximum point of f?",
    "minimum": "The graph of y = f(x) is drawn. Which point is a local minimum point of f?",
    "y-intercept": "The graph of y = f(x) is drawn. At which point does the graph cross the y-axis?",
    "inflection": "The graph of the cubic function y = f(x) is drawn. Which point is its inflection point?",
    "function-type": "Which family of functions does the curve drawn belong to?",
    "monotonicity": "The graph of y = f(x) is drawn; it keeps its trend beyond the window. "
                    "On which of these intervals is f {direction}?",
    "parity": "The graph of y = f(x) is drawn; beyond the window it continues in the same way (a repeating "
              "pattern keeps repeating, any other curve keeps its trend). Which describes f?",
    "period": "The graph of the periodic function y = f(x) is drawn. " + DOTS_NOTE +
              " What is its period (the smallest p > 0 with f(x + p) = f(x) for every x)?",
    "domain": "The graph of y = f(x) is drawn. " + DOTS_NOTE + " " + EDGE_NOTE + " What is the domain of f?",
    "range": "The graph of y = f(x) is drawn. " + DOTS_NOTE + " " + EDGE_NOTE + " What is the range of f?",
    "value": "The graph of y = f(x) is drawn. " + DOTS_NOTE + " What is f({a})?",
    "zeros-count": "The graph of y = f(x) is drawn. How many zeros does f have for {lo} ≤ x ≤ {hi}, "
                   "the width of the window?",
    "plot-consistency": "The graph is claimed to be y = {formula}. Is the graph drawn the graph of this formula?",
    "vertical-line": "Is the curve drawn the graph of a function y = f(x) of x? " + DOTS_NOTE,
}


# --------------------------------------------------------------------------- numbers and text


def _js(v):
    """A number for JSON: an int when whole, else its exact fraction as a string."""
    v = F(v)
    return v.numerator if v.denominator == 1 else str(v)


def _coef(a) -> str:
    """A factor written before a bracket or a function name: 1 -> '', -1 -> '-', 1/2 -> '(1/2)'."""
    a = F(a)
    if a == 1:
        return ""
    if a == -1:
        return "-"
    if a.denominator == 1:
        return str(a)
    return f"-({-a})" if a < 0 else f"({a})"


def _tail(k) -> str:
    k = F(k)
    return "" if k == 0 else f" + {k}" if k > 0 else f" - {-k}"


def _affine(m, c) -> str:
    """m*x + c for m = +-1: 'x - 1', 'x', '2 - x', '-x - 2'."""
    if m > 0:
        return "x" + _tail(c)
    if c > 0:
        return f"{F(c)} - x"
    return "-x" + _tail(c)


def _point(p) -> str:
    return f"({F(p[0])}, {F(p[1])})"


def _zeros_text(zeros) -> str:
    items = [f"x = {F(z)}" for z in sorted(zeros)]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _interval_text(lo, hi) -> str:
    """An open interval as an option: '(-∞, 2)', '(-1, 3)'."""
    return f"({'-∞' if lo is None else F(lo)}, {'∞' if hi is None else F(hi)})"


def _set_text(s: sp.Set) -> str:
    """A sympy set in the answer format: '[-2, 3)', '(-oo, 1) U (1, oo)'."""
    parts = s.args if isinstance(s, sp.Union) else (s,)
    out = []
    for p in parts:
        if isinstance(p, sp.FiniteSet):
            out.append("{" + ", ".join(str(v) for v in sorted(p)) + "}")
        else:
            out.append(("(" if p.left_open else "[") + f"{p.start}, {p.end}" + (")" if p.right_open else "]"))
    return " U ".join(out)


@lru_cache(maxsize=4096)
def canon(raw: str) -> str:
    """The canonical sympy form of an expression string (also a valid numpy expression)."""
    return str(sp.sympify(raw, locals={"x": sp.Symbol("x", real=True)}))


# --------------------------------------------------------------------------- shapes


def _n(v) -> str:
    return f"({F(v)})"


def expr_of(s: dict) -> str:
    """The expression of a shape, in a form that both sympy and numpy read."""
    k = s["kind"]
    if k == "quad":
        return f"{_n(s['a'])}*(x - {_n(s['h'])})**2 + {_n(s['k'])}"
    if k == "cubic":
        return f"{_n(s['a'])}*" + "*".join(f"(x - {_n(r)})" for r in s["roots"]) + f" + {_n(s['k'])}"
    if k == "cubext":
        return f"{_n(s['a'])}*((x - {_n(s['h'])})**3 - 3*{_n(s['d'])}**2*(x - {_n(s['h'])})) + {_n(s['k'])}"
    if k == "quartic":
        return f"{_n(s['a'])}*((x - {_n(s['h'])})**2 - {_n(s['d'])}**2)**2 + {_n(s['k'])}"
    if k == "exp":
        return f"{_n(s['a'])}*{_n(s['b'])}**({_n(s['s'])}*(x - {_n(s['h'])})) + {_n(s['k'])}"
    if k == "log":
        base = ", 2" if s["b"] == 2 else ""
        return f"{_n(s['a'])}*log({_n(s['s'])}*(x - {_n(s['h'])}){base}) + {_n(s['k'])}"
    if k == "trig":
        return f"{_n(s['A'])}*{s['fn']}(2*pi*(x - {_n(s['phi'])})/{_n(s['P'])}) + {_n(s['k'])}"
    if k == "rat":
        return f"{_n(s['a'])}/(x - {_n(s['h'])})**{s['n']} + {_n(s['k'])}"
    if k == "abs":
        return f"{_n(s['a'])}*Abs(x - {_n(s['h'])}) + {_n(s['k'])}"
    if k == "sqrt":
        return f"{_n(s['a'])}*sqrt({_n(s['s'])}*(x - {_n(s['h'])})) + {_n(s['k'])}"
    if k == "hole":  # (m*x + c)*(x - h)/(x - h), the numerator expanded so that sympy keeps the hole
        m, c, h = F(s["m"]), F(s["c"]), F(s["h"])
        return f"({_n(m)}*x**2 + {_n(c - m * h)}*x + {_n(-c * h)})/(x - {_n(h)})"
    if k == "saw":
        return f"{_n(s['m'])}*Mod(x - {_n(s['x0'])}, {_n(s['P'])}) + {_n(s['c'])}"
    if k == "tri":
        return f"{_n(s['a'])}*Abs(Mod(x - {_n(s['x0'])}, {_n(s['P'])}) - {_n(F(s['P']) / 2)}) + {_n(s['c'])}"
    if k == "pw":
        parts = []
        for m, c, lo, hi, lo_closed, hi_closed in s["pieces"]:
            cond = f"(x {'>=' if lo_closed else '>'} {F(lo)}) & (x {'<=' if hi_closed else '<'} {F(hi)})"
            parts.append(f"({_n(m)}*x + {_n(c)}, {cond})")
        return "Piecewise(" + ", ".join(parts) + ")"
    raise ValueError(f"unknown shape {k!r}")


def text_of(s: dict) -> str:
    """The plain-text formula of a shape (stated in plot-consistency questions)."""
    k = s["kind"]
    if k == "quad":
        base = "x" if s["h"] == 0 else f"({_affine(1, -s['h'])})"
        return f"{_coef(s['a'])}{base}^2{_tail(s['k'])}"
    if k == "cubic":
        factors, roots = [], list(s["roots"])
        for r in sorted(set(roots)):
            base = "x" if r == 0 else f"({_affine(1, -r)})"
            factors.append(base + (f"^{roots.count(r)}" if roots.count(r) > 1 else ""))
        factors.sort(key=lambda t: t == "x" or t.startswith("x^"), reverse=True)
        return f"{_coef(s['a'])}{''.join(factors)}{_tail(s['k'])}"
    if k == "exp":
        power = _affine(s["s"], -s["s"] * s["h"])
        body = f"{s['b']}^{power}" if power == "x" else f"{s['b']}^({power})"
        a = F(s["a"])
        lead = "" if a == 1 else "-" if a == -1 else f"{_coef(a)}*"
        return f"{lead}{body}{_tail(s['k'])}"
    if k == "log":
        name = "log2" if s["b"] == 2 else "ln"
        return f"{_coef(s['a'])}{name}({_affine(s['s'], -s['s'] * s['h'])}){_tail(s['k'])}"
    if k == "trig":
        P, phi = F(s["P"]), F(s["phi"])
        w = 2 / P  # the argument is w*pi*(x - phi)
        inner = "x" if phi == 0 else f"({_affine(1, -phi)})"
        if w == 1:
            arg = f"pi*{inner}"
        elif w.numerator == 1:
            arg = f"pi*{inner}/{w.denominator}"
        else:
            arg = f"{w.numerator}*pi*{inner}/{w.denominator}"
        return f"{_coef(s['A'])}{s['fn']}({arg}){_tail(s['k'])}"
    if k == "rat":
        den = "x" if s["h"] == 0 else f"({_affine(1, -s['h'])})"
        den += "^2" if s["n"] == 2 else ""
        return f"{F(s['a'])}/{den}{_tail(s['k'])}"
    if k == "abs":
        return f"{_coef(s['a'])}|{_affine(1, -s['h'])}|{_tail(s['k'])}"
    if k == "sqrt":
        return f"{_coef(s['a'])}sqrt({_affine(s['s'], -s['s'] * s['h'])}){_tail(s['k'])}"
    raise ValueError(f"no text form for shape {k!r}")


def shape_json(s: dict) -> dict:
    out = {}
    for key, v in s.items():
        if isinstance(v, (F, int)) and not isinstance(v, bool):
            out[key] = _js(v)
        elif isinstance(v, (list, tuple)):
            out[key] = [_js(r) if isinstance(r, (F, int)) and not isinstance(r, bool)
                        else [_js(t) if not isinstance(t, bool) else t for t in r] for r in v]
        else:
            out[key] = v
    return out


def _piece(expr: str, lo, hi) -> dict:
    return {"expr": expr, "lo": _js(lo), "hi": _js(hi)}


def _off_origin(x, y) -> bool:
    """A dot away from the origin, where the crossing axes would cover an open dot."""
    return abs(F(x)) > F(1, 2) or abs(F(y)) > F(1, 2)


def _pw_dots(pieces) -> list[dict]:
    """Dots at the ends of linear pieces: filled where the point belongs to the graph,
    open where it does not, none where two pieces join continuously (one of them closed)."""
    ends: dict[tuple, list[bool]] = {}
    for m, c, lo, hi, lo_closed, hi_closed in pieces:
        for x0, closed in ((F(lo), lo_closed), (F(hi), hi_closed)):
            ends.setdefault((x0, F(m) * x0 + F(c)), []).append(closed)
    dots = []
    for (x0, y0), flags in sorted(ends.items()):
        if len(flags) == 2 and any(flags):
            continue  # a continuous joint
        dots.append({"x": _js(x0), "y": _js(y0), "open": not any(flags)})
    return dots


def plot_of(s: dict, window=W6) -> dict:
    """The drawing spec of a shape: pieces of its canonical expression, asymptotes, dots."""
    xmin, xmax, ymin, ymax = window
    k = s["kind"]
    f = canon(expr_of(s))
    plot = {"window": list(window), "pieces": [], "dots": [], "asym_x": [], "asym_y": []}
    if k == "log":
        h = F(s["h"])
        plot["pieces"] = [_piece(f, h, xmax) if s["s"] > 0 else _piece(f, xmin, h)]
        plot["asym_x"] = [_js(h)]
    elif k == "rat":
        h = F(s["h"])
        plot["pieces"] = [_piece(f, xmin, h), _piece(f, h, xmax)]
        plot["asym_x"], plot["asym_y"] = [_js(h)], [_js(s["k"])]
    elif k == "sqrt":
        h = F(s["h"])
        plot["pieces"] = [_piece(f, h, xmax) if s["s"] > 0 else _piece(f, xmin, h)]
        plot["dots"] = [{"x": _js(h), "y": _js(s["k"]), "open": False}]
    elif k == "hole":
        plot["pieces"] = [_piece(f, xmin, xmax)]
        plot["dots"] = [{"x": _js(s["h"]), "y": _js(F(s["m"]) * F(s["h"]) + F(s["c"])), "open": True}]
    elif k == "saw":
        m, P, x0, c = F(s["m"]), F(s["P"]), F(s["x0"]), F(s["c"])
        start = x0 + P * math.floor((xmin - x0) / P)
        while start < xmax:
            lo, hi = max(start, xmin), min(start + P, xmax)
            plot["pieces"].append(_piece(canon(f"{_n(m)}*(x - {_n(start)}) + {_n(c)}"), lo, hi))
            if xmin < start < xmax:
                plot["dots"].append({"x": _js(start), "y": _js(c), "open": False})
            if xmin < start + P < xmax:
                plot["dots"].append({"x": _js(start + P), "y": _js(c + m * P), "open": True})
            start += P
    elif k == "pw":
        plot["pieces"] = [_piece(canon(f"{_n(m)}*x + {_n(c)}"), lo, hi) for m, c, lo, hi, _a, _b in s["pieces"]]
        plot["dots"] = _pw_dots(s["pieces"])
    else:
        plot["pieces"] = [_piece(f, xmin, xmax)]
        if k == "exp":
            plot["asym_y"] = [_js(s["k"])]
    plot["asym_x"] = [a for a in plot["asym_x"] if xmin < F(a) < xmax]
    plot["asym_y"] = [a for a in plot["asym_y"] if ymin < F(a) < ymax]
    return plot


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


# --------------------------------------------------------------------------- numeric evaluation and drawing


_NUMPY = {"sin": np.sin, "cos": np.cos, "exp": np.exp, "sqrt": np.sqrt, "Abs": np.abs, "Mod": np.mod,
          "sign": np.sign, "floor": np.floor, "pi": np.pi, "E": np.e, "True": True, "False": False,
          "log": lambda v, base=None: np.log(v) if base is None else np.log(v) / np.log(base)}


@lru_cache(maxsize=4096)
def _compiled(expr: str):
    return compile(expr, "<expr>", "eval")


def evaluate(expr: str, xs: np.ndarray, var: str = "x") -> np.ndarray:
    """An expression string (sympy's printing) over a numpy array; NaN where undefined."""
    def piecewise(*pairs):
        out, done = np.full(xs.shape, np.nan), np.zeros(xs.shape, bool)
        for value, cond in pairs:
            c = np.broadcast_to(np.asarray(cond, bool), xs.shape) & ~done
            out[c] = np.broadcast_to(np.asarray(value, float), xs.shape)[c]
            done |= c
        return out
    with np.errstate(all="ignore"):
        y = np.asarray(eval(_compiled(expr), {"__builtins__": {}}, {**_NUMPY, var: xs, "Piecewise": piecewise}))
    if np.iscomplexobj(y):
        y = np.where(np.abs(y.imag) < 1e-12, y.real, np.nan)
    return np.array(np.broadcast_to(y.astype(float), xs.shape))


def _num(v) -> float:
    """A number from a spec (int, float, or an exact string such as '1/2' or '2*pi')."""
    if isinstance(v, (int, float)):
        return float(v)
    return float(eval(_compiled(v), {"__builtins__": {}}, dict(_NUMPY)))


def _xs(lo: float, hi: float) -> np.ndarray:
    """Samples on [lo, hi]: every 1/48 (corners at halves, thirds and quarters are hit) plus
    geometric steps into both ends (asymptotes and vertical tangents)."""
    grid = np.linspace(lo, hi, int(round((hi - lo) * 48)) + 1)
    near = (hi - lo) * np.logspace(-7, -1.6, 24)
    return np.unique(np.concatenate([grid, lo + near, hi - near]))


def draw_plot(plot: dict) -> bytes:
    xmin, xmax, ymin, ymax = plot["window"]
    span = ymax - ymin
    curves = [{"x": [_num(a), _num(a)], "y": [ymin, ymax], "dashed": True, "width": 1.5}
              for a in plot.get("asym_x", [])]
    curves += [{"x": [xmin, xmax], "y": [_num(a), _num(a)], "dashed": True, "width": 1.5}
               for a in plot.get("asym_y", [])]
    for p in plot.get("pieces", []):
        xs = _xs(_num(p["lo"]), _num(p["hi"]))
        ys = evaluate(p["expr"], xs)
        ys[~np.isfinite(ys) | (ys > ymax + span) | (ys < ymin - span)] = np.nan
        curves.append({"x": xs.tolist(), "y": ys.tolist()})
    for c in plot.get("params", []):
        ts = np.linspace(_num(c["t0"]), _num(c["t1"]), 721)
        curves.append({"x": evaluate(c["x"], ts, "t").tolist(), "y": evaluate(c["y"], ts, "t").tolist()})
    for v in plot.get("vsegs", []):
        curves.append({"x": [_num(v["x"])] * 2, "y": [_num(v["y0"]), _num(v["y1"])]})
    dots = [{"x": _num(d["x"]), "y": _num(d["y"]), "open": d["open"]} for d in plot.get("dots", [])]
    return mb.plot(tuple(plot["window"]), curves, dots)


def picture(task: str, meta: dict) -> bytes:
    return draw_plot(meta["plot"])


def pictures(task: str, meta: dict) -> list[bytes]:
    """The item's pictures, redrawn from its meta alone."""
    return [picture(task, meta)]


# --------------------------------------------------------------------------- sampling shapes


def _grid(window, step: int = 48) -> np.ndarray:
    return np.linspace(window[0], window[1], (window[1] - window[0]) * step + 1)


def _ys(s: dict, xs: np.ndarray) -> np.ndarray:
    return evaluate(expr_of(s), xs)


def _inside(p, window, margin=1) -> bool:
    return window[0] + margin <= p[0] <= window[1] - margin and window[2] + margin <= p[1] <= window[3] - margin


def _cubic_extrema(s: dict) -> list[tuple[float, float]]:
    """Numeric local extrema of a cubic in root form (for window screening only)."""
    coeffs = np.poly([float(r) for r in s["roots"]]) * float(s["a"])
    coeffs[-1] += float(s["k"])
    crit = np.roots(np.polyder(coeffs))
    return [(c.real, np.polyval(coeffs, c.real)) for c in crit if abs(c.imag) < 1e-9]


def _visible_share(s: dict, window) -> float:
    xs = _grid(window, 8)
    ys = _ys(s, xs)
    return float(np.mean((ys >= window[2] + 0.2) & (ys <= window[3] - 0.2)))


def _fits(s: dict, window=W6) -> bool:
    """The family is recognisable and its key points are inside the window."""
    xmin, xmax, ymin, ymax = window
    k = s["kind"]
    if _visible_share(s, window) < 0.35:
        return False
    if k in ("quad", "abs"):
        return _inside((s["h"], s["k"]), window, 1.5)
    if k == "cubic":
        ext = _cubic_extrema(s)
        return all(_inside(p, window, 0.7) for p in ext) and (not ext or abs(ext[0][1] - ext[-1][1]) >= 1)
    if k == "cubext":
        return all(_inside(p[:2], window, 0.7) for p in [(s["h"], s["k"])] + _extrema(s))
    if k == "exp":  # flat onto the asymptote at one end, far from it at the other
        ys = _ys(s, np.array([xmin, xmax], float)) - float(s["k"])
        flat, steep = (0, 1) if s["s"] > 0 else (1, 0)
        return abs(ys[flat]) < 0.3 and abs(ys[steep]) > 4 and ymin + 1 <= s["k"] <= ymax - 1
    if k == "log":
        room = xmax - s["h"] if s["s"] > 0 else s["h"] - xmin
        return room >= 5 and xmin + 1 <= s["h"] <= xmax - 1
    if k == "rat":
        return abs(s["h"]) <= xmax - 3 and abs(s["k"]) <= ymax - 2
    if k == "trig":
        return abs(s["k"]) + abs(s["A"]) <= ymax - 0.5 and (xmax - xmin) / s["P"] >= 2
    if k == "sqrt":  # its start is a filled dot
        room = xmax - s["h"] if s["s"] > 0 else s["h"] - xmin
        return room >= 4 and _inside((s["h"], s["k"]), window, 1) and _off_origin(s["h"], s["k"])
    return True


def _sign(rng) -> int:
    return rng.choice([1, -1])


def sample_family(family: str, rng: random.Random, window=W6) -> dict:
    """A recognisable function of ``family`` (a key of :data:`FAMILY_NAMES`)."""
    for _ in range(500):
        if family == "quadratic":
            s = {"kind": "quad", "a": _sign(rng) * F(rng.choice([1, 1, 2, 1]), rng.choice([1, 2])),
                 "h": rng.randint(-3, 3), "k": rng.randint(-4, 4)}
        elif family == "cubic":
            if rng.random() < 0.5:
                roots = sorted(rng.sample(range(-4, 5), 3))
                if rng.random() < 0.3:
                    roots[rng.choice([0, 2])] = roots[1]
                s = {"kind": "cubic", "a": _sign(rng) * F(1, rng.choice([1, 2, 4, 8])), "roots": roots,
                     "k": rng.choice([0, 0, 0, 1, -1, 2, -2])}
            else:
                d = rng.choice([0, 1, 1, 2])
                a = {0: [F(1, 4), F(1, 2), F(1)], 1: [F(1, 2), F(1)], 2: [F(1, 16), F(1, 8)]}[d]
                s = {"kind": "cubext", "a": _sign(rng) * rng.choice(a), "d": d, "h": rng.randint(-2, 2),
                     "k": rng.randint(-2, 2)}
        elif family == "exponential":
            s = {"kind": "exp", "a": _sign(rng), "b": rng.choice([2, 2, 3]), "s": _sign(rng),
                 "h": rng.randint(-2, 2), "k": rng.randint(-4, 4)}
        elif family == "logarithmic":
            side = _sign(rng)
            s = {"kind": "log", "a": _sign(rng) * rng.choice([1, 1, 2]), "b": rng.choice([2, 2, "e"]), "s": side,
                 "h": side * rng.randint(-5, 0), "k": rng.randint(-3, 3)}
        elif family == "trigonometric":
            A = _sign(rng) * rng.choice([1, 2, 3])
            P = rng.choice([2, 4, 6] if window[1] - window[0] <= 12 else [2, 4, 6, 8])
            s = {"kind": "trig", "fn": rng.choice(["sin", "cos"]), "A": A, "P": P, "phi": rng.randrange(P),
                 "k": rng.randint(-2, 2)}
        elif family == "rational":
            s = {"kind": "rat", "a": _sign(rng) * rng.choice([1, 2, 3, 4]), "n": rng.choice([1, 1, 2]),
                 "h": rng.randint(-2, 2), "k": rng.randint(-3, 3)}
        elif family == "absolute":
            s = {"kind": "abs", "a": _sign(rng) * rng.choice([F(1, 2), F(1), F(1), F(2)]), "h": rng.randint(-3, 3),
                 "k": rng.randint(-4, 4)}
        elif family == "sqrt":
            side = _sign(rng)
            s = {"kind": "sqrt", "a": _sign(rng) * rng.choice([1, 2]), "s": side, "h": side * rng.randint(-5, 1),
                 "k": rng.randint(-4, 4)}
        else:
            raise ValueError(f"unknown family {family!r}")
        if _fits(s, window):
            return s
    raise RuntimeError(f"no {family} function fits the window")


# --------------------------------------------------------------------------- drafts


def _meta(kind: str, s: dict | None, plot: dict, **extra) -> dict:
    meta = {"sub_field": SUB_FIELD, "question_kind": kind}
    if s is not None:
        meta["shape"] = shape_json(s)
        meta["f"] = canon(expr_of(s))
    meta["plot"] = plot
    meta.update(extra)
    return meta


def _draft(task: str, question: str, options, answer: str, meta: dict, unit: str | None = None) -> Draft:
    if unit is None:
        unit = "function:" + meta["f"] if "f" in meta else "curve:" + hashlib.sha256(
            json.dumps(meta["plot"], sort_keys=True).encode()).hexdigest()[:16]
    return Draft(question, [partial(picture, task, meta)], options, answer, unit, meta)


def _place(ctx, key: str, cluster: list[str], rng: random.Random) -> tuple[int, list[str]]:
    """Which member of an option cluster is the answer (each member in balanced turn, so
    the seed, the option nearest the others, is the answer one time in four), and the
    options in an order that balances the answer's position."""
    rank = ctx.positions.choose(key + " (rank)", len(cluster), rng)
    others = [c for i, c in enumerate(cluster) if i != rank]
    return rank, ctx.positions.place(key, cluster[rank], others, rng)


# ---- keypoints (T1)


def _zero_cluster(rng: random.Random) -> list[tuple]:
    """A seed zero set and three perturbations: one zero missing or added, one moved by 1,
    all negated."""
    n = rng.choice([1, 2, 2, 3, 3])
    seed = tuple(sorted(rng.sample(range(-4, 5), n)))
    cands = []
    if n >= 2:
        cands += [tuple(z for z in seed if z != d) for d in seed]
    if n <= 2:
        cands += [tuple(sorted(seed + (z,))) for z in range(-5, 6) if z not in seed and
                  min(abs(z - t) for t in seed) <= 3]
    for i, z in enumerate(seed):
        for d in (-1, 1):
            moved = tuple(sorted(seed[:i] + (z + d,) + seed[i + 1:]))
            if z + d not in seed and abs(z + d) <= 5:
                cands.append(moved)
    cands.append(tuple(sorted(-z for z in seed)))
    cands = sorted({c for c in cands if c != seed})
    rng.shuffle(cands)
    return [seed] + cands[:3]


def _point_cluster(rng: random.Random, lim: int = 4) -> list[tuple]:
    """A seed point and three of: swapped coordinates, a neighbour on the grid, y negated, x negated."""
    while True:
        x0, y0 = rng.randint(-lim, lim), rng.randint(-lim, lim)
        cands = {(y0, x0), (x0 + 1, y0), (x0 - 1, y0), (x0, y0 + 1), (x0, y0 - 1), (x0, -y0), (-x0, y0)}
        cands = sorted(c for c in cands if c != (x0, y0) and max(abs(c[0]), abs(c[1])) <= lim + 1)
        if len(cands) >= 3:
            rng.shuffle(cands)
            return [(x0, y0)] + cands[:3]


def realize_zeros(zeros: tuple, rng: random.Random) -> dict | None:
    """A function whose zeros are exactly ``zeros`` (all inside the window)."""
    n = len(zeros)
    tries = []
    if n == 1:
        r = F(zeros[0])
        m, side, a = rng.choice([0, 1, 2]), _sign(rng), _sign(rng)
        tries.append({"kind": "exp", "a": a, "b": 2, "s": side, "h": r - side * m, "k": -a * 2 ** m})
        j = rng.choice([0, 1, 2])
        a2 = _sign(rng) * rng.choice([1, 2])
        tries.append({"kind": "log", "a": a2, "b": 2, "s": side, "h": r - side * 2 ** j, "k": -a2 * j})
        k = _sign(rng) * rng.choice([1, 2])
        h = rng.choice([v for v in range(-3, 4) if v != r and abs((v - r) * k) <= 4] or [r + 1])
        tries.append({"kind": "rat", "a": (h - r) * k, "n": 1, "h": h, "k": k})
        j = rng.choice([1, 2])
        tries.append({"kind": "sqrt", "a": a2, "s": side, "h": r - side * j * j, "k": -a2 * j})
        ac = _sign(rng) * rng.choice([F(1, 2), F(1), F(2)])
        tries.append({"kind": "cubext", "a": ac, "d": 0, "h": r - 1, "k": -ac})
    elif n == 2:
        r1, r2 = F(zeros[0]), F(zeros[1])
        h, d = (r1 + r2) / 2, (r2 - r1) / 2
        for a in (F(1, 4), F(1, 2), F(1), F(2), F(4)):
            if 1 <= a * d * d <= 5:
                sg = _sign(rng)
                tries.append({"kind": "quad", "a": sg * a, "h": h, "k": -sg * a * d * d})
        for a in (F(1, 2), F(1), F(2)):
            if 1 <= a * d <= 5:
                sg = _sign(rng)
                tries.append({"kind": "abs", "a": sg * a, "h": h, "k": -sg * a * d})
        double = rng.choice([r1, r2])
        for a in (F(1, 8), F(1, 4), F(1, 2), F(1)):
            tries.append({"kind": "cubic", "a": _sign(rng) * a, "roots": sorted([r1, r2, double]), "k": 0})
    else:
        for a in (F(1, 8), F(1, 4), F(1, 2), F(1), F(2), F(3), F(4)):
            tries.append({"kind": "cubic", "a": _sign(rng) * a, "roots": [F(z) for z in zeros], "k": 0})
    rng.shuffle(tries)
    for s in tries:
        # a cubic's turning points are clear of the axis (or on it, at a double zero)
        if _fits(s) and (s["kind"] != "cubic" or all(abs(e[1]) >= 0.8 or abs(e[1]) < 1e-9
                                                     for e in _cubic_extrema(s))):
            return s
    return None


def _extrema(s: dict) -> list[tuple[F, F, str]]:
    """Local extrema by construction: (x, y, 'max' or 'min')."""
    k, a = s["kind"], F(s.get("a", 0))
    if k in ("quad", "abs"):
        return [(F(s["h"]), F(s["k"]), "min" if a > 0 else "max")]
    if k == "cubext":
        d, h, c = F(s["d"]), F(s["h"]), F(s["k"])
        if d == 0:
            return []
        up = "max" if a > 0 else "min"
        down = "min" if a > 0 else "max"
        return [(h - d, c + 2 * a * d ** 3, up), (h + d, c - 2 * a * d ** 3, down)]
    if k == "quartic":
        d, h, c = F(s["d"]), F(s["h"]), F(s["k"])
        outer, inner = ("min", "max") if a > 0 else ("max", "min")
        return [(h - d, c, outer), (h, c + a * d ** 4, inner), (h + d, c, outer)]
    raise ValueError(k)


def realize_extremum(p: tuple, which: str, rng: random.Random) -> dict | None:
    """A function with a local ``which`` ('max' or 'min') at the grid point ``p``."""
    x0, y0 = F(p[0]), F(p[1])
    sg = -1 if which == "max" else 1
    tries = [{"kind": "quad", "a": sg * rng.choice([F(1, 2), F(1), F(2)]), "h": x0, "k": y0},
             {"kind": "abs", "a": sg * rng.choice([F(1, 2), F(1), F(2)]), "h": x0, "k": y0}]
    for d, choices in ((1, (F(1, 2), F(1))), (2, (F(1, 16), F(1, 8)))):
        a = _sign(rng) * rng.choice(choices)
        first = (a > 0) == (which == "max")  # the extremum asked for is at h - d
        h = x0 + d if first else x0 - d
        tries.append({"kind": "cubext", "a": a, "d": d, "h": h, "k": y0 - (2 if first else -2) * a * d ** 3})
    a = rng.choice([F(1, 8), F(1, 4)])
    if which == "max":  # a W: its bump is the one maximum
        tries.append({"kind": "quartic", "a": a, "d": 2, "h": x0, "k": y0 - a * 16})
    else:  # an M: its dip is the one minimum
        tries.append({"kind": "quartic", "a": -a, "d": 2, "h": x0, "k": y0 + a * 16})
    rng.shuffle(tries)
    for s in tries:
        if all(_inside(e[:2], W6, 0.8) for e in _extrema(s)) and _visible_share(s, W6) >= 0.3:
            return s
    return None


def realize_yint(b: int, rng: random.Random) -> dict | None:
    """A function through (0, b) whose crossing is inside the window."""
    b = F(b)
    kinds = ["quad", "abs", "exp", "log", "rat", "trig", "cubic", "sqrt"] * 3
    rng.shuffle(kinds)
    for kind in kinds:
        if kind in ("quad", "abs"):
            a, h = _sign(rng) * rng.choice([F(1, 2), F(1), F(2)]), rng.choice([-3, -2, -1, 1, 2, 3])
            s = {"kind": kind, "a": a, "h": h, "k": b - a * (h * h if kind == "quad" else abs(h))}
        elif kind == "exp":
            side, e = _sign(rng), rng.choice([0, 1, 2])
            a = _sign(rng)
            s = {"kind": "exp", "a": a, "b": 2, "s": side, "h": -side * e, "k": b - a * 2 ** e}
        elif kind == "log":
            side, e = _sign(rng), rng.choice([0, 1, 2])
            a = _sign(rng) * rng.choice([1, 2])
            s = {"kind": "log", "a": a, "b": 2, "s": side, "h": -side * 2 ** e, "k": b - a * e}
        elif kind == "rat":
            h = rng.choice([-3, -2, -1, 1, 2, 3])
            a = h * rng.choice([v for v in (-2, -1, 1, 2) if abs(h * v) <= 4])
            s = {"kind": "rat", "a": a, "n": 1, "h": h, "k": b + F(a, h)}
        elif kind == "trig":
            P = rng.choice([4, 6])
            phi = F(P, 4) * rng.choice([-1, 0, 1, 2])
            A, fn = _sign(rng) * rng.choice([1, 2]), rng.choice(["sin", "cos"])
            at0 = A * round((math.sin if fn == "sin" else math.cos)(-2 * math.pi * phi / P))
            s = {"kind": "trig", "fn": fn, "A": A, "P": P, "phi": phi, "k": b - at0}
        elif kind == "cubic":
            roots = sorted(rng.sample(range(-4, 5), 3))
            a = _sign(rng) * F(1, rng.choice([2, 4, 8]))
            s = {"kind": "cubic", "a": a, "roots": roots, "k": b + a * roots[0] * roots[1] * roots[2]}
        else:
            side, e = _sign(rng), rng.choice([1, 2])
            a = _sign(rng) * rng.choice([1, 2])
            s = {"kind": "sqrt", "a": a, "s": side, "h": -side * e * e, "k": b - a * e}
        if abs(F(s["k"])) <= 4 and _fits(s):
            return s
    return None


def realize_inflection(p: tuple, rng: random.Random) -> dict | None:
    x0, y0 = F(p[0]), F(p[1])
    options = [(0, (F(1, 4), F(1, 2), F(1))), (1, (F(1, 2), F(1))), (2, (F(1, 16), F(1, 8)))]
    rng.shuffle(options)
    for d, choices in options:
        s = {"kind": "cubext", "a": _sign(rng) * rng.choice(choices), "d": d, "h": x0, "k": y0}
        if _fits(s) and _visible_share(s, W6) >= 0.3:
            return s
    return None


KEYPOINT_KINDS = ("zeros", "maximum", "minimum", "y-intercept", "inflection")


def make_keypoints(ctx, count: int, rng: random.Random) -> list[Draft]:
    """Zeros, a local maximum or minimum, the y-intercept, the inflection point of a cubic;
    the four options are a seed and three perturbations, the function built through one."""
    out = []
    for _ in range(count * 30):
        if len(out) == count:
            break
        kind = KEYPOINT_KINDS[len(out) % len(KEYPOINT_KINDS)]
        key = f"mathematics-keypoints {kind}"
        if kind == "zeros":
            cluster = _zero_cluster(rng)
            made = [realize_zeros(z, rng) for z in cluster]
            texts = [_zeros_text(z) for z in cluster]
        elif kind in ("maximum", "minimum"):
            cluster = _point_cluster(rng)
            made = [realize_extremum(p, kind[:3], rng) for p in cluster]
            texts = [_point(p) for p in cluster]
        elif kind == "y-intercept":
            b0 = rng.randint(-4, 4)
            others = sorted({b0 + 1, b0 - 1, b0 + 2, b0 - 2, -b0} - {b0})
            rng.shuffle(others)
            cluster = [(0, b) for b in [b0] + others[:3]]
            made = [realize_yint(p[1], rng) if abs(p[1]) <= 5 else None for p in cluster]
            texts = [_point(p) for p in cluster]
        else:
            cluster = _point_cluster(rng, 3)
            made = [realize_inflection(p, rng) for p in cluster]
            texts = [_point(p) for p in cluster]
        # every member can be the answer (else the options would tell which cannot be)
        if len(cluster) < 4 or len(set(texts)) < 4 or any(m is None or not _keypoint_ok(kind, m, cluster)
                                                           for m in made):
            continue
        rank, options = _place(ctx, key, texts, rng)
        s = made[rank]
        meta = _meta(kind, s, plot_of(s, W6))
        out.append(_draft("keypoints", mcq_prompt(PROMPTS[kind], options), options, texts[rank], meta))
    return out


def _keypoint_ok(kind: str, s: dict, cluster) -> bool:
    """By construction: one option of the cluster is true of ``s`` (zero sets, intercepts
    and the cubic's one inflection point are exact by construction; a function can have
    two local minima)."""
    if kind in ("maximum", "minimum"):
        true = {(e[0], e[1]) for e in _extrema(s) if e[2] == kind[:3]}
        return sum((F(p[0]), F(p[1])) in true for p in cluster) == 1
    return True


# ---- function type (T2)


FAMILY_ORDER = tuple(FAMILY_NAMES)


def make_function_type(ctx, count: int, rng: random.Random) -> list[Draft]:
    """The families in turn; three other family names, chosen evenly, as distractors."""
    out = []
    for i in range(count):
        family = FAMILY_ORDER[i % len(FAMILY_ORDER)]
        s = sample_family(family, rng)
        others = rng.sample([f for f in FAMILY_ORDER if f != family], 3)
        options = ctx.positions.place("mathematics-function-type", FAMILY_NAMES[family],
                                      [FAMILY_NAMES[f] for f in others], rng)
        meta = _meta("function-type", s, plot_of(s, W6), family=family)
        out.append(_draft("function-type", mcq_prompt(PROMPTS["function-type"], options), options,
                          FAMILY_NAMES[family], meta))
    return out


# ---- monotonicity (T6)


def _monotone_intervals(s: dict) -> list[tuple]:
    """Maximal open intervals of monotonicity (None for an infinite end) with 'inc' or 'dec'."""
    ext = sorted(_extrema(s))
    cuts = [None] + [e[0] for e in ext] + [None]
    out = []
    for i in range(len(cuts) - 1):
        # before a minimum (or after a maximum) the function decreases
        if i < len(ext):
            direction = "dec" if ext[i][2] == "min" else "inc"
        else:
            direction = "inc" if ext[-1][2] == "min" else "dec"
        out.append((cuts[i], cuts[i + 1], direction))
    return out


def _contained(iv, big) -> bool:
    lo, hi = iv
    blo, bhi = big
    return (blo is None or (lo is not None and lo >= blo)) and (bhi is None or (hi is not None and hi <= bhi))


def _cubic_between(p, q, middle: str, k, rng: random.Random) -> dict | None:
    """A cubic with its extrema at x = p < q, going ``middle`` ('inc' or 'dec') between
    them. Its turning points must be readable on the grid: the curvature there,
    1.5 * height / d**2, is at least 0.75 (the extrema 2 to 5 units apart in height, at
    most 6 apart in x)."""
    d = F(q - p, 2)
    heights = [h for h in (2, 3, 4, 5) if h >= d * d / 2]
    if d > 3 or not heights:
        return None
    height = rng.choice(heights)
    a = F(height) / (4 * d ** 3)  # a > 0 falls between its extrema
    return {"kind": "cubext", "a": a if middle == "dec" else -a, "d": d, "h": F(p + q, 2),
            "k": k + F(height, 2) * rng.choice([-1, 0, 1]) / 2}


def _partition_shape(slot: int, direction: str, cuts: tuple, rng: random.Random) -> dict | None:
    """A function whose maximal interval going ``direction`` is the ``slot``-th interval of
    the partition of the line by ``cuts`` (a < b < c): a parabola or a V with its vertex
    at a or c, or a cubic whose extrema are two neighbouring cuts, or one end cut and a
    point beyond the far cut (then an option runs across that extremum)."""
    a, b, c = cuts
    sign = 1 if direction == "inc" else -1
    other = "dec" if direction == "inc" else "inc"
    k = rng.randint(-3, 3)
    if slot in (0, 3):
        at, lead = (a, -sign) if slot == 0 else (c, sign)  # the left side rises when it opens downwards
        choices = [{"kind": kind, "a": lead * rng.choice([F(1, 2), F(1), F(2)]), "h": at, "k": k}
                   for kind in ("quad", "abs")]
        far = c + 1 if slot == 0 else a - 1
        choices.append(_cubic_between(min(at, far), max(at, far), other, k, rng))
        return rng.choice(choices)
    lo, hi = cuts[slot - 1], cuts[slot]
    return _cubic_between(lo, hi, direction, k, rng)


def monotonicity_options(s: dict, direction: str, cuts: tuple) -> tuple[str, list[str]] | None:
    """The four intervals of the partition by ``cuts``: the one that lies inside a maximal
    interval where the function goes ``direction`` (None unless exactly one does)."""
    a, b, c = cuts
    options = [(None, a), (a, b), (b, c), (c, None)]
    good = [(lo, hi) for lo, hi, d in _monotone_intervals(s) if d == direction]
    true = [iv for iv in options if any(_contained(iv, g) for g in good)]
    if len(true) != 1:
        return None
    return _interval_text(*true[0]), [_interval_text(*iv) for iv in options if iv != true[0]]


def make_monotonicity(ctx, count: int, rng: random.Random) -> list[Draft]:
    """Three cuts a < b < c on the grid; the options are the four intervals they cut the
    line into, and the function is built so that one of them, each in turn, lies in a
    maximal interval where it goes the way asked (increasing and decreasing in turn).
    Every option can be the answer, so the options alone tell nothing. The distractors
    are pieces of the other monotonic intervals, and an interval across an extremum when
    a cubic's second extremum lies beyond the far cut."""
    out = []
    for _ in range(count * 20):
        if len(out) == count:
            break
        direction = ("inc", "dec")[len(out) % 2]
        slot = (len(out) // 2) % 4
        gaps = rng.choice([2, 3]), rng.choice([2, 3])
        a = rng.randint(-5, 5 - sum(gaps))
        cuts = (a, a + gaps[0], a + sum(gaps))
        s = _partition_shape(slot, direction, cuts, rng)
        if s is None or not all(_inside(e[:2], W6, 0.8) for e in _extrema(s)) or _visible_share(s, W6) < 0.3:
            continue
        made = monotonicity_options(s, direction, cuts)
        if made is None:
            continue
        answer, others = made
        options = ctx.positions.place("mathematics-monotonicity", answer, others, rng)
        word = "increasing" if direction == "inc" else "decreasing"
        meta = _meta("monotonicity", s, plot_of(s, W6), direction=word)
        out.append(_draft("monotonicity", mcq_prompt(PROMPTS["monotonicity"].format(direction=word), options),
                          options, answer, meta))
    return out


# ---- global properties (T7)


def parity_shape(parity: str, periodic: bool, rng: random.Random) -> dict:
    """A function with the given parity and periodicity, asymmetric enough to show 'neither'."""
    while True:
        if periodic:
            P, A = rng.choice([2, 4, 6]), _sign(rng) * rng.choice([1, 2, 3])
            if parity == "even":
                s = {"kind": "trig", "fn": "cos", "A": A, "P": P, "phi": 0, "k": rng.randint(-2, 2)}
            elif parity == "odd":
                s = {"kind": "trig", "fn": "sin", "A": A, "P": P, "phi": 0, "k": 0}
            elif rng.random() < 0.5:
                s = {"kind": "trig", "fn": "sin", "A": A, "P": P, "phi": 0, "k": rng.choice([-2, -1, 1, 2])}
            else:
                s = {"kind": "trig", "fn": "cos", "A": A, "P": 6, "phi": rng.choice([-1, 1]), "k": rng.randint(-1, 1)}
        elif parity == "even":
            kind = rng.choice(["quad", "abs", "rat", "quartic"])
            if kind in ("quad", "abs"):
                s = {"kind": kind, "a": _sign(rng) * rng.choice([F(1, 2), F(1), F(2)]), "h": 0, "k": rng.randint(-3, 3)}
            elif kind == "rat":
                s = {"kind": "rat", "a": _sign(rng) * rng.choice([1, 2, 3]), "n": 2, "h": 0, "k": rng.randint(-2, 2)}
            else:
                a = _sign(rng) * F(1, 4)
                s = {"kind": "quartic", "a": a, "d": 2, "h": 0, "k": -2 if a > 0 else 2}
        elif parity == "odd":
            kind = rng.choice(["cubext", "cubext", "rat"])
            if kind == "rat":
                s = {"kind": "rat", "a": _sign(rng) * rng.choice([1, 2, 3]), "n": 1, "h": 0, "k": 0}
            else:
                d = rng.choice([0, 1, 2])
                a = {0: [F(1, 4), F(1, 2)], 1: [F(1, 2), F(1)], 2: [F(1, 16), F(1, 8)]}[d]
                s = {"kind": "cubext", "a": _sign(rng) * rng.choice(a), "d": d, "h": 0, "k": 0}
        else:
            family = rng.choice(["quadratic", "absolute", "exponential", "logarithmic", "sqrt", "cubic", "rational"])
            s = sample_family(family, rng)
            if s["kind"] in ("quad", "abs", "rat") and s["h"] == 0:
                continue
            if s["kind"] == "cubic" or (s["kind"] == "cubext" and s["h"] == 0):
                continue  # a cubic in root form can be odd by chance; keep the shifted extrema form
        if _fits(s) or (s["kind"] == "quartic" and _visible_share(s, W6) >= 0.3):
            return s


def period_shape(P: int, rng: random.Random) -> dict:
    """A periodic function with fundamental period P: a sine or cosine, a sawtooth or a
    triangle wave, drawn on the wide window (two periods of 8 fit)."""
    while True:
        s = _periodic(P, rng)
        if all(_off_origin(d["x"], d["y"]) for d in plot_of(s, W8)["dots"]):
            return s


def _periodic(P: int, rng: random.Random) -> dict:
    kind = rng.choice(["trig", "trig", "saw", "tri"])
    if kind == "trig":
        A = _sign(rng) * rng.choice([1, 2, 3])
        return {"kind": "trig", "fn": rng.choice(["sin", "cos"]), "A": A, "P": P, "phi": rng.randrange(P),
                "k": rng.randint(-1, 1)}
    if kind == "saw":
        heights = [h for h in (2, 3, 4, 6) if h <= 2 * P and h * 2 >= P]
        height = rng.choice(heights)
        m = _sign(rng) * F(height, P)
        c = rng.randint(-4, 4 - height) if m > 0 else rng.randint(-4 + height, 4)
        return {"kind": "saw", "m": m, "P": P, "x0": rng.randrange(P), "c": c}
    height = rng.choice([h for h in (2, 3, 4) if h <= P * 2])
    a = _sign(rng) * F(2 * height, P)
    c = rng.randint(-4, 4 - height) if a > 0 else rng.randint(-4 + height, 4)
    return {"kind": "tri", "a": a, "P": P, "x0": rng.randrange(P), "c": c}


def make_global_properties(ctx, count: int, rng: random.Random) -> list[Draft]:
    """Parity with periodicity (six answers in turn, three other combinations chosen evenly
    as distractors) and the period (answers 2, 4, 6, 8 in turn, always those four options:
    half and double the period among them)."""
    out = []
    combos = list(PARITY_OPTIONS)
    for i in range(count):
        turn = i // 2
        if i % 2 == 0:
            parity, periodic = combos[turn % len(combos)]
            s = parity_shape(parity, periodic, rng)
            answer = PARITY_OPTIONS[(parity, periodic)]
            others = rng.sample([v for c, v in PARITY_OPTIONS.items() if c != (parity, periodic)], 3)
            options = ctx.positions.place("mathematics-global-properties parity", answer, others, rng)
            meta = _meta("parity", s, plot_of(s, W6), parity=parity, periodic=periodic)
            out.append(_draft("global-properties", mcq_prompt(PROMPTS["parity"], options), options, answer, meta))
        else:
            P = PERIODS[turn % len(PERIODS)]
            s = period_shape(P, rng)
            options = ctx.positions.place("mathematics-global-properties period", str(P),
                                          [str(v) for v in PERIODS if v != P], rng)
            meta = _meta("period", s, plot_of(s, W8), period=P)
            out.append(_draft("global-properties", mcq_prompt(PROMPTS["period"], options), options, str(P), meta))
    return out


# ---- domain and values (T8, free answers)


def bounded_pieces(rng: random.Random, n: int, constant_ok: bool = True, gap: str = "none") -> list[tuple]:
    """Linear pieces on consecutive integer intervals inside [-5, 5], with a jump at some
    breaks (one end filled, the other open), or a hole or a gap in the domain."""
    cuts = sorted(rng.sample(range(-3, 4), n - 1))
    lo_end, hi_end = rng.randint(-5, -4), rng.randint(4, 5)
    edges = [lo_end] + cuts + [hi_end]
    pieces = []
    for i in range(n):
        lo, hi = edges[i], edges[i + 1]
        while True:
            m = F(rng.choice([-2, -1, 0, 1, 2] if constant_ok else [-2, -1, 1, 2]), rng.choice([1, 1, 2]))
            y_lo = rng.randint(-4, 4)
            if (m * (hi - lo)).denominator == 1 and -5 <= y_lo + m * (hi - lo) <= 5:
                break
        pieces.append([m, y_lo - m * lo, lo, hi, True, False])
    for i in range(n - 1):  # at each break the point belongs to one piece only
        if rng.random() < 0.5:
            pieces[i][5], pieces[i + 1][4] = True, False
    if gap == "hole":  # a point missing inside a piece
        i = rng.randrange(n)
        m, c, lo, hi = pieces[i][:4]
        if hi - lo >= 2:
            x0 = rng.randint(lo + 1, hi - 1)
            pieces[i:i + 1] = [[m, c, lo, x0, pieces[i][4], False], [m, c, x0, hi, False, pieces[i][5]]]
    elif gap == "gap" and n >= 2:
        i = rng.randrange(n - 1)
        if pieces[i][3] - pieces[i][2] >= 2:
            pieces[i][3] -= 1
            pieces[i][5] = True
            pieces[i + 1][4] = True
    pieces[0][4] = rng.random() < 0.7
    pieces[-1][5] = rng.random() < 0.7
    pieces = [tuple(p) for p in pieces]
    if not all(_off_origin(d["x"], d["y"]) for d in _pw_dots(pieces)):
        return bounded_pieces(rng, n, constant_ok, gap)
    return pieces


def _pw_set(pieces, image: bool) -> sp.Set:
    """The domain (or the image) of linear pieces, by construction from their ends."""
    out = sp.EmptySet
    for m, c, lo, hi, lo_closed, hi_closed in pieces:
        if not image:
            out |= sp.Interval(lo, hi, not lo_closed, not hi_closed)
            continue
        ya, yb = F(m) * lo + F(c), F(m) * hi + F(c)
        if ya == yb:
            out |= sp.FiniteSet(sp.Rational(ya))
        elif ya < yb:
            out |= sp.Interval(sp.Rational(ya), sp.Rational(yb), not lo_closed, not hi_closed)
        else:
            out |= sp.Interval(sp.Rational(yb), sp.Rational(ya), not hi_closed, not lo_closed)
    return out


DOMAIN_SOURCES = ("log", "sqrt", "rat", "hole", "pw")
RANGE_SOURCES = ("quadratic", "absolute", "exponential", "sqrt", "trigonometric", "rational", "rat2", "pw")
VALUE_SOURCES = ("pw", "quadratic", "pw", "absolute", "exponential", "logarithmic", "sqrt", "rational", "cubic")
ZERO_SOURCES = ("trig", "cubic", "quad", "pw", "trig")


def _domain_item(source: str, rng: random.Random) -> tuple[dict, str]:
    if source == "log":
        s = sample_family("logarithmic", rng)
        h = F(s["h"])
        return s, _set_text(sp.Interval.open(h, sp.oo) if s["s"] > 0 else sp.Interval.open(-sp.oo, h))
    if source == "sqrt":
        s = sample_family("sqrt", rng)
        h = F(s["h"])
        return s, _set_text(sp.Interval(h, sp.oo) if s["s"] > 0 else sp.Interval(-sp.oo, h))
    if source in ("rat", "hole"):
        if source == "rat":
            s = sample_family("rational", rng)
        else:
            while True:
                # off the y-axis (x**2/x would also cancel in sympy)
                s = {"kind": "hole", "m": _sign(rng) * rng.choice([F(1, 2), F(1), F(2)]), "c": rng.randint(-3, 3),
                     "h": rng.choice([-3, -2, -1, 1, 2, 3])}
                if abs(s["m"] * s["h"] + s["c"]) <= 4:
                    break
        return s, _set_text(sp.Reals - sp.FiniteSet(sp.Rational(s["h"])))
    s = {"kind": "pw", "pieces": bounded_pieces(rng, rng.choice([2, 2, 3]), gap=rng.choice(["none", "hole", "gap"]))}
    return s, _set_text(_pw_set(s["pieces"], image=False))


def _range_item(source: str, rng: random.Random) -> tuple[dict, str] | None:
    if source == "pw":
        s = {"kind": "pw", "pieces": bounded_pieces(rng, rng.choice([2, 3]), constant_ok=False)}
        image = _pw_set(s["pieces"], image=True)
        if any(isinstance(p, sp.FiniteSet) for p in (image.args if isinstance(image, sp.Union) else (image,))):
            return None
        return s, _set_text(image)
    if source == "rat2":
        s = {"kind": "rat", "a": _sign(rng) * rng.choice([1, 2, 3]), "n": 2, "h": rng.randint(-2, 2),
             "k": rng.randint(-3, 3)}
        if not _fits(s):
            return None
    else:
        s = sample_family(source, rng)
    k = F(s.get("k", 0))
    kind = s["kind"]
    if kind in ("quad", "abs", "sqrt"):
        up = (s["a"] > 0)
        rng_set = sp.Interval(k, sp.oo) if up else sp.Interval(-sp.oo, k)
    elif kind == "exp":
        rng_set = sp.Interval.open(k, sp.oo) if s["a"] > 0 else sp.Interval.open(-sp.oo, k)
    elif kind == "trig":
        rng_set = sp.Interval(k - abs(F(s["A"])), k + abs(F(s["A"])))
    elif kind == "rat" and s["n"] == 1:
        rng_set = sp.Reals - sp.FiniteSet(sp.Rational(k))
    elif kind == "rat":
        rng_set = sp.Interval.open(k, sp.oo) if s["a"] > 0 else sp.Interval.open(-sp.oo, k)
    elif kind in ("cubic", "cubext", "log"):
        rng_set = sp.Reals
    else:
        return None
    return s, _set_text(rng_set)


def _value_item(source: str, rng: random.Random) -> tuple[dict, int, int] | None:
    """A grid point x = a where the curve passes a grid intersection (or a jump's filled dot)."""
    if source == "pw":
        for _ in range(50):
            s = {"kind": "pw", "pieces": bounded_pieces(rng, rng.choice([2, 3]))}
            jumps = []
            for p, q in zip(s["pieces"], s["pieces"][1:]):
                left, right = F(p[0]) * p[3] + F(p[1]), F(q[0]) * q[2] + F(q[1])
                if left != right and p[3] == q[2]:
                    jumps.append((p[3], left if p[5] else right))
            if jumps:
                a, v = rng.choice(jumps)
                return s, int(a), int(v)
        return None
    s = sample_family(source, rng)
    xs = np.arange(W6[0] + 1, W6[1])
    ys = _ys(s, xs.astype(float))
    good = [(int(a), y) for a, y in zip(xs, ys) if np.isfinite(y) and abs(y - round(y)) < 1e-9 and abs(y) <= 5
            and a != 0]
    if not good:
        return None
    a, y = rng.choice(good)
    exact = sp.simplify(sp.sympify(expr_of(s)).subs(sp.Symbol("x"), a))
    if not exact.is_Integer:  # floating noise that looked whole
        return None
    return s, a, int(exact)


def _zero_count_item(source: str, rng: random.Random, window=W6) -> tuple[dict, int] | None:
    """A function whose zeros in the window are simple crossings away from the edges,
    counted from the parameters (sine: the two solution families; polynomials: numpy roots)."""
    xmin, xmax = window[0], window[1]
    if source == "trig":
        A = _sign(rng) * rng.choice([2, 3])
        P = rng.choice([2, 4, 6])
        s = {"kind": "trig", "fn": rng.choice(["sin", "cos"]), "A": A, "P": P, "phi": rng.randrange(P),
             "k": rng.choice([-1, 0, 1]) * (abs(A) - 1)}
        ratio = -F(s["k"]) / F(A)
        base = math.asin(float(ratio)) if s["fn"] == "sin" else math.acos(float(ratio))
        sols = {base, (math.pi - base) if s["fn"] == "sin" else -base}
        zeros = []
        for u in sols:
            for n in range(-20, 21):
                zeros.append(float(s["phi"]) + (u + 2 * math.pi * n) * P / (2 * math.pi))
        zeros = sorted({round(z, 9) for z in zeros if xmin - 0.5 < z < xmax + 0.5})
    elif source == "cubic":
        roots = sorted(rng.sample(range(-4, 5), 3))
        s = {"kind": "cubic", "a": _sign(rng) * F(1, rng.choice([2, 4, 8])), "roots": roots,
             "k": rng.choice([0, 1, -1, 2, -2, F(1, 2), F(-1, 2), 3, -3])}
        coeffs = np.poly(roots) * float(s["a"])
        coeffs[-1] += float(s["k"])
        ext = _cubic_extrema(s)
        if not ext or min(abs(e[1]) for e in ext) < 0.6 or not all(_inside(e, window, 0.5) for e in ext):
            return None
        zeros = [r.real for r in np.roots(coeffs) if abs(r.imag) < 1e-9]
    elif source == "quad":
        s = {"kind": "quad", "a": _sign(rng) * rng.choice([F(1, 2), F(1), F(2)]), "h": rng.randint(-3, 3),
             "k": rng.choice([-4, -3, -2, -1, 1, 2, 3, 4])}
        if not _fits(s):
            return None
        q = -F(s["k"]) / F(s["a"])
        zeros = [] if q < 0 else [float(s["h"]) - math.sqrt(q), float(s["h"]) + math.sqrt(q)]
    else:
        s = {"kind": "pw", "pieces": bounded_pieces(rng, rng.choice([2, 3, 3]), constant_ok=False)}
        zeros = []
        for m, c, lo, hi, lo_closed, hi_closed in s["pieces"]:
            z = -F(c) / F(m)
            if lo < z < hi:
                zeros.append(float(z))
            elif z in (lo, hi):
                return None  # a zero on a dot: readable, but keep crossings only
    if any(abs(z - xmin) < 0.25 or abs(z - xmax) < 0.25 for z in zeros):
        return None
    if len(set(round(z, 6) for z in zeros)) != len(zeros):
        return None
    return s, sum(xmin <= z <= xmax for z in zeros)


def make_domain_value(ctx, count: int, rng: random.Random) -> list[Draft]:
    """Domain and range (interval answers), f(a) at a grid point and the number of zeros
    in the window (exact answers); each kind takes its sources in turn."""
    kinds = ("domain", "range", "value", "zeros-count")
    out = []
    for _ in range(count * 30):
        if len(out) == count:
            break
        kind = kinds[len(out) % 4]
        turn = len(out) // 4
        if kind == "domain":
            s, answer = _domain_item(DOMAIN_SOURCES[turn % len(DOMAIN_SOURCES)], rng)
            fmt, stem, extra = "interval", PROMPTS["domain"], {}
        elif kind == "range":
            made = _range_item(RANGE_SOURCES[turn % len(RANGE_SOURCES)], rng)
            if made is None:
                continue
            s, answer = made
            fmt, stem, extra = "interval", PROMPTS["range"], {}
        elif kind == "value":
            made = _value_item(VALUE_SOURCES[turn % len(VALUE_SOURCES)], rng)
            if made is None:
                continue
            s, a, v = made
            fmt, stem, answer, extra = "exact", PROMPTS["value"].format(a=a), str(v), {"at": a}
        else:
            made = _zero_count_item(ZERO_SOURCES[turn % len(ZERO_SOURCES)], rng)
            if made is None:
                continue
            s, n = made
            fmt, answer = "exact", str(n)
            stem, extra = PROMPTS["zeros-count"].format(lo=W6[0], hi=W6[1]), {"interval": [W6[0], W6[1]]}
        meta = _meta(kind, s, plot_of(s, W6), answer_format=fmt, **extra)
        out.append(_draft("domain-value", stem + " " + mb.format_text(fmt, answer), None, answer, meta))
    return out


# ---- plot consistency (T13)


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
        error = "none" if len(out) % 2 == 0 else errors[(len(out) // 2) % len(errors)]
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


# ---- vertical-line test (T14)


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
    for i in range(count):
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


TASKS = {
    "keypoints": Task(1, "Math T1", make_keypoints, filtered=True),
    "function-type": Task(1, "Math T2", make_function_type, filtered=True),
    "monotonicity": Task(2, "Math T6", make_monotonicity, filtered=True),
    "global-properties": Task(2, "Math T7", make_global_properties),
    "domain-value": Task(2, "Math T8", make_domain_value, mcq=False),
    "plot-consistency": Task(3, "Math T13", make_plot_consistency),
    "vertical-line": Task(3, "Math T14", make_vertical_line),
}


# =========================================================================== check

X = sp.Symbol("x", real=True)
T = sp.Symbol("t", real=True)
EPS = sp.Rational(1, 1000)


def _sym(text) -> sp.Expr:
    if isinstance(text, (int, float)):
        return sp.nsimplify(text)
    return _parsed(text)


@lru_cache(maxsize=4096)
def _parsed(text: str) -> sp.Expr:
    return sp.sympify(text, locals={"x": X, "t": T})


def _vals(expr: sp.Expr, pts) -> np.ndarray:
    """Values of a sympy expression at points (NaN where undefined), from sympy's own
    printing of it (parsed from meta or from the question, never the generator's shape)."""
    return evaluate(str(expr), np.array([float(v) for v in pts], float))


def _value(expr: sp.Expr, v) -> float | None:
    y = _vals(expr, [v])[0]
    return float(y) if np.isfinite(y) else None


def _same_function(a: sp.Expr, b: sp.Expr, pts) -> bool:
    """Equal (both undefined, or within 1e-9) at every point."""
    va, vb = _vals(a, pts), _vals(b, pts)
    defined = np.isfinite(va)
    return bool(np.array_equal(defined, np.isfinite(vb)) and np.all(np.abs(va[defined] - vb[defined]) <= 1e-9))


def _probe_points(window) -> list:
    """Rational points spread over the window, off the grid (no asymptote falls on them)."""
    lo, hi = window[0], window[1]
    return [sp.Rational(lo) + sp.Rational(hi - lo) * sp.Rational(2 * j + 1, 38) + sp.Rational(1, 97)
            for j in range(19)]


def _check_plot(meta: dict) -> str | None:
    """The drawing agrees with meta['f']: every piece's expression equals f inside its
    range; filled dots lie on f, open dots do not."""
    f = _sym(meta["f"])
    for p in meta["plot"].get("pieces", []):
        lo, hi = float(_sym(p["lo"])), float(_sym(p["hi"]))
        pts = [lo + (hi - lo) * j / 7 for j in (1, 3, 5, 6)]
        if not _same_function(_sym(p["expr"]), f, pts):
            return f"drawn piece {p['expr']} on [{p['lo']}, {p['hi']}] is not f = {meta['f']}"
    for d in meta["plot"].get("dots", []):
        v = _value(f, _sym(d["x"]))
        on = v is not None and abs(v - float(_sym(d["y"]))) < 1e-9
        if on == d["open"]:
            return f"dot at ({d['x']}, {d['y']}) is {'open' if d['open'] else 'filled'} but f there is {v}"
    return None


def _poly_or_none(f: sp.Expr, var: sp.Symbol = X):
    """f as a polynomial in ``var`` (None when it is not one)."""
    if f.has(sp.Abs, sp.sin, sp.cos, sp.log, sp.exp, sp.Mod, sp.sign):
        return None
    try:
        p = sp.Poly(f, var)
    except sp.PolynomialError:
        return None
    return p if p.gens == (var,) else None


def _real_zeros(f: sp.Expr) -> list:
    p = _poly_or_none(f)
    if p is not None:
        return sorted(set(sp.real_roots(p)))
    return sorted({z for z in sp.solve(f, X) if z.is_real})


def _critical(f: sp.Expr) -> list:
    """Where f' is zero or undefined (the corner of |x - h|)."""
    if f.has(sp.Abs):
        return sorted({z for a in f.atoms(sp.Abs) for z in sp.solve(a.args[0], X) if z.is_real})
    return sorted({z for z in sp.solve(sp.diff(f, X), X) if z.is_real})


def _local_extrema(f: sp.Expr) -> dict:
    """{(x, y): 'max' or 'min'} by comparing f at each critical point with its neighbours."""
    out = {}
    for c in _critical(f):
        fc, left, right = f.subs(X, c), f.subs(X, c - EPS), f.subs(X, c + EPS)
        if left < fc and right < fc:
            out[(c, sp.nsimplify(fc))] = "max"
        elif left > fc and right > fc:
            out[(c, sp.nsimplify(fc))] = "min"
    return out


def _inflections(f: sp.Expr) -> list:
    f2 = sp.diff(f, X, 2)
    return [(c, f.subs(X, c)) for c in sp.solve(f2, X)
            if c.is_real and sp.sign(f2.subs(X, c - EPS)) != sp.sign(f2.subs(X, c + EPS))]


_NUM = r"(-?\d+(?:/\d+)?)"


def _parse_point(text: str):
    m = re.fullmatch(rf"\({_NUM}, {_NUM}\)", text)
    return (sp.Rational(m.group(1)), sp.Rational(m.group(2))) if m else None


def _check_keypoints(question: str, options: list, answer: str, meta: dict) -> str | None:
    f, kind = _sym(meta["f"]), meta["question_kind"]
    window = meta["plot"]["window"]
    if kind == "zeros":
        zeros = _real_zeros(f)
        if not all(window[0] < z < window[1] for z in zeros):
            return f"zeros {zeros} are not all in the window"
        truth = [set(sp.Rational(v) for v in re.findall(r"x = " + _NUM, o)) == set(zeros) for o in options]
        got = f"zeros {zeros}"
    elif kind in ("maximum", "minimum"):
        ext = _local_extrema(f)
        truth = [ext.get(_parse_point(o)) == kind[:3] for o in options]
        got = f"extrema {ext}"
    elif kind == "y-intercept":
        y0 = sp.simplify(f.subs(X, 0))
        truth = [_parse_point(o) == (0, y0) for o in options]
        got = f"f(0) = {y0}"
    else:
        points = _inflections(f)
        truth = [_parse_point(o) in points for o in options]
        got = f"inflection points {points}"
    right = [o for o, t in zip(options, truth) if t]
    if right != [answer]:
        return f"{kind}: options true under re-derivation {right}, answer {answer!r} ({got})"
    p = _parse_point(answer)
    if p is not None and not (window[0] < p[0] < window[1] and window[2] < p[1] < window[3]):
        return f"the point {answer} is outside the window"
    return None


def classify(f: sp.Expr) -> str:
    """The family of an expression, from its structure."""
    if f.has(sp.sin, sp.cos):
        return "trigonometric"
    if f.has(sp.Abs):
        return "absolute"
    if f.has(sp.log):
        return "logarithmic"
    if any(p.exp.has(X) for p in f.atoms(sp.Pow)) or f.has(sp.exp):
        return "exponential"
    if any(p.exp == sp.S.Half and p.base.has(X) for p in f.atoms(sp.Pow)):
        return "sqrt"
    num, den = sp.fraction(sp.together(f))
    if den.has(X):
        return "rational"
    degree = sp.degree(f, X)
    return {2: "quadratic", 3: "cubic"}.get(degree, f"polynomial of degree {degree}")


def _monotone_on(f: sp.Expr, critical: list, lo, hi, direction: str) -> bool:
    """f strictly monotone in ``direction`` on the open interval: no critical point inside
    and the derivative's sign at an inside point."""
    if any((lo is None or lo < c) and (hi is None or c < hi) for c in critical):
        return False
    if lo is not None and hi is not None:
        mid = (lo + hi) / 2
    elif lo is None and hi is None:
        mid = sp.S(0)
    else:
        mid = hi - 1 if lo is None else lo + 1
    slope = sp.diff(f, X).subs(X, mid)
    return bool(slope > 0) if direction == "increasing" else bool(slope < 0)


def _parse_interval(text: str):
    m = re.fullmatch(r"\((-∞|-?\d+(?:/\d+)?), (∞|-?\d+(?:/\d+)?)\)", text)
    if not m:
        return None
    lo = None if m.group(1) == "-∞" else sp.Rational(m.group(1))
    hi = None if m.group(2) == "∞" else sp.Rational(m.group(2))
    return lo, hi


def _periods_of(f: sp.Expr) -> list:
    """The periods of the periodic atoms (sin, cos: 2*pi/w; Mod(w*x + c, m): m/w)."""
    out = []
    for a in f.atoms(sp.sin, sp.cos):
        out.append(2 * sp.pi / sp.Poly(a.args[0], X).coeffs()[0])
    for a in f.atoms(sp.Mod):
        out.append(a.args[1] / sp.Poly(a.args[0], X).coeffs()[0])
    return [sp.nsimplify(abs(p)) for p in out]


def _shift_agrees(f: sp.Expr, p) -> bool:
    """f(x + p) = f(x) at the probe points (numerically)."""
    pts = np.array([float(v) for v in _probe_points((-8, 8))])
    text = str(f)
    a, b = evaluate(text, pts + float(p)), evaluate(text, pts)
    return bool(np.array_equal(np.isfinite(a), np.isfinite(b)) and np.allclose(a[np.isfinite(a)], b[np.isfinite(b)],
                                                                                 rtol=0, atol=1e-9))


def _fundamental_period(f: sp.Expr):
    """The smallest period, None when f is not periodic. A period of f is a common multiple
    of its atoms' periods p; the smallest is the least p/m (m = 1..12) with f(x + p/m) = f(x),
    screened at probe points and then proved symbolically (the shifted expression expands
    back to f)."""
    periods = _periods_of(f)
    if not periods or not all(q.is_Rational for q in periods):
        return None
    p = sp.lcm_list([sp.Rational(q) for q in periods])
    for m in range(12, 0, -1):
        if _shift_agrees(f, p / m):
            return p / m if sp.expand(f.subs(X, X + p / m) - f) == 0 else None
    return None


def _parity(f: sp.Expr) -> str:
    """'even' or 'odd' when f(-x) = +-f(x) expands to an identity, 'neither' when probe
    points show both fail."""
    pts = [j / 3 + 1 / 7 for j in range(1, 18)]
    pts += [-v for v in pts]
    mirrored = f.subs(X, -X)
    even = _same_function(mirrored, f, pts)
    odd = _same_function(mirrored, -f, pts)
    if even and sp.expand(f.subs(X, -X) - f) == 0:
        return "even"
    if odd and sp.expand(f.subs(X, -X) + f) == 0:
        return "odd"
    if even or odd:
        return "undecided"
    return "neither"


def _check_global(question: str, options: list, answer: str, meta: dict) -> str | None:
    f = _sym(meta["f"])
    if meta["question_kind"] == "parity":
        found = (_parity(f), _fundamental_period(f) is not None)
        want = PARITY_OPTIONS.get(found)
        if want is None or want != answer:
            return f"re-derived {found}, answer {answer!r}"
        if sorted(options) != sorted(set(options)) or not set(options) <= set(PARITY_OPTIONS.values()):
            return f"bad parity options {options}"
        return None
    p = _fundamental_period(f)
    if p is None or str(p) != answer:
        return f"re-derived period {p}, answer {answer!r}"
    window = meta["plot"]["window"]
    if (window[1] - window[0]) / p < 2:
        return "fewer than two periods shown"
    return None


def parse_set(text: str) -> sp.Set:
    """An answer in the interval or set format: '[-2, 3) U (4, oo)', '{1, 2}', '{}'."""
    out = sp.EmptySet
    for part in text.split(" U "):
        part = part.strip()
        if part.startswith("{"):
            inner = part.strip("{}").strip()
            out |= sp.FiniteSet(*[sp.sympify(v) for v in inner.split(",")]) if inner else sp.EmptySet
            continue
        m = re.fullmatch(r"([\[(])\s*([^,]+),\s*([^\])]+)([\])])", part)
        if not m:
            raise ValueError(f"not an interval: {part!r}")
        out |= sp.Interval(sp.sympify(m.group(2)), sp.sympify(m.group(3)), m.group(1) == "(", m.group(4) == ")")
    return out


def _condition_set(cond) -> sp.Set:
    """The x-set of a piece's condition: bounds such as x >= -4 joined by & and | (sympy
    joins two pieces with one expression, such as the two sides of a hole, with |)."""
    if cond is sp.true:
        return sp.Reals
    if isinstance(cond, sp.And):
        return sp.Intersection(*[_condition_set(c) for c in cond.args])
    if isinstance(cond, sp.Or):
        return sp.Union(*[_condition_set(c) for c in cond.args])
    rel = cond if cond.lhs == X else cond.reversed  # -4 <= x is x >= -4
    if rel.lhs != X or rel.rhs.has(X):
        raise ValueError(f"condition {cond} is not a bound on x")
    bound = rel.rhs
    return {sp.GreaterThan: sp.Interval(bound, sp.oo), sp.StrictGreaterThan: sp.Interval.open(bound, sp.oo),
            sp.LessThan: sp.Interval(-sp.oo, bound), sp.StrictLessThan: sp.Interval.open(-sp.oo, bound),
            sp.Unequality: sp.Reals - sp.FiniteSet(bound)}[type(rel)]


def _natural_domain(e: sp.Expr) -> sp.Set:
    """Where e is defined: log arguments > 0, square-root arguments >= 0 (both linear in
    x here), denominators not 0."""
    out = sp.Reals
    for a in e.atoms(sp.log):
        if a.args[0].has(X):
            out &= _sign_set(a.args[0], strict=True)
    for p in e.atoms(sp.Pow):
        if not p.base.has(X):
            continue
        if p.exp.is_Rational and p.exp.q % 2 == 0:
            out &= _sign_set(p.base, strict=False)
        if p.exp.is_negative:
            out -= sp.FiniteSet(*sp.real_roots(sp.Poly(p.base, X)))
    return out


def _sign_set(arg: sp.Expr, strict: bool) -> sp.Set:
    """Where a linear expression is positive (strict) or not negative."""
    slope, root = sp.diff(arg, X), sp.solve(arg, X)[0]
    if sp.degree(arg, X) != 1:
        raise ValueError(f"{arg} is not linear in x")
    return sp.Interval(root, sp.oo, strict) if slope > 0 else sp.Interval(-sp.oo, root, False, strict)


def _pieces_of(f: sp.Expr) -> list[tuple[sp.Expr, sp.Set]]:
    if isinstance(f, sp.Piecewise):
        return [(e, _condition_set(c)) for e, c in f.args]
    return [(f, _natural_domain(f))]


def _end_value(e: sp.Expr, point, direction: str):
    """e at a finite end where it is defined, else its one-sided limit. A limit at -oo is
    taken as the limit of e(-x) at +oo: sympy 1.14 gives limit(2**(-x), x, -oo) = 0."""
    if point.is_finite:
        v = e.subs(X, point)
        if v.is_finite and v.is_real:
            return sp.simplify(v)
        return sp.limit(e, X, point, direction)
    return sp.limit(e if point == sp.oo else e.subs(X, -X), X, sp.oo)


def _image(e: sp.Expr, domain: sp.Set) -> sp.Set:
    """The range of e over a union of intervals where it is continuous. A sine affine in
    its one atom spans the atom's [-1, 1]; otherwise, on each interval, the inf and sup
    are among the values at critical points (attained) and the end values or limits
    (attained at a closed finite end only)."""
    trig = list(e.atoms(sp.sin, sp.cos))
    if len(trig) == 1 and domain == sp.Reals:
        u = sp.Dummy("u")
        g = e.subs(trig[0], u)
        if sp.degree(g, u) == 1 and not g.has(X):
            a, b = sorted([g.subs(u, -1), g.subs(u, 1)])
            return sp.Interval(a, b)
    critical = _critical(e)
    out = sp.EmptySet
    for part in (domain.args if isinstance(domain, sp.Union) else (domain,)):
        lo, hi = part.start, part.end
        candidates = [(sp.simplify(e.subs(X, c)), True) for c in critical if lo < c < hi]
        candidates.append((_end_value(e, lo, "+"), lo.is_finite and not part.left_open))
        candidates.append((_end_value(e, hi, "-"), hi.is_finite and not part.right_open))
        low = min(v for v, _ in candidates)
        high = max(v for v, _ in candidates)
        low_in = any(v == low and attained for v, attained in candidates) and low.is_finite
        high_in = any(v == high and attained for v, attained in candidates) and high.is_finite
        out |= sp.Interval(low, high, not low_in, not high_in)
    return out


def _solutions(e: sp.Expr, var: sp.Symbol = X) -> tuple[list, sp.Expr | None]:
    """Real solutions of e = 0 and the period they repeat with (None: no repetition). A
    sine or cosine of a linear argument u = w*x + c is solved for u, then for x; a
    polynomial by its real roots."""
    trig = list(e.atoms(sp.sin, sp.cos))
    if len(trig) == 1 and sp.degree(trig[0].args[0], var) == 1:
        u = sp.Dummy("u", real=True)
        arg = trig[0].args[0]
        w, c = sp.Poly(arg, var).all_coeffs()
        roots = sp.solve(e.subs(trig[0], trig[0].func(u)), u)
        return [(r - c) / w for r in roots if r.is_real], sp.Abs(2 * sp.pi / w)
    poly = _poly_or_none(e, var)
    if poly is not None:
        return sorted(set(sp.real_roots(poly))), None
    return [z for z in sp.solve(e, var) if z.is_real], None


def _zeros_in(f: sp.Expr, lo, hi) -> list[float]:
    """The zeros of f in [lo, hi] (as floats, sorted): solved exactly per piece, a sine's
    solutions repeated by its period."""
    out = set()
    for e, where in (_pieces_of(f) if isinstance(f, sp.Piecewise) else [(f, sp.Reals)]):
        if not e.has(X):
            if e == 0:
                raise ValueError("a constant zero piece")
            continue
        roots, period = _solutions(e)
        step = float(period) if period is not None else 0.0
        for z in roots:
            for n in (range(-40, 41) if period is not None else [0]):
                v = float(z) + n * step
                if lo - 1e-12 <= v <= hi + 1e-12 and (where == sp.Reals or where.contains(z + n * period
                                                                                           if period else z)):
                    out.add(round(v, 9))
    return sorted(out)


def _check_domain_value(question: str, answer: str, meta: dict) -> str | None:
    f, kind = _sym(meta["f"]), meta["question_kind"]
    if kind == "domain":
        domain = sp.Union(*[w for _e, w in _pieces_of(f)])
        if parse_set(answer) != domain:
            return f"re-derived domain {domain}, answer {answer!r}"
    elif kind == "range":
        image = sp.Union(*[_image(e, w) for e, w in _pieces_of(f)])
        if parse_set(answer) != image:
            return f"re-derived range {image}, answer {answer!r}"
    elif kind == "value":
        a = meta["at"]
        if f"f({a})" not in question:
            return f"the question does not ask f({a})"
        v = sp.simplify(f.subs(X, a))
        if sp.simplify(sp.sympify(answer) - v) != 0:
            return f"re-derived f({a}) = {v}, answer {answer!r}"
        window = meta["plot"]["window"]
        if not (window[0] < a < window[1] and window[2] < v < window[3]):
            return f"({a}, {v}) is outside the window"
    else:
        lo, hi = meta["interval"]
        zeros = _zeros_in(f, lo, hi)
        if str(len(zeros)) != answer:
            return f"re-derived {len(zeros)} zeros {zeros}, answer {answer!r}"
        if any(abs(z - lo) < 0.2 or abs(z - hi) < 0.2 for z in zeros):
            return "a zero at the window's edge"
        d = sp.diff(f, X)
        for z in zeros:
            slope = _value(d, z)
            if slope is not None and abs(slope) < 1e-6:
                return f"a tangency at x = {z}"
    return None


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


def _check_consistency(question: str, answer: str, meta: dict) -> str | None:
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


def _check_vertical_line(answer: str, meta: dict) -> str | None:
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


def check(task: str, question: str, options: list | None, answer: str, meta: dict) -> str | None:
    """Re-derive the answer from meta (sympy), confirm the drawing, the options and any
    injected inconsistency; None when everything agrees, else what differs."""
    if meta.get("sub_field") != SUB_FIELD:
        return "sub_field is not 'function'"
    if options is not None:
        if len(set(options)) != len(options) or answer not in options:
            return f"options {options} are not distinct or lack the answer {answer!r}"
        if len(options) != (2 if task in ("plot-consistency", "vertical-line") else 4):
            return f"{len(options)} options"
    if "f" in meta:
        problem = _check_plot(meta)
        if problem:
            return problem
    if task == "keypoints":
        return _check_keypoints(question, options, answer, meta)
    if task == "function-type":
        found = classify(_sym(meta["f"]))
        if FAMILY_NAMES.get(found) != answer:
            return f"re-derived family {found}, answer {answer!r}"
        if not set(options) <= set(FAMILY_NAMES.values()):
            return f"options {options} are not family names"
        return None
    if task == "monotonicity":
        f = _sym(meta["f"])
        direction = meta["direction"]
        if direction not in question:
            return "the question does not ask the direction in meta"
        critical = _critical(f)
        right = [o for o in options if _monotone_on(f, critical, *_parse_interval(o), direction)]
        if right != [answer]:
            return f"f is {direction} on {right}, answer {answer!r}"
        return None
    if task == "global-properties":
        return _check_global(question, options, answer, meta)
    if task == "domain-value":
        if options is not None or meta.get("answer_format") not in mb.FORMATS:
            return "a free answer needs no options and a known answer_format"
        if mb.format_text(meta["answer_format"], answer) not in question:
            return "the question does not say the answer format"
        return _check_domain_value(question, answer, meta)
    if task == "plot-consistency":
        return _check_consistency(question, answer, meta)
    if task == "vertical-line":
        return _check_vertical_line(answer, meta)
    return f"unknown task {task!r}"
