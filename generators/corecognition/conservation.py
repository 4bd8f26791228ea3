"""Conservation: quantities stay the same under transformations that add or remove
nothing (Piaget's conservation tasks).

Both families are three-frame sequences (before, during, after), because conservation
is a judgement about a transformation, not about one picture.

* ``number-rows`` (the paper's Figure 2 candy rows): two rows of n candies in one-to-one
  correspondence; in frame 2 the top row is pushed apart (arrows at its ends); in frame 3
  it is longer than the bottom row. "In the last frame, are there as many candies in the
  top row as in the bottom row?" Yes iff no candy was removed. The twin lifts one candy
  out of the top row in frame 2 (drawn above its empty place, an arrow carrying it out
  of the picture) and spreads the remaining n - 1 to the SAME final length, so the
  final length carries no cue; n >= 7 keeps a glance from counting the rows. The check
  counts the candy discs of the last frame's two rows (a shapely union of the drawn
  discs, one polygon per candy) instead of reading the removal parameter.
* ``liquid-pour`` (Piaget's beakers): a glass of inner width w1 holds juice to level h;
  it is poured into an empty glass of width w2 != w1 (in frame 2 the juice not yet poured lies
  in the tilted glass, at its mouth). For rectangular glasses the area
  is conserved exactly, so the new level is h * w1 / w2 (taller in a narrow glass,
  lower in a wide one). "Is there now as much juice in the second glass as there was in
  the first glass at the start?" Yes. The twin leaves a fraction (30 to 45%) of the
  juice behind in the first glass, visible in the last frame, and the second glass's
  level is drawn that much lower (a difference of at least 25%) -> No. The check builds
  the juice polygons of frame 1 and frame 3 with shapely and compares their areas.
* ``length-sticks`` (Piaget's length conservation): two sticks lie one above the other,
  left ends aligned; in frame 2 the bottom one is pushed right (an arrow), in frame 3 it
  sticks out past the top one. "In the last frame, are the two sticks the same length?"
  Yes. The twin makes the bottom stick 18 to 25% shorter (visible in frame 1, where the
  left ends are aligned); it is pushed by the same distance, so its right end still
  sticks out past the top stick's, the cue a non-conserver follows -> No. The check
  measures the two sticks of the last frame as shapely lines.
"""

from __future__ import annotations

import math
import random

from cogforge.generators.corecognition import SIZE, Family, arrow, canvas

CONCEPT = "conservation"
_INK = (45, 45, 60)


# --------------------------------------------------------------------------- number


