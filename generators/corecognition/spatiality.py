"""Spatiality: the topological and Euclidean layout of the world.

* ``inside-closed-curve`` (Jordan-curve topology): a winding closed line with deep bays
  and a red dot. "Is the red dot inside the closed line?" The item holds two spots
  close together on either side of the line (one in a bay, one in the body of the
  shape); the twin moves the dot to the other spot, nothing else changes.
* ``surface-levels`` (the paper's Figure 2/22 pair, "Is there only one level of
  surface?"): a checkered board drawn in oblique projection, with one strip of tiles
  (across or along the board) raised as a step. The twin lowers the strip to the
  board (height 0), so the checkerboard runs on unbroken: one level.

Answers come from the parameters: an even-odd ray cast of the dot against the curve's
vertices; whether the strip's height is 0. The checks are independent: shapely's
``Polygon.contains``; whether every drawn top-face tile corner lies on the lattice of
the board's plane (a raised tile's corners are shifted off it).
"""

from __future__ import annotations

import math
import random

import numpy as np

from cogforge.generators.corecognition import SIZE, Family, canvas

CONCEPT = "spatiality"
_PAPER = [(250, 248, 240), (240, 244, 248), (246, 242, 236)]
_LINE = [(20, 20, 20), (30, 40, 110), (20, 80, 50)]
_DOT = (220, 30, 30)
_DOT_R = 7
_LINE_W = 4


# --------------------------------------------------------------------------- inside a closed curve


def _curve(params: dict):
    """The closed curve as a shapely Polygon: a thick winding worm (the centre path
    buffered by ``half_width``) with its inner corners rounded."""
    from shapely.geometry import LineString

    worm = LineString(params["path"]).buffer(params["half_width"], quad_segs=12)
    return worm.buffer(14, quad_segs=8).buffer(-14, quad_segs=8).simplify(0.4)


def _ray_cast_inside(x: float, y: float, ring: list[tuple[float, float]]) -> bool:
    """Even-odd rule: a ray from (x, y) to the right crosses the ring an odd number of
    times iff the point is inside."""
    inside = False
    n = len(ring)
    for i in range(n):
        (x1, y1), (x2, y2) = ring[i], ring[(i + 1) % n]
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside


class InsideClosedCurve(Family):
    concept = CONCEPT
    name = "inside-closed-curve"
    type = "TF"
    causal_param = "at"
    min_margin = 16.0  # px from the dot's centre to the line
    paradigm = "Topological inside/outside (Piaget & Inhelder 1956; Jordan-curve tasks, Ullman 1984)"
    level_cuts = (-23.5, -21.0)
    hardness_doc = "the dot's distance to the line (px): smaller is harder"

    def sample(self, rng: random.Random, k: int) -> dict:
        from shapely import contains_xy, distance, points

        w, h = SIZE
        while True:
            path, half = self._worm(rng)
            poly = _curve({"path": path, "half_width": half})
            if poly.geom_type != "Polygon" or poly.interiors or poly.buffer(12).interiors:
                continue  # a bay whose mouth is narrower than 24 px reads as closed
            xs, ys = np.meshgrid(np.arange(24, w - 24, 6.0), np.arange(24, h - 24, 6.0))
            xs, ys = xs.ravel(), ys.ravel()
            dist = distance(points(xs, ys), poly.exterior)
            inside = contains_xy(poly, xs, ys)
            bay = ~inside & contains_xy(poly.convex_hull, xs, ys) & (dist >= 18) & (dist <= 60)
            deep = bay & (distance(points(xs, ys), poly.convex_hull.exterior) >= 30)
            if not deep.any():
                continue  # no bay that surrounds the dot on several sides: too easy
            bay = deep
            out = rng.choice(np.flatnonzero(bay).tolist())
            near = np.hypot(xs - xs[out], ys - ys[out])
            body = np.flatnonzero(inside & (dist >= 18) & (near >= 40) & (near <= 150))
            if not len(body):
                continue
            into = rng.choice(body.tolist())
            spots = [[float(xs[into]), float(ys[into])], [float(xs[out]), float(ys[out])]]
            if rng.random() < 0.5:
                spots.reverse()
            inner = 0 if spots[0] == [float(xs[into]), float(ys[into])] else 1
            return {"seed": rng.randrange(10 ** 6), "path": path, "half_width": half, "spots": spots,
                    "at": inner if k % 2 == 0 else 1 - inner}

    def _worm(self, rng: random.Random) -> tuple[list[list[float]], float]:
        """A random winding centre path fitted to the frame, and the worm's half width."""
        w, h = SIZE
        heading = rng.uniform(0, 2 * math.pi)
        curl = rng.choice([-1, 1])
        pts = [(0.0, 0.0)]
        for _ in range(rng.randint(6, 10)):
            if rng.random() < 0.3:
                curl = -curl  # an S-bend; otherwise keep curling (C and spiral shapes)
            heading += curl * math.radians(rng.uniform(35, 80))
            step = rng.uniform(60, 110)
            pts.append((pts[-1][0] + step * math.cos(heading), pts[-1][1] + step * math.sin(heading)))
        half = rng.uniform(22, 30)
        x0, x1 = min(p[0] for p in pts) - half, max(p[0] for p in pts) + half
        y0, y1 = min(p[1] for p in pts) - half, max(p[1] for p in pts) + half
        scale = min(1.3, (w - 60) / (x1 - x0), (h - 60) / (y1 - y0))
        dx = rng.uniform(30, w - 30 - scale * (x1 - x0)) - scale * x0
        dy = rng.uniform(30, h - 30 - scale * (y1 - y0)) - scale * y0
        return [[round(scale * x + dx, 1), round(scale * y + dy, 1)] for x, y in pts], round(max(22.0, scale * half), 1)

    def twin(self, params: dict) -> dict:
        return {**params, "at": 1 - params["at"]}

    def question(self, params: dict) -> str:
        return "Is the red dot inside the closed line?"

    def answer(self, params: dict) -> str:
        x, y = params["spots"][params["at"]]
        ring = list(_curve(params).exterior.coords)[:-1]
        return "Yes" if _ray_cast_inside(x, y, ring) else "No"

    def check(self, params: dict) -> str:
        """Independently: shapely's point-in-polygon predicate."""
        from shapely.geometry import Point

        return "Yes" if _curve(params).contains(Point(params["spots"][params["at"]])) else "No"

    def render(self, params: dict) -> list:
        rng = random.Random(params["seed"])
        image, draw = canvas(rng.choice(_PAPER))
        ring = list(_curve(params).exterior.coords)
        draw.line(ring, fill=rng.choice(_LINE), width=_LINE_W, joint="curve")
        x, y = params["spots"][params["at"]]
        draw.ellipse([x - _DOT_R, y - _DOT_R, x + _DOT_R, y + _DOT_R], fill=_DOT)
        return [image]

    def causal_box(self, params: dict) -> tuple[int, int, int, int]:
        x, y = params["spots"][params["at"]]
        return (math.floor(x - _DOT_R - 2), math.floor(y - _DOT_R - 2), math.ceil(x + _DOT_R + 2),
                math.ceil(y + _DOT_R + 2))

    def margin(self, params: dict) -> float:
        from shapely.geometry import Point

        return float(_curve(params).exterior.distance(Point(params["spots"][params["at"]])))

    def feature_px(self, params: dict) -> float:
        return self.margin(params) - _DOT_R - _LINE_W / 2  # the gap between the dot and the line


