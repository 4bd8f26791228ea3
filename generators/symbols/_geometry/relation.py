"""Geometry relation (Math T10, L2): two triangles (the second turned and possibly
mirrored, both drawn at about the same size so the scale factor is only in the
labels): congruent, similar with which scale factor, or neither (sorted side
ratios at least 10 % apart); and which criterion (SSS, SAS, ASA, AAS, RHS; AA, SSS,
SAS for similarity) the marked parts show, with marks chosen so exactly one applies.
The check solves both triangles from their marks (laws of cosines and sines, sympy)."""

from __future__ import annotations

import math
import random
import re
from fractions import Fraction
from functools import partial
from itertools import combinations, permutations

import sympy as sp

from cogforge.generators.symbols import Draft, mcq_prompt, nth
from cogforge.generators.symbols._geometry.common import (PROMPTS, SUB_FIELD, _distinct_enough, _mcq, _options_ok,
                                                          _pick_balanced, _place, _unit_id)
from cogforge.generators.symbols._geometry.drawing import Point, picture

RELATIONS = {"congruent": "Congruent", "neither": "Neither congruent nor similar",
             "similar": "Similar, not congruent: scale factor {k} from ABC to DEF"}
CONGRUENCE = ("SSS", "SAS", "ASA", "AAS", "RHS")
SIMILARITY = ("AA", "SSS", "SAS")

# the parts each criterion marks, in the roles of a triangle ABC (sides by their ends)
CRITERION_MARKS = {"SSS": (("BC", "AC", "AB"), ()), "SAS": (("AB", "AC"), ("A",)), "ASA": (("BC",), ("B", "C")),
                   "AAS": (("BC",), ("A", "B")), "RHS": (("AB", "BC"), ("C",)), "AA": ((), ("A", "B"))}
CRITERION_TURNS = (("congruent", "SSS"), ("congruent", "SAS"), ("congruent", "ASA"), ("congruent", "AAS"),
                   ("congruent", "RHS"), ("similar", "AA"), ("similar", "SSS"), ("similar", "SAS"))
RELATION_TURNS = ("congruent", "similar", "neither", "similar")  # ratio options: each text right 1/4 of the time
SCALES = (Fraction(2), Fraction(1, 2), Fraction(3), Fraction(1, 3), Fraction(3, 2), Fraction(2, 3), Fraction(4, 3),
          Fraction(3, 4), Fraction(5, 2), Fraction(2, 5), Fraction(5, 3), Fraction(3, 5))  # closed under 1/k


def _sides_angles(a: float, b: float, c: float) -> dict[str, float] | None:
    """Angles (degrees) of the triangle with BC = a, AC = b, AB = c, or None if there is none."""
    if a + b <= c or a + c <= b or b + c <= a:
        return None
    cos = {"A": (b * b + c * c - a * a) / (2 * b * c), "B": (a * a + c * c - b * b) / (2 * a * c),
           "C": (a * a + b * b - c * c) / (2 * a * b)}
    return {k: math.degrees(math.acos(max(-1.0, min(1.0, v)))) for k, v in cos.items()}


def _base_triangle(pattern: str, rng: random.Random) -> tuple[dict, dict] | None:
    """A triangle in roles A, B, C whose parts marked by ``pattern`` are whole numbers:
    its sides {"BC", "AC", "AB"} (floats) and those marked values. Scalene, angles 25 to
    115 degrees (90 only where RHS marks it), marked angles 8 or more apart."""
    if pattern == "SSS":
        a, b, c = (rng.randint(3, 12) for _ in range(3))
        sides = {"BC": a, "AC": b, "AB": c}
    elif pattern == "SAS":
        b, c, angle = rng.randint(3, 12), rng.randint(3, 12), rng.randint(30, 120)
        a = math.sqrt(b * b + c * c - 2 * b * c * math.cos(math.radians(angle)))
        sides = {"BC": a, "AC": b, "AB": c}
    elif pattern == "RHS":
        c, a = rng.randint(5, 17), rng.randint(3, 15)
        if a >= c:
            return None
        sides = {"BC": a, "AC": math.sqrt(c * c - a * a), "AB": c}
    else:  # two angles and (for ASA, AAS) the side BC
        first, second = ("B", "C") if pattern == "ASA" else ("A", "B")
        x, y = rng.randint(25, 100), rng.randint(25, 100)
        angles = {first: x, second: y}
        third = ({"A", "B", "C"} - set(angles)).pop()
        angles[third] = 180 - x - y
        a = rng.randint(3, 12)
        k = a / math.sin(math.radians(angles["A"])) if angles["A"] > 0 else 0
        sides = {"BC": a, "AC": k * math.sin(math.radians(angles["B"])), "AB": k * math.sin(math.radians(angles["C"]))}
    angles = _sides_angles(sides["BC"], sides["AC"], sides["AB"])
    if angles is None or not _distinct_enough(list(sides.values())) or \
            min(abs(x - y) for x, y in combinations(sides.values(), 2)) < 1e-6:
        return None
    if min(angles.values()) < 25 or max(angles.values()) > 115:
        return None
    if pattern != "RHS" and any(abs(v - 90) < 4 for v in angles.values()):
        return None
    marked_sides, marked_angles = CRITERION_MARKS[pattern]
    values = {"sides": {k: round(sides[k]) for k in marked_sides},
              "angles": {k: round(angles[k]) for k in marked_angles}}
    if any(abs(sides[k] - v) > 1e-9 for k, v in values["sides"].items()) or \
            any(abs(angles[k] - v) > 1e-9 for k, v in values["angles"].items()):
        return None
    if len(marked_angles) == 2 and abs(angles[marked_angles[0]] - angles[marked_angles[1]]) < 8:
        return None
    return sides, values