class NumberRows(Family):
    concept = CONCEPT
    name = "number-rows"
    type = "TF"
    causal_param = "removed"
    frames = 3
    paradigm = "Piaget's number conservation (two rows of candies, one spread out); the paper's Figure 2 item"
    level_cuts = (9.0, 10.0)
    hardness_doc = "candies in a row, 7 to 10: more is harder to count"

    def hardness(self, control: dict, twin: dict) -> float:
        return float(control["n"])

    _ROWS = (180, 340)  # y of the top and bottom rows

    def sample(self, rng: random.Random, k: int) -> dict:
        n = rng.randint(7, 10)
        spacing = rng.choice([40, 44, 48]) if n <= 9 else 40
        start = (n - 1) * spacing
        return {"seed": rng.randrange(10 ** 6), "n": n, "spacing": spacing, "radius": rng.choice([13, 15]),
                "spread": rng.randint(max(start + 120, 470), 580),
                "taken": rng.randrange(1, n - 1),  # which candy the twin lifts out (never an end one)
                "removed": 0 if k % 2 == 0 else 1}

    def twin(self, params: dict) -> dict:
        return {**params, "removed": 1 - params["removed"]}

    def question(self, params: dict) -> str:
        return "In the last frame, are there as many candies in the top row as in the bottom row?"

    def answer(self, params: dict) -> str:
        return "Yes" if params["removed"] == 0 else "No"

    def _start_xs(self, params: dict) -> list[float]:
        n, s = params["n"], params["spacing"]
        return [SIZE[0] / 2 + (i - (n - 1) / 2) * s for i in range(n)]

    def _top_xs(self, params: dict, frame: int) -> list[float]:
        """The top row's candies in a frame (the lifted candy of frame 2 excluded)."""
        xs = self._start_xs(params)
        if params["removed"] and frame > 0:
            xs = xs[:params["taken"]] + xs[params["taken"] + 1:]
        if frame < 2:
            return xs
        m, half = len(xs), params["spread"] / 2
        return [SIZE[0] / 2 - half + i * params["spread"] / (m - 1) for i in range(m)]

    def check(self, params: dict) -> str:
        """Independently: union the discs drawn in each row of the last frame and count the
        separate pieces (one polygon per candy)."""
        from shapely.geometry import Point
        from shapely.ops import unary_union

        r = params["radius"]

        def pieces(xs, y):
            shape = unary_union([Point(x, y).buffer(r) for x in xs])
            return len(getattr(shape, "geoms", [shape]))

        top = pieces(self._top_xs(params, 2), self._ROWS[0])
        bottom = pieces(self._start_xs(params), self._ROWS[1])
        return "Yes" if top == bottom else "No"

    def _candy(self, draw, x, y, r, colour):
        draw.ellipse([x - r, y - r, x + r, y + r], fill=colour, outline=(40, 40, 40), width=2)
        draw.ellipse([x - r * 0.45, y - r * 0.6, x - r * 0.05, y - r * 0.2], fill=(255, 255, 255))

    def render(self, params: dict) -> list:
        rng = random.Random(params["seed"])
        colour = rng.choice([(220, 50, 60), (40, 110, 210), (40, 160, 90), (240, 170, 20), (150, 70, 180)])
        paper = rng.choice([(250, 248, 240), (240, 244, 250), (244, 250, 242)])
        r = params["radius"]
        top_y, bottom_y = self._ROWS
        out = []
        for frame in range(self.frames):
            image, draw = canvas(paper)
            for y in self._ROWS:  # each row sits on its own tray
                draw.rounded_rectangle([20, y - r - 14, SIZE[0] - 20, y + r + 14], radius=12, fill=(226, 218, 200))
            for x in self._start_xs(params):
                self._candy(draw, x, bottom_y, r, colour)
            for x in self._top_xs(params, frame):
                self._candy(draw, x, top_y, r, colour)
            if frame == 1:  # spreading: arrows pulling the row apart at both ends
                xs = self._start_xs(params)
                y = top_y + r + 38
                arrow(draw, [(xs[0] + 30, y), (xs[0] - 50, y)], _INK, width=6)
                arrow(draw, [(xs[-1] - 30, y), (xs[-1] + 50, y)], _INK, width=6)
                if params["removed"]:  # a candy lifted out of its place and carried away
                    x = xs[params["taken"]]
                    draw.ellipse([x - r, top_y - r, x + r, top_y + r], outline=(150, 150, 150), width=2)
                    self._candy(draw, x, top_y - 80, r, colour)
                    arrow(draw, [(x, top_y - 80 - r - 6), (x, 24)], _INK, width=6)
            out.append(image)
        return out

    def causal_box(self, params: dict) -> tuple[int, int, int, int]:
        r = params["radius"]
        top_y = self._ROWS[0]
        return (20, 0, SIZE[0] - 20, top_y + r + 15)

    def margin(self, params: dict) -> float | None:
        return None  # a candy is taken away or not

    def feature_px(self, params: dict) -> float:
        return 2 * params["radius"]  # one candy


# --------------------------------------------------------------------------- liquid

_FLOOR = 430  # the table top the glasses stand on
_WALL = 6  # glass wall thickness
_TILT = 120  # degrees the left glass is turned while pouring


