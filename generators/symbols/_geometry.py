"""Plane geometry for the mathematics domain (paper Table 1, Math T3, T4, T9, T10, T15):
figures with labelled points, marks and given values, drawn with Pillow, answered
exactly.

Every figure is a JSON dict (``meta["figure"]``: named points, segments, tick marks,
parallel arrowheads, right-angle squares, angle arcs, length and angle labels, circles,
shaded regions, a caption) that :func:`draw` renders at twice the size and scales down
(``Image.reduce``, a box filter: at an exact factor 2 it smooths line art as well as
LANCZOS, which took 20 of the 25 ms a picture may cost); the picture depends on that
dict alone. The generators place vertices on lattice points, Pythagorean triples,
Heronian triangles and special triangles, so the values they write on a figure and the
answers are exact (ints, ``Fraction``, sympy).
``check`` re-derives each answer from meta by another route: exact predicates on the
vertices (shape), exact foot-point tests and an enumeration of triangles among the
drawn segments (elements), sympy formulas *and* measurement of the to-scale figure
(quantity), the law of cosines and sines with sympy (relation), and the marked values
(definition-check).

Tasks:

* ``shape`` (T3, L1): the most specific name of a triangle or quadrilateral, read from
  the marks (ticks, arrowheads, right-angle squares) and the to-scale drawing. Names
  form the vocabularies :data:`TRIANGLES` and :data:`QUADRILATERALS`; trapezoid and kite
  are exclusive (stated in the question), and a distractor is never a name that is
  also true of the figure (a square is never offered "rectangle"). Rejection: unequal
  sides differ by at least 10 %, unmarked angles are at least 10 degrees from 90,
  non-parallel sides at least 8 degrees from parallel.
* ``elements`` (T4, L1): which of four segments from A to BC is the altitude, the
  median or the angle bisector (Heronian triangles, so every foot point is rational;
  the feet are at least 5 % of BC apart and each kind carries its mark); and how many
  triangles a figure holds (a triangle cut by k cevians from A and up to two lines
  parallel to BC, h * C(k + 2, 2); or by cevians from two or three vertices, no three
  through one point, C(N, 3) - sum C(x + 2, 3) for N lines), re-counted in check by
  enumerating point triples; the options are neighbouring counts that figures have.
* ``geometry-quantity`` (T9, L2, free exact answers): lengths (Pythagoras, 30-60-90,
  45-45-90, similar triangles), areas (triangle, trapezoid, rectangle with a roof,
  circle sector), angles in degrees (angle sum, isosceles, exterior angle, inscribed
  angle). Figures are to scale in the units of their labels; typical wrong answers go
  to ``meta["mistakes"]``.
* ``geometry-relation`` (T10, L2): two triangles (the second turned and possibly
  mirrored, both drawn at about the same size so the scale factor is only in the
  labels): congruent, similar with which scale factor, or neither (sorted side
  ratios at least 10 % apart); and which criterion (SSS, SAS, ASA, AAS, RHS; AA, SSS,
  SAS for similarity) the marked parts show, with marks chosen so exactly one applies.
* ``definition-check`` (T15, L3, yes/no): a figure labelled "Square ABCD", "Triangle
  ABC", ... with marked values, not drawn to scale; half the items are consistent, the
  other half carry one error of :data:`DEFINITION_ERRORS`, spread evenly.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
from fractions import Fraction
from functools import lru_cache, partial
from itertools import combinations, permutations

import sympy as sp
from PIL import Image, ImageDraw

from cogforge.generators.symbols import Draft, Task, mcq_prompt
from cogforge.generators.symbols._mathbase import SIZE, font, format_text, png

SUB_FIELD = "geometry"

# ----------------------------------------------------------------------------- vocabularies

TRIANGLES = {"equilateral": "equilateral triangle", "right-isosceles": "right isosceles triangle",
             "right-scalene": "right scalene triangle", "obtuse-isosceles": "obtuse isosceles triangle",
             "obtuse-scalene": "obtuse scalene triangle", "acute-isosceles": "acute isosceles triangle",
             "acute-scalene": "acute scalene triangle"}
QUADRILATERALS = {"square": "square", "rectangle": "rectangle", "rhombus": "rhombus",
                  "parallelogram": "parallelogram", "isosceles-trapezoid": "isosceles trapezoid",
                  "trapezoid": "trapezoid", "kite": "kite"}
# most specific first: the answer is the first true name in this order
QUAD_SPECIFICITY = ("square", "rectangle", "rhombus", "parallelogram", "isosceles-trapezoid", "trapezoid", "kite")
CEVIANS = {"altitude": "altitude", "median": "median", "bisector": "angle bisector"}
QUANTITY_KINDS = {"length": ("pythagoras-hypotenuse", "pythagoras-leg", "30-60-90", "45-45-90", "similar"),
                  "area": ("triangle", "trapezoid", "composite", "sector"),
                  "angle": ("angle-sum", "isosceles", "exterior", "inscribed")}
RELATIONS = {"congruent": "Congruent", "neither": "Neither congruent nor similar",
             "similar": "Similar, not congruent: scale factor {k} from ABC to DEF"}
CONGRUENCE = ("SSS", "SAS", "ASA", "AAS", "RHS")
SIMILARITY = ("AA", "SSS", "SAS")
DEFINITION_ERRORS = {"angle sum": "triangle angles", "unequal sides": "equal sides",
                     "parallel lines meet": "parallel lines", "right angle": "right angle"}
DEFINITION_FAMILIES = tuple(DEFINITION_ERRORS.values())
YES_NO = ["Yes", "No"]

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

# ----------------------------------------------------------------------------- drawing

S = 2  # supersampling factor: drawn at 2x, scaled down by averaging 2x2 blocks
INK = (30, 30, 30)
VALUE = (20, 70, 160)  # given values
UNKNOWN = (192, 40, 40)  # the value asked for
SHADE = (206, 224, 246)
LINE_W = 5  # at 2x
Point = tuple[float, float]


@lru_cache(maxsize=8)
def _font(px: int, bold: bool = False):
    return font(px * S, bold)


def _unit(v: Point) -> Point:
    n = math.hypot(*v)
    return (v[0] / n, v[1] / n) if n > 1e-12 else (0.0, 0.0)


def _add(p: Point, v: Point, k: float = 1.0) -> Point:
    return (p[0] + k * v[0], p[1] + k * v[1])


class _Canvas:
    """Maps figure coordinates (y up) onto the 2x raster, fitting every point, circle
    and free text inside the margins (below the caption when there is one)."""

    def __init__(self, fig: dict):
        self.fig = fig
        pts = {k: (float(v[0]), float(v[1])) for k, v in fig["points"].items()}
        xs = [p[0] for p in pts.values()] + [float(t[0]) for t in fig.get("texts", [])]
        ys = [p[1] for p in pts.values()] + [float(t[1]) for t in fig.get("texts", [])]
        for centre, r in fig.get("circles", []):
            cx, cy = pts[centre]
            xs += [cx - r, cx + r]
            ys += [cy - r, cy + r]
        top = 34 if fig.get("caption") else 0
        margin = 46  # room for labels outside the outermost points
        w, h = max(max(xs) - min(xs), 1e-9), max(max(ys) - min(ys), 1e-9)
        self.k = min((SIZE - 2 * margin) / w, (SIZE - 2 * margin - top) / h)
        self.ox = SIZE / 2 - (min(xs) + max(xs)) / 2 * self.k
        self.oy = (SIZE + top) / 2 + (min(ys) + max(ys)) / 2 * self.k
        self.pts = {k: self.xy(p) for k, p in pts.items()}
        self.image = Image.new("RGB", (SIZE * S, SIZE * S), "white")
        self.draw = ImageDraw.Draw(self.image)
        self.neighbours: dict[str, set] = {}
        for a, b in fig.get("segments", []) + fig.get("dashed", []):
            self.neighbours.setdefault(a, set()).add(b)
            self.neighbours.setdefault(b, set()).add(a)

    def xy(self, p: Point) -> Point:
        return ((self.ox + p[0] * self.k) * S, (self.oy - p[1] * self.k) * S)

    def line(self, a: Point, b: Point, colour=INK, width: int = LINE_W):
        """A thick line as a filled quadrilateral (Pillow's wide lines come out a third
        thinner near 45 degrees) with round ends (no notches where lines meet)."""
        d = _unit((b[0] - a[0], b[1] - a[1]))
        hw = (width - 1) / 2  # polygon fills take in their boundary pixels
        n = (-d[1] * hw, d[0] * hw)
        self.draw.polygon([_add(a, n), _add(b, n), _add(b, n, -1), _add(a, n, -1)], fill=colour)
        for p in (a, b):
            self.draw.ellipse([p[0] - hw, p[1] - hw, p[0] + hw, p[1] + hw], fill=colour)

    def dashed(self, a: Point, b: Point):
        length = math.dist(a, b)
        d = _unit((b[0] - a[0], b[1] - a[1]))
        t = 0.0
        while t < length:
            self.draw.line([_add(a, d, t), _add(a, d, min(t + 9 * S, length))], fill=INK, width=LINE_W - 1)
            t += 15 * S

    def text(self, at: Point, text: str, colour=INK, px: int = 15, bold: bool = False):
        self.draw.text(at, text, fill=colour, font=_font(px, bold), anchor="mm", stroke_width=3,
                       stroke_fill="white")

    def extent(self, text: str, direction: Point, px: int = 15, bold: bool = False) -> float:
        """Half the text box's reach along ``direction`` (a unit vector)."""
        x0, y0, x1, y1 = _font(px, bold).getbbox(text)
        return abs(direction[0]) * (x1 - x0) / 2 + abs(direction[1]) * (y1 - y0) / 2