def _renamed(marks: dict, names: dict[str, str]) -> dict:
    """Marks in roles, written with a triangle's own letters (sides as sorted letter pairs)."""
    return {"sides": {"".join(sorted(names[r] for r in k)): str(v) for k, v in marks["sides"].items()},
            "angles": {names[k]: int(v) for k, v in marks["angles"].items()}}


def _triangle_points(sides: dict, names: dict[str, str], degrees: float, mirror: bool, size: float,
                     centre: Point) -> dict[str, list[float]]:
    a, b, c = sides["BC"], sides["AC"], sides["AB"]
    cos_b = (a * a + c * c - b * b) / (2 * a * c)
    pts = {"B": (0.0, 0.0), "C": (a, 0.0), "A": (c * cos_b, c * math.sqrt(max(0.0, 1 - cos_b * cos_b)))}
    placed = _place(pts, degrees, mirror)
    xs, ys = [p[0] for p in placed.values()], [p[1] for p in placed.values()]
    k = size / max(max(xs) - min(xs), max(ys) - min(ys))
    mx, my = (max(xs) + min(xs)) / 2, (max(ys) + min(ys)) / 2
    return {names[r]: [round(centre[0] + (x - mx) * k, 4), round(centre[1] + (y - my) * k, 4)]
            for r, (x, y) in placed.items()}


def _pair_figure(tri: dict, points: dict) -> dict:
    fig = {"points": points, "names": sorted(points), "segments": [], "lengths": [], "angles": [], "right": []}
    for letters in tri:
        x, y, z = letters
        fig["segments"] += [[x, y], [y, z], [z, x]]
        marks = tri[letters]
        for side, value in marks["sides"].items():
            fig["lengths"].append([side[0], side[1], value, 0])
        for v, deg in marks["angles"].items():
            p, q = [n for n in letters if n != v]
            if deg == 90:
                fig["right"].append([v, p, q])
            else:
                fig["angles"].append([v, p, q, f"{deg}°"])
    return {k: v for k, v in fig.items() if v}


def _ratio_text(k: Fraction) -> str:
    return RELATIONS["similar"].format(k=str(k))