class LiquidPour(Family):
    concept = CONCEPT
    name = "liquid-pour"
    type = "TF"
    causal_param = "left_behind"
    frames = 3
    min_margin = 0.25  # the relative shortfall of juice in a No item
    paradigm = "Piaget's liquid conservation (pouring into a glass of another width)"
    level_cuts = (-0.395, -0.345)
    hardness_doc = "the share of the juice left behind in the No item, 0.3 to 0.45: less is harder"

    def sample(self, rng: random.Random, k: int) -> dict:
        while True:
            w1 = rng.randrange(70, 171, 10)
            ratio = rng.choice([rng.uniform(0.45, 0.7), rng.uniform(1.45, 2.2)])
            w2 = round(w1 * ratio / 10) * 10
            if not 60 <= w2 <= 200 or 0.8 <= w2 / w1 <= 1.25:
                continue
            h = rng.randrange(70, 181, 5)
            h2 = h * w1 / w2
            if h2 < 45 or h2 > 280:
                continue
            params = {"seed": rng.randrange(10 ** 6), "w1": w1, "w2": w2, "level": h,
                      "glass1": h + rng.randrange(40, 90, 5), "glass2": round(max(h2 + 40, h + 20, 150)),
                      "left_behind": 0.0 if k % 2 == 0 else round(rng.uniform(0.3, 0.45), 2)}
            if self._fits(params):
                return params

    def twin(self, params: dict) -> dict:
        return {**params, "left_behind": 0.0 if params["left_behind"] else self._shortfall(params)}

    @staticmethod
    def _shortfall(params: dict) -> float:
        """The fraction left behind in the No item of this pair."""
        return params["left_behind"] or round(0.3 + (params["seed"] % 16) / 100, 2)

    def question(self, params: dict) -> str:
        return ("Juice is poured from the left glass into the right glass. Is there now as much juice in the "
                "right glass as there was in the left glass at the start?")

    def answer(self, params: dict) -> str:
        return "Yes" if params["left_behind"] == 0 else "No"

    # geometry: inner rectangles of the glasses and the juice levels, per frame
    def _glass_x(self, params: dict) -> tuple[float, float]:
        return 175.0, 455.0  # centres of the left and right glass on the table

    def _levels(self, params: dict, frame: int) -> tuple[float, float]:
        """The juice heights (px) in the left and right glass in a frame; frame 1 is the
        pour, when the left glass is tilted (its level is not drawn as a rectangle)."""
        h, f = params["level"], params["left_behind"]
        poured = h * (1 - f) * params["w1"] / params["w2"]
        if frame == 0:
            return h, 0.0
        if frame == 1:
            return 0.0, poured / 2
        return h * f, poured

    def _juice(self, params: dict, glass: int, height: float):
        """The juice in a standing glass as a shapely polygon (None if empty)."""
        from shapely.geometry import box

        if height <= 0:
            return None
        cx = self._glass_x(params)[glass]
        half = params["w1" if glass == 0 else "w2"] / 2
        return box(cx - half, _FLOOR - _WALL - height, cx + half, _FLOOR - _WALL)

    def check(self, params: dict) -> str:
        """Independently: the area of the juice polygon in the right glass at the end
        against the area in the left glass at the start (2D, so area is the amount)."""
        before = self._juice(params, 0, self._levels(params, 0)[0]).area
        after_poly = self._juice(params, 1, self._levels(params, 2)[1])
        after = after_poly.area if after_poly is not None else 0.0
        return "Yes" if abs(after - before) <= 0.02 * before else "No"

    def _draw_glass(self, draw, cx, inner_w, height, juice_h, juice_colour):
        half = inner_w / 2
        draw.rectangle([cx - half, _FLOOR - height, cx + half, _FLOOR - _WALL], fill=(232, 242, 248))
        if juice_h > 0:
            draw.rectangle([cx - half, _FLOOR - _WALL - juice_h, cx + half, _FLOOR - _WALL], fill=juice_colour)
        glass = (120, 150, 170)
        draw.rectangle([cx - half - _WALL, _FLOOR - height, cx - half, _FLOOR], fill=glass)
        draw.rectangle([cx + half, _FLOOR - height, cx + half + _WALL, _FLOOR], fill=glass)
        draw.rectangle([cx - half - _WALL, _FLOOR - _WALL, cx + half + _WALL, _FLOOR], fill=glass)

    def _tilted(self, params: dict):
        """The left glass held upside down above the right one in frame 2: its outer and
        inner outlines and the pouring lip (the rim corner it pours from)."""
        x2 = self._glass_x(params)[1]
        w1, g1 = params["w1"], params["glass1"]
        angle = math.radians(_TILT)  # clockwise, so the mouth faces down over the right glass
        lip = (x2 - 8, _FLOOR - params["glass2"] - 24)

        def place(u, v):  # glass coordinates (u right from the lip, v down from the rim) -> image
            return (lip[0] + u * math.cos(angle) - v * math.sin(angle),
                    lip[1] + u * math.sin(angle) + v * math.cos(angle))

        outer = [place(_WALL, 0), place(-w1 - _WALL, 0), place(-w1 - _WALL, g1), place(_WALL, g1)]
        inner = [place(0, -1), place(-w1, -1), place(-w1, g1 - _WALL), place(0, g1 - _WALL)]
        return outer, inner, lip

    def _fits(self, params: dict) -> bool:
        """The tilted glass stays inside the picture, clear of the right glass."""
        from shapely.geometry import Polygon, box

        outer, _inner, _lip = self._tilted(params)
        x2, half = self._glass_x(params)[1], params["w2"] / 2 + _WALL
        right = box(x2 - half, _FLOOR - params["glass2"], x2 + half, _FLOOR)
        return min(y for _x, y in outer) >= 10 and min(x for x, _y in outer) >= 10 and \
            max(x for x, _y in outer) <= SIZE[0] - 10 and Polygon(outer).distance(right) >= 8

    def _tilted_juice(self, params: dict):
        """The juice still in the left glass while it pours (frame 2), as a shapely polygon:
        what the right glass has not yet received, w1 * h * (1 + f) / 2 of area, lying level
        in the glass's lowest part, at its mouth (the juice of every frame adds up)."""
        from shapely.geometry import Polygon, box

        _outer, inner, _lip = self._tilted(params)
        glass = Polygon(inner)
        area = params["w1"] * params["level"] * (1 + params["left_behind"]) / 2
        top, bottom = glass.bounds[1], glass.bounds[3]
        for _ in range(40):  # bisect the juice surface's height
            surface = (top + bottom) / 2
            if glass.intersection(box(0, surface, SIZE[0], SIZE[1])).area > area:
                top = surface
            else:
                bottom = surface
        return glass.intersection(box(0, (top + bottom) / 2, SIZE[0], SIZE[1]))

    def _draw_tilted(self, draw, params, juice_colour):
        outer, inner, lip = self._tilted(params)
        draw.polygon(outer, fill=(120, 150, 170))
        draw.polygon(inner, fill=(232, 242, 248))
        draw.polygon([(round(x, 2), round(y, 2)) for x, y in self._tilted_juice(params).exterior.coords],
                     fill=juice_colour)
        stream_bottom = _FLOOR - _WALL - self._levels(params, 1)[1]
        draw.rectangle([lip[0] - 4, lip[1], lip[0] + 6, stream_bottom], fill=juice_colour)

    def render(self, params: dict) -> list:
        rng = random.Random(params["seed"])
        juice = rng.choice([(245, 150, 30), (230, 70, 60), (150, 60, 150), (240, 200, 40)])
        wall = rng.choice([(246, 246, 240), (240, 244, 250)])
        x1, x2 = self._glass_x(params)
        out = []
        for frame in range(self.frames):
            image, draw = canvas(wall)
            draw.rectangle([0, _FLOOR, SIZE[0], SIZE[1]], fill=(180, 150, 110))
            left, right = self._levels(params, frame)
            if frame != 1:
                self._draw_glass(draw, x1, params["w1"], params["glass1"], left, juice)
            self._draw_glass(draw, x2, params["w2"], params["glass2"], right, juice)
            if frame == 1:
                self._draw_tilted(draw, params, juice)
            out.append(image)
        return out

    def causal_box(self, params: dict) -> tuple[int, int, int, int]:
        x1, x2 = self._glass_x(params)
        outer, _inner, _lip = self._tilted(params)  # the juice still in it while it pours
        top = min(_FLOOR - params["glass1"], _FLOOR - params["glass2"], *(y for _x, y in outer))
        right = max(x2 + params["w2"] / 2, *(x for x, _y in outer))
        return (math.floor(x1 - params["w1"] / 2), math.floor(top), math.ceil(right), _FLOOR - _WALL)

    def margin(self, params: dict) -> float | None:
        return params["left_behind"] or None  # a No item lacks this fraction of the juice

    def feature_px(self, params: dict) -> float:
        # the smaller of the residue in the left glass and the drop of the right glass's level
        h, f = params["level"], self._shortfall(params)
        return min(h * f, h * f * params["w1"] / params["w2"])