def _value_text(c: "_Canvas", at: Point, text: str):
    """A given value (blue) or the unknown x (red, bold)."""
    if text.startswith("x"):
        c.text(at, text, UNKNOWN, 18, True)
    else:
        c.text(at, text, VALUE, 16)


def _value_extent(c: "_Canvas", text: str, direction: Point) -> float:
    return c.extent(text, direction, 18, True) if text.startswith("x") else c.extent(text, direction, 16)


def _angle_rays(c: _Canvas, v: str, p: str, q: str) -> tuple[Point, Point, Point]:
    o = c.pts[v]
    return o, _unit((c.pts[p][0] - o[0], c.pts[p][1] - o[1])), _unit((c.pts[q][0] - o[0], c.pts[q][1] - o[1]))


def _arc(c: _Canvas, o: Point, u: Point, v: Point, r: float, width: int = 3, gap: float = 0.0):
    """The arc of the inner angle between directions u and v, ``gap`` degrees short of
    both arms (two equal-angle arcs side by side then read as two)."""
    a, b = math.degrees(math.atan2(u[1], u[0])) % 360, math.degrees(math.atan2(v[1], v[0])) % 360
    if (b - a) % 360 > 180:  # Pillow goes clockwise on screen: take the inner side
        a, b = b, a
    c.draw.arc([o[0] - r, o[1] - r, o[0] + r, o[1] + r], a + gap, b - gap, fill=INK, width=width)