def make_geometry_relation(ctx, count: int, rng: random.Random) -> list[Draft]:
    out: list[Draft] = []
    used: dict = {}
    for _ in range(count * 40):
        if len(out) == count:
            break
        turn = nth(ctx, len(out))
        kind = ("relation", "criterion")[turn % 2]
        if kind == "relation":
            relation = RELATION_TURNS[(turn // 2) % len(RELATION_TURNS)]
            pattern = rng.choice(["SSS", "SAS"])
        else:
            relation, pattern = CRITERION_TURNS[(turn // 2) % len(CRITERION_TURNS)]
        got = _base_triangle(pattern, rng)
        if got is None:
            continue
        sides, marks = got
        k = Fraction(1) if relation == "congruent" else rng.choice(SCALES)
        q = k.denominator if marks["sides"] else 1
        first = {"sides": {s: v * q for s, v in marks["sides"].items()}, "angles": dict(marks["angles"])}
        second = {"sides": {s: v * q * k for s, v in marks["sides"].items()}, "angles": dict(marks["angles"])}
        if max(list(first["sides"].values()) + list(second["sides"].values()) + [0]) > 40:
            continue
        sides2 = dict(sides)
        if relation == "neither":  # change one marked part: the triangles are then far from similar
            if pattern == "SSS" or rng.random() < 0.5:
                side = rng.choice(sorted(second["sides"]))
                second["sides"][side] = round(second["sides"][side] * rng.choice([0.7, 0.75, 0.8, 1.25, 1.3, 1.4]))
            else:
                second["angles"]["A"] += rng.choice([-1, 1]) * rng.randint(12, 25)
            if pattern == "SSS":
                sides2 = {s: float(v) for s, v in second["sides"].items()}
            else:
                b, c, angle = (float(second["sides"]["AC"]), float(second["sides"]["AB"]), second["angles"]["A"])
                sides2 = {"BC": math.sqrt(b * b + c * c - 2 * b * c * math.cos(math.radians(angle))), "AC": b,
                          "AB": c}
            angles2 = _sides_angles(sides2["BC"], sides2["AC"], sides2["AB"])
            if angles2 is None or min(angles2.values()) < 20 or not 20 <= second["angles"].get("A", 60) <= 140:
                continue
            ratios = sorted(y / x for x, y in zip(sorted(sides.values()), sorted(sides2.values())))
            if ratios[-1] < 1.1 * ratios[0]:
                continue
        if any(v != int(v) for v in second["sides"].values()):
            continue
        if pattern == "RHS":
            first["angles"]["C"] = second["angles"]["C"] = 90
        names1 = dict(zip("ABC", rng.sample("ABC", 3)))
        names2 = dict(zip("ABC", rng.sample("DEF", 3)))
        tri = {"ABC": _renamed({"sides": {s: int(v) for s, v in first["sides"].items()},
                                "angles": first["angles"]}, names1),
               "DEF": _renamed({"sides": {s: int(v) for s, v in second["sides"].items()},
                                "angles": second["angles"]}, names2)}
        size1, size2 = rng.uniform(0.85, 1.0), rng.uniform(0.85, 1.0)
        # one top left, one bottom right: each gets more of the picture than side by side
        points = _triangle_points(sides, names1, rng.uniform(-20, 20), False, size1, (0.5, 1.5))
        points.update(_triangle_points(sides2, names2, rng.uniform(0, 360), rng.random() < 0.5, size2, (1.55, 0.5)))
        fig = _pair_figure(tri, points)
        if kind == "relation":
            # the two scale-factor options are always some r and 1/r (ABC to DEF or the wrong
            # way round): r is the true factor, for "neither" the factor of the parts that
            # still match (checking too few parts), for "congruent" any factor; so every
            # option text is right about a quarter of the time and the pair is no cue
            r = rng.choice(SCALES) if relation == "congruent" else k
            ratios = [_ratio_text(r), _ratio_text(1 / r)]
            answer = ratios[0] if relation == "similar" else RELATIONS[relation]
            others = [o for o in ratios + [RELATIONS["congruent"], RELATIONS["neither"]] if o != answer]
            question = PROMPTS["relation"]
        else:
            answer = pattern
            if relation == "congruent":
                others = _pick_balanced([c for c in CONGRUENCE if c != pattern], used, 3, rng)
            else:
                others = [c for c in SIMILARITY if c != pattern] + _pick_balanced(["ASA", "AAS", "RHS"], used, 1, rng)
            question = PROMPTS["congruence" if relation == "congruent" else "similarity"]
        if len(others) != 3:
            continue
        options = _mcq(ctx, "geometry-relation", kind, answer, others, rng)
        meta = {"sub_field": SUB_FIELD, "question_kind": kind, "relation": relation, "pattern": pattern,
                "scale": str(k) if relation == "similar" else None, "triangles": tri, "figure": fig}
        out.append(Draft(mcq_prompt(question, options), [partial(picture, "geometry-relation", meta)], options,
                         answer, _unit_id("geometry-relation", tri), meta))
    return out


def _solve(letters: str, marks: dict) -> dict[str, sp.Expr] | None:
    """Every side of a triangle (sympy, exact) from its marked parts: three sides; two
    sides and the angle between them (law of cosines); a right angle, the hypotenuse and
    a leg; two angles and a side (law of sines). None when the marks do not fix it."""
    deg = sp.pi / 180
    sides = {k: sp.Integer(v) for k, v in marks["sides"].items()}
    angles = {k: sp.Integer(v) for k, v in marks["angles"].items()}
    key = lambda x, y: "".join(sorted(x + y))  # noqa: E731
    opposite = {v: key(*[n for n in letters if n != v]) for v in letters}
    if len(angles) == 2:
        angles[next(v for v in letters if v not in angles)] = 180 - sum(angles.values())
    if len(angles) == 3 and sides:
        side, value = next(iter(sides.items()))
        v = next(x for x in letters if opposite[x] == side)
        ratio = value / sp.sin(angles[v] * deg)
        return {opposite[x]: ratio * sp.sin(angles[x] * deg) for x in letters}
    if len(sides) == 3:
        return sides
    if len(sides) == 2:
        missing = next(s for s in opposite.values() if s not in sides)
        v = next(x for x in letters if opposite[x] == missing)
        if v in angles:  # the marked angle lies between the two marked sides
            p, q = sides.values()
            sides[missing] = sp.sqrt(p ** 2 + q ** 2 - 2 * p * q * sp.cos(angles[v] * deg))
            return sides
        right = [x for x, a in angles.items() if a == 90]
        if right and opposite[right[0]] in sides:  # hypotenuse and a leg
            legs = [s for s in sides if s != opposite[right[0]]]
            sides[missing] = sp.sqrt(sides[opposite[right[0]]] ** 2 - sides[legs[0]] ** 2)
            return sides
    return None


def _criteria(tri: dict) -> tuple[set, set]:
    """Which congruence and which similarity criteria the marks show, over every way of
    matching ABC's vertices with DEF's (from the marks alone)."""
    (n1, m1), (n2, m2) = tri.items()
    congruent, similar = set(), set()
    for perm in permutations(n2):
        f = dict(zip(n1, perm))

        def side(x, y):
            a = m1["sides"].get("".join(sorted(x + y)))
            b = m2["sides"].get("".join(sorted(f[x] + f[y])))
            return None if a is None or b is None else (Fraction(a), Fraction(b))

        def angle(x):
            a, b = m1["angles"].get(x), m2["angles"].get(f[x])
            return None if a is None or b is None else (a, b)

        pairs = {frozenset((x, y)): side(x, y) for x, y in combinations(n1, 2)}
        ang = {x: angle(x) for x in n1}
        eq_angles = {x for x, v in ang.items() if v and v[0] == v[1]}
        ratios = {s: v[1] / v[0] for s, v in pairs.items() if v}
        equal = {s for s, r in ratios.items() if r == 1}
        if len(equal) == 3:
            congruent.add("SSS")
        if len(ratios) == 3 and len(set(ratios.values())) == 1:
            similar.add("SSS")
        for x in n1:
            y, z = [n for n in n1 if n != x]
            around = [frozenset((x, y)), frozenset((x, z))]
            if x in eq_angles and all(s in ratios for s in around):
                if all(s in equal for s in around):
                    congruent.add("SAS")
                if ratios[around[0]] == ratios[around[1]]:
                    similar.add("SAS")
            if x in eq_angles and ang[x][0] == 90 and frozenset((y, z)) in equal and any(s in equal for s in around):
                congruent.add("RHS")
        for x, y in combinations(sorted(eq_angles), 2):
            similar.add("AA")
            if frozenset((x, y)) in equal:
                congruent.add("ASA")
            z = next(n for n in n1 if n not in (x, y))
            if frozenset((x, z)) in equal or frozenset((y, z)) in equal:
                congruent.add("AAS")
    return congruent, similar


def _check_relation(question, options, answer, meta) -> str | None:
    if (bad := _options_ok(options, answer, 4)):
        return bad
    tri = meta["triangles"]
    solved = {n: _solve(n, m) for n, m in tri.items()}
    fig = meta["figure"]
    for n, sides in solved.items():  # each drawing has the shape its marks fix
        if sides is None:
            continue
        p = {k: fig["points"][k] for k in n}
        drawn = {"".join(sorted(x + y)): math.dist(p[x], p[y]) for x, y in combinations(n, 2)}
        ratios = [drawn[k] / float(v) for k, v in sides.items()]
        if max(ratios) > min(ratios) * 1.002:
            return f"triangle {n} is not drawn in the shape its marks give"
    if meta["question_kind"] == "relation":
        exact1, exact2 = (sorted(sp.N(v, 30) for v in solved[n].values()) for n in tri)
        ratios = [b / a for a, b in zip(exact1, exact2)]
        if max(ratios) - min(ratios) < sp.Float("1e-20", 30):
            k = ratios[0]
            truth = RELATIONS["congruent"] if abs(k - 1) < 1e-20 else None
        else:
            if max(ratios) < 1.1 * min(ratios):
                return "the triangles are neither, but their side ratios are within 10 %"
            k, truth = None, RELATIONS["neither"]
        right = []
        for o in options:
            m = re.search(r"scale factor (\S+) from", o)
            if m:
                ok = k is not None and truth is None and abs(float(Fraction(m.group(1))) - float(k)) < 1e-12
            else:
                ok = o == truth
            if ok:
                right.append(o)
        if right != [answer]:
            return f"options true of the marks: {right}, the answer says {answer!r}"
        return None
    congruent, similar = _criteria(tri)
    if meta["relation"] == "congruent":
        s1, s2 = (sorted(float(v) for v in solved[n].values()) for n in tri)
        if any(abs(x - y) > 1e-9 for x, y in zip(s1, s2)):
            return "the marks do not make the triangles congruent"
        shown = congruent & set(options)
    else:
        if congruent & set(options):
            return f"a congruence criterion applies: {congruent}"
        shown = similar & set(options)
    if shown != {answer}:
        return f"criteria the marks show among the options: {sorted(shown)}, the answer says {answer}"
    return None
