"""Key points (Math T1, L1): the zeros, a local maximum or minimum, the y-intercept or the
inflection point of a cubic. The four options come first and a function is built through
each; the check finds the points again with sympy (real roots, critical points against
their neighbours, the sign change of f'')."""

from __future__ import annotations

import math
import random
import re
from fractions import Fraction as F

import sympy as sp

from cogforge.generators.symbols import Draft, mcq_prompt, nth
from cogforge.generators.symbols._functions.derive import EPS, X, _critical, _poly_or_none, _sym
from cogforge.generators.symbols._functions.shapes import (PROMPTS, W6, _cubic_extrema, _draft, _extrema, _fits,
                                                           _inside, _meta, _place, _sign, _visible_share, plot_of)


def _point(p) -> str:
    return f"({F(p[0])}, {F(p[1])})"


def _zeros_text(zeros) -> str:
    items = [f"x = {F(z)}" for z in sorted(zeros)]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


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
        kind = KEYPOINT_KINDS[nth(ctx, len(out)) % len(KEYPOINT_KINDS)]
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


# --------------------------------------------------------------------------- check


def _real_zeros(f: sp.Expr) -> list:
    p = _poly_or_none(f)
    if p is not None:
        return sorted(set(sp.real_roots(p)))
    return sorted({z for z in sp.solve(f, X) if z.is_real})


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