def _bisector(u: Point, v: Point) -> Point:
    b = _unit((u[0] + v[0], u[1] + v[1]))
    return b if b != (0.0, 0.0) else (-u[1], u[0])


def _label_points(c: _Canvas):
    fig = c.fig
    centre = (sum(p[0] for p in c.pts.values()) / len(c.pts), sum(p[1] for p in c.pts.values()) / len(c.pts))
    for name in fig.get("names", []):
        p = c.pts[name]
        # away from the segments that meet at the point (from the figure's centre if they
        # pull all ways, as at a point on a line)
        s = (0.0, 0.0)
        for q in c.neighbours.get(name, ()):
            s = _add(s, _unit((c.pts[q][0] - p[0], c.pts[q][1] - p[1])))
        d = _unit((-s[0], -s[1])) if math.hypot(*s) > 0.35 else _unit((p[0] - centre[0], p[1] - centre[1]))
        if d == (0.0, 0.0):
            d = (0.0, 1.0)
        c.text(_add(p, d, 11 * S + c.extent(name, d, 17, True)), name, INK, 17, True)


def _length_label(c: _Canvas, a: str, b: str, text: str, side: int):
    pa, pb = c.pts[a], c.pts[b]
    mid = ((pa[0] + pb[0]) / 2, (pa[1] + pb[1]) / 2)
    d = _unit((pb[0] - pa[0], pb[1] - pa[1]))
    n = (d[1], -d[0])  # on screen: the left of a->b in figure coordinates
    if side == 0:  # away from the centre of the points joined to a or b
        near = (c.neighbours.get(a, set()) | c.neighbours.get(b, set()) | {a, b})
        cx = sum(c.pts[k][0] for k in near) / len(near)
        cy = sum(c.pts[k][1] for k in near) / len(near)
        if (mid[0] - cx) * n[0] + (mid[1] - cy) * n[1] < 0:
            n = (-n[0], -n[1])
    elif side < 0:
        n = (-n[0], -n[1])
    marked = any({x, y} == {a, b} for x, y, _ in c.fig.get("ticks", []) + c.fig.get("arrows", []))
    _value_text(c, _add(mid, n, (16 if marked else 8) * S + _value_extent(c, text, n)), text)


