"""Elements (Math T4, L1): which of four segments from A to BC is the altitude, the
median or the angle bisector (Heronian triangles, so every foot point is rational;
the feet are at least 5 % of BC apart and each kind carries its mark); and how many
triangles a figure holds (a triangle cut by k cevians from A and up to two lines
parallel to BC, h * C(k + 2, 2); or by cevians from two or three vertices, no three
through one point, C(N, 3) - sum C(x + 2, 3) for N lines), re-counted in check by
enumerating point triples; the options are neighbouring counts that figures have."""

from __future__ import annotations

import math
import random
from fractions import Fraction
from functools import lru_cache, partial
from itertools import combinations

import sympy as sp

from cogforge.generators.symbols import Draft, mcq_prompt, nth
from cogforge.generators.symbols._geometry.common import (PROMPTS, SUB_FIELD, _mcq, _options_ok, _place, _tri_numbers,
                                                          _unit_id)
from cogforge.generators.symbols._geometry.drawing import picture

CEVIANS = {"altitude": "altitude", "median": "median", "bisector": "angle bisector"}

Q2 = tuple[Fraction, Fraction]
# Figures whose triangles are counted, with the count by formula (check enumerates instead):
# ("fan", k, h): k segments from A to BC and h - 1 segments parallel to BC: each triangle
#   is two lines through A and one of the h parallels, h * C(k + 2, 2);
# ("web", a, b, c): a, b, c segments from A, B, C to the opposite sides, no three through
#   one point: every pair of the N = a + b + c + 3 lines meets on the drawn segments, so
#   every three lines not through one vertex bound a triangle: C(N, 3) - sum C(x + 2, 3).
COUNT_FIGURES = (("fan", 1, 1), ("fan", 2, 1), ("fan", 3, 1), ("fan", 4, 1), ("fan", 5, 1), ("fan", 1, 2),
                 ("fan", 2, 2), ("fan", 3, 2), ("fan", 4, 2), ("fan", 1, 3), ("fan", 2, 3), ("fan", 3, 3),
                 ("web", 1, 1, 0), ("web", 2, 1, 0), ("web", 1, 1, 1), ("web", 3, 1, 0), ("web", 2, 2, 0),
                 ("web", 2, 1, 1))


def _count_formula(figure: tuple) -> int:
    if figure[0] == "fan":
        _, k, h = figure
        return h * math.comb(k + 2, 2)
    counts = figure[1:]
    return math.comb(sum(counts) + 3, 3) - sum(math.comb(x + 2, 3) for x in counts)


COUNT_VALUES = sorted({_count_formula(f) for f in COUNT_FIGURES})  # every answer, the count options' range


@lru_cache(maxsize=1)
def _heronian() -> list[tuple[int, int, int, int, int]]:
    """``(c, p, q, m, n)``: B = (0, 0), C = (c, 0), A = (p, q) with AB = m and AC = n whole
    numbers (two Pythagorean triples sharing the leg q), so the feet of the altitude
    (p), the median (c/2) and the angle bisector (c m / (m + n)) are all rational; the
    altitude's foot is inside BC and at least 12 % of BC from the median's."""
    legs: dict[int, list] = {}
    for q in range(3, 121):
        for p in range(1, 241):
            m = math.isqrt(p * p + q * q)
            if m * m == p * p + q * q:
                legs.setdefault(q, []).append((p, m))
    out = []
    for q, found in legs.items():
        for p1, m1 in found:
            for p2, m2 in found:
                c = p1 + p2
                if p1 < p2 and p2 - p1 >= 0.24 * c and 0.45 <= q / c <= 1.0:
                    out.append((c, p1, q, m1, m2))
    return out


def _fr(x: Fraction) -> str:
    return str(x)


