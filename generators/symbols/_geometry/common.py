"""What the geometry tasks share: the prompts, an item's split unit, points turned and
mirrored, angles, balanced options and their check, and the triangle helpers of more
than one task."""

from __future__ import annotations

import hashlib
import json
import math
import random
from itertools import combinations

from cogforge.generators.symbols._geometry.drawing import Point

SUB_FIELD = "geometry"

PROMPTS = {
    "triangle": ("Which name describes triangle ABC? Tick marks show equal sides and a small square shows a "
                 "right angle; the figure is drawn to scale."),
    "quadrilateral": ("What is the most specific name for quadrilateral ABCD? Tick marks show equal sides, "
                      "arrowheads show parallel sides and small squares show right angles; the figure is drawn "
                      "to scale. Here a trapezoid has exactly one pair of parallel sides, and a kite has two pairs "
                      "of equal adjacent sides but not four equal sides."),
    "cevian": ("In triangle ABC, the segments AD, AE, AF and AG join A to points on BC. The small square marks a "
               "right angle, the tick marks show equal lengths and the arcs equal angles. Which segment is the "
               "{what} from A?"),
    "count": "How many triangles of any size are there in the figure?",
    "length": "Find the length x.",
    "similar": "In the figure DE is parallel to BC. Find the length x.",
    "area": "Find the area of the shaded figure.",
    "angle": "Find the angle x in degrees.",
    "relation": ("Triangles ABC and DEF are drawn with some of their side lengths and angles marked; the two are "
                 "not drawn to the same scale. How are the triangles related?"),
    "congruence": ("Triangles ABC and DEF are congruent. Which congruence criterion do the marked sides and angles "
                   "show? The two are not drawn to the same scale, and a small square marks a right angle."),
    "similarity": ("Triangles ABC and DEF are similar. Which similarity criterion do the marked sides and angles "
                   "show? The two are not drawn to the same scale."),
    "definition": ("The figure is labelled \"{label}\" and is not drawn to scale: only its label, its marks and "
                   "its marked values count. Is the figure consistent with its label and marks?"),
}


def _unit_id(*parts) -> str:
    """The split unit: a short hash of what defines the figure."""
    return "figure:" + hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:12]


def _place(points: dict[str, Point], degrees: float = 0.0, mirror: bool = False) -> dict[str, list[float]]:
    """Points mirrored (x -> -x) and turned about the origin, rounded for JSON."""
    t = math.radians(degrees)
    out = {}
    for k, (x, y) in points.items():
        x = -x if mirror else x
        out[k] = [round(x * math.cos(t) - y * math.sin(t), 4), round(x * math.sin(t) + y * math.cos(t), 4)]
    return out


def _angle_deg(v: Point, p: Point, q: Point) -> float:
    a = math.atan2(p[1] - v[1], p[0] - v[0]) - math.atan2(q[1] - v[1], q[0] - v[0])
    a = abs(math.degrees(a)) % 360
    return 360 - a if a > 180 else a


def _mcq(ctx, task: str, kind: str, answer: str, others: list[str], rng: random.Random) -> list[str]:
    return ctx.positions.place(f"mathematics-{task} {kind}", answer, others, rng)


def _pick_balanced(pool: list[str], used: dict, n: int, rng: random.Random) -> list[str]:
    """``n`` of ``pool``, the least used so far first (ties by the RNG), counted as used:
    every name then appears about as often as a distractor, so no option text is a cue."""
    keyed = sorted(pool, key=lambda o: (used.get(o, 0), rng.random()))
    chosen = keyed[:n]
    for o in chosen:
        used[o] = used.get(o, 0) + 1
    return chosen


def _options_ok(options, answer: str, n: int) -> str | None:
    if options is None or len(options) != n:
        return f"expected {n} options, got {options}"
    if len(set(options)) != n:
        return f"options are not distinct: {options}"
    if answer not in options:
        return f"answer {answer!r} is not an option"
    return None


def _tri_numbers(pts: list[Point]) -> tuple[list[float], list[float]]:
    """Side lengths (opposite each vertex) and angles in degrees."""
    sides = [math.dist(pts[(i + 1) % 3], pts[(i + 2) % 3]) for i in range(3)]
    angles = [_angle_deg(pts[i], pts[(i + 1) % 3], pts[(i + 2) % 3]) for i in range(3)]
    return sides, angles


def _distinct_enough(values: list[float], tol: float = 1e-9) -> bool:
    """Any two values are equal (within ``tol``, relative) or differ by 10 % at least
    (readable to scale)."""
    for x, y in combinations(values, 2):
        if abs(x - y) > tol * max(x, y) and max(x, y) < 1.1 * min(x, y):
            return False
    return True


def _polar(r: float, degrees: float) -> Point:
    return (r * math.cos(math.radians(degrees)), r * math.sin(math.radians(degrees)))


def _triangle_by_angles(alpha: float, beta: float, base: float = 6.0) -> dict[str, Point]:
    """A = origin, B on the x axis, C above: angles alpha at A and beta at B."""
    gamma = 180 - alpha - beta
    ac = base * math.sin(math.radians(beta)) / math.sin(math.radians(gamma))
    return {"A": (0.0, 0.0), "B": (base, 0.0), "C": _polar(ac, alpha)}