def draw(fig: dict) -> bytes:
    """The figure as PNG bytes. Keys of ``fig`` (all but ``points`` optional; points are
    named, coordinates in figure units with y up, fitted to the picture):

    * ``points`` {name: [x, y]}; ``names``: the points whose names are written;
    * ``segments``, ``dashed``: [P, Q]; ``polygons``: [[P, Q, R, ...]] shaded;
    * ``ticks`` [P, Q, n] (equal sides), ``arrows`` [P, Q, n] (parallel, pointing P to Q);
    * ``right`` [V, P, Q]: a square in angle PVQ; ``arcs`` [V, P, Q, n(, reach)]: an
      equal-angle arc crossed by n ticks; ``angles`` [V, P, Q, text]: an arc and its value;
    * ``lengths`` [P, Q, text, side]: a value beside PQ (side 1 / -1 / 0 = left / right /
      away from the neighbouring points); texts starting with "x" are the unknown (red);
    * ``circles`` [O, r]; ``sectors`` [O, P, Q] shaded; ``dots`` [P];
    * ``texts`` [x, y, text] free labels (names of lines); ``caption``: a title on top.
    """
    c = _Canvas(fig)
    for names in fig.get("polygons", []):
        c.draw.polygon([c.pts[n] for n in names], fill=SHADE)
    for o, p, q in fig.get("sectors", []):
        centre, u, v = _angle_rays(c, o, p, q)
        r = math.dist(centre, c.pts[p])
        a, b = math.degrees(math.atan2(u[1], u[0])) % 360, math.degrees(math.atan2(v[1], v[0])) % 360
        if (b - a) % 360 > 180:
            a, b = b, a
        c.draw.pieslice([centre[0] - r, centre[1] - r, centre[0] + r, centre[1] + r], a, b, fill=SHADE)
        c.draw.arc([centre[0] - r, centre[1] - r, centre[0] + r, centre[1] + r], a, b, fill=INK, width=LINE_W)
    for centre, r in fig.get("circles", []):
        x, y = c.pts[centre]
        r *= c.k * S
        c.draw.ellipse([x - r, y - r, x + r, y + r], outline=INK, width=LINE_W - 1)
    for a, b in fig.get("dashed", []):
        c.dashed(c.pts[a], c.pts[b])
    for a, b in fig.get("segments", []):
        c.line(c.pts[a], c.pts[b])
    for v, p, q in fig.get("right", []):
        o, u, w = _angle_rays(c, v, p, q)
        k = 12 * S
        c.draw.line([_add(o, u, k), _add(_add(o, u, k), w, k), _add(o, w, k)], fill=INK, width=3)
    for v, p, q, n, *reach in fig.get("arcs", []):  # an equal-angle mark: an arc crossed by n ticks
        o, u, w = _angle_rays(c, v, p, q)
        # radius: a fraction of the shorter arm when given (fans of close segments need room)
        r = reach[0] * min(math.dist(o, c.pts[p]), math.dist(o, c.pts[q])) if reach else 40 * S
        _arc(c, o, u, w, r, 4, gap=1.0)
        b = _bisector(u, w)
        half = math.acos(max(-1.0, min(1.0, u[0] * w[0] + u[1] * w[1]))) / 2
        for i in range(n):
            t = (i - (n - 1) / 2) * min(0.09, half / (n + 0.5))
            d = (b[0] * math.cos(t) - b[1] * math.sin(t), b[0] * math.sin(t) + b[1] * math.cos(t))
            c.draw.line([_add(o, d, r - 7 * S), _add(o, d, r + 7 * S)], fill=INK, width=4)
    for v, p, q, text in fig.get("angles", []):
        o, u, w = _angle_rays(c, v, p, q)
        theta = math.degrees(math.acos(max(-1.0, min(1.0, u[0] * w[0] + u[1] * w[1]))))
        r = (22 if theta >= 40 else 34) * S
        _arc(c, o, u, w, r)
        b = _bisector(u, w)
        reach = r + 7 * S + _value_extent(c, text, b) + (max(0.0, 45 - theta) * 0.5 * S)
        _value_text(c, _add(o, b, reach), text)
    for a, b, n in fig.get("ticks", []):
        pa, pb = c.pts[a], c.pts[b]
        mid = ((pa[0] + pb[0]) / 2, (pa[1] + pb[1]) / 2)
        d = _unit((pb[0] - pa[0], pb[1] - pa[1]))
        nrm = (-d[1], d[0])
        for i in range(n):
            m = _add(mid, d, (i - (n - 1) / 2) * 6 * S)
            c.draw.line([_add(m, nrm, 8 * S), _add(m, nrm, -8 * S)], fill=INK, width=4)
    for a, b, n in fig.get("arrows", []):
        pa, pb = c.pts[a], c.pts[b]
        mid = ((pa[0] + pb[0]) / 2, (pa[1] + pb[1]) / 2)
        d = _unit((pb[0] - pa[0], pb[1] - pa[1]))
        nrm = (-d[1], d[0])
        for i in range(n):
            m = _add(mid, d, (i - (n - 1) / 2) * 9 * S)
            tip = _add(m, d, 6 * S)
            back = _add(m, d, -6 * S)
            c.draw.line([_add(back, nrm, 7 * S), tip, _add(back, nrm, -7 * S)], fill=INK, width=5)
    for name in fig.get("dots", []):
        x, y = c.pts[name]
        r = 4 * S
        c.draw.ellipse([x - r, y - r, x + r, y + r], fill=INK)
    for a, b, text, side in fig.get("lengths", []):
        _length_label(c, a, b, text, side)
    for x, y, text in fig.get("texts", []):
        c.text(c.xy((float(x), float(y))), text, INK, 16)
    _label_points(c)
    if fig.get("caption"):
        c.text((SIZE * S / 2, 20 * S), fig["caption"], INK, 17, True)
    return png(c.image.reduce(S))  # a box filter at the exact factor 2: as smooth as LANCZOS here, 1 ms not 20


