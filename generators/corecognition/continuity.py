"""Continuity: objects persist as unified, cohesive entities across space and time.

* ``line-behind-bars`` (the paper's Figure 10 pair): a straight line passes behind
  opaque bars; could it be one continuous line? The twin shifts the segment between
  two bars off the line.
* ``one-or-two-rods``: a rod seen on both sides of a screen; is it one rod? The twin
  tilts the right-hand part so the two visible parts no longer line up.
"""

from __future__ import annotations

import math
import random

from cogforge.generators.corecognition import SIZE, Family, canvas

CONCEPT = "continuity"
_BAR_COLOURS = [(40, 90, 200), (30, 140, 90), (150, 60, 160), (200, 120, 30)]


def _segments(params: dict) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    """The visible pieces of the line: between the image edges and the bars, the
    piece after bar ``shifted`` moved vertically by ``shift`` pixels."""
    w, _h = SIZE
    bars = sorted(params["bars"])
    half = params["bar_width"] / 2
    edges = [0.0] + [x for c in bars for x in (c - half, c + half)] + [float(w)]
    y0, slope = params["y0"], params["slope"]
    out = []
    for k in range(0, len(edges), 2):
        a, b = edges[k], edges[k + 1]
        dy = params["shift"] if k // 2 == params["shifted"] else 0.0
        out.append(((a, y0 + slope * a + dy), (b, y0 + slope * b + dy)))
    return out


class LineBehindBars(Family):
    concept = CONCEPT
    name = "line-behind-bars"
    type = "TF"
    causal_param = "shift"
    min_margin = 6.0  # pixels off the line
    paradigm = "Occluded line (Kellman & Spelke 1983); the paper's Figure 10 pair"
    level_cuts = (-45.0, -35.0)
    hardness_doc = "the No item's shift off the line (px): smaller is harder"

    def sample(self, rng: random.Random, k: int) -> dict:
        n = rng.choice([2, 3])
        w, h = SIZE
        bars = [round(w * (i + 1) / (n + 1) + rng.uniform(-30, 30)) for i in range(n)]
        thickness = rng.choice([6, 8, 10])
        return {"seed": rng.randrange(10 ** 6), "bars": bars, "bar_width": rng.choice([60, 80, 100]),
                "y0": round(rng.uniform(0.3, 0.7) * h), "slope": round(rng.uniform(-0.25, 0.25), 3),
                "thickness": thickness, "shifted": rng.randrange(1, n),  # a piece between two bars
                "shift": 0.0 if k % 2 == 0 else float(rng.choice([-1, 1]) * rng.randint(4, 7) * thickness)}

    def twin(self, params: dict) -> dict:
        shift = params["shift"]
        t = params["thickness"]
        return {**params, "shift": 0.0 if shift else float(5 * t if params["seed"] % 2 else -5 * t)}

    def question(self, params: dict) -> str:
        return "Could the black line be one continuous straight line passing behind the bars?"

    def answer(self, params: dict) -> str:
        return "Yes" if params["shift"] == 0 else "No"

    def check(self, params: dict) -> str:
        """Independently: fit a line through the first and last visible pieces (the
        image edges) and ask shapely whether every piece lies on it."""
        from shapely.geometry import LineString, Point

        pieces = _segments(params)
        line = LineString([pieces[0][0], pieces[-1][1]])
        on = max(line.distance(Point(q)) for piece in pieces for q in piece) < 0.5
        return "Yes" if on else "No"

    def render(self, params: dict) -> list:
        rng = random.Random(params["seed"])
        image, draw = canvas((250, 250, 246))
        t = params["thickness"]
        for a, b in _segments(params):
            draw.line([a, b], fill=(0, 0, 0), width=t)
        colour = rng.choice(_BAR_COLOURS)
        half = params["bar_width"] / 2
        for c in params["bars"]:
            draw.rectangle([c - half, 30, c + half, SIZE[1] - 30], fill=colour)
        return [image]

    def causal_box(self, params: dict) -> tuple[int, int, int, int]:
        (a, ya), (b, yb) = _segments(params)[params["shifted"]]
        pad = params["thickness"] + abs(params["shift"]) + 4
        return (math.floor(a) - 2, math.floor(min(ya, yb) - pad), math.ceil(b) + 2, math.ceil(max(ya, yb) + pad))

    def margin(self, params: dict) -> float:
        return abs(params["shift"]) if params["shift"] else None

    def feature_px(self, params: dict) -> float:
        return max(abs(params["shift"]), 5 * params["thickness"]) if params["shift"] else 5 * params["thickness"]