# --------------------------------------------------------------------------- one level or two

_CHECKS = [((200, 40, 40), (245, 245, 245)), ((30, 30, 30), (240, 240, 240)), ((40, 90, 180), (245, 225, 90)),
           ((30, 120, 70), (235, 235, 220))]
_SIDE = [(120, 95, 70), (110, 110, 120), (140, 110, 80)]
_ANGLE = math.radians(55)
_DEPTH = 0.9  # oblique foreshortening of the receding axis
_SLAB = 18  # px, the board's thickness


class SurfaceLevels(Family):
    concept = CONCEPT
    name = "surface-levels"
    type = "TF"
    causal_param = "height"
    min_margin = 14.0  # px the strip stands above the board
    paradigm = "One or two surface levels (the paper's Figure 2/22 checkered-surface pair)"
    level_cuts = (-45.0, -30.0)
    hardness_doc = "how far the strip stands above the board (px): less is harder"

    def sample(self, rng: random.Random, k: int) -> dict:
        tile = rng.choice([40, 44, 48])
        nx, nz = rng.choice([6, 7, 8]), rng.choice([5, 6])
        across = rng.random() < 0.5  # the strip runs across the board (rows) or along it (columns)
        n = nz if across else nx
        size = rng.choice([1, 2]) if across else rng.choice([2, 3])
        start = rng.randint(1, n - size - 1)
        width = tile * nx + tile * _DEPTH * nz * math.cos(_ANGLE)
        depth = tile * _DEPTH * nz * math.sin(_ANGLE)
        # the lattice row spacing on screen; a step of a whole number of rows would put a
        # raised corner back on the lattice, so heights sit between whole rows
        row = tile * _DEPTH * math.sin(_ANGLE)
        height = round(row * rng.choice([0.8, 1.3, 1.5, 1.7]))
        return {"seed": rng.randrange(10 ** 6), "tile": tile, "nx": nx, "nz": nz, "across": across,
                "start": start, "size": size,
                "ox": round((SIZE[0] - width) / 2 + rng.uniform(-20, 20)),
                "oy": round((SIZE[1] + depth - _SLAB) / 2 + rng.uniform(-10, 30)),
                "height": 0 if k % 2 else height}

    def twin(self, params: dict) -> dict:
        if params["height"]:
            return {**params, "height": 0}
        row = params["tile"] * _DEPTH * math.sin(_ANGLE)
        return {**params, "height": round(row * (1.3 if params["seed"] % 2 else 0.8))}

    def question(self, params: dict) -> str:
        return "Look at the checkered surface. Is all of it at one single level?"

    def answer(self, params: dict) -> str:
        return "Yes" if params["height"] == 0 else "No"

    def _project(self, params: dict, x: float, y: float, z: float) -> tuple[float, float]:
        u = params["tile"]
        return (params["ox"] + u * x + u * _DEPTH * z * math.cos(_ANGLE),
                params["oy"] - y - u * _DEPTH * z * math.sin(_ANGLE))  # y (height) in px

    def _in_strip(self, params: dict, i: int, j: int) -> bool:
        k = j if params["across"] else i
        return params["start"] <= k < params["start"] + params["size"]

    def _tiles(self, params: dict, raised: bool) -> list[tuple[list, int]]:
        """Top-face tiles (screen polygon, colour index) of the board or of the strip."""
        out = []
        h = params["height"] if raised else 0
        for j in reversed(range(params["nz"])):
            for i in range(params["nx"]):
                if self._in_strip(params, i, j) == raised:
                    corners = [(i, j), (i + 1, j), (i + 1, j + 1), (i, j + 1)]
                    out.append(([self._project(params, a, h, b) for a, b in corners], (i + j) % 2))
        return out

    def check(self, params: dict) -> str:
        """Independently: invert the projection of the board's plane for every drawn
        top-face corner; one level iff every corner lands on a whole-tile lattice point."""
        u = params["tile"]
        on = True
        for poly, _c in self._tiles(params, False) + self._tiles(params, True):
            for sx, sy in poly:
                z = (params["oy"] - sy) / (u * _DEPTH * math.sin(_ANGLE))
                x = (sx - params["ox"] - u * _DEPTH * z * math.cos(_ANGLE)) / u
                on &= abs(z - round(z)) < 0.05 and abs(x - round(x)) < 0.05
        return "Yes" if on else "No"

    def render(self, params: dict) -> list:
        rng = random.Random(params["seed"])
        image, draw = canvas(rng.choice(_PAPER))
        dark, light = rng.choice(_CHECKS)
        side = rng.choice(_SIDE)
        front = tuple(c * 80 // 100 for c in side)
        nx, nz, p = params["nx"], params["nz"], lambda x, y, z: self._project(params, x, y, z)
        draw.polygon([p(0, 0, 0), p(nx, 0, 0), p(nx, -_SLAB, 0), p(0, -_SLAB, 0)], fill=front)
        draw.polygon([p(nx, 0, 0), p(nx, 0, nz), p(nx, -_SLAB, nz), p(nx, -_SLAB, 0)], fill=side)
        for poly, c in self._tiles(params, False):
            draw.polygon(poly, fill=(dark, light)[c])
        h = params["height"]
        a, b = params["start"], params["start"] + params["size"]
        if h:
            if params["across"]:  # rows a..b raised: the right end face, then the riser facing us
                draw.polygon([p(nx, 0, a), p(nx, 0, b), p(nx, h, b), p(nx, h, a)], fill=side)
                draw.polygon([p(0, 0, a), p(nx, 0, a), p(nx, h, a), p(0, h, a)], fill=front)
            else:  # columns a..b raised: the right side face, then the front face
                draw.polygon([p(b, 0, 0), p(b, 0, nz), p(b, h, nz), p(b, h, 0)], fill=side)
                draw.polygon([p(a, 0, 0), p(b, 0, 0), p(b, h, 0), p(a, h, 0)], fill=front)
        for poly, c in self._tiles(params, True):
            draw.polygon(poly, fill=(dark, light)[c])
        if h:  # the raised strip's edges, as a drawing would show them
            x0, x1, z0, z1 = (0, nx, a, b) if params["across"] else (a, b, 0, nz)
            edge = tuple(c * 50 // 100 for c in side)
            draw.line([p(x0, h, z0), p(x1, h, z0), p(x1, h, z1), p(x0, h, z1), p(x0, h, z0)], fill=edge, width=2)
            draw.line([p(x1, h, z0), p(x1, 0, z0)], fill=edge, width=2)
        return [image]

    def causal_box(self, params: dict) -> tuple[int, int, int, int]:
        a, b = params["start"], params["start"] + params["size"]
        x0, x1, z0, z1 = (0, params["nx"], a, b) if params["across"] else (a, b, 0, params["nz"])
        pts = [self._project(params, x, y, z) for x in (x0, x1) for z in (z0, z1) for y in (0, params["height"])]
        return (math.floor(min(q[0] for q in pts)) - 2, math.floor(min(q[1] for q in pts)) - 2,
                math.ceil(max(q[0] for q in pts)) + 2, math.ceil(max(q[1] for q in pts)) + 2)

    def margin(self, params: dict) -> float | None:
        return float(params["height"]) if params["height"] else None

    def feature_px(self, params: dict) -> float:
        row = params["tile"] * _DEPTH * math.sin(_ANGLE)
        return float(params["height"] or round(row * 0.8))  # the step (or the twin's step)


FAMILIES = [InsideClosedCurve(), SurfaceLevels()]
