"""Domain and values (Math T8, L2, free answers): the domain and the range (intervals),
f(a) at a grid point and the number of zeros in the window (exact values). The check
derives the natural domain from log and root arguments and denominators, the image from
critical values and end limits, and solves f = 0 piece by piece."""

from __future__ import annotations

import math
import random
import re
from fractions import Fraction as F

import numpy as np
import sympy as sp

from cogforge.generators.symbols import Draft, nth
from cogforge.generators.symbols import _mathbase as mb
from cogforge.generators.symbols._functions.derive import X, _critical, _solutions, _sym, _value
from cogforge.generators.symbols._functions.shapes import (PROMPTS, W6, _cubic_extrema, _draft, _fits, _inside, _meta,
                                                           _sign, _ys, bounded_pieces, expr_of, plot_of, sample_family)


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
        kind = kinds[nth(ctx, len(out)) % 4]
        turn = nth(ctx, len(out)) // 4
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


# --------------------------------------------------------------------------- check


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


def _check_domain_value(question: str, options: list | None, answer: str, meta: dict) -> str | None:
    if options is not None or meta.get("answer_format") not in mb.FORMATS:
        return "a free answer needs no options and a known answer_format"
    if mb.format_text(meta["answer_format"], answer) not in question:
        return "the question does not say the answer format"
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
