"""Definition check (Math T15, L3, yes/no): a figure labelled "Square ABCD", "Triangle
ABC", ... with marked values, not drawn to scale; half the items are consistent, the
other half carry one error of :data:`DEFINITION_ERRORS`, spread evenly. The check reads
the definitions the marked values break."""

from __future__ import annotations

import math
import random
from functools import partial

from cogforge.generators.symbols import Draft, mcq_prompt, nth
from cogforge.generators.symbols._geometry.common import (PROMPTS, SUB_FIELD, _place, _polar, _triangle_by_angles,
                                                          _unit_id)
from cogforge.generators.symbols._geometry.drawing import _add, picture

DEFINITION_ERRORS = {"angle sum": "triangle angles", "unequal sides": "equal sides",
                     "parallel lines meet": "parallel lines", "right angle": "right angle"}
DEFINITION_FAMILIES = tuple(DEFINITION_ERRORS.values())
YES_NO = ["Yes", "No"]

TRIPLES = ((3, 4, 5), (6, 8, 10), (5, 12, 13), (9, 12, 15), (8, 15, 17), (7, 24, 25), (20, 21, 29), (12, 16, 20))
# where an angle sits at a crossing of the transversal t with line a (through l1, l2, at P) or
# line b (through m1, m2, at Q): up/low, left/right
CROSSING_RAYS = {"P": {"UR": ("l2", "t1"), "UL": ("l1", "t1"), "LL": ("l1", "Q"), "LR": ("l2", "Q")},
                 "Q": {"UR": ("m2", "P"), "UL": ("m1", "P"), "LL": ("m1", "t2"), "LR": ("m2", "t2")}}
# angle pairs at P and Q by the relation a reader is meant to use
ANGLE_PAIRS = {"corresponding": (("UR", "UR"), ("UL", "UL"), ("LL", "LL"), ("LR", "LR")),
               "alternate": (("LL", "UR"), ("LR", "UL")), "co-interior": (("LL", "UL"), ("LR", "UR"))}


def _jitter(rng: random.Random, spread: float) -> float:
    """Not to scale: drawn angles stray a little from the marked ones, in both kinds of item."""
    return rng.uniform(-spread, spread)


def _def_triangle_angles(wrong: bool, rng: random.Random) -> tuple[str, dict, dict] | None:
    isosceles = rng.random() < 0.4
    if isosceles:
        base = rng.randint(30, 75)
        angles = {"A": 180 - 2 * base, "B": base, "C": base}
    else:
        a, b = rng.randint(30, 100), rng.randint(30, 100)
        if 180 - a - b < 25:
            return None
        angles = {"A": a, "B": b, "C": 180 - a - b}
    shown = dict(angles)
    if wrong:
        off = rng.choice([-1, 1]) * rng.randint(6, 20)
        if isosceles:  # the two base angles stay equal: only the sum is off
            shown["A"] += off
        else:
            shown[rng.choice("ABC")] += off
        if min(shown.values()) < 15:
            return None
    drawn = _triangle_by_angles(angles["A"] + _jitter(rng, 5), angles["B"] + _jitter(rng, 5))
    label = "Isosceles triangle ABC" if isosceles else "Triangle ABC"
    fig = {"points": _place(drawn, rng.uniform(-15, 15)), "names": ["A", "B", "C"],
           "segments": [["A", "B"], ["B", "C"], ["C", "A"]],
           "angles": [["A", "B", "C", f"{shown['A']}°"], ["B", "C", "A", f"{shown['B']}°"],
                      ["C", "A", "B", f"{shown['C']}°"]]}
    if isosceles:
        fig["ticks"] = [["A", "B", 1], ["A", "C", 1]]
    return label, {"variant": "isosceles" if isosceles else "triangle", "angles": shown}, fig


def _def_equal_sides(wrong: bool, rng: random.Random) -> tuple[str, dict, dict] | None:
    variant = rng.choice(["square", "rhombus", "equilateral"])
    side = rng.randint(3, 40)
    if variant == "equilateral":
        pts = {"A": (0.0, 0.0), "B": (2.0, 0.0), "C": (1.0, math.sqrt(3))}
    elif variant == "square":
        pts = {"A": (0.0, 0.0), "B": (1.0, 0.0), "C": (1.0, 1.0), "D": (0.0, 1.0)}
    else:
        angle = rng.choice([rng.randint(50, 75), rng.randint(105, 130)])
        u = _polar(1.0, angle + _jitter(rng, 5))
        pts = {"A": (0.0, 0.0), "B": (1.0, 0.0), "C": (1 + u[0], u[1]), "D": u}
    names = sorted(pts)
    sides = {names[i] + names[(i + 1) % len(names)]: side for i in range(len(names))}
    if wrong:
        key = rng.choice(sorted(sides))
        sides[key] = side + rng.choice([-1, 1]) * rng.randint(1, 3)
    marks = {"variant": variant, "sides": {k: v for k, v in sides.items()}}
    fig = {"points": _place(pts, rng.uniform(-20, 20)), "names": names,
           "segments": [[k[0], k[1]] for k in sides], "lengths": [[k[0], k[1], str(v), 0] for k, v in sides.items()]}
    if variant == "square":
        fig["right"] = [[names[i], names[i - 1], names[(i + 1) % 4]] for i in range(4)]
        marks["angles"] = {n: 90 for n in names}
    if variant == "rhombus":
        fig["angles"] = [["A", "B", "D", f"{angle}°"]]
        marks["angles"] = {"A": angle}
    label = {"square": "Square ABCD", "rhombus": "Rhombus ABCD", "equilateral": "Equilateral triangle ABC"}[variant]
    return label, marks, fig


