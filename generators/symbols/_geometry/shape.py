"""Shape (Math T3, L1): the most specific name of a triangle or quadrilateral, read from
the marks (ticks, arrowheads, right-angle squares) and the to-scale drawing. Names
form the vocabularies :data:`TRIANGLES` and :data:`QUADRILATERALS`; trapezoid and kite
are exclusive (stated in the question), and a distractor is never a name that is
also true of the figure (a square is never offered "rectangle"). Rejection: unequal
sides differ by at least 10 %, unmarked angles are at least 10 degrees from 90,
non-parallel sides at least 8 degrees from parallel. The check applies exact
predicates to the vertices."""

from __future__ import annotations

import math
import random
from functools import lru_cache, partial
from itertools import combinations

import sympy as sp

from cogforge.generators.symbols import Draft, mcq_prompt, nth
from cogforge.generators.symbols._geometry.common import (PROMPTS, SUB_FIELD, _angle_deg, _distinct_enough, _mcq,
                                                          _options_ok, _pick_balanced, _place, _tri_numbers, _unit_id)
from cogforge.generators.symbols._geometry.drawing import Point, _unit, picture

TRIANGLES = {"equilateral": "equilateral triangle", "right-isosceles": "right isosceles triangle",
             "right-scalene": "right scalene triangle", "obtuse-isosceles": "obtuse isosceles triangle",
             "obtuse-scalene": "obtuse scalene triangle", "acute-isosceles": "acute isosceles triangle",
             "acute-scalene": "acute scalene triangle"}
QUADRILATERALS = {"square": "square", "rectangle": "rectangle", "rhombus": "rhombus",
                  "parallelogram": "parallelogram", "isosceles-trapezoid": "isosceles trapezoid",
                  "trapezoid": "trapezoid", "kite": "kite"}
# most specific first: the answer is the first true name in this order
QUAD_SPECIFICITY = ("square", "rectangle", "rhombus", "parallelogram", "isosceles-trapezoid", "trapezoid", "kite")

Exact = tuple[str, str]  # a vertex as sympy-parsable coordinates


def _sample_triangle(cls: str, rng: random.Random) -> tuple[list[Exact], list[set], int | None] | None:
    """Exact vertices, the groups of equal sides (by opposite vertex index) and the right
    angle's vertex, for a triangle of ``cls`` whose class a reader sees to scale."""
    for _ in range(400):
        right, equal = None, []
        if cls == "equilateral":
            pts, equal = [("0", "0"), ("2", "0"), ("1", "sqrt(3)")], [{0, 1, 2}]
        elif cls == "right-isosceles":
            pts, equal, right = [("0", "0"), ("1", "0"), ("0", "1")], [{1, 2}], 0
        elif cls == "right-scalene":
            a, b = rng.randint(2, 9), rng.randint(2, 9)
            if not 1.3 <= max(a, b) / min(a, b) <= 2.6:
                continue
            pts, right = [("0", "0"), (str(a), "0"), ("0", str(b))], 0
        elif cls in ("obtuse-isosceles", "acute-isosceles"):
            a, h = rng.randint(2, 9), rng.randint(1, 12)
            apex = 2 * math.degrees(math.atan2(a, h))
            fits = 110 <= apex <= 140 if cls == "obtuse-isosceles" else (30 <= apex <= 50 or 70 <= apex <= 80)
            if not fits:
                continue
            pts, equal = [(str(-a), "0"), (str(a), "0"), ("0", str(h))], [{0, 1}]
        else:
            c, p, q = rng.randint(4, 10), rng.randint(-5, 9), rng.randint(1, 9)
            pts = [("0", "0"), (str(c), "0"), (str(p), str(q))]
        sides, angles = _tri_numbers([(_num(x), _num(y)) for x, y in pts])
        if min(angles) < 15 or not _distinct_enough(sides):
            continue
        if cls == "obtuse-scalene" and not 105 <= max(angles) <= 140:
            continue
        if cls == "acute-scalene" and max(angles) > 80:
            continue
        start = rng.randrange(3)  # which corner is A
        order = [(start + i) % 3 for i in range(3)]
        return ([pts[i] for i in order], [{order.index(i) for i in g} for g in equal],
                None if right is None else order.index(right))
    return None


