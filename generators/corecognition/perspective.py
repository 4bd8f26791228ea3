"""Perspective taking: seeing what another sees, and how it looks from where they are.

Every scene is drawn from above, with a doll whose facing is unmistakable (hair on the
back of the head, eyes and nose in front, arms reaching forward).

* ``doll-rightmost`` (level-2 perspective taking; Piaget's doll and three mountains,
  Flavell's level 2): three toys on a round table and a doll sitting at its rim. "From
  the doll's point of view, which object appears rightmost?" The answer is the toy with
  the largest x in the doll's frame, R(-heading)(p - a): the lateral offset along the
  doll's right-hand vector. Sampling keeps the toys at least 15 degrees apart as the
  doll sees them and requires the lateral order and the bearing order to agree, so
  "rightmost" means the same under either reading. The twin seats the doll on the
  opposite side of the table (the point reflection through the table centre, facing the
  other way) with the toys untouched: the picture's rightmost toy stays the same, the
  doll's rightmost becomes its former leftmost. Sampling also makes the picture's
  rightmost toy the near doll's rightmost, so the egocentric answer is right for exactly
  one member of each pair. The options list the toys so that the pairs' answers take the
  positions A, B, C in turn. The check orders the toys by signed cross products of the
  doll's lines of sight instead of projecting onto its right-hand vector.
* ``line-of-sight`` (level-1 perspective taking, Flavell 1981): a doll faces a star and a
  tall wall stands near the line between them. "Can the doll see the star?" The answer
  intersects the segment eye-star with the wall's rectangle by orientation tests; the
  check asks shapely whether the LineString intersects the Polygon. The twin slides the
  wall along its own axis by the mirror distance, so its free end passes from one side
  of the line of sight to the other. The margin is how far that end lies from the line,
  less the star's radius and the eyes' offset.
* ``across-the-table-number`` (reading a rotated glyph; the 6/9 argument): a card lies on
  a table, upright for you at the bottom; the doll sits across. "Does the doll read the
  same number on the card as you do?" The answer turns the number by 180 degrees as a
  string (reverse the digits, 6 <-> 9, 0 and 8 stay). The check draws the number, turns
  the bitmap by 180 degrees and finds which number of the same length it matches best.
  The twin changes one digit so that the card reads the same both ways (8, 0, 69, 88, 96)
  or no longer does (6, 9, 66, 68, ...).
"""

from __future__ import annotations

import math
import random
from functools import cache

from cogforge.generators.corecognition import SIZE, Family, canvas, font

CONCEPT = "perspective"

_COLOURS = {"red": (215, 45, 45), "blue": (45, 95, 215), "green": (40, 150, 70),
            "yellow": (235, 195, 30), "purple": (140, 70, 180), "orange": (240, 130, 30)}
_TOYS = ["ball", "block", "star", "ring", "pyramid"]
_SHIRTS = [(70, 110, 190), (190, 70, 110), (60, 150, 120), (85, 85, 100)]
_SKIN, _HAIR = (240, 200, 165), (85, 55, 35)
_WOOD = [(214, 176, 128), (200, 160, 112), (222, 188, 140)]


# --------------------------------------------------------------------------- drawing


def _frame(a, f):
    """Map (u to the right, v forward) in the frame of a figure at a facing f to pixels."""
    fx, fy = f
    rx, ry = -fy, fx  # the right-hand vector, in image coordinates (y down)
    return lambda u, v: (a[0] + u * rx + v * fx, a[1] + u * ry + v * fy)


def _doll_outline(a, f, r: float) -> dict:
    """The parts of a figure seen from above, in pixels: ``r`` is the head's radius."""
    at = _frame(a, f)

    def ring(u, v, rad, n=24):
        return [at(u + rad * math.cos(2 * math.pi * i / n), v + rad * math.sin(2 * math.pi * i / n)) for i in range(n)]

    return {"gaze": [at(0.0, 1.0 * r)] + [at(3.0 * r * math.sin(t), 1.0 * r + 3.0 * r * math.cos(t))
                                          for t in (math.radians(-18 + 3 * i) for i in range(13))],
            "arms": [(at(side * 1.5 * r, 0.0), at(side * 1.2 * r, 1.5 * r)) for side in (-1, 1)],
            "hands": [ring(side * 1.2 * r, 1.5 * r, 0.36 * r, 12) for side in (-1, 1)],
            "body": [at(1.9 * r * math.cos(t), -0.15 * r + 0.8 * r * math.sin(t))
                     for t in (2 * math.pi * i / 36 for i in range(36))],
            "ears": [ring(side * 1.02 * r, 0.15 * r, 0.24 * r, 12) for side in (-1, 1)],
            "nose": [at(-0.3 * r, 0.8 * r), at(0.3 * r, 0.8 * r), at(0.0, 1.6 * r)],
            "head": ring(0.0, 0.1 * r, r, 36)}


