"""Geometry quantity (Math T9, L2, free exact answers): lengths (Pythagoras, 30-60-90,
45-45-90, similar triangles), areas (triangle, trapezoid, rectangle with a roof,
circle sector), angles in degrees (angle sum, isosceles, exterior angle, inscribed
angle). Figures are to scale in the units of their labels; typical wrong answers go
to ``meta["mistakes"]``. The check re-derives each answer by sympy formulas *and* by
measuring the to-scale figure."""

from __future__ import annotations

import math
import random
import re
from fractions import Fraction
from functools import partial

import sympy as sp

from cogforge.generators.symbols import Draft, nth
from cogforge.generators.symbols._geometry.common import (PROMPTS, SUB_FIELD, _angle_deg, _place, _polar,
                                                          _triangle_by_angles, _unit_id)
from cogforge.generators.symbols._geometry.drawing import picture
from cogforge.generators.symbols._mathbase import format_text

QUANTITY_KINDS = {"length": ("pythagoras-hypotenuse", "pythagoras-leg", "30-60-90", "45-45-90", "similar"),
                  "area": ("triangle", "trapezoid", "composite", "sector"),
                  "angle": ("angle-sum", "isosceles", "exterior", "inscribed")}

PYTHAGOREAN = ((3, 4), (6, 8), (5, 12), (8, 6), (4, 3), (12, 5), (9, 12), (8, 15), (12, 9))


def _show(value) -> str:
    """A value as written on a figure: 4*sqrt(3) -> 4√3, 5/2 stays 5/2."""
    return re.sub(r"sqrt\((\d+)\)", "√\\1", str(value)).replace("*", "")


class _Quantity:
    """What one sub-kind makes: the figure's points and drawing, the given values by
    role, which drawn element shows each, what x is, the answer and typical mistakes."""

    def __init__(self, points, answer, givens, labels, target, mistakes, prompt, **draw):
        self.points, self.answer, self.givens, self.labels = points, sp.sympify(answer), givens, labels
        self.target, self.mistakes, self.prompt, self.draw = target, mistakes, prompt, draw


def _q_length(sub: str, rng: random.Random) -> _Quantity | None:
    if sub == "pythagoras-hypotenuse":
        a, b = rng.randint(2, 12), rng.randint(2, 12)
        if not 0.35 <= a / b <= 2.9:
            return None
        pts = {"C": (0.0, 0.0), "B": (float(a), 0.0), "A": (0.0, float(b))}
        return _Quantity(pts, sp.sqrt(a * a + b * b), {"a": a, "b": b},
                         [["length", ["C", "B"], "a"], ["length", ["C", "A"], "b"]], {"length": ["A", "B"]},
                         [a + b, sp.sqrt(abs(a * a - b * b)), a * a + b * b], "length", right=[["C", "A", "B"]])
    if sub == "pythagoras-leg":
        c, a = rng.randint(4, 15), rng.randint(2, 14)
        if a >= c:
            return None
        b = math.sqrt(c * c - a * a)
        if not 0.35 <= a / b <= 2.9:
            return None
        pts = {"C": (0.0, 0.0), "B": (float(a), 0.0), "A": (0.0, b)}
        return _Quantity(pts, sp.sqrt(c * c - a * a), {"a": a, "c": c},
                         [["length", ["C", "B"], "a"], ["length", ["A", "B"], "c"]], {"length": ["C", "A"]},
                         [sp.sqrt(c * c + a * a), c - a, c * c - a * a], "length", right=[["C", "A", "B"]])
    if sub in ("30-60-90", "45-45-90"):
        # C right angle, A = 30 or 45 degrees; sides by the angle they face
        small = 30 if sub == "30-60-90" else 45
        unit = {"BC": sp.sin(sp.pi * small / 180), "AC": sp.cos(sp.pi * small / 180), "AB": sp.Integer(1)}
        given, asked = rng.sample(["BC", "AC", "AB"] if small == 30 else ["BC", "AB"], 2)
        value = sp.Integer(rng.randint(2, 20))
        if rng.random() < 0.3 and (small, given) in ((30, "BC"), (45, "AB")):
            value = value * sp.sqrt(3 if small == 30 else 2)  # a radical given now and then
        scale = value / unit[given]
        sides = {k: scale * v for k, v in unit.items()}
        bc, ac = float(sides["BC"]), float(sides["AC"])
        pts = {"C": (0.0, 0.0), "A": (ac, 0.0), "B": (0.0, bc)}
        wrong = [sides[k] for k in sides if k != asked] + [scale * sp.sqrt(2) if small == 30 else scale * sp.sqrt(3)]
        extra = {"ticks": [["C", "A", 1], ["C", "B", 1]]} if small == 45 else {}
        return _Quantity(pts, sides[asked], {"side": value},
                         [["length", [given[0], given[1]], "side"], ["angle", ["A", "C", "B"], "small"]],
                         {"length": [asked[0], asked[1]]}, wrong, "length", right=[["C", "A", "B"]],
                         angle_value=small, **extra)
    # similar triangles: DE parallel to BC
    d, e = rng.randint(2, 8), rng.randint(1, 8)
    beta = rng.uniform(50, 75)
    ask_bc = rng.random() < 0.5
    if ask_bc:
        f = rng.randint(2, 10)
        bc = Fraction(f * (d + e), d)
    else:
        bc = Fraction(rng.randint(4, 16))
        f = bc * d / (d + e)
    if not 0.5 <= float(bc) / (d + e) <= 2:
        return None
    a = _polar(d + e, beta)
    b, c = (0.0, 0.0), (float(bc), 0.0)
    t = d / (d + e)
    pts = {"A": a, "B": b, "C": c, "D": (a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])),
           "E": (a[0] + t * (c[0] - a[0]), a[1] + t * (c[1] - a[1]))}
    if _angle_deg(c, a, b) < 25:
        return None
    givens = {"AD": d, "DB": e, "DE" if ask_bc else "BC": sp.Rational(f if ask_bc else bc)}
    labels = [["length", ["A", "D"], "AD"], ["length", ["D", "B"], "DB"],
              ["length", ["D", "E"] if ask_bc else ["B", "C"], "DE" if ask_bc else "BC"]]
    known = sp.Rational(f if ask_bc else bc)
    answer = known * sp.Rational(d + e, d) if ask_bc else known * sp.Rational(d, d + e)
    mistakes = ([known * sp.Rational(d + e, e), known * sp.Rational(e, d), known + e] if ask_bc
                else [known * sp.Rational(e, d + e), known * sp.Rational(d, e), known - e])
    return _Quantity(pts, answer, givens, labels, {"length": ["B", "C"] if ask_bc else ["D", "E"]}, mistakes,
                     "similar", segments=[["A", "D"], ["D", "B"], ["A", "E"], ["E", "C"], ["B", "C"], ["D", "E"]],
                     arrows=[["D", "E", 1], ["B", "C", 1]])


