"""What the function tasks share: a function as a *shape* (a family with small exact
parameters) with its expression, its plain-text formula and its drawing spec; drawing a
spec (numpy over the expression strings, :func:`generators.symbols._mathbase.plot`);
sampling a recognisable function of a family; the prompts; an item's meta and draft."""

from __future__ import annotations

import hashlib
import json
import math
import random
from fractions import Fraction as F
from functools import lru_cache, partial

import numpy as np
import sympy as sp

from cogforge.generators.symbols import Draft
from cogforge.generators.symbols import _mathbase as mb

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
FAMILY_ORDER = tuple(FAMILY_NAMES)
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