def _def_parallel(wrong: bool, rng: random.Random) -> tuple[str, dict, dict] | None:
    theta = rng.randint(40, 140)
    if abs(theta - 90) < 12:
        return None
    if rng.random() < 0.35:  # parallelogram: angles at A and B are co-interior between AD and BC
        a, b = theta, 180 - theta
        if wrong:
            b += rng.choice([-1, 1]) * rng.randint(6, 20)
        u = _polar(rng.uniform(0.6, 0.9), theta + _jitter(rng, 5))
        pts = {"A": (0.0, 0.0), "B": (1.3, 0.0), "C": (1.3 + u[0], u[1]), "D": u}
        fig = {"points": _place(pts, rng.uniform(-15, 15)), "names": ["A", "B", "C", "D"],
               "segments": [["A", "B"], ["B", "C"], ["C", "D"], ["D", "A"]],
               "arrows": [["A", "B", 1], ["D", "C", 1], ["A", "D", 2], ["B", "C", 2]],
               "angles": [["A", "B", "D", f"{a}°"], ["B", "C", "A", f"{b}°"]]}
        return "Parallelogram ABCD", {"variant": "parallelogram", "angles": {"A": a, "B": b}}, fig
    relation = rng.choice(sorted(ANGLE_PAIRS))
    at_p, at_q = rng.choice(ANGLE_PAIRS[relation])
    value = {pos: theta if pos in ("UR", "LL") else 180 - theta for pos in ("UR", "UL", "LL", "LR")}
    first, second = value[at_p], value[at_q]
    if wrong:
        second += rng.choice([-1, 1]) * rng.randint(6, 20)
        if not 15 <= second <= 165:
            return None
    phi = theta + _jitter(rng, 6)
    u = _polar(1.0, phi)
    run = math.cos(math.radians(phi)) / math.sin(math.radians(phi))  # x per unit of height
    p, q = (1.2 + run, 1.0), (1.2 - run, -1.0)
    pts = {"l1": (-4.0, 1.0), "l2": (3.6, 1.0), "m1": (-4.0, -1.0), "m2": (3.6, -1.0), "P": p, "Q": q,
           "t1": _add(p, u, 1.4), "t2": _add(q, u, -1.4)}
    angles = []
    for cross, pos, shown in (("P", at_p, first), ("Q", at_q, second)):
        a, b = CROSSING_RAYS[cross][pos]
        angles.append([cross, a, b, f"{shown}°"])
    t_end = _add(p, u, 1.75)
    fig = {"points": _place(pts), "names": [], "segments": [["l1", "l2"], ["m1", "m2"], ["t1", "t2"]],
           "arrows": [["l1", "l2", 1], ["m1", "m2", 1]], "angles": angles,
           "texts": [[3.95, 1.0, "a"], [3.95, -1.0, "b"], [round(t_end[0], 4), round(t_end[1], 4), "t"]]}
    marks = {"variant": "transversal", "angles": [["P", at_p, first], ["Q", at_q, second]]}
    return "a ∥ b", marks, fig  # lines a and b (a lower-case l reads as I or 1)