# --------------------------------------------------------------------------- length


class LengthSticks(Family):
    concept = CONCEPT
    name = "length-sticks"
    type = "TF"
    causal_param = "shortened"
    frames = 3
    min_margin = 0.15  # the relative length difference of a No item
    paradigm = "Piaget's length conservation (two sticks, one pushed ahead of the other)"
    level_cuts = (-0.225, -0.205)
    hardness_doc = "how much shorter the stick is in the No item, 0.18 to 0.25: less is harder"

    _ROWS = (190, 300)  # y of the top and bottom stick

    def sample(self, rng: random.Random, k: int) -> dict:
        length = rng.randrange(280, 361, 10)
        return {"seed": rng.randrange(10 ** 6), "length": length, "x0": rng.randrange(50, 81, 10),
                "shift": rng.randrange(130, 171, 10), "thickness": rng.choice([16, 20, 24]),
                "shortened": 0.0 if k % 2 == 0 else round(rng.uniform(0.18, 0.25), 2)}

    def twin(self, params: dict) -> dict:
        return {**params, "shortened": 0.0 if params["shortened"] else self._shortfall(params)}

    @staticmethod
    def _shortfall(params: dict) -> float:
        """How much shorter the bottom stick is in the No item of this pair."""
        return params["shortened"] or round(0.18 + (params["seed"] % 8) / 100, 2)

    def question(self, params: dict) -> str:
        return "In the last frame, are the two sticks the same length?"

    def answer(self, params: dict) -> str:
        return "Yes" if params["shortened"] == 0 else "No"

    def _sticks(self, params: dict, frame: int) -> list[tuple[float, float, float]]:
        """(x_left, x_right, y) of the top and the bottom stick in a frame; the bottom
        one slides right by ``shift`` (half way in frame 2)."""
        x0, length = params["x0"], params["length"]
        bottom = length * (1 - params["shortened"])
        dx = params["shift"] * (0, 0.5, 1)[frame]
        return [(x0, x0 + length, self._ROWS[0]), (x0 + dx, x0 + dx + bottom, self._ROWS[1])]

    def check(self, params: dict) -> str:
        """Independently: the lengths of the two sticks of the last frame as shapely lines."""
        from shapely.geometry import LineString

        a, b = (LineString([(x0, y), (x1, y)]) for x0, x1, y in self._sticks(params, 2))
        return "Yes" if abs(a.length - b.length) < 1 else "No"

    def render(self, params: dict) -> list:
        rng = random.Random(params["seed"])
        colours = rng.sample([(200, 70, 50), (60, 110, 190), (60, 150, 80), (220, 170, 40)], 2)
        paper = rng.choice([(250, 248, 240), (240, 244, 250)])
        t = params["thickness"]
        out = []
        for frame in range(self.frames):
            image, draw = canvas(paper)
            for (x0, x1, y), colour in zip(self._sticks(params, frame), colours):
                draw.rounded_rectangle([x0, y - t / 2, x1, y + t / 2], radius=t // 3, fill=colour,
                                       outline=(40, 40, 40), width=2)
            if frame == 1:  # the bottom stick is being pushed to the right
                _x0, x1, y = self._sticks(params, 1)[1]
                arrow(draw, [(x1 + 16, y), (x1 + 76, y)], _INK, width=6)
            out.append(image)
        return out

    def causal_box(self, params: dict) -> tuple[int, int, int, int]:
        t = params["thickness"]
        y = self._ROWS[1]
        x_right = params["x0"] + params["shift"] + params["length"] + 100
        return (params["x0"] - 2, math.floor(y - t / 2 - 12), min(SIZE[0], x_right), math.ceil(y + t / 2 + 12))

    def margin(self, params: dict) -> float | None:
        return params["shortened"] or None

    def feature_px(self, params: dict) -> float:
        return params["length"] * self._shortfall(params)  # the length difference of the pair's No item


FAMILIES = [NumberRows(), LiquidPour(), LengthSticks()]
