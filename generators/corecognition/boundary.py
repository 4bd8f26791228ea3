"""Boundary: knowing where one object ends and another begins.

* ``texture-hidden-shape`` (the paper's camouflage pair, a man in a ghillie suit in dry
  grass, as a texture-defined figure): a field of short lines, all one colour and
  length; the lines inside a shape run at another angle, so the shape's edge exists only
  in texture. "Is there a shape hidden in the texture?" The twin keeps every line's
  place and jitter and sets the angle difference to 0: nothing is hidden, No.
* ``texture-shape`` (the paper's white-pillow-on-white-sheet item, "What is the shape
  of the pillow?"): the same texture-defined figure; which shape is it? The twin keeps
  the texture and the figure's place and size and changes the shape. Control and twin
  answers cycle through the three shapes with ``k``.
* ``one-or-more-blocks``: same-coloured blocks side by side (or stacked) inside one
  identical outer outline; a dark seam marks where one block ends and the next begins.
  "How many objects?" (1, 2 or 3). The twin adds or removes seams; pairs cycle
  (1, 2), (2, 3), (3, 1) with ``k`` so each option is right for a third of the items.

Answers come from the parameters (the angle difference, the shape, the block count);
the checks read what is drawn: the lines' angles (how many run against the majority),
which candidate shape best separates the odd lines from the rest (shapely), and the
connected regions of the block colour in the rendered picture (scipy).
"""

from __future__ import annotations

import cmath
import math
import random

import numpy as np

from cogforge.generators.corecognition import SIZE, Family, canvas

CONCEPT = "boundary"
SHAPES = ["Circle", "Square", "Triangle"]
_SPACING = 15  # px between texture elements
_LENGTH = 12  # px, one texture element
_WIDTH = 3
_PAPER = [(238, 232, 214), (226, 232, 222), (236, 228, 232), (230, 230, 236)]
_INK = [(70, 60, 40), (40, 60, 70), (60, 40, 60), (35, 35, 35)]
_BLOCKS = [(200, 70, 60), (60, 120, 200), (70, 160, 90), (220, 170, 40), (150, 90, 170)]


# --------------------------------------------------------------------------- texture figure


def _shape_polygon(shape: str, cx: float, cy: float, r: float, turn: float) -> list[tuple[float, float]]:
    """The figure's outline: a circle of radius r, a square or a triangle of about the
    same extent, turned by ``turn`` degrees about (cx, cy)."""
    if shape == "Circle":
        pts = [(r * math.cos(2 * math.pi * i / 72), r * math.sin(2 * math.pi * i / 72)) for i in range(72)]
    elif shape == "Square":
        s = 0.9 * r
        pts = [(-s, -s), (s, -s), (s, s), (-s, s)]
    elif shape == "Triangle":
        R = 1.3 * r
        pts = [(R * math.cos(math.radians(a)), R * math.sin(math.radians(a))) for a in (-90, 30, 150)]
    else:
        raise ValueError(f"unknown shape {shape!r}; known: {SHAPES}")
    c, s = math.cos(math.radians(turn)), math.sin(math.radians(turn))
    return [(cx + x * c - y * s, cy + x * s + y * c) for x, y in pts]