def _sample_quadrilateral(cls: str, rng: random.Random) -> tuple[list[tuple[int, int]], dict] | None:
    """Integer vertices (in order round the figure) and its marks by side index
    (side i joins vertex i and i + 1): ``ticks`` {side: n}, ``arrows`` {side: (n, reversed)},
    ``right`` [vertex]."""
    for _ in range(400):
        if cls == "square":
            pts = [(0, 0), (1, 0), (1, 1), (0, 1)]
            marks = {"ticks": {0: 1, 1: 1, 2: 1, 3: 1}, "right": [0, 1, 2, 3]}
        elif cls == "rectangle":
            a, b = rng.randint(2, 9), rng.randint(2, 9)
            if not 1.35 <= b / a <= 2.5:
                continue
            pts = [(0, 0), (b, 0), (b, a), (0, a)]
            marks = {"ticks": {0: 1, 2: 1, 1: 2, 3: 2}, "right": [0, 1, 2, 3]}
        elif cls == "rhombus":
            s, (p, q) = rng.choice([(5, (3, 4)), (5, (4, 3)), (10, (6, 8)), (13, (5, 12)), (17, (8, 15)),
                                    (25, (15, 20)), (25, (20, 15)), (17, (15, 8)), (13, (12, 5))])
            if not 30 <= math.degrees(math.atan2(q, p)) <= 70:
                continue
            pts = [(0, 0), (s, 0), (s + p, q), (p, q)]
            marks = {"ticks": {0: 1, 1: 1, 2: 1, 3: 1}}
        elif cls == "parallelogram":
            a, p, q = rng.randint(3, 9), rng.randint(1, 6), rng.randint(2, 7)
            angle = math.degrees(math.atan2(q, p))
            if not 35 <= angle <= 70 or not 1.25 <= max(a, math.hypot(p, q)) / min(a, math.hypot(p, q)) <= 2.6:
                continue
            pts = [(0, 0), (a, 0), (a + p, q), (p, q)]
            marks = {"arrows": {0: (1, False), 2: (1, True), 1: (2, False), 3: (2, True)}}
        elif cls in ("trapezoid", "isosceles-trapezoid"):
            b1, h = rng.randint(4, 10), rng.randint(2, 7)
            if cls == "isosceles-trapezoid":
                b2 = rng.randint(1, b1 - 1)
                if b2 * 2 > b1 * 2 * 0.75 or (b1 - b2) % 2:
                    continue
                x2 = (b1 - b2) // 2
            else:
                b2, x2 = rng.randint(1, b1 - 1), rng.randint(-2, b1)
                if b2 > 0.75 * b1:
                    continue
            pts = [(0, 0), (b1, 0), (x2 + b2, h), (x2, h)]
            marks = {"arrows": {0: (1, False), 2: (1, True)}}
            if cls == "isosceles-trapezoid":
                marks["ticks"] = {1: 1, 3: 1}
        else:  # kite
            w, h1, h2 = rng.randint(2, 6), rng.randint(2, 10), rng.randint(1, 6)
            if h1 < 1.6 * h2:
                continue
            pts = [(0, h1), (w, 0), (0, -h2), (-w, 0)]
            marks = {"ticks": {0: 1, 3: 1, 1: 2, 2: 2}}
        if not _quad_readable([(float(x), float(y)) for x, y in pts], marks):
            continue
        return pts, marks
    return None


def _quad_readable(pts: list[Point], marks: dict) -> bool:
    """Unmarked angles are 10 degrees or more from right, sides not marked equal differ by
    10 % or more, sides not marked parallel are 8 degrees or more from parallel."""
    for i in range(4):
        a = _angle_deg(pts[i], pts[i - 1], pts[(i + 1) % 4])
        if i not in marks.get("right", []) and abs(a - 90) < 10:
            return False
        if min(a, 180 - a) < 20:
            return False
    if not _distinct_enough([math.dist(pts[i], pts[(i + 1) % 4]) for i in range(4)]):
        return False
    arrowed = marks.get("arrows", {})
    for i in (0, 1):  # where arrowheads mark the parallel sides, the others must look not parallel
        if not arrowed or i in arrowed:
            continue
        u = (pts[i + 1][0] - pts[i][0], pts[i + 1][1] - pts[i][1])
        v = (pts[(i + 3) % 4][0] - pts[i + 2][0], pts[(i + 3) % 4][1] - pts[i + 2][1])
        between = abs(math.degrees(math.atan2(u[0] * v[1] - u[1] * v[0], u[0] * v[0] + u[1] * v[1])))
        if min(between, 180 - between) < 8:
            return False
    return True


def _shape_figure(names: list[str], pts: list[Point], marks: dict, degrees: float, mirror: bool) -> dict:
    n = len(names)
    side = [[names[i], names[(i + 1) % n]] for i in range(n)]
    fig = {"points": _place(dict(zip(names, pts)), degrees, mirror), "names": list(names),
           "segments": side}
    if marks.get("ticks"):
        fig["ticks"] = [[*side[i], k] for i, k in sorted(marks["ticks"].items())]
    if marks.get("arrows"):
        fig["arrows"] = [[*(side[i][::-1] if rev else side[i]), k] for i, (k, rev) in sorted(marks["arrows"].items())]
    if marks.get("right"):
        fig["right"] = [[names[i], names[i - 1], names[(i + 1) % n]] for i in marks["right"]]
    return fig


