"""Monotonicity (Math T6, L2): on which of four intervals f increases (or decreases); the
check tests each option for critical points inside and the derivative's sign."""

from __future__ import annotations

import random
import re
from fractions import Fraction as F

import sympy as sp

from cogforge.generators.symbols import Draft, mcq_prompt, nth
from cogforge.generators.symbols._functions.derive import X, _critical, _sym
from cogforge.generators.symbols._functions.shapes import (PROMPTS, W6, _draft, _extrema, _inside, _meta,
                                                           _visible_share, plot_of)


def _interval_text(lo, hi) -> str:
    """An open interval as an option: '(-∞, 2)', '(-1, 3)'."""
    return f"({'-∞' if lo is None else F(lo)}, {'∞' if hi is None else F(hi)})"


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
        direction = ("inc", "dec")[nth(ctx, len(out)) % 2]
        slot = (nth(ctx, len(out)) // 2) % 4
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


# --------------------------------------------------------------------------- check


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


def _check_monotonicity(question: str, options: list, answer: str, meta: dict) -> str | None:
    f = _sym(meta["f"])
    direction = meta["direction"]
    if direction not in question:
        return "the question does not ask the direction in meta"
    critical = _critical(f)
    right = [o for o in options if _monotone_on(f, critical, *_parse_interval(o), direction)]
    if right != [answer]:
        return f"f is {direction} on {right}, answer {answer!r}"
    return None