def _cevian_item(rng: random.Random) -> tuple[dict, Q2, Fraction] | None:
    """Feet on BC (by role), A and C of a triangle with its altitude, median, angle bisector
    and one other segment from A, their feet at least 5 % of BC apart, clear of B, C and of
    the median's tick marks (at BC/4 and 3BC/4)."""
    c, p, q, m, n = rng.choice(_heronian())
    c_ = Fraction(c)
    feet = {"altitude": Fraction(p), "median": c_ / 2, "bisector": c_ * m / (m + n)}
    gaps = [abs(a - b) / c_ for a, b in combinations(feet.values(), 2)]
    if min(gaps) < Fraction(1, 20):
        return None
    spots = [c_ / 4, 3 * c_ / 4]
    if any(abs(f - t) / c_ < Fraction(1, 25) for f in (feet["altitude"], feet["bisector"]) for t in spots):
        return None
    free = [c_ * k / 40 for k in range(6, 35)
            if all(abs(c_ * k / 40 - f) / c_ >= Fraction(7, 100) for f in feet.values())
            and all(abs(c_ * k / 40 - t) / c_ >= Fraction(1, 25) for t in spots)]
    if not free:
        return None
    feet["other"] = rng.choice(free)
    return feet, (Fraction(p), Fraction(q)), c_


def _cevian_letters(ctx, kind: str, feet: dict, a: Q2, c: Fraction, rng: random.Random) -> tuple[dict, dict]:
    """Letters D-G for the four feet: the asked segment's letter balanced over the task
    (so no letter is a blind cue), the others shuffled; exact points and roles."""
    letters = ["D", "E", "F", "G"]
    mine = letters.pop(ctx.positions.choose(f"mathematics-elements letter {kind}", 4, rng))
    rng.shuffle(letters)
    roles = {kind: mine} | dict(zip([k for k in feet if k != kind], letters))
    points = {"A": a, "B": (Fraction(0), Fraction(0)), "C": (c, Fraction(0))}
    points.update({roles[k]: (x, Fraction(0)) for k, x in feet.items()})
    return points, roles


def _cevian_figure(points: dict[str, Q2], roles: dict, mirror: bool) -> dict:
    feet = sorted(roles.values())
    alt, med, bis = roles["altitude"], roles["median"], roles["bisector"]
    return {"points": _place({k: (float(x), float(y)) for k, (x, y) in points.items()}, 0, mirror),
            "names": ["A", "B", "C"] + feet,
            "segments": [["A", "B"], ["A", "C"], ["B", "C"]] + [["A", f] for f in feet],
            "right": [[alt, "A", "C"]], "ticks": [["B", med, 1], [med, "C", 1]],
            "arcs": [["A", "B", bis, 1, 0.42], ["A", bis, "C", 1, 0.42]]}


def _count_item(rng: random.Random, figure: tuple) -> dict[str, Q2] | None:
    """Exact points of a counting figure (see :data:`COUNT_FIGURES`): feet at tenths of
    the sides, a fifth of a side apart (a tenth for four or more); parallels at twentieths of the height
    (the midline now and then); every two crossings at least 3.5 % of the figure apart."""
    c, p, q = rng.randint(6, 12), rng.randint(1, 11), rng.randint(5, 10)
    if not 0 < p < c or min(_tri_numbers([(p, q), (0, 0), (c, 0)])[1]) < 40:
        return None
    a, b, cc = (Fraction(p), Fraction(q)), (Fraction(0), Fraction(0)), (Fraction(c), Fraction(0))
    points = {"A": a, "B": b, "C": cc}
    kind, *sizes = figure
    ends = {"A": (b, cc), "B": (cc, a), "C": (a, b)}  # each vertex's opposite side
    for vertex, n in zip("ABC", sizes if kind == "web" else sizes[:1]):
        if n == 0:
            continue
        tenths = sorted(rng.sample(range(1, 10), n))
        if any(y - x < (1 if n > 3 else 2) for x, y in zip([0] + tenths, tenths + [10])):
            return None
        u, v = ends[vertex]
        for i, t in enumerate(tenths):
            t = Fraction(t, 10)
            points[f"{'XYZ'['ABC'.index(vertex)]}{i + 1}"] = (u[0] + t * (v[0] - u[0]), u[1] + t * (v[1] - u[1]))
    if kind == "fan" and sizes[1] > 1:
        fractions = sorted(rng.sample([Fraction(k, 20) for k in range(6, 16)], sizes[1] - 1))
        if sizes[1] == 2 and rng.random() < 0.4:
            fractions = [Fraction(1, 2)]  # the midline
        if any(y - x < Fraction(3, 20) for x, y in zip(fractions, fractions[1:])):
            return None
        for j, f in enumerate(fractions):
            points[f"P{j + 1}"] = (a[0] * (1 - f), a[1] * (1 - f))
            points[f"Q{j + 1}"] = (a[0] + (c - a[0]) * f, a[1] * (1 - f))
    segments = _count_segments(points)
    nodes = {p for p in points.values()}
    crossings = []
    for s1, s2 in combinations(segments, 2):
        x = _meet(points[s1[0]], points[s1[1]], points[s2[0]], points[s2[1]])
        if x is not None and x not in nodes:
            crossings.append(x)
    if len(set(crossings)) != len(crossings):
        return None  # three segments through one point: the formula would not hold
    near = 0.035 * max(c, q)
    floats = [(float(x), float(y)) for x, y in nodes | set(crossings)]
    if any(math.dist(u, v) < near for u, v in combinations(floats, 2)):
        return None
    return points