class RodBehindScreen(Family):
    concept = CONCEPT
    name = "one-or-two-rods"
    type = "TF"
    causal_param = "tilt"
    min_margin = 10.0  # degrees between the two visible parts
    paradigm = "Rod behind an occluder (Kellman & Spelke 1983; Johnson & Aslin 1995)"
    level_cuts = (8.0, 10.0)
    hardness_doc = "the screen's width (px) over the No item's tilt (degrees): wider and less tilted is harder"

    def hardness(self, control: dict, twin: dict) -> float:
        return control["screen"] / abs(control["tilt"] or twin["tilt"])

    def sample(self, rng: random.Random, k: int) -> dict:
        return {"seed": rng.randrange(10 ** 6), "angle": rng.randint(-25, 25),
                "screen": rng.randrange(130, 211, 10), "rod": rng.choice([16, 20, 24, 28]),
                "tilt": 0 if k % 2 == 0 else rng.choice([-1, 1]) * rng.choice([15, 20, 25])}

    def twin(self, params: dict) -> dict:
        return {**params, "tilt": 0 if params["tilt"] else (20 if params["seed"] % 2 else -20)}

    def question(self, params: dict) -> str:
        return "The grey screen hides the middle. Could the two visible parts be one straight rod?"

    def answer(self, params: dict) -> str:
        return "Yes" if params["tilt"] == 0 else "No"

    def _parts(self, params: dict):
        w, h = SIZE
        cx, cy, half = w / 2, h / 2, params["screen"] / 2
        a = math.radians(params["angle"])
        b = math.radians(params["angle"] + params["tilt"])
        left = ((cx - 260 * math.cos(a), cy + 260 * math.sin(a)), (cx - (half - 12) * math.cos(a),
                                                                   cy + (half - 12) * math.sin(a)))
        # the right part pivots about a point just behind the screen's right edge
        exit_point = (cx + (half - 12) * math.cos(a), cy - (half - 12) * math.sin(a))
        right = (exit_point, (exit_point[0] + (262 - half) * math.cos(b), exit_point[1] - (262 - half) * math.sin(b)))
        return left, right

    def check(self, params: dict) -> str:
        """Independently: the directions of the two visible parts, from their end points."""
        (p0, p1), (q0, q1) = self._parts(params)
        d1 = math.degrees(math.atan2(-(p1[1] - p0[1]), p1[0] - p0[0]))
        d2 = math.degrees(math.atan2(-(q1[1] - q0[1]), q1[0] - q0[0]))
        return "Yes" if abs(d1 - d2) < 1 else "No"

    def render(self, params: dict) -> list:
        rng = random.Random(params["seed"])
        image, draw = canvas((245, 245, 250))
        colour = rng.choice([(200, 40, 40), (30, 100, 200), (20, 130, 70)])
        for a, b in self._parts(params):  # each part a rotated rectangle (thick lines step)
            length = math.dist(a, b)
            nx, ny = -(b[1] - a[1]) / length * params["rod"] / 2, (b[0] - a[0]) / length * params["rod"] / 2
            draw.polygon([(a[0] + nx, a[1] + ny), (b[0] + nx, b[1] + ny), (b[0] - nx, b[1] - ny),
                          (a[0] - nx, a[1] - ny)], fill=colour)
        w, h = SIZE
        half = params["screen"] / 2
        draw.rectangle([w / 2 - half, 40, w / 2 + half, h - 40], fill=(150, 150, 150), outline=(90, 90, 90), width=3)
        return [image]

    def causal_box(self, params: dict) -> tuple[int, int, int, int]:
        w, h = SIZE
        return (int(w / 2 + params["screen"] / 2) - 2, 0, w, h)

    def margin(self, params: dict) -> float:
        return abs(params["tilt"]) if params["tilt"] else None

    def feature_px(self, params: dict) -> float:
        # how far the far end of the right part moves when tilted by 20 degrees
        return (250 - params["screen"] / 2) * math.sin(math.radians(20))


FAMILIES = [LineBehindBars(), RodBehindScreen()]
