"""Global properties (Math T7, L2): parity with periodicity, and the period. The check
proves parity (f(-x) = +-f(x) expands to an identity) and the fundamental period (the
shifted expression expands back to f)."""

from __future__ import annotations

import random
from fractions import Fraction as F

import numpy as np
import sympy as sp

from cogforge.generators.symbols import Draft, mcq_prompt, nth
from cogforge.generators.symbols._functions.derive import X, _periods_of, _probe_points, _same_function, _sym
from cogforge.generators.symbols._functions.shapes import (PROMPTS, W6, W8, _draft, _fits, _meta, _off_origin, _sign,
                                                           _visible_share, evaluate, plot_of, sample_family)

PARITY_OPTIONS = {
    ("even", True): "Even, periodic",
    ("odd", True): "Odd, periodic",
    ("neither", True): "Neither even nor odd, periodic",
    ("even", False): "Even, not periodic",
    ("odd", False): "Odd, not periodic",
    ("neither", False): "Neither even nor odd, not periodic",
}
PERIODS = (2, 4, 6, 8)  # the answers in turn, and always the four options


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
    for i in range(nth(ctx, 0), nth(ctx, count)):
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


# --------------------------------------------------------------------------- check


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