def picture(task: str, meta: dict) -> bytes:
    """The item's one picture, from its meta alone (the builder calls this lazily)."""
    return draw(meta["figure"])


def pictures(task: str, meta: dict) -> list[bytes]:
    return [picture(task, meta)]


# ----------------------------------------------------------------------------- shared helpers


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


# ----------------------------------------------------------------------------- shape (T3)

Exact = tuple[str, str]  # a vertex as sympy-parsable coordinates


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
        turn = len(out)
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


# ----------------------------------------------------------------------------- elements (T4)

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
        kind = kinds[len(out) % 4]
        mirror = rng.random() < 0.5
        if kind == "count":
            want = COUNT_VALUES[(len(out) // 4 * 7) % len(COUNT_VALUES)]  # every count in turn, shuffled
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


# ----------------------------------------------------------------------------- geometry-quantity (T9)

PYTHAGOREAN = ((3, 4), (6, 8), (5, 12), (8, 6), (4, 3), (12, 5), (9, 12), (8, 15), (12, 9))


def _show(value) -> str:
    """A value as written on a figure: 4*sqrt(3) -> 4√3, 5/2 stays 5/2."""
    return re.sub(r"sqrt\((\d+)\)", "√\\1", str(value)).replace("*", "")


def _polar(r: float, degrees: float) -> Point:
    return (r * math.cos(math.radians(degrees)), r * math.sin(math.radians(degrees)))


def _triangle_by_angles(alpha: float, beta: float, base: float = 6.0) -> dict[str, Point]:
    """A = origin, B on the x axis, C above: angles alpha at A and beta at B."""
    gamma = 180 - alpha - beta
    ac = base * math.sin(math.radians(beta)) / math.sin(math.radians(gamma))
    return {"A": (0.0, 0.0), "B": (base, 0.0), "C": _polar(ac, alpha)}


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
        kind = kinds[len(out) % 3]
        subs = QUANTITY_KINDS[kind]
        sub = subs[(len(out) // 3) % len(subs)]
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


# ----------------------------------------------------------------------------- geometry-relation (T10)

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
        turn = len(out)
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


# ----------------------------------------------------------------------------- definition-check (T15)

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
        turn = len(out)
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


# ----------------------------------------------------------------------------- registry

TASKS = {
    "shape": Task(1, "Math T3", make_shape, mcq=True, filtered=True),
    "elements": Task(1, "Math T4", make_elements, mcq=True, filtered=True),
    "geometry-quantity": Task(2, "Math T9", make_geometry_quantity, mcq=False, filtered=False),
    "geometry-relation": Task(2, "Math T10", make_geometry_relation, mcq=True, filtered=True),
    "definition-check": Task(3, "Math T15", make_definition_check, mcq=True, filtered=False),
}
CHECKS = {"shape": _check_shape, "elements": _check_elements, "geometry-quantity": _check_quantity,
          "geometry-relation": _check_relation, "definition-check": _check_definition}


def check(task: str, question: str, options: list | None, answer: str, meta: dict) -> str | None:
    """None when the answer and options agree with an independent re-derivation from meta."""
    if task not in CHECKS:
        return f"unknown geometry task {task!r}"
    if meta.get("sub_field") != SUB_FIELD:
        return "meta.sub_field is not geometry"
    return CHECKS[task](question, options, answer, meta)