def _q_area(sub: str, rng: random.Random) -> _Quantity | None:
    if sub == "triangle":
        b = rng.randint(4, 14)
        p, h = rng.choice(PYTHAGOREAN) if rng.random() < 0.5 else (rng.randint(1, b - 1), rng.randint(3, 12))
        if not 0.15 * b <= p <= 0.85 * b or not 0.35 <= h / b <= 1.6:
            return None
        pts = {"B": (0.0, 0.0), "C": (float(b), 0.0), "A": (float(p), float(h)), "H": (float(p), 0.0)}
        labels = [["length", ["B", "C"], "b"], ["length", ["A", "H"], "h"]]
        givens = {"b": b, "h": h}
        mistakes = [b * h, sp.Rational(b + h, 2)]
        slant = math.isqrt(p * p + h * h)
        if slant * slant == p * p + h * h:  # a whole-number side is shown too: a tempting wrong height
            labels.append(["length", ["B", "A"], "side"])
            givens["side"] = slant
            mistakes.append(sp.Rational(b * slant, 2))
        return _Quantity(pts, sp.Rational(b * h, 2), givens, labels, {"polygon": ["A", "B", "C"]}, mistakes, "area",
                         segments=[["A", "B"], ["B", "C"], ["C", "A"]], dashed=[["A", "H"]],
                         right=[["H", "A", "C"]], polygons=[["A", "B", "C"]], names=["A", "B", "C", "H"])
    if sub == "trapezoid":
        a, b, h = rng.randint(6, 16), rng.randint(2, 12), rng.randint(3, 10)
        x2 = rng.randint(1, max(1, a - b - 1)) if a - b >= 2 else None
        if x2 is None or not 0.3 <= h / a <= 1.0:
            return None
        pts = {"A": (0.0, 0.0), "B": (float(a), 0.0), "C": (float(x2 + b), float(h)), "D": (float(x2), float(h)),
               "H": (float(x2), 0.0)}
        return _Quantity(pts, sp.Rational((a + b) * h, 2), {"a": a, "b": b, "h": h},
                         [["length", ["A", "B"], "a"], ["length", ["D", "C"], "b"], ["length", ["D", "H"], "h"]],
                         {"polygon": ["A", "B", "C", "D"]}, [(a + b) * h, a * h, a * b * h], "area",
                         segments=[["A", "B"], ["B", "C"], ["C", "D"], ["D", "A"]], dashed=[["D", "H"]],
                         right=[["H", "D", "B"]], polygons=[["A", "B", "C", "D"]], names=["A", "B", "C", "D", "H"],
                         label_sides={"h": 1})
    if sub == "composite":
        w, h, t = rng.randint(4, 14), rng.randint(3, 12), rng.randint(2, 8)
        apex = rng.choice([Fraction(1, 2), Fraction(1, 3), Fraction(2, 3), Fraction(1, 4), Fraction(3, 4)])
        if not 0.5 <= (h + t) / w <= 1.6:
            return None
        ex = float(apex * w)
        pts = {"A": (0.0, 0.0), "B": (float(w), 0.0), "C": (float(w), float(h)), "D": (0.0, float(h)),
               "E": (ex, float(h + t)), "F": (ex, float(h))}
        return _Quantity(pts, sp.Rational(2 * w * h + w * t, 2), {"w": w, "h": h, "t": t},
                         [["length", ["A", "B"], "w"], ["length", ["B", "C"], "h"], ["length", ["E", "F"], "t"]],
                         {"polygon": ["A", "B", "C", "E", "D"]},
                         [w * h + w * t, w * (h + t), sp.Rational(w * (h + t), 2)], "area",
                         segments=[["A", "B"], ["B", "C"], ["C", "E"], ["E", "D"], ["D", "A"]],
                         dashed=[["D", "C"], ["E", "F"]], right=[["F", "E", "C"]],
                         polygons=[["A", "B", "C", "E", "D"]], names=["A", "B", "C", "D", "E", "F"])
    r = rng.randint(2, 12)
    theta = rng.choice([30, 40, 45, 60, 72, 80, 90, 100, 108, 120, 135, 144, 150])
    start = rng.uniform(0, 360)
    pts = {"O": (0.0, 0.0), "P": _polar(r, start), "Q": _polar(r, start + theta)}
    return _Quantity(pts, sp.Rational(theta, 360) * sp.pi * r * r, {"r": r, "theta": theta},
                     [["length", ["O", "P"], "r"], ["angle", ["O", "P", "Q"], "theta"]], {"sector": ["O", "P", "Q"]},
                     [sp.Rational(theta, 360) * 2 * sp.pi * r, sp.pi * r * r, sp.Rational(theta * r * r, 2),
                      sp.Rational(theta, 360) * sp.pi * (2 * r) ** 2], "area",
                     segments=[["O", "P"], ["O", "Q"]], sectors=[["O", "P", "Q"]], dots=["O"],
                     names=["O", "P", "Q"])