def _def_right(wrong: bool, rng: random.Random) -> tuple[str, dict, dict] | None:
    if rng.random() < 0.5:
        w, h = rng.uniform(1.4, 2.0), 1.0
        pts = {"A": (0.0, 0.0), "B": (w, 0.0), "C": (w, h), "D": (0.0, h)}
        names = ["A", "B", "C", "D"]
        odd = rng.randrange(4)
        value = 90 + (rng.choice([-1, 1]) * rng.randint(4, 12) if wrong else 0)
        long, short = rng.randint(4, 30), rng.randint(2, 20)
        if not 1.2 <= long / short <= 3:
            return None
        sides = {"AB": long, "BC": short, "CD": long, "DA": short}
        fig = {"points": _place(pts, rng.uniform(-15, 15)), "names": names,
               "segments": [["A", "B"], ["B", "C"], ["C", "D"], ["D", "A"]],
               "right": [[names[i], names[i - 1], names[(i + 1) % 4]] for i in range(4) if i != odd],
               "angles": [[names[odd], names[odd - 1], names[(odd + 1) % 4], f"{value}°"]],
               "lengths": [[k[0], k[1], str(v), 0] for k, v in sides.items()]}
        angles = {n: 90 for n in names}
        angles[names[odd]] = value
        return "Rectangle ABCD", {"variant": "rectangle", "angles": angles, "sides": sides}, fig
    k = rng.randint(1, 3)
    a, b, c = (k * x for x in rng.choice(TRIPLES))
    if rng.random() < 0.5:
        a, b = b, a
    shown = {"BC": a, "AC": b, "AB": c}
    if wrong:
        key = rng.choice(["BC", "AC", "AB", "AB"])
        shown[key] += rng.choice([-2, -1, 1, 2])
        x, y, z = shown["BC"], shown["AC"], shown["AB"]
        if x * x + y * y == z * z or z <= max(x, y):
            return None
    pts = {"C": (0.0, 0.0), "B": (float(a), 0.0), "A": (0.0, float(b))}
    fig = {"points": _place(pts, rng.uniform(0, 360), rng.random() < 0.5), "names": ["A", "B", "C"],
           "segments": [["A", "B"], ["B", "C"], ["C", "A"]], "right": [["C", "A", "B"]],
           "lengths": [[k[0], k[1], str(v), 0] for k, v in shown.items()]}
    return "Right triangle ABC (right angle at C)", {"variant": "right triangle", "right": "C", "sides": shown}, fig


DEFINITION_MAKERS = {"triangle angles": _def_triangle_angles, "equal sides": _def_equal_sides,
                     "parallel lines": _def_parallel, "right angle": _def_right}


def make_definition_check(ctx, count: int, rng: random.Random) -> list[Draft]:
    out: list[Draft] = []
    errors = list(DEFINITION_ERRORS)
    for _ in range(count * 30):
        if len(out) == count:
            break
        turn = nth(ctx, len(out))
        wrong = turn % 2 == 1  # consistent items are half the task
        error = errors[(turn // 2) % len(errors)]
        family = DEFINITION_ERRORS[error]
        got = DEFINITION_MAKERS[family](wrong, rng)
        if got is None:
            continue
        label, marks, fig = got
        fig["caption"] = label
        answer = YES_NO[1] if wrong else YES_NO[0]
        meta = {"sub_field": SUB_FIELD, "question_kind": family, "family": family, "label": label, "marks": marks,
                "error_type": error if wrong else "none", "figure": fig}
        question = mcq_prompt(PROMPTS["definition"].format(label=label), YES_NO)
        out.append(Draft(question, [partial(picture, "definition-check", meta)], list(YES_NO), answer,
                         _unit_id("definition-check", label, marks), meta))
    return out


def _violations(family: str, marks: dict) -> list[str]:
    """The definitions the marked values break (from the marks alone)."""
    found = []
    variant = marks["variant"]
    if family == "triangle angles":
        a = marks["angles"]
        if sum(a.values()) != 180:
            found.append("angle sum")
        if variant == "isosceles" and a["B"] != a["C"]:
            found.append("unequal base angles")
    elif family == "equal sides":
        if len(set(marks["sides"].values())) > 1:
            found.append("unequal sides")
        if variant == "square" and any(v != 90 for v in marks["angles"].values()):
            found.append("right angle")
    elif family == "parallel lines":
        if variant == "parallelogram":
            if marks["angles"]["A"] + marks["angles"]["B"] != 180:
                found.append("parallel lines meet")
        else:
            # every angle at a crossing is theta (upper right, lower left) or 180 - theta;
            # parallel lines cross t at the same theta
            thetas = {v if pos in ("UR", "LL") else 180 - v for _, pos, v in marks["angles"]}
            if len(thetas) != 1:
                found.append("parallel lines meet")
    elif family == "right angle":
        if variant == "rectangle":
            if any(v != 90 for v in marks["angles"].values()):
                found.append("right angle")
            sides = marks["sides"]
            if sides["AB"] != sides["CD"] or sides["BC"] != sides["DA"]:
                found.append("unequal sides")
        else:
            legs = [v for k, v in marks["sides"].items() if marks["right"] in k]
            hyp = next(v for k, v in marks["sides"].items() if marks["right"] not in k)
            if legs[0] ** 2 + legs[1] ** 2 != hyp ** 2:
                found.append("right angle")
    return found


def _check_definition(question, options, answer, meta) -> str | None:
    if options != YES_NO:
        return f"options are not {YES_NO}: {options}"
    found = _violations(meta["family"], meta["marks"])
    error = meta["error_type"]
    if error == "none":
        if found:
            return f"a consistent item breaks {found}"
        want = "Yes"
    else:
        if DEFINITION_ERRORS.get(error) != meta["family"]:
            return f"error type {error!r} does not belong to family {meta['family']!r}"
        if found != [error]:
            return f"the injected error is {error!r}, the marks break {found}"
        want = "No"
    if answer != want:
        return f"the answer should be {want}, not {answer}"
    if meta["label"] not in question or meta["figure"].get("caption") != meta["label"]:
        return "the label in the question and on the figure differ"
    return None