def _elements(params: dict) -> list[tuple[float, float, float]]:
    """Every texture element as (x, y, angle in degrees): places and jitter from the
    seed (the same for control and twin), the angle turned by ``delta`` inside the
    figure."""
    from shapely import contains_xy
    from shapely.geometry import Polygon

    rng = random.Random(params["seed"])
    w, h = SIZE
    xs, ys, jitter = [], [], []
    for gy in range(_SPACING // 2, h, _SPACING):
        for gx in range(_SPACING // 2, w, _SPACING):
            xs.append(gx + rng.uniform(-3, 3))
            ys.append(gy + rng.uniform(-3, 3))
            jitter.append(rng.uniform(-6, 6))
    figure = Polygon(_shape_polygon(params["shape"], params["cx"], params["cy"], params["r"], params["turn"]))
    inside = contains_xy(figure, np.array(xs), np.array(ys))
    base = params["angle"]
    return [(x, y, base + j + (params["delta"] if i else 0.0)) for x, y, j, i in zip(xs, ys, jitter, inside)]


def _draw_texture(params: dict):
    rng = random.Random(params["seed"] + 1)
    paper, ink = rng.choice(_PAPER), rng.choice(_INK)
    image, draw = canvas(paper)
    half = _LENGTH / 2
    for x, y, a in _elements(params):
        dx, dy = half * math.cos(math.radians(a)), half * math.sin(math.radians(a))
        draw.line([(x - dx, y - dy), (x + dx, y + dy)], fill=ink, width=_WIDTH)
    return image


def _odd_elements(params: dict) -> tuple[np.ndarray, np.ndarray]:
    """Element centres and whether each runs against the majority direction (more than
    25 degrees from the mean orientation, angles taken modulo 180)."""
    els = _elements(params)
    pts = np.array([(x, y) for x, y, _a in els])
    doubled = [cmath.exp(2j * math.radians(a)) for _x, _y, a in els]
    mean = math.degrees(cmath.phase(sum(doubled))) / 2
    off = np.array([abs((a - mean + 90) % 180 - 90) for _x, _y, a in els])
    return pts, off > 25


def _sample_figure(rng: random.Random) -> dict:
    w, h = SIZE
    r = rng.choice([95, 110, 125])
    reach = 1.3 * r + 20  # the triangle's corners reach furthest
    return {"seed": rng.randrange(10 ** 6), "angle": rng.choice([0, 30, 60, 90, 120, 150]),
            "cx": round(rng.uniform(reach, w - reach)), "cy": round(rng.uniform(reach, h - reach)),
            "r": r, "turn": rng.choice([-10, 0, 0, 10])}


def _figure_box(params: dict) -> tuple[int, int, int, int]:
    pts = _shape_polygon(params["shape"], params["cx"], params["cy"], params["r"], params["turn"])
    pad = _LENGTH / 2 + 4 + _WIDTH  # element jitter and half length
    return (math.floor(min(x for x, _ in pts) - pad), math.floor(min(y for _, y in pts) - pad),
            math.ceil(max(x for x, _ in pts) + pad), math.ceil(max(y for _, y in pts) + pad))


class TextureHiddenShape(Family):
    concept = CONCEPT
    name = "texture-hidden-shape"
    type = "TF"
    causal_param = "delta"
    min_margin = 45.0  # degrees between the figure's lines and the background's
    paradigm = "Texture segregation (Beck 1966; Julesz 1981); the paper's camouflage pair (Figure 22)"
    level_cuts = (-90.0, -60.0)
    hardness_doc = "the hidden figure's angle difference times its radius / 100: smaller is harder"

    def hardness(self, control: dict, twin: dict) -> float:
        delta = (control["delta"] or twin["delta"]) % 180
        return -min(delta, 180 - delta) * control["r"] / 100

    def sample(self, rng: random.Random, k: int) -> dict:
        params = _sample_figure(rng)
        return {**params, "shape": rng.choice(SHAPES), "delta": 0 if k % 2 else rng.choice([45, 90, 90])}

    def twin(self, params: dict) -> dict:
        return {**params, "delta": 0 if params["delta"] else (90 if params["seed"] % 3 else 45)}

    def question(self, params: dict) -> str:
        return ("The picture is covered with short lines. Is there a shape hidden in it, a region whose lines "
                "run in a different direction from the lines around it?")

    def answer(self, params: dict) -> str:
        return "Yes" if params["delta"] % 180 else "No"

    def check(self, params: dict) -> str:
        """Independently: count the drawn lines that run against the majority direction."""
        _pts, odd = _odd_elements(params)
        return "Yes" if odd.sum() >= 20 else "No"

    def render(self, params: dict) -> list:
        return [_draw_texture(params)]

    def causal_box(self, params: dict) -> tuple[int, int, int, int]:
        return _figure_box(params)

    def margin(self, params: dict) -> float | None:
        return float(min(params["delta"] % 180, 180 - params["delta"] % 180)) if params["delta"] % 180 else None

    def feature_px(self, params: dict) -> float:
        return float(_LENGTH)  # one line's direction is what differs


class TextureShape(Family):
    concept = CONCEPT
    name = "texture-shape"
    type = "MC"
    causal_param = "shape"
    paradigm = "Texture-defined form (Julesz 1981); the paper's pillow-on-sheet shape item (Figure 2)"
    level_cuts = (-105.0, -80.0)
    hardness_doc = "the figure's angle difference times its radius / 100: smaller is harder"

    def hardness(self, control: dict, twin: dict) -> float:
        return -control["delta"] * control["r"] / 100

    def sample(self, rng: random.Random, k: int) -> dict:
        params = _sample_figure(rng)
        return {**params, "shape": SHAPES[k % 3], "delta": rng.choice([60, 90, 90])}

    def twin(self, params: dict) -> dict:
        return {**params, "shape": SHAPES[(SHAPES.index(params["shape"]) + 1) % 3]}

    def question(self, params: dict) -> str:
        return ("The picture is covered with short lines. In one region the lines run in a different direction. "
                "What is the shape of that region?")

    def options(self, params: dict) -> list[str]:
        return list(SHAPES)

    def answer(self, params: dict) -> str:
        return params["shape"]

    def check(self, params: dict) -> str:
        """Independently: the candidate outline (same place and size) that best separates
        the drawn lines running against the majority from the rest."""
        from shapely import contains_xy
        from shapely.geometry import Polygon

        pts, odd = _odd_elements(params)
        scores = {}
        for shape in SHAPES:
            poly = Polygon(_shape_polygon(shape, params["cx"], params["cy"], params["r"], params["turn"]))
            scores[shape] = int(np.sum(contains_xy(poly, pts[:, 0], pts[:, 1]) == odd))
        return max(SHAPES, key=lambda s: scores[s])

    def render(self, params: dict) -> list:
        return [_draw_texture(params)]

    def causal_box(self, params: dict) -> tuple[int, int, int, int]:
        return _figure_box(params)

    def margin(self, params: dict) -> float | None:
        return None  # the shapes differ by whole texture elements, not by a threshold

    def feature_px(self, params: dict) -> float:
        return float(_LENGTH)


# --------------------------------------------------------------------------- blocks and seams


def _blocks(params: dict) -> list[tuple[float, float, float, float]]:
    """The three blocks (x0, y0, x1, y1), side by side on the floor or stacked."""
    x, y = params["x"], params["y"]  # the bottom-left corner
    out = []
    if params["stacked"]:
        widest = max(params["widths"])
        for w, h in zip(params["widths"], params["heights"]):
            out.append((x + (widest - w) / 2, y - h, x + (widest + w) / 2, y))
            y -= h
    else:
        for w, h in zip(params["widths"], params["heights"]):
            out.append((x, y - h, x + w, y))
            x += w
    return out


def _groups(params: dict) -> list[list[int]]:
    """Which blocks form each object: seams at the joints the count asks for (joint
    ``seed % 2`` when there is one seam)."""
    seams = {1: set(), 2: {params["seed"] % 2}, 3: {0, 1}}[params["count"]]
    groups = [[0]]
    for joint in (0, 1):
        if joint in seams:
            groups.append([joint + 1])
        else:
            groups[-1].append(joint + 1)
    return groups


class OneOrMoreBlocks(Family):
    concept = CONCEPT
    name = "one-or-more-blocks"
    type = "MC"
    causal_param = "count"
    paradigm = "Object segregation of adjacent same-coloured objects (Kestenbaum, Termine & Spelke 1987)"
    _OUTLINE = 4  # px, drawn inside each object; a seam is two outlines sharing a column, 7 px
    level_cuts = (1.0, 2.0)
    hardness_doc = ("what else tells the blocks apart: stacked blocks of different widths (0), side by side "
                    "with different heights (1), side by side of one height, where only the seams tell (2)")

    def hardness(self, control: dict, twin: dict) -> float:
        return 0.0 if control["stacked"] else 2.0 if len(set(control["heights"])) == 1 else 1.0

    def sample(self, rng: random.Random, k: int) -> dict:
        w, h = SIZE
        stacked = rng.random() < 0.35
        if stacked:  # sizes always differ, so a stack never reads as one cabinet with drawers
            widths = sorted(rng.sample([120, 150, 180, 210, 240], 3), reverse=rng.random() < 0.7)
            heights = [rng.choice([80, 95, 110]) for _ in range(3)]
        else:
            widths = [rng.choice([110, 130, 150]) for _ in range(3)]
            heights = [rng.choice([110, 140, 170])] * 3
            if rng.random() < 0.6:
                heights = rng.sample([100, 130, 160, 190], 3)
        width = max(widths) if stacked else sum(widths)
        height = sum(heights) if stacked else max(heights)
        floor = round(rng.uniform(max(height + 30, h * 0.7), h - 40))
        return {"seed": rng.randrange(10 ** 6), "stacked": stacked, "widths": widths, "heights": heights,
                "x": round(rng.uniform(30, w - 30 - width)), "y": floor, "count": [1, 2, 3][k % 3]}

    def twin(self, params: dict) -> dict:
        return {**params, "count": {1: 2, 2: 3, 3: 1}[params["count"]]}

    def question(self, params: dict) -> str:
        return "How many separate objects make up the coloured block shape in the picture?"

    def options(self, params: dict) -> list[str]:
        return ["1", "2", "3"]

    def answer(self, params: dict) -> str:
        return str(params["count"])

    def check(self, params: dict) -> str:
        """Independently: count the connected regions of the block colour in the drawn
        picture (a seam cuts the colour; one outline leaves it whole)."""
        from scipy import ndimage

        fill = self._colours(params)[0]
        pixels = np.asarray(self.render(params)[0])
        labels, n = ndimage.label(np.all(pixels == fill, axis=2))
        sizes = np.bincount(labels.ravel())[1:]
        return str(int(np.sum(sizes >= 400)))

    def _colours(self, params: dict):
        rng = random.Random(params["seed"])
        fill = rng.choice(_BLOCKS)
        return fill, tuple(c * 45 // 100 for c in fill), rng.choice(_PAPER)

    def render(self, params: dict) -> list:
        from shapely.geometry import box
        from shapely.ops import unary_union

        fill, edge, paper = self._colours(params)
        image, draw = canvas(paper)
        w, h = SIZE
        floor = params["y"]
        draw.rectangle([0, floor, w, h], fill=tuple(c - 30 for c in paper))
        draw.line([(0, floor), (w, floor)], fill=tuple(c - 70 for c in paper), width=2)
        blocks = _blocks(params)
        x0, x1 = min(b[0] for b in blocks), max(b[2] for b in blocks)
        draw.ellipse([x0 - 10, floor - 8, x1 + 10, floor + 12], fill=tuple(c - 55 for c in paper))  # shadow
        for group in _groups(params):
            shape = unary_union([box(*blocks[i]) for i in group]).simplify(0.1)
            draw.polygon(list(shape.exterior.coords)[:-1], fill=fill, outline=edge, width=self._OUTLINE)
        return [image]

    def causal_box(self, params: dict) -> tuple[int, int, int, int]:
        blocks = _blocks(params)
        return (math.floor(min(b[0] for b in blocks)) - 2, math.floor(min(b[1] for b in blocks)) - 2,
                math.ceil(max(b[2] for b in blocks)) + 2, math.ceil(max(b[3] for b in blocks)) + 2)

    def margin(self, params: dict) -> float | None:
        return None  # a seam is drawn or not

    def feature_px(self, params: dict) -> float:
        return 2.0 * self._OUTLINE - 1  # the seam


FAMILIES = [TextureHiddenShape(), TextureShape(), OneOrMoreBlocks()]