def _q_angle(sub: str, rng: random.Random) -> _Quantity | None:
    if sub == "angle-sum":
        alpha, beta = rng.randint(25, 110), rng.randint(25, 110)
        gamma = 180 - alpha - beta
        if gamma < 20:
            return None
        return _Quantity(_triangle_by_angles(alpha, beta), gamma, {"alpha": alpha, "beta": beta},
                         [["angle", ["A", "B", "C"], "alpha"], ["angle", ["B", "C", "A"], "beta"]],
                         {"angle": ["C", "A", "B"]}, [180 - alpha, 180 - beta, alpha + beta], "angle")
    if sub == "isosceles":
        apex_given = rng.random() < 0.5
        if apex_given:
            apex = 2 * rng.randint(10, 70)
            base = sp.Rational(180 - apex, 2)
        else:
            base = rng.randint(20, 80)
            apex = 180 - 2 * base
        pts = _triangle_by_angles(float(base), float(base))  # apex at C
        givens = {"apex": apex} if apex_given else {"base": base}
        label = [["angle", ["C", "A", "B"], "apex"]] if apex_given else [["angle", ["A", "B", "C"], "base"]]
        target = {"angle": ["B", "C", "A"]} if apex_given else {"angle": ["C", "A", "B"]}
        mistakes = [180 - apex, apex, 90 - sp.Rational(apex, 2) + 10] if apex_given else [180 - base, 90 - base, base]
        return _Quantity(pts, base if apex_given else apex, givens, label, target, mistakes, "isosceles",
                         ticks=[["C", "A", 1], ["C", "B", 1]])
    if sub == "exterior":
        alpha, beta = rng.randint(30, 85), rng.randint(30, 85)
        if alpha + beta > 150:
            return None
        pts = _triangle_by_angles(beta, 180 - alpha - beta)  # its A, B, C are the figure's B, C, A
        pts = {"B": pts["A"], "C": pts["B"], "A": pts["C"], "D": (pts["B"][0] + 3.5, 0.0)}
        return _Quantity(pts, alpha + beta, {"alpha": alpha, "beta": beta},
                         [["angle", ["A", "B", "C"], "alpha"], ["angle", ["B", "A", "C"], "beta"]],
                         {"angle": ["C", "A", "D"]}, [180 - alpha - beta, 180 - alpha, 180 - beta], "exterior",
                         segments=[["A", "B"], ["A", "C"], ["B", "D"]])
    # inscribed angle: central angle AOB = 2 * ACB, C on the major arc
    half = rng.randint(25, 80)
    mid = rng.uniform(0, 360)
    c_at = mid + 180 + rng.uniform(-35, 35)
    pts = {"O": (0.0, 0.0), "A": _polar(5, mid - half), "B": _polar(5, mid + half), "C": _polar(5, c_at)}
    central_given = rng.random() < 0.5
    givens = {"central": 2 * half} if central_given else {"inscribed": half}
    labels = [["angle", ["O", "A", "B"], "central"]] if central_given else [["angle", ["C", "A", "B"], "inscribed"]]
    target = {"angle": ["C", "A", "B"]} if central_given else {"angle": ["O", "A", "B"]}
    mistakes = [2 * half * 2, 180 - half, 180 - 2 * half] if central_given else [sp.Rational(half, 2), 180 - half,
                                                                                  180 - 2 * half]
    return _Quantity(pts, half if central_given else 2 * half, givens, labels, target, mistakes, "inscribed",
                     segments=[["O", "A"], ["O", "B"], ["C", "A"], ["C", "B"]], circles=[["O", 5]], dots=["O"],
                     names=["A", "B", "C", "O"])