def _doll(image, draw, a, f, r: float, shirt) -> None:
    """A figure seen from above: the top of its head, ears, a nose, shoulders, arms
    reaching forward, and a pale wedge in front of its face for where it looks."""
    from PIL import Image, ImageDraw

    parts = _doll_outline(a, f, r)
    mask = Image.new("L", image.size, 0)
    ImageDraw.Draw(mask).polygon(parts["gaze"], fill=120)
    image.paste((255, 246, 160), mask=mask)
    dark = tuple(int(c * 0.7) for c in shirt)
    for (p0, p1), hand in zip(parts["arms"], parts["hands"]):
        draw.line([p0, p1], fill=dark, width=max(3, round(0.62 * r)))
        draw.polygon(hand, fill=_SKIN, outline=(170, 120, 90))
    draw.polygon(parts["body"], fill=shirt, outline=dark)
    draw.polygon(parts["nose"], fill=(230, 170, 130), outline=(170, 120, 90))
    for ear in parts["ears"]:
        draw.polygon(ear, fill=_SKIN, outline=(170, 120, 90))
    draw.polygon(parts["head"], fill=_HAIR, outline=(60, 40, 25))


def _doll_box(a, f, r: float) -> tuple[int, int, int, int]:
    """The bounding box of everything :func:`_doll` draws, with a pixel or two to spare."""
    parts = _doll_outline(a, f, r)
    points = [p for key in ("gaze", "body", "nose", "head") for p in parts[key]] + \
        [p for group in parts["hands"] + parts["ears"] for p in group] + [p for arm in parts["arms"] for p in arm]
    pad = 0.35 * r + 3  # the arms' width and the outlines
    return (math.floor(min(x for x, _ in points) - pad), math.floor(min(y for _, y in points) - pad),
            math.ceil(max(x for x, _ in points) + pad), math.ceil(max(y for _, y in points) + pad))


def _star(centre, outer: float, inner: float, turn: float = 0.0) -> list[tuple[float, float]]:
    cx, cy = centre
    return [(cx + (outer if i % 2 == 0 else inner) * math.sin(turn + math.pi * i / 5),
             cy - (outer if i % 2 == 0 else inner) * math.cos(turn + math.pi * i / 5)) for i in range(10)]


def _toy(draw, shape: str, rgb, centre, rad: float, turn: float) -> None:
    """A toy seen from above, about ``rad`` pixels in radius."""
    x, y = centre
    dark = tuple(int(c * 0.6) for c in rgb)
    light = tuple(min(255, int(c + (255 - c) * 0.45)) for c in rgb)
    if shape == "ball":
        draw.ellipse([x - rad, y - rad, x + rad, y + rad], fill=rgb, outline=dark, width=2)
        draw.ellipse([x - 0.55 * rad, y - 0.55 * rad, x - 0.05 * rad, y - 0.05 * rad], fill=light)
    elif shape == "ring":
        draw.ellipse([x - rad, y - rad, x + rad, y + rad], fill=rgb, outline=dark, width=2)
        draw.ellipse([x - 0.45 * rad, y - 0.45 * rad, x + 0.45 * rad, y + 0.45 * rad], fill=(255, 255, 255),
                     outline=dark, width=2)
    elif shape == "star":
        draw.polygon(_star(centre, 1.15 * rad, 0.5 * rad, turn), fill=rgb, outline=dark)
    else:  # block and pyramid: a square, turned
        s = 0.85 * rad
        corners = [(x + s * math.cos(turn + k * math.pi / 2) - s * math.sin(turn + k * math.pi / 2),
                    y + s * math.sin(turn + k * math.pi / 2) + s * math.cos(turn + k * math.pi / 2)) for k in range(4)]
        draw.polygon(corners, fill=rgb, outline=dark)
        if shape == "block":
            inner = [(x + 0.6 * (cx - x), y + 0.6 * (cy - y)) for cx, cy in corners]
            draw.polygon(inner, fill=light, outline=dark)
        else:
            for corner in corners:
                draw.line([corner, centre], fill=dark, width=2)
            draw.polygon([corners[0], corners[1], centre], fill=light)