def make_shape(ctx, count: int, rng: random.Random) -> list[Draft]:
    out: list[Draft] = []
    used: dict = {}
    tri, quad = list(TRIANGLES), list(QUADRILATERALS)
    for _ in range(count * 20):
        if len(out) == count:
            break
        turn = nth(ctx, len(out))
        kind = ("triangle", "quadrilateral")[turn % 2]
        degrees, mirror = rng.uniform(0, 360), rng.random() < 0.5
        if kind == "triangle":
            cls = tri[(turn // 2) % len(tri)]
            got = _sample_triangle(cls, rng)
            if got is None:
                continue
            exact, equal, right = got
            names = ["A", "B", "C"]
            # side i is opposite vertex i: it joins vertices i + 1 and i + 2
            ticks = {(i + 1) % 3: 1 for g in equal for i in g}
            marks = {"ticks": ticks, "right": [] if right is None else [right]}
            floats = [(_num(x), _num(y)) for x, y in exact]
            true = _triangle_names(exact)
            if ("equilateral" if "equilateral" in true else min(true)) != cls:
                continue  # e.g. a "scalene" draw whose sides came out equal
            answer = TRIANGLES[cls]
            pool = [TRIANGLES[c] for c in tri if c not in true]
        else:
            cls = quad[(turn // 2) % len(quad)]
            got = _sample_quadrilateral(cls, rng)
            if got is None:
                continue
            ints, marks = got
            start = rng.randrange(4)  # which corner is A
            ints = ints[start:] + ints[:start]
            marks = {"ticks": {(s - start) % 4: n for s, n in marks.get("ticks", {}).items()},
                     "arrows": {(s - start) % 4: v for s, v in marks.get("arrows", {}).items()},
                     "right": [(v - start) % 4 for v in marks.get("right", [])]}
            exact = [(str(x), str(y)) for x, y in ints]
            floats = [(float(x), float(y)) for x, y in ints]
            names = ["A", "B", "C", "D"]
            true = _quadrilateral_names(ints)
            if next(c for c in QUAD_SPECIFICITY if c in true) != cls:
                continue  # e.g. a "trapezoid" whose legs came out equal
            answer = QUADRILATERALS[cls]
            pool = [QUADRILATERALS[c] for c in quad if c not in true]
        others = _pick_balanced(pool, used, 3, rng)
        # centre the figure on its centroid before turning it, so it stays in the middle
        cx, cy = sum(p[0] for p in floats) / len(floats), sum(p[1] for p in floats) / len(floats)
        fig = _shape_figure(names, [(x - cx, y - cy) for x, y in floats], marks, degrees, mirror)
        options = _mcq(ctx, "shape", kind, answer, others, rng)
        meta = {"sub_field": SUB_FIELD, "question_kind": kind, "shape_class": cls,
                "vertices": [list(p) for p in exact], "rotation": round(degrees, 2), "mirror": mirror,
                "figure": fig}
        out.append(Draft(mcq_prompt(PROMPTS[kind], options), [partial(picture, "shape", meta)], options, answer,
                         _unit_id("shape", fig["points"]), meta))
    return out


@lru_cache(maxsize=256)
def _num(text: str) -> float:
    """A coordinate string as a float (cached: the same few radicals recur)."""
    return float(sp.sympify(text))


def _sq(a, b):
    return sp.expand((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2)


def _triangle_names(exact: list[Exact]) -> set[str]:
    """Every triangle class true of the exact vertices (sympy)."""
    v = [(sp.sympify(x), sp.sympify(y)) for x, y in exact]
    sides = [_sq(v[(i + 1) % 3], v[(i + 2) % 3]) for i in range(3)]
    dots = [sp.expand((v[(i + 1) % 3][0] - v[i][0]) * (v[(i + 2) % 3][0] - v[i][0])
                      + (v[(i + 1) % 3][1] - v[i][1]) * (v[(i + 2) % 3][1] - v[i][1])) for i in range(3)]
    angle = "right" if any(d == 0 for d in dots) else "obtuse" if any(d < 0 for d in dots) else "acute"
    equal_pairs = sum(sp.simplify(sides[i] - sides[j]) == 0 for i, j in combinations(range(3), 2))
    true = {f"{angle}-isosceles"} if equal_pairs else {f"{angle}-scalene"}
    if equal_pairs == 3:
        true.add("equilateral")
    return true


def _quadrilateral_names(v: list[tuple[int, int]]) -> set[str]:
    """Every quadrilateral class true of the integer vertices, with exclusive trapezoid
    (exactly one pair of parallel sides) and kite (not four equal sides)."""
    edge = [(v[(i + 1) % 4][0] - v[i][0], v[(i + 1) % 4][1] - v[i][1]) for i in range(4)]
    length = [x * x + y * y for x, y in edge]
    parallel = [edge[i][0] * edge[i + 2][1] - edge[i][1] * edge[i + 2][0] == 0 for i in (0, 1)]
    right = any(edge[i][0] * edge[i - 1][0] + edge[i][1] * edge[i - 1][1] == 0 for i in range(4))
    rhombus = len(set(length)) == 1
    true = set()
    if all(parallel):
        true.add("parallelogram")
        if right:
            true.add("rectangle")
    if rhombus:
        true.add("rhombus")
        if right:
            true.add("square")
    if sum(parallel) == 1:
        true.add("trapezoid")
        legs = (1, 3) if parallel[0] else (0, 2)
        if length[legs[0]] == length[legs[1]]:
            true.add("isosceles-trapezoid")
    kite = (length[0] == length[1] and length[2] == length[3]) or (length[1] == length[2] and length[3] == length[0])
    if kite and not rhombus:
        true.add("kite")
    return true


def _check_shape(question, options, answer, meta) -> str | None:
    if (bad := _options_ok(options, answer, 4)):
        return bad
    if meta["question_kind"] == "triangle":
        true = _triangle_names([tuple(p) for p in meta["vertices"]])
        best = "equilateral" if "equilateral" in true else next(iter(true))
        names = TRIANGLES
    else:
        true = _quadrilateral_names([(int(x), int(y)) for x, y in meta["vertices"]])
        best = next((c for c in QUAD_SPECIFICITY if c in true), None)
        names = QUADRILATERALS
    if best is None or names[best] != answer:
        return f"the vertices make a {best}, the answer says {answer}"
    lookup = {v: k for k, v in names.items()}
    for o in options:
        if o not in lookup:
            return f"option {o!r} is not a {meta['question_kind']} name"
        if o != answer and lookup[o] in true:
            return f"distractor {o!r} is also true of this figure"
    return _check_marks(meta)


def _check_marks(meta) -> str | None:
    """The drawn marks say only what is true: ticked sides equal (and unticked ones not
    equal to a ticked group), arrowed sides parallel, squared corners right; the drawing
    is the exact figure turned; unmarked properties are readable to scale."""
    fig = meta["figure"]
    p = {k: tuple(v) for k, v in fig["points"].items()}
    names = fig["names"]
    exact = [(float(sp.sympify(x)), float(sp.sympify(y))) for x, y in meta["vertices"]]
    for i, j in combinations(range(len(names)), 2):
        drawn, true = math.dist(p[names[i]], p[names[j]]), math.dist(exact[i], exact[j])
        if abs(drawn / true - math.dist(p[names[0]], p[names[1]]) / math.dist(exact[0], exact[1])) > 1e-3:
            return "the drawing is not the exact figure to scale"
    groups: dict = {}
    for a, b, n in fig.get("ticks", []):
        groups.setdefault(n, []).append(math.dist(p[a], p[b]))
    for n, lengths in groups.items():
        if max(lengths) - min(lengths) > 1e-3 * max(lengths):
            return f"sides with {n} tick(s) are not equal"
    pairs: dict = {}
    for a, b, n in fig.get("arrows", []):
        pairs.setdefault(n, []).append(_unit((p[b][0] - p[a][0], p[b][1] - p[a][1])))
    for n, dirs in pairs.items():
        if any(math.dist(dirs[0], d) > 1e-3 for d in dirs):
            return f"sides with {n} arrowhead(s) are not parallel (or point opposite ways)"
    for v, a, b in fig.get("right", []):
        if abs(_angle_deg(p[v], p[a], p[b]) - 90) > 1e-2:
            return f"the right-angle mark at {v} is not at a right angle"
    n = len(names)
    if not _distinct_enough([math.dist(p[names[i]], p[names[(i + 1) % n]]) for i in range(n)], 1e-3):
        return "two unequal sides look equal (less than 10 % apart)"
    right = {v for v, _, _ in fig.get("right", [])}
    for i in range(n):
        a = _angle_deg(p[names[i]], p[names[i - 1]], p[names[(i + 1) % n]])
        if names[i] not in right and abs(a - 90) < 10:
            return f"the unmarked angle at {names[i]} looks right ({a:.1f} degrees)"
    return None