QUANTITY_PROMPTS = {"length": PROMPTS["length"], "similar": PROMPTS["similar"], "area": PROMPTS["area"],
                    "angle": PROMPTS["angle"], "exterior": "B, C and D lie on one line. " + PROMPTS["angle"],
                    "isosceles": "Tick marks show equal sides. " + PROMPTS["angle"],
                    "inscribed": "O is the centre of the circle. " + PROMPTS["angle"]}


def _quantity_figure(q: _Quantity, degrees: float) -> dict:
    pts = _place(q.points, degrees)
    draw = dict(q.draw)
    fig = {"points": pts, "names": draw.pop("names", sorted(q.points)),
           "segments": draw.pop("segments", [["A", "B"], ["B", "C"], ["C", "A"]])}
    angle_value = draw.pop("angle_value", None)
    lengths, angles = [], []
    sides = draw.pop("label_sides", {})
    for what, on, role in q.labels:
        value = angle_value if role == "small" else q.givens[role]
        if what == "length":
            lengths.append([*on, _show(value), sides.get(role, 0)])
        else:
            angles.append([*on, f"{_show(value)}°"])
    target = q.target
    if "length" in target:
        lengths.append([*target["length"], "x", 0])
    if "angle" in target:
        angles.append([*target["angle"], "x"])
    fig.update({k: v for k, v in draw.items() if v})
    if lengths:
        fig["lengths"] = lengths
    if angles:
        fig["angles"] = angles
    return fig


