"""Drawing a figure. Every figure is a JSON dict (``meta["figure"]``: named points,
segments, tick marks, parallel arrowheads, right-angle squares, angle arcs, length and
angle labels, circles, shaded regions, a caption) that :func:`draw` renders at twice the
size and scales down (``Image.reduce``, a box filter: at an exact factor 2 it smooths
line art as well as LANCZOS, which took 20 of the 25 ms a picture may cost); the
picture depends on that dict alone."""

from __future__ import annotations

import math
from functools import lru_cache

from PIL import Image, ImageDraw

from cogforge.generators.symbols._mathbase import SIZE, font, png

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
