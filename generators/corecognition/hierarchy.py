"""Hierarchical relation: class inclusion, transitivity and nesting.

* ``class-inclusion`` (Piaget's class-inclusion question; the paper's windmill pair): a
  few coloured shapes, at most nine. "Are there more red circles or more circles?" with
  the options "More red circles", "More circles", "The same number". The answer counts
  the two sets the question names. The twin recolours one group of shapes (the causal
  parameter is that group's colour): in the nested kinds the other-coloured circles turn
  red, so the subclass becomes the whole class and the answer becomes "The same number".
  Nested pairs alone would always have the superclass or "the same" as answer, so a
  third kind crosses two attributes ("more red shapes or more circles?"): the twin turns
  the red squares into blue ones and the answer moves from one set to the other. The
  kinds take turns (subclass named first, superclass named first, crossed), so over three
  pairs each option position and each kind of answer is right for a third of the items.
  The check reads each shape's colour back from the rendered pixels and its kind from the
  shapely outline (area over bounding-box area), and compares the sizes of the two set
  differences instead of the sets.
* ``transitive-sticks`` (transitivity of length; Piaget 1921; Bryant & Trabasso 1971):
  panel 1 shows stick A beside stick B, panel 2 stick B beside stick C, each panel at its
  own scale, which the question states. "Is stick A longer than stick C?" The answer
  compares the true lengths. The twin changes stick C only, reversing the relation in
  panel 2. One member of each pair follows from transitivity (A > B > C, or A < B < C);
  the other rests on the ratios within the panels: A is 20-35% longer (or shorter) than
  B, while C is 50-70% beyond both, so "a little longer" meets "much longer". Every
  relation differs by at least 15%. A's drawn length is either above C's in both members
  of a pair or below it in both, so comparing A and C by their pixels is right for exactly
  one of them. The check chains the drawn pixel ratios, (A/B in panel 1) x (B/C in
  panel 2).
* ``nested-boxes`` (containment, the hierarchy of "in"): boxes inside boxes, one small box
  holding a star. "Is the star inside the blue box?" The answer walks the containment
  tree (each box's parent is the smallest box around it) up from the star. The twin
  moves the small box with its star between a free place inside the blue box and one
  outside it. The check asks shapely whether the blue box's polygon contains the star's.
"""

from __future__ import annotations

import math
import random

from cogforge.generators.corecognition import SIZE, Family, canvas, font

CONCEPT = "hierarchy"

_COLOURS = {"red": (215, 45, 45), "blue": (45, 95, 215), "green": (40, 150, 70),
            "yellow": (235, 190, 25), "purple": (140, 70, 180), "orange": (240, 125, 30)}
_SHAPES = ["circle", "square", "triangle"]


def _tint(rgb, amount: float):
    return tuple(min(255, int(c + (255 - c) * amount)) for c in rgb)


def _shade(rgb, amount: float):
    return tuple(int(c * amount) for c in rgb)


def _star(centre, outer: float, inner: float) -> list[tuple[float, float]]:
    cx, cy = centre
    return [(cx + (outer if i % 2 == 0 else inner) * math.sin(math.pi * i / 5),
             cy - (outer if i % 2 == 0 else inner) * math.cos(math.pi * i / 5)) for i in range(10)]


# --------------------------------------------------------------------------- class inclusion

_RADIUS = 30  # a circle's radius; squares and triangles are drawn to about the same size
_KINDS = ["sub-first", "super-first", "crossed"]


def _outline(shape: str, x: float, y: float) -> list[tuple[float, float]]:
    """The polygon of a shape centred at (x, y)."""
    if shape == "circle":
        return [(x + _RADIUS * math.cos(2 * math.pi * i / 48), y + _RADIUS * math.sin(2 * math.pi * i / 48))
                for i in range(48)]
    if shape == "square":
        s = 0.88 * _RADIUS
        return [(x - s, y - s), (x + s, y - s), (x + s, y + s), (x - s, y + s)]
    r = 1.25 * _RADIUS  # an upright equilateral triangle, about its centroid
    return [(x + r * math.sin(2 * math.pi * i / 3), y - r * math.cos(2 * math.pi * i / 3)) for i in range(3)]