# --------------------------------------------------------------------------- level 2: rightmost


def _pose(params: dict, side: str):
    """Position and facing (unit vector, image coordinates) of the doll on ``side``."""
    cx, cy = params["centre"]
    t = math.radians(params["tilt"])
    f = (math.sin(t), -math.cos(t))  # the near doll looks up the picture, turned by the tilt
    d = params["distance"]
    if side == "near":
        return (cx - d * f[0], cy - d * f[1]), f
    return (cx + d * f[0], cy + d * f[1]), (-f[0], -f[1])


def _doll_frame(params: dict, side: str) -> list[tuple[float, float]]:
    """(x to the doll's right, y ahead of it) of each toy: R(-heading)(p - a)."""
    (ax, ay), (fx, fy) = _pose(params, side)
    rx, ry = -fy, fx
    return [((o["x"] - ax) * rx + (o["y"] - ay) * ry, (o["x"] - ax) * fx + (o["y"] - ay) * fy)
            for o in params["objects"]]


def _bearings(params: dict, side: str) -> list[float]:
    """Degrees to the doll's right of straight ahead, for each toy."""
    return [math.degrees(math.atan2(x, y)) for x, y in _doll_frame(params, side)]


class DollRightmost(Family):
    concept = CONCEPT
    name = "doll-rightmost"
    type = "MC"
    causal_param = "side"
    min_margin = 15.0  # degrees between the rightmost toy and the next, as the doll sees them
    paradigm = "Level-2 perspective taking (Flavell 1981); Piaget & Inhelder's doll at the three-mountain table"
    level_cuts = (-21.8, -19.4)
    hardness_doc = "the angle between the doll's rightmost toy and the next (degrees): smaller is harder"

    def sample(self, rng: random.Random, k: int) -> dict:
        head = 17
        while True:
            params = {"seed": rng.randrange(10 ** 6),
                      "centre": [round(320 + rng.uniform(-12, 12), 1), round(244 + rng.uniform(-4, 4), 1)],
                      "distance": 178, "tilt": round(rng.uniform(-25, 25), 1), "head": head, "table": 140}
            cx, cy = params["centre"]
            shapes = rng.sample(_TOYS, 3)
            colours = rng.sample(sorted(_COLOURS), 3)
            objects = []
            for shape, colour in zip(shapes, colours):
                rho, phi = 100 * math.sqrt(rng.random()), rng.uniform(0, 2 * math.pi)
                objects.append({"shape": shape, "colour": colour, "x": round(cx + rho * math.cos(phi), 1),
                                "y": round(cy + rho * math.sin(phi), 1)})
            params["objects"] = objects
            if self._acceptable(params):
                break
        near = _doll_frame(params, "near")
        right = max(range(3), key=lambda i: near[i][0])  # the near doll's rightmost
        left = min(range(3), key=lambda i: near[i][0])  # the far doll's rightmost
        middle = 3 - right - left
        side = "near" if (k // 3) % 2 == 0 else "far"
        answer_slot = k % 3
        twin_slot = (answer_slot + 1 + (k // 3) % 2) % 3
        first, second = (right, left) if side == "near" else (left, right)
        order = [None] * 3
        order[answer_slot], order[twin_slot] = first, second
        order[order.index(None)] = middle
        params["objects"] = [objects[i] for i in order]
        params["side"] = side
        return params

    @staticmethod
    def _acceptable(params: dict) -> bool:
        objects = params["objects"]
        for i in range(3):
            for j in range(i + 1, 3):
                if math.dist((objects[i]["x"], objects[i]["y"]), (objects[j]["x"], objects[j]["y"])) < 64:
                    return False
        for side in ("near", "far"):
            box = _doll_box(*_pose(params, side), params["head"])
            if box[0] < 4 or box[1] < 4 or box[2] > SIZE[0] - 4 or box[3] > SIZE[1] - 4:
                return False
            frame = _doll_frame(params, side)
            bearing = _bearings(params, side)
            if max(abs(b) for b in bearing) > 50:
                return False
            if min(abs(bearing[i] - bearing[j]) for i in range(3) for j in range(i + 1, 3)) < 18:
                return False
            for pick in (max, min):  # lateral and angular orders agree at both ends
                if pick(range(3), key=lambda i: frame[i][0]) != pick(range(3), key=lambda i: bearing[i]):
                    return False
        near = _doll_frame(params, "near")
        for pick in (max, min):  # the picture's rightmost is the near doll's rightmost
            if pick(range(3), key=lambda i: objects[i]["x"]) != pick(range(3), key=lambda i: near[i][0]):
                return False
        return True

    def twin(self, params: dict) -> dict:
        return {**params, "side": "far" if params["side"] == "near" else "near"}

    def question(self, params: dict) -> str:
        return ("The picture shows a round table from above, with a doll sitting at it. "
                "From the doll's point of view, which object appears rightmost?")

    def options(self, params: dict) -> list[str]:
        return [f"the {o['colour']} {o['shape']}" for o in params["objects"]]

    def answer(self, params: dict) -> str:
        frame = _doll_frame(params, params["side"])
        return self.options(params)[max(range(3), key=lambda i: frame[i][0])]

    def check(self, params: dict) -> str:
        """Independently: toy i is rightmost when every other toy's line of sight lies
        counter-clockwise of its own (a negative image-space cross product, y down)."""
        (ax, ay), _ = _pose(params, params["side"])
        rays = [(o["x"] - ax, o["y"] - ay) for o in params["objects"]]
        for i, (xi, yi) in enumerate(rays):
            if all(xi * yj - yi * xj < 0 for j, (xj, yj) in enumerate(rays) if j != i):
                return self.options(params)[i]
        raise ValueError(f"no toy is rightmost for the doll: {params}")

    def render(self, params: dict) -> list:
        rng = random.Random(params["seed"])
        wood = rng.choice(_WOOD)
        shirt = rng.choice(_SHIRTS)
        turns = [rng.uniform(0, math.pi / 2) for _ in params["objects"]]
        image, draw = canvas((236, 232, 224))
        cx, cy = params["centre"]
        rt = params["table"]
        draw.ellipse([cx - rt, cy - rt, cx + rt, cy + rt], fill=wood, outline=tuple(int(c * 0.7) for c in wood),
                     width=5)
        a, f = _pose(params, params["side"])
        _doll(image, draw, a, f, params["head"], shirt)  # before the toys, which lie on its gaze wedge
        for o, turn in zip(params["objects"], turns):
            _toy(draw, o["shape"], _COLOURS[o["colour"]], (o["x"], o["y"]), 22, turn)
        return [image]

    def causal_box(self, params: dict) -> tuple[int, int, int, int]:
        return _doll_box(*_pose(params, params["side"]), params["head"])

    def margin(self, params: dict) -> float:
        bearing = _bearings(params, params["side"])
        best = max(range(3), key=lambda i: bearing[i])
        return min(bearing[best] - bearing[j] for j in range(3) if j != best)

    def feature_px(self, params: dict) -> float:
        # the lateral gap between the rightmost toy and the next, and the face that shows the facing
        xs = sorted(x for x, _ in _doll_frame(params, params["side"]))
        return min(xs[2] - xs[1], 2 * params["head"])


# --------------------------------------------------------------------------- level 1: line of sight

_EYES = 6.0  # how far the doll's eyes sit to either side of the centre of its head, in pixels


def _wall(params: dict, shift: float | None = None) -> list[tuple[float, float]]:
    """The wall's four corners: a rectangle along the axis u through the point m of the
    line of sight, its free end ``shift`` pixels along u past m (shift > 0 crosses the
    line of sight)."""
    shift = params["shift"] if shift is None else shift
    mx, my = params["pivot"]
    ux, uy = math.cos(math.radians(params["axis"])), math.sin(math.radians(params["axis"]))
    nx, ny = -uy, ux
    half = params["thickness"] / 2
    free = (mx + shift * ux, my + shift * uy)
    back = (mx + (shift - params["length"]) * ux, my + (shift - params["length"]) * uy)
    return [(free[0] + half * nx, free[1] + half * ny), (free[0] - half * nx, free[1] - half * ny),
            (back[0] - half * nx, back[1] - half * ny), (back[0] + half * nx, back[1] + half * ny)]


def _orient(p, q, r) -> float:
    return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])


def _on_segment(p, q, r) -> bool:
    return min(p[0], q[0]) <= r[0] <= max(p[0], q[0]) and min(p[1], q[1]) <= r[1] <= max(p[1], q[1])


def _crosses(p1, p2, q1, q2) -> bool:
    """Whether segments p1p2 and q1q2 share a point (orientation tests, touching included)."""
    d1, d2 = _orient(q1, q2, p1), _orient(q1, q2, p2)
    d3, d4 = _orient(p1, p2, q1), _orient(p1, p2, q2)
    if ((d1 > 0 > d2) or (d1 < 0 < d2)) and ((d3 > 0 > d4) or (d3 < 0 < d4)):
        return True
    return any(d == 0 and _on_segment(a, b, c) for d, a, b, c in
               ((d1, q1, q2, p1), (d2, q1, q2, p2), (d3, p1, p2, q1), (d4, p1, p2, q2)))


def _inside_convex(poly, p) -> bool:
    signs = [_orient(poly[i], poly[(i + 1) % len(poly)], p) for i in range(len(poly))]
    return all(s >= 0 for s in signs) or all(s <= 0 for s in signs)


class LineOfSight(Family):
    concept = CONCEPT
    name = "line-of-sight"
    type = "TF"
    causal_param = "shift"
    min_margin = 8.0  # pixels between the wall's end and the cone from the eyes to the star
    paradigm = "Level-1 perspective taking (Flavell 1981; Masangkay et al. 1974): can the other see it?"
    level_cuts = (-29.0, -24.3)
    hardness_doc = "the wall end's distance to the cone from the eyes to the star (px): smaller is harder"

    def sample(self, rng: random.Random, k: int) -> dict:
        w, h = SIZE
        while True:
            heading = rng.uniform(0, 2 * math.pi)
            span = rng.uniform(300, 400)
            mid = (w / 2 + rng.uniform(-40, 40), h / 2 + rng.uniform(-30, 30))
            dx, dy = math.cos(heading), math.sin(heading)
            eye = (round(mid[0] - dx * span / 2, 1), round(mid[1] - dy * span / 2, 1))
            star = (round(mid[0] + dx * span / 2, 1), round(mid[1] + dy * span / 2, 1))
            lam = rng.uniform(0.42, 0.58)
            pivot = [round(eye[0] + lam * (star[0] - eye[0]), 1), round(eye[1] + lam * (star[1] - eye[1]), 1)]
            axis = math.degrees(heading) + rng.choice([-1, 1]) * rng.uniform(65, 90)
            params = {"seed": rng.randrange(10 ** 6), "eye": list(eye), "star": list(star), "star_radius": 18,
                      "head": 14, "pivot": pivot, "axis": round(axis % 360, 1), "length": rng.choice([130, 150, 170]),
                      "thickness": 16, "turn": round(rng.uniform(-8, 8), 1),
                      "shift": round((-1 if k % 2 == 0 else 1) * rng.uniform(46, 60), 1)}
            if self._acceptable(params):
                return params

    def _acceptable(self, params: dict) -> bool:
        from shapely.geometry import Point, Polygon

        w, h = SIZE
        box = _doll_box(params["eye"], self._facing(params), params["head"])
        if box[0] < 4 or box[1] < 4 or box[2] > w - 4 or box[3] > h - 4:
            return False
        sx, sy = params["star"]
        if not (30 < sx < w - 30 and 30 < sy < h - 30):
            return False
        for shift in (params["shift"], -params["shift"]):
            wall = _wall(params, shift)
            if any(not (8 < x < w - 8 and 8 < y < h - 8) for x, y in wall):
                return False
            poly = Polygon(wall)
            if poly.distance(Point(params["eye"])) < 2.6 * params["head"] + 8 or \
                    poly.distance(Point(params["star"])) < params["star_radius"] + 25:
                return False
            if self.margin({**params, "shift": shift}) < 14:
                return False
        return True

    @staticmethod
    def _facing(params: dict) -> tuple[float, float]:
        """Towards the star, turned by a few degrees."""
        (ex, ey), (sx, sy) = params["eye"], params["star"]
        heading = math.atan2(sy - ey, sx - ex) + math.radians(params["turn"])
        return math.cos(heading), math.sin(heading)

    def twin(self, params: dict) -> dict:
        return {**params, "shift": -params["shift"]}

    def question(self, params: dict) -> str:
        return "The picture is seen from above. The grey wall is taller than the doll. Can the doll see the star?"

    def answer(self, params: dict) -> str:
        wall = _wall(params)
        eye, star = params["eye"], params["star"]
        blocked = any(_crosses(eye, star, wall[i], wall[(i + 1) % 4]) for i in range(4)) or \
            _inside_convex(wall, eye) or _inside_convex(wall, star)
        return "No" if blocked else "Yes"

    def check(self, params: dict) -> str:
        """Independently: shapely's intersection of the line of sight with the wall."""
        from shapely.geometry import LineString, Polygon

        return "No" if LineString([params["eye"], params["star"]]).intersects(Polygon(_wall(params))) else "Yes"

    def _end_distances(self, params: dict) -> list[float]:
        """Signed distances of the wall's free-end corners from the line of sight, positive
        on the far side (the side the wall crosses to)."""
        (ex, ey), (sx, sy) = params["eye"], params["star"]
        length = math.hypot(sx - ex, sy - ey)
        nx, ny = -(sy - ey) / length, (sx - ex) / length
        ux, uy = math.cos(math.radians(params["axis"])), math.sin(math.radians(params["axis"]))
        if nx * ux + ny * uy < 0:
            nx, ny = -nx, -ny
        return [(x - ex) * nx + (y - ey) * ny for x, y in _wall(params)[:2]]

    def render(self, params: dict) -> list:
        rng = random.Random(params["seed"])
        image, draw = canvas((238, 236, 228))
        tile = rng.choice([60, 80])
        for x in range(0, SIZE[0] + 1, tile):
            draw.line([(x, 0), (x, SIZE[1])], fill=(226, 223, 212), width=2)
        for y in range(0, SIZE[1] + 1, tile):
            draw.line([(0, y), (SIZE[0], y)], fill=(226, 223, 212), width=2)
        star_colour = rng.choice([(240, 190, 20), (235, 150, 20)])
        draw.polygon(_star(params["star"], params["star_radius"], params["star_radius"] * 0.45,
                           rng.uniform(0, 1)), fill=star_colour, outline=(150, 100, 10))
        _doll(image, draw, params["eye"], self._facing(params), params["head"], rng.choice(_SHIRTS))
        wall = _wall(params)
        draw.polygon(wall, fill=(105, 105, 110), outline=(60, 60, 64))
        # a lighter top face, inset, so the wall reads as a tall block seen from above
        top = _wall({**params, "thickness": params["thickness"] - 6, "length": params["length"] - 6},
                    params["shift"] - 3)
        draw.polygon(top, fill=(140, 140, 146))
        return [image]

    def causal_box(self, params: dict) -> tuple[int, int, int, int]:
        xs, ys = zip(*_wall(params))
        return (math.floor(min(xs)) - 2, math.floor(min(ys)) - 2, math.ceil(max(xs)) + 2, math.ceil(max(ys)) + 2)

    def margin(self, params: dict) -> float:
        d = self._end_distances(params)
        if (d[0] > 0) != (d[1] > 0):
            return 0.0
        return min(abs(x) for x in d) - params["star_radius"] - _EYES

    def feature_px(self, params: dict) -> float:
        return min(abs(x) for x in self._end_distances(params))


# --------------------------------------------------------------------------- glyph across the table

_TURN = {"0": "0", "6": "9", "8": "8", "9": "6"}  # each digit turned by 180 degrees
# (reads differently when turned, reads the same) differing in one digit
_PAIRS = [("6", "8"), ("9", "8"), ("6", "0"), ("9", "0"), ("66", "69"), ("99", "96"), ("68", "88"),
          ("86", "88"), ("98", "96"), ("89", "69"), ("99", "69")]


def _turned(text: str) -> str:
    return "".join(_TURN[c] for c in reversed(text))


@cache
def _ink(text: str, size: int):
    """The number drawn black on white, cropped to its ink and resampled to a fixed
    height, as a boolean array."""
    import numpy as np
    from PIL import Image, ImageDraw

    image = Image.new("L", (size * (len(text) + 1), 2 * size), 0)
    ImageDraw.Draw(image).text((size // 2, size // 2), text, font=font(size, bold=True), fill=255)
    image = image.crop(image.getbbox()).resize((48 * len(text), 64))
    return np.asarray(image) > 127


class AcrossTheTable(Family):
    concept = CONCEPT
    name = "across-the-table-number"
    type = "TF"
    causal_param = "text"
    paradigm = "Level-2 perspective taking with a turned numeral (the 6/9 argument across a table)"
    level_cuts = (3.0, 4.0)
    hardness_doc = "one digit on a big card (2), one digit on a small card (3), two digits (4 or 5)"

    def hardness(self, control: dict, twin: dict) -> float:
        return 2.0 * len(control["text"]) + (control["size"] == 96)

    def sample(self, rng: random.Random, k: int) -> dict:
        turning, same = rng.choice(_PAIRS)
        return {"seed": rng.randrange(10 ** 6), "text": same if k % 2 == 0 else turning,
                "card": [round(320 + rng.uniform(-60, 60)), round(245 + rng.uniform(-20, 20))],
                "size": rng.choice([96, 110]), "doll_x": round(320 + rng.uniform(-120, 120)),
                "you_x": round(320 + rng.uniform(-120, 120))}

    def twin(self, params: dict) -> dict:
        text = params["text"]
        partners = sorted({b if a == text else a for a, b in _PAIRS if text in (a, b)})
        return {**params, "text": partners[params["seed"] % len(partners)]}

    def question(self, params: dict) -> str:
        return ("The table is seen from above. You sit at the bottom and read the card the right way up; the doll "
                "sits across the table from you. Does the doll read the same number on the card as you do?")

    def answer(self, params: dict) -> str:
        return "Yes" if _turned(params["text"]) == params["text"] else "No"

    def check(self, params: dict) -> str:
        """Independently: turn the drawn number's bitmap by 180 degrees and find the
        number of the same length it overlaps best (intersection over union)."""
        import itertools

        import numpy as np

        text = params["text"]
        seen = np.rot90(_ink(text, params["size"]), 2)
        best = max(("".join(c) for c in itertools.product("0689", repeat=len(text))),
                   key=lambda t: (seen & _ink(t, params["size"])).sum() / (seen | _ink(t, params["size"])).sum())
        return "Yes" if best == text else "No"

    def _card(self, params: dict) -> tuple[float, float, float, float]:
        cx, cy = params["card"]
        half_w = 0.34 * params["size"] * len(params["text"]) + 34
        half_h = 0.5 * params["size"] + 22
        return (cx - half_w, cy - half_h, cx + half_w, cy + half_h)

    def render(self, params: dict) -> list:
        rng = random.Random(params["seed"])
        wood = rng.choice(_WOOD)
        image, draw = canvas((236, 232, 224))
        draw.rectangle([70, 100, 570, 390], fill=wood, outline=tuple(int(c * 0.7) for c in wood), width=5)
        _doll(image, draw, (params["doll_x"], 62), (0.0, 1.0), 17, rng.choice(_SHIRTS))
        _doll(image, draw, (params["you_x"], 428), (0.0, -1.0), 17, rng.choice(_SHIRTS))
        draw.text((params["you_x"] + 50, 440), "You", font=font(22, bold=True), fill=(40, 40, 40), anchor="lm")
        x0, y0, x1, y1 = self._card(params)  # the numbers of a pair have the same length, so the same card
        draw.rounded_rectangle([x0, y0, x1, y1], radius=10, fill=(252, 252, 250),
                               outline=(120, 120, 120), width=3)
        draw.text(tuple(params["card"]), params["text"], font=font(params["size"], bold=True), fill=(20, 20, 20),
                  anchor="mm")
        return [image]

    def causal_box(self, params: dict) -> tuple[int, int, int, int]:
        x0, y0, x1, y1 = self._card(params)
        return (math.floor(x0), math.floor(y0), math.ceil(x1), math.ceil(y1))

    def margin(self, params: dict) -> None:
        return None  # a numeral is turned exactly; there is no boundary to sit near

    def feature_px(self, params: dict) -> float:
        return 0.12 * params["size"]  # about a stroke of the bold digits


FAMILIES = [DollRightmost(), LineOfSight(), AcrossTheTable()]