def _count_segments(points: dict) -> list[list[str]]:
    out = [["A", "B"], ["A", "C"], ["B", "C"]]
    for name in sorted(points):
        if name[0] in "XYZ":
            out.append(["ABC"["XYZ".index(name[0])], name])
        elif name[0] == "P":
            out.append([name, "Q" + name[1:]])
    return out


def _value_options(ctx, task: str, n: int, values: list[int], rng: random.Random) -> list[str]:
    """Four neighbouring values of ``values`` around ``n`` (its rank among them balanced):
    every option is a count some figure has, so no number is a blind cue."""
    i = values.index(n)
    rank = ctx.positions.choose(task + " (rank)", 4, rng, [r for r in range(4) if 0 <= i - r <= len(values) - 4])
    window = [str(v) for v in values[i - rank:i - rank + 4]]
    return ctx.positions.place(task, str(n), [v for v in window if v != str(n)], rng)


def make_elements(ctx, count: int, rng: random.Random) -> list[Draft]:
    out: list[Draft] = []
    kinds = ["altitude", "median", "bisector", "count"]
    for _ in range(count * 30):
        if len(out) == count:
            break
        kind = kinds[nth(ctx, len(out)) % 4]
        mirror = rng.random() < 0.5
        if kind == "count":
            want = COUNT_VALUES[(nth(ctx, len(out)) // 4 * 7) % len(COUNT_VALUES)]  # every count in turn, shuffled
            figure = rng.choice([f for f in COUNT_FIGURES if _count_formula(f) == want])
            points = _count_item(rng, figure)
            if points is None:
                continue
            n = _count_formula(figure)
            segments = _count_segments(points)
            fig = {"points": _place({k: (float(x), float(y)) for k, (x, y) in points.items()}, 0, mirror),
                   "names": ["A", "B", "C"], "segments": segments}
            options = _value_options(ctx, "mathematics-elements count", n, COUNT_VALUES, rng)
            question, answer = PROMPTS["count"], str(n)
            extra = {"count_figure": list(figure)}
        else:
            got = _cevian_item(rng)
            if got is None:
                continue
            points, roles = _cevian_letters(ctx, kind, *got, rng)
            fig = _cevian_figure(points, roles, mirror)
            answer = "A" + roles[kind]
            options = _mcq(ctx, "elements", kind, answer, ["A" + x for x in sorted(roles.values())
                                                          if x != roles[kind]], rng)
            question = PROMPTS["cevian"].format(what=CEVIANS[kind])
            segments, extra = fig["segments"], {}
        exact = {k: [_fr(x), _fr(y)] for k, (x, y) in points.items()}
        meta = {"sub_field": SUB_FIELD, "question_kind": kind, "points": exact, "segments": segments,
                "mirror": mirror, "figure": fig, **extra}
        out.append(Draft(mcq_prompt(question, options), [partial(picture, "elements", meta)], options, answer,
                         _unit_id("elements", exact, segments), meta))
    return out


def _cross(o: Q2, a: Q2, b: Q2) -> Fraction:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def _on_segment(x: Q2, a: Q2, b: Q2) -> bool:
    return _cross(a, b, x) == 0 and min(a[0], b[0]) <= x[0] <= max(a[0], b[0]) \
        and min(a[1], b[1]) <= x[1] <= max(a[1], b[1])


def _meet(a: Q2, b: Q2, c: Q2, d: Q2) -> Q2 | None:
    """Where segments ab and cd cross (exact), or None."""
    r, s = (b[0] - a[0], b[1] - a[1]), (d[0] - c[0], d[1] - c[1])
    den = r[0] * s[1] - r[1] * s[0]
    if den == 0:
        return None
    t = ((c[0] - a[0]) * s[1] - (c[1] - a[1]) * s[0]) / den
    u = ((c[0] - a[0]) * r[1] - (c[1] - a[1]) * r[0]) / den
    return (a[0] + t * r[0], a[1] + t * r[1]) if 0 <= t <= 1 and 0 <= u <= 1 else None


def count_triangles(points: dict[str, Q2], segments: list) -> int:
    """Triangles among drawn segments: every point where segments end or cross, and every
    three of them not on one line whose three sides each lie along one drawn segment."""
    segs = [(points[a], points[b]) for a, b in segments]
    nodes = {p for s in segs for p in s}
    for s, t in combinations(segs, 2):
        x = _meet(*s, *t)
        if x is not None:
            nodes.add(x)
    on = [{x for x in nodes if _on_segment(x, *s)} for s in segs]
    joined = {(x, y) for group in on for x in group for y in group if x != y}
    return sum(1 for a, b, c in combinations(sorted(nodes), 3)
               if _cross(a, b, c) != 0 and (a, b) in joined and (b, c) in joined and (a, c) in joined)


def _check_elements(question, options, answer, meta) -> str | None:
    if (bad := _options_ok(options, answer, 4)):
        return bad
    points = {k: (Fraction(x), Fraction(y)) for k, (x, y) in meta["points"].items()}
    kind = meta["question_kind"]
    if kind == "count":
        n = count_triangles(points, meta["segments"])
        if answer != str(n):
            return f"the figure holds {n} triangles, the answer says {answer}"
        if not all(o.isdigit() for o in options):
            return f"count options are not whole numbers: {options}"
        return None
    a, b, c = points["A"], points["B"], points["C"]
    ab2 = (b[0] - a[0]) ** 2 + (b[1] - a[1]) ** 2
    ac2 = (c[0] - a[0]) ** 2 + (c[1] - a[1]) ** 2

    def is_kind(x: Q2, what: str) -> bool:
        ax = (x[0] - a[0], x[1] - a[1])
        if what == "altitude":
            return ax[0] * (c[0] - b[0]) + ax[1] * (c[1] - b[1]) == 0
        if what == "median":
            return x == ((b[0] + c[0]) / 2, (b[1] + c[1]) / 2)
        # equal angles BAX and XAC: equal cosines, |AX| cancels (sympy for the two radicals)
        dot_b = ax[0] * (b[0] - a[0]) + ax[1] * (b[1] - a[1])
        dot_c = ax[0] * (c[0] - a[0]) + ax[1] * (c[1] - a[1])
        return sp.simplify(sp.Rational(dot_b) * sp.sqrt(sp.Rational(ac2))
                           - sp.Rational(dot_c) * sp.sqrt(sp.Rational(ab2))) == 0

    true = []
    for o in options:
        if len(o) != 2 or o[0] != "A" or o[1] not in points:
            return f"option {o!r} is not a segment from A"
        x = points[o[1]]
        if not _on_segment(x, b, c) or x in (b, c):
            return f"{o[1]} is not strictly inside BC"
        if is_kind(x, kind):
            true.append(o)
    if true != [answer]:
        return f"the {kind} from A is {true}, the answer says {answer}"
    xs = sorted(points[o[1]][0] for o in options)
    if min(y - x for x, y in zip(xs, xs[1:])) < (c[0] - b[0]) / 25:
        return "two feet on BC are less than 4 % of BC apart"
    fig = meta["figure"]
    marked = {"altitude": fig["right"][0][0], "median": fig["ticks"][0][1], "bisector": fig["arcs"][0][2]}
    for what, foot in marked.items():
        if not is_kind(points[foot], what):
            return f"the {what} mark is on A{foot}, which is no {what}"
    return None