def make_geometry_quantity(ctx, count: int, rng: random.Random) -> list[Draft]:
    out: list[Draft] = []
    kinds = list(QUANTITY_KINDS)
    makers = {"length": _q_length, "area": _q_area, "angle": _q_angle}
    for _ in range(count * 30):
        if len(out) == count:
            break
        kind = kinds[nth(ctx, len(out)) % 3]
        subs = QUANTITY_KINDS[kind]
        sub = subs[(nth(ctx, len(out)) // 3) % len(subs)]
        q = makers[kind](sub, rng)
        if q is None:
            continue
        upright = kind == "area" and sub != "sector"
        fig = _quantity_figure(q, 0.0 if upright else rng.uniform(0, 360))
        givens = {k: str(sp.sympify(v)) for k, v in q.givens.items()}
        mistakes = []
        for m in q.mistakes:
            m = sp.sympify(m)
            if m != q.answer and str(m) not in mistakes and m > 0:
                mistakes.append(str(m))
        meta = {"sub_field": SUB_FIELD, "question_kind": kind, "sub_kind": sub, "answer_format": "exact",
                "givens": givens, "labels": q.labels, "target": q.target, "mistakes": mistakes, "figure": fig}
        if "angle_value" in q.draw:
            meta["angles_given"] = {"small": q.draw["angle_value"]}
        question = QUANTITY_PROMPTS[q.prompt] + " " + format_text("exact", str(q.answer))
        out.append(Draft(question, [partial(picture, "geometry-quantity", meta)], None, str(q.answer),
                         _unit_id("geometry-quantity", sub, givens, q.target), meta))
    return out


def _measure(fig: dict, what: str, on: list) -> float:
    p = {k: tuple(v) for k, v in fig["points"].items()}
    if what == "length":
        return math.dist(p[on[0]], p[on[1]])
    if what == "angle":
        return _angle_deg(p[on[0]], p[on[1]], p[on[2]])
    if what == "polygon":
        from shapely.geometry import Polygon
        return Polygon([p[k] for k in on]).area
    o, a, b = (p[k] for k in on)  # sector
    return math.dist(o, a) ** 2 * math.radians(_angle_deg(o, a, b)) / 2


def _quantity_formula(sub: str, g: dict, meta: dict) -> sp.Expr:
    """The textbook formula for the sub-kind, from the given values (sympy, exact)."""
    deg = sp.pi / 180
    if sub == "pythagoras-hypotenuse":
        return sp.sqrt(g["a"] ** 2 + g["b"] ** 2)
    if sub == "pythagoras-leg":
        return sp.sqrt(g["c"] ** 2 - g["a"] ** 2)
    if sub in ("30-60-90", "45-45-90"):
        # law of sines: each side over the sine of the angle it faces is the same
        small = meta["angles_given"]["small"]
        facing = {"BC": small, "AC": 90 - small, "AB": 90}
        given = "".join(next(on for what, on, role in meta["labels"] if role == "side"))
        asked = "".join(meta["target"]["length"])
        key = lambda s: "".join(sorted(s))  # noqa: E731
        facing = {key(k): v for k, v in facing.items()}
        return sp.simplify(g["side"] * sp.sin(facing[key(asked)] * deg) / sp.sin(facing[key(given)] * deg))
    if sub == "similar":
        if "DE" in g:
            return g["DE"] * (g["AD"] + g["DB"]) / g["AD"]
        return g["BC"] * g["AD"] / (g["AD"] + g["DB"])
    if sub == "triangle":
        return g["b"] * g["h"] / 2
    if sub == "trapezoid":
        return (g["a"] + g["b"]) * g["h"] / 2
    if sub == "composite":
        return g["w"] * g["h"] + g["w"] * g["t"] / 2
    if sub == "sector":
        return g["theta"] / 360 * sp.pi * g["r"] ** 2
    if sub == "angle-sum":
        return 180 - g["alpha"] - g["beta"]
    if sub == "isosceles":
        return (180 - g["apex"]) / 2 if "apex" in g else 180 - 2 * g["base"]
    if sub == "exterior":
        return g["alpha"] + g["beta"]
    return g["central"] / 2 if "central" in g else 2 * g["inscribed"]


def _same(a: sp.Expr, b: sp.Expr) -> bool:
    """Exact equality of two simple closed forms (cheap tests first: simplify is slow);
    values apart in 15 digits are unequal without it."""
    d = sp.expand(a - b)
    if d == 0:
        return True
    if abs(complex(sp.N(d, 15))) > 1e-9:
        return False
    return sp.radsimp(d) == 0 or sp.simplify(d) == 0


def _check_quantity(question, options, answer, meta) -> str | None:
    if options is not None:
        return "a free-answer item has options"
    try:
        given = sp.sympify(answer)
    except (sp.SympifyError, SyntaxError, TypeError) as exc:
        return f"answer {answer!r} does not parse: {exc}"
    g = {k: sp.sympify(v) for k, v in meta["givens"].items()}
    expected = _quantity_formula(meta["sub_kind"], g, meta)
    if not _same(given, expected):
        return f"the formula gives {expected}, the answer says {answer}"
    if str(sp.sympify(expected)) != answer:
        return f"answer {answer!r} is not in canonical form ({expected})"
    fig = meta["figure"]
    (what, on), = meta["target"].items()
    measured = _measure(fig, what, on)
    if abs(measured - float(given)) > 2e-3 * max(1.0, float(given)):
        return f"the figure measures {measured:.4f} for x, the answer is {float(given):.4f}"
    for what, on, role in meta["labels"]:
        value = meta.get("angles_given", {}).get(role) if role == "small" else g[role]
        seen = _measure(fig, what, on)
        if abs(seen - float(value)) > 2e-3 * max(1.0, float(value)):
            return f"the label {role} = {value} does not match the figure ({seen:.4f})"
    for m in meta["mistakes"]:
        if _same(sp.sympify(m), given):
            return f"recorded mistake {m} equals the answer"
    return None