def _colour_of(params: dict, item: dict) -> str:
    return params["flip_colour"] if item["colour"] == "flip" else item["colour"]


class ClassInclusion(Family):
    concept = CONCEPT
    name = "class-inclusion"
    type = "MC"
    causal_param = "flip_colour"
    min_margin = 8.0  # pixels between any two shapes, so every one can be counted
    paradigm = "Class inclusion (Piaget & Szeminska 1941; Inhelder & Piaget 1964); the windmill pair"
    level_cuts = (7.0, 9.0)
    hardness_doc = "shapes in the picture: more is harder to count"

    def hardness(self, control: dict, twin: dict) -> float:
        return float(len(control["items"]))

    def sample(self, rng: random.Random, k: int) -> dict:
        kind = _KINDS[k % 3]
        colour, other = rng.sample(sorted(_COLOURS), 2)
        shape, other_shape = rng.sample(_SHAPES, 2)
        groups = []  # (count, shape, colour or "flip")
        if kind == "crossed":
            oc = rng.randint(1, 2)
            groups = [(rng.randint(1, 3), shape, colour), (oc, shape, other),
                      (rng.randint(oc + 1, oc + 2), other_shape, "flip"), (rng.randint(0, 1), other_shape, other)]
        else:
            fixed = rng.randint(3, 6)
            flip = rng.randint(1, min(3, fixed - 1, 9 - fixed))
            extra = rng.randint(0, min(2, 9 - fixed - flip))
            groups = [(fixed, shape, colour), (flip, shape, "flip")] + \
                [(1, other_shape, rng.choice([colour, other])) for _ in range(extra)]
        cells = rng.sample([(col, row) for col in range(4) for row in range(3)], sum(n for n, _, _ in groups))
        items = []
        for n, item_shape, item_colour in groups:
            for _ in range(n):
                col, row = cells.pop()
                items.append({"shape": item_shape, "colour": item_colour,
                              "x": round(30 + 145 * col + 72.5 + rng.uniform(-24, 24), 1),
                              "y": round(30 + 140 * row + 70 + rng.uniform(-22, 22), 1)})
        # which member of the pair is the control takes turns, so every kind of answer leads some pairs
        first = (k // 3) % 2 == 0
        flip_colour = (other if first else colour) if kind != "crossed" else (colour if first else other)
        return {"seed": rng.randrange(10 ** 6), "kind": kind, "colour": colour, "other": other, "shape": shape,
                "items": items, "flip_colour": flip_colour}

    def twin(self, params: dict) -> dict:
        flip = params["other"] if params["flip_colour"] == params["colour"] else params["colour"]
        return {**params, "flip_colour": flip}

    def _sets(self, params: dict) -> tuple[str, str]:
        """The names of the two sets the question compares, in the question's order."""
        colour, shapes = params["colour"], params["shape"] + "s"
        return {"sub-first": (f"{colour} {shapes}", shapes), "super-first": (shapes, f"{colour} {shapes}"),
                "crossed": (f"{colour} shapes", shapes)}[params["kind"]]

    def question(self, params: dict) -> str:
        first, second = self._sets(params)
        return f"Are there more {first} or more {second}?"

    def options(self, params: dict) -> list[str]:
        first, second = self._sets(params)
        return [f"More {first}", f"More {second}", "The same number"]

    def _members(self, params: dict, name: str, shape_of, colour_of) -> set[int]:
        colour, shape = params["colour"], params["shape"]
        if name == f"{colour} {shape}s":
            return {i for i in range(len(params["items"])) if shape_of(i) == shape and colour_of(i) == colour}
        if name == f"{shape}s":
            return {i for i in range(len(params["items"])) if shape_of(i) == shape}
        return {i for i in range(len(params["items"])) if colour_of(i) == colour}  # "<colour> shapes"

    def answer(self, params: dict) -> str:
        items = params["items"]
        first, second = (len(self._members(params, name, lambda i: items[i]["shape"],
                                           lambda i: _colour_of(params, items[i]))) for name in self._sets(params))
        options = self.options(params)
        return options[0] if first > second else options[1] if second > first else options[2]

    def check(self, params: dict) -> str:
        """Independently: each shape's kind from its shapely outline (area over the
        area of its bounding box: about 0.79 circle, 1 square, 0.5 triangle), its colour
        from the rendered pixel at its centroid, and the sizes of the two set differences."""
        import numpy as np
        from shapely.geometry import Polygon

        pixels = np.asarray(self.render(params)[0])
        polygons = [Polygon(_outline(item["shape"], item["x"], item["y"])) for item in params["items"]]

        def shape_of(i):
            fill = polygons[i].area / polygons[i].envelope.area
            return "square" if fill > 0.9 else "circle" if fill > 0.65 else "triangle"

        def colour_of(i):
            c = polygons[i].centroid
            rgb = pixels[round(c.y), round(c.x)].astype(int)
            return min(_COLOURS, key=lambda name: sum((rgb - np.array(_COLOURS[name])) ** 2))

        first, second = (self._members(params, name, shape_of, colour_of) for name in self._sets(params))
        only_first, only_second = len(first - second), len(second - first)
        options = self.options(params)
        return options[0] if only_first > only_second else options[1] if only_second > only_first else options[2]

    def render(self, params: dict) -> list:
        rng = random.Random(params["seed"])
        image, draw = canvas(rng.choice([(250, 250, 246), (246, 248, 252), (252, 248, 244)]))
        for item in params["items"]:
            rgb = _COLOURS[_colour_of(params, item)]
            draw.polygon(_outline(item["shape"], item["x"], item["y"]), fill=rgb, outline=_shade(rgb, 0.6), width=3)
        return [image]

    def causal_box(self, params: dict) -> tuple[int, int, int, int]:
        points = [p for item in params["items"] if item["colour"] == "flip"
                  for p in _outline(item["shape"], item["x"], item["y"])]
        return (math.floor(min(x for x, _ in points)) - 3, math.floor(min(y for _, y in points)) - 3,
                math.ceil(max(x for x, _ in points)) + 3, math.ceil(max(y for _, y in points)) + 3)

    def margin(self, params: dict) -> float:
        from shapely.geometry import Polygon

        polygons = [Polygon(_outline(item["shape"], item["x"], item["y"])) for item in params["items"]]
        return min(polygons[i].distance(polygons[j]) for i in range(len(polygons)) for j in range(i))

    def feature_px(self, params: dict) -> float:
        return float(_RADIUS)  # the shapes' size, which carries both their kind and their colour


# --------------------------------------------------------------------------- transitivity

_PANELS = (16, 328)  # left edges; each panel is 296 pixels wide
_PANEL_TOP, _PANEL_BOTTOM = 64, 448
_STICK_X = 62  # where sticks start, from the panel's left edge
_STICK_MAX, _STICK_MIN = 215, 45  # pixels


def _twin_length(params: dict) -> float:
    """Stick C in the twin: past the longer of A and B when C was shorter than B (so A
    is no longer longer than C), below the shorter of them otherwise; by 50 to 70%, so
    that the member of the pair that rests on ratios compares "a little longer" with
    "much longer"."""
    a, b, c = params["a"], params["b"], params["c"]
    factor = 1.5 + 0.05 * (params["seed"] % 5)
    return round(max(a, b) * factor, 2) if c < b else round(min(a, b) / factor, 2)


class TransitiveSticks(Family):
    concept = CONCEPT
    name = "transitive-sticks"
    type = "TF"
    causal_param = "c"
    min_margin = 0.15  # relative difference of every comparison the answer rests on
    paradigm = "Transitive inference of length (Piaget 1921; Bryant & Trabasso 1971)"
    level_cuts = (-0.29, -0.25)
    hardness_doc = "the relative length difference the answer rests on: smaller is harder"

    def sample(self, rng: random.Random, k: int) -> dict:
        b = 10.0
        case = k % 4
        r, g = rng.uniform(1.2, 1.35), rng.uniform(1.5, 1.7)
        a = b * r if case in (0, 3) else b / r
        c = {0: b / rng.uniform(1.2, 1.35), 1: b * rng.uniform(1.2, 1.35), 2: a / g, 3: a * g}[case]
        seed = rng.randrange(10 ** 6)
        params = {"seed": seed, "a": round(a, 2), "b": b, "c": round(c, 2)}
        # A's drawn length is either above both C's (control and twin) or below both, so
        # comparing A and C by their pixels is right for exactly one member of each pair
        c_lo, c_hi = sorted([params["c"], _twin_length(params)])
        a_wins = (k // 4) % 2 == 0
        lo2, hi2 = _STICK_MIN / min(b, c_lo), _STICK_MAX / max(b, c_hi)
        for attempt in range(400):
            if attempt == 200:  # some sticks leave no room for one of the two; take the other
                a_wins = not a_wins
            s1 = rng.uniform(_STICK_MIN / min(a, b), _STICK_MAX / max(a, b))
            lo, hi = (lo2, min(hi2, a * s1 / (1.1 * c_hi))) if a_wins else (max(lo2, 1.1 * a * s1 / c_lo), hi2)
            if lo < hi:
                s2 = rng.uniform(lo, hi)
                if abs(s2 / s1 - 1) >= 0.2:
                    break
        else:
            raise RuntimeError(f"no scales fit sticks {a:.2f}, {b:.2f}, {c:.2f}; widen _STICK_MAX")
        params.update({"s1": round(s1, 3), "s2": round(s2, 3), "top1": rng.choice("AB"), "top2": rng.choice("BC")})
        return params

    def twin(self, params: dict) -> dict:
        return {**params, "c": _twin_length(params)}

    def question(self, params: dict) -> str:
        return ("The two panels are drawn at different scales, so sticks can be compared only within the same "
                "panel. Stick B is the same stick in both panels. Is stick A longer than stick C?")

    def answer(self, params: dict) -> str:
        return "Yes" if params["a"] > params["c"] else "No"

    def _sticks(self, params: dict) -> dict[str, tuple[float, float, float, float]]:
        """Rectangles (x0, y0, x1, y1) of A and B in panel 1 and of B and C in panel 2."""
        out = {}
        for panel, (scale, top, pair) in enumerate(((params["s1"], params["top1"], "AB"),
                                                    (params["s2"], params["top2"], "BC"))):
            x0 = _PANELS[panel] + _STICK_X
            half = 0.8 * scale
            for name in pair:
                y = 196 if name == top else 336
                length = params[name.lower()] * scale
                out[f"{name}{panel + 1}"] = (x0, y - half, x0 + length, y + half)
        return out

    def check(self, params: dict) -> str:
        """Independently: chain the drawn ratios, (A/B in panel 1) x (B/C in panel 2)."""
        sticks = self._sticks(params)
        width = {key: x1 - x0 for key, (x0, _, x1, _) in sticks.items()}
        return "Yes" if width["A1"] / width["B1"] * width["B2"] / width["C2"] > 1 else "No"

    def render(self, params: dict) -> list:
        rng = random.Random(params["seed"])
        image, draw = canvas((248, 247, 243))
        colours = dict(zip("ABC", rng.sample([(190, 120, 60), (90, 130, 190), (120, 160, 80), (170, 90, 150),
                                              (200, 160, 60)], 3)))
        for panel, x in enumerate(_PANELS):
            draw.rectangle([x, _PANEL_TOP, x + 296, _PANEL_BOTTOM], fill=(255, 255, 255), outline=(90, 90, 90), width=3)
            draw.text((x + 148, _PANEL_TOP - 26), f"Panel {panel + 1}", font=font(24, bold=True), fill=(40, 40, 40),
                      anchor="mm")
        for key, (x0, y0, x1, y1) in self._sticks(params).items():
            colour = colours[key[0]]
            draw.rounded_rectangle([x0, y0, x1, y1], radius=min(6, (y1 - y0) / 2), fill=colour,
                                   outline=_shade(colour, 0.6), width=2)
            draw.text((x0 - 30, (y0 + y1) / 2), key[0], font=font(30, bold=True), fill=(30, 30, 30), anchor="mm")
        return [image]

    def causal_box(self, params: dict) -> tuple[int, int, int, int]:
        x0, y0, x1, y1 = self._sticks(params)["C2"]
        return (math.floor(x0) - 2, math.floor(y0) - 2, math.ceil(x1) + 2, math.ceil(y1) + 2)

    def margin(self, params: dict) -> float:
        a, b, c = params["a"], params["b"], params["c"]
        return min(max(x, 1 / x) - 1 for x in (a / b, c / b, a / c))

    def feature_px(self, params: dict) -> float:
        width = {key: x1 - x0 for key, (x0, _, x1, _) in self._sticks(params).items()}
        return min(abs(width["A1"] - width["B1"]), abs(width["C2"] - width["B2"]))


# --------------------------------------------------------------------------- containment

_HOLDER = (130, 116)  # the small box that holds the star, in pixels


class NestedBoxes(Family):
    concept = CONCEPT
    name = "nested-boxes"
    type = "TF"
    causal_param = "holder_at"
    min_margin = 10.0  # pixels between the small box and the big box's sides
    paradigm = "Containment hierarchy (nested classes as nested boxes; Inhelder & Piaget 1964)"
    level_cuts = (-43.0, -35.0)
    hardness_doc = "the small box's distance to the big box's sides (px): smaller is harder"

    def sample(self, rng: random.Random, k: int) -> dict:
        w, h = SIZE
        holder = rng.choice([c for c in sorted(_COLOURS) if c != "yellow"])  # the star is gold
        target, inner, outer = rng.sample([c for c in sorted(_COLOURS) if c != holder], 3)
        left = rng.random() < 0.5
        bw, bh = rng.randint(300, 330), rng.randint(370, 400)
        bx = rng.randint(20, 40) if left else w - rng.randint(20, 40) - bw
        by = rng.randint(30, h - 30 - bh)
        big = [bx, by, bx + bw, by + bh]
        hw, hh = _HOLDER
        # two places inside the big box and two outside it, stacked
        ix = bx + (bw - hw) // 2 + rng.randint(-30, 30)
        inside = [[ix, by + rng.randint(28, 50)], [ix, by + bh - hh - rng.randint(28, 50)]]
        ox = (bx + bw + w - hw) // 2 if left else (bx - hw) // 2
        ox += rng.randint(-20, 20)
        outside = [[ox, rng.randint(40, 80)], [ox, h - hh - rng.randint(40, 80)]]
        rng.shuffle(inside)
        rng.shuffle(outside)
        here, there = (inside[0], outside[0]) if k % 2 == 0 else (outside[0], inside[0])
        boxes = [{"colour": target, "rect": big, "holds": None},
                 {"colour": inner, "rect": [inside[1][0], inside[1][1], inside[1][0] + hw, inside[1][1] + hh],
                  "holds": rng.choice(["circle", "triangle"])}]
        if rng.random() < 0.7:
            boxes.append({"colour": outer, "rect": [outside[1][0], outside[1][1], outside[1][0] + hw,
                                                    outside[1][1] + hh], "holds": rng.choice(["circle", "triangle"])})
        return {"seed": rng.randrange(10 ** 6), "target": target, "holder": holder, "boxes": boxes,
                "places": [here, there], "holder_at": list(here)}

    def twin(self, params: dict) -> dict:
        here, there = params["places"]
        return {**params, "holder_at": list(there if params["holder_at"] == here else here)}

    def question(self, params: dict) -> str:
        return f"Is the star inside the {params['target']} box?"

    def _holder_rect(self, params: dict) -> list[float]:
        x, y = params["holder_at"]
        return [x, y, x + _HOLDER[0], y + _HOLDER[1]]

    def _star(self, params: dict) -> list[tuple[float, float]]:
        x0, y0, x1, y1 = self._holder_rect(params)
        return _star(((x0 + x1) / 2, (y0 + y1) / 2 + 4), 36, 15)

    def answer(self, params: dict) -> str:
        boxes = [(b["colour"], b["rect"]) for b in params["boxes"]] + [(params["holder"], self._holder_rect(params))]

        def within(inner, outer):
            return outer[0] < inner[0] and outer[1] < inner[1] and inner[2] < outer[2] and inner[3] < outer[3]

        def parent(rect):
            around = [b for b in boxes if b[1] != rect and within(rect, b[1])]
            return min(around, key=lambda b: (b[1][2] - b[1][0]) * (b[1][3] - b[1][1])) if around else None

        xs, ys = zip(*self._star(params))
        node = parent([min(xs), min(ys), max(xs), max(ys)])
        while node is not None:
            if node[0] == params["target"]:
                return "Yes"
            node = parent(node[1])
        return "No"

    def check(self, params: dict) -> str:
        """Independently: shapely's containment of the star's polygon in the big box's."""
        from shapely.geometry import Polygon, box

        target = next(b for b in params["boxes"] if b["colour"] == params["target"])
        return "Yes" if box(*target["rect"]).contains(Polygon(self._star(params))) else "No"

    def _draw_box(self, draw, rect, rgb) -> None:
        draw.rectangle(rect, fill=_tint(rgb, 0.82), outline=rgb, width=6)

    def render(self, params: dict) -> list:
        rng = random.Random(params["seed"])
        image, draw = canvas(rng.choice([(250, 250, 248), (246, 248, 252), (252, 248, 242)]))
        for b in params["boxes"]:
            rgb = _COLOURS[b["colour"]]
            self._draw_box(draw, b["rect"], rgb)
            if b["holds"]:
                x0, y0, x1, y1 = b["rect"]
                centre, rad = ((x0 + x1) / 2, (y0 + y1) / 2), 30
                fill = _shade(rgb, 0.75)
                if b["holds"] == "circle":
                    draw.ellipse([centre[0] - rad, centre[1] - rad, centre[0] + rad, centre[1] + rad], fill=fill)
                else:
                    draw.polygon([(centre[0], centre[1] - 1.2 * rad), (centre[0] + 1.1 * rad, centre[1] + 0.8 * rad),
                                  (centre[0] - 1.1 * rad, centre[1] + 0.8 * rad)], fill=fill)
        self._draw_box(draw, self._holder_rect(params), _COLOURS[params["holder"]])
        draw.polygon(self._star(params), fill=(245, 195, 20), outline=(140, 95, 10), width=2)
        return [image]

    def causal_box(self, params: dict) -> tuple[int, int, int, int]:
        x0, y0, x1, y1 = self._holder_rect(params)
        return (math.floor(x0) - 4, math.floor(y0) - 4, math.ceil(x1) + 4, math.ceil(y1) + 4)

    def margin(self, params: dict) -> float:
        from shapely.geometry import box

        target = box(*next(b for b in params["boxes"] if b["colour"] == params["target"])["rect"])
        holder = box(*self._holder_rect(params))
        return holder.distance(target.exterior)

    def feature_px(self, params: dict) -> float:
        return self.margin(params)


FAMILIES = [ClassInclusion(), TransitiveSticks(), NestedBoxes()]
