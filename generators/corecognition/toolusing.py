"""Tool Using: choosing an object by what its shape affords for a goal.

* ``stick-reach``: a person on a bank holds out a hand; a ball lies across a water
  gap at the hand's height. Three sticks (labelled 1, 2, 3) lie below on the same
  unit grid, each starting under the hand. Which is the shortest stick that can still
  reach the ball? The answer is the shortest stick whose length is at least the
  distance from the hand to the ball's near side, and the item keeps every stick at
  least half a grid unit (20 px) from touching or missing. The twin moves the ball
  (``reach``, in half units) so that a different stick is the shortest that reaches;
  the label of the control's answer cycles with the pair index, so each option is the
  answer of a third of the controls. The check places each drawn stick as a shapely
  LineString held out from the hand and asks which intersect the drawn ball.
* ``leaky-cup``: three cups, drawn cut in half so their walls show; two have a hole
  through a wall or the bottom. Which cup can hold water? The twin moves the intact
  cup (``intact``): the cup that was whole gets its hole and another loses its own.
  The check builds each cup's wall with shapely (outer shape minus cavity minus hole)
  and asks whether the cavity below the rim is sealed off from the outside.
"""

from __future__ import annotations

import math
import random

from cogforge.generators.corecognition import SIZE, Family, canvas, font

CONCEPT = "toolusing"
_DARK = (45, 45, 50)

# --------------------------------------------------------------------------- stick reach

_UNIT = 40  # px of the grid
_GRIP = (100, 200)  # the hand
_BANK_X, _FAR_X = 112, 178  # the water gap between the near bank and the far table
_BALL_R = 16
_STICK_Y = (345, 390, 435)
_STICK_OPTIONS = ["Stick 1", "Stick 2", "Stick 3"]
_STICK_COLOURS = [(170, 110, 60), (120, 85, 50), (190, 140, 80), (140, 100, 70)]


def _intervals(lengths_sorted: list[int]) -> list[tuple[int, int]]:
    """For each rank, the reaches (in half units) for which that stick is the shortest
    one reaching, half a unit from either length and clear of the water gap."""
    lower = [4] + [2 * n + 1 for n in lengths_sorted[:-1]]
    return [(lo, 2 * n - 1) for lo, n in zip(lower, lengths_sorted)]


class StickReach(Family):
    concept = CONCEPT
    name = "stick-reach"
    type = "MC"
    causal_param = "reach"
    min_margin = _UNIT / 2  # px between a stick's tip and the ball's near side
    paradigm = "Tool choice by length (Köhler 1925 sticks; Visalberghi & Trinca 1989)"
    level_cuts = (-60.0, -40.0)
    hardness_doc = ("the nearest tip's distance to the ball (px) plus 10 px per grid unit between the two most "
                    "alike sticks: smaller is harder")

    def hardness(self, control: dict, twin: dict) -> float:
        lengths = sorted(control["lengths"])
        alike = min(b - a for a, b in zip(lengths, lengths[1:]))
        return -(min(self.margin(control), self.margin(twin)) + 10 * alike)

    def sample(self, rng: random.Random, k: int) -> dict:
        while True:
            lengths = sorted(rng.sample(range(3, 13), 3))
            if min(b - a for a, b in zip(lengths, lengths[1:])) >= 2:
                break
        spans = _intervals(lengths)
        rank, other = rng.sample(range(3), 2)
        # stick label (k % 3) holds the control's answer, the others are shuffled
        rest = [r for r in range(3) if r != rank]
        rng.shuffle(rest)
        order = rest[: k % 3] + [rank] + rest[k % 3:]  # order[label] = rank of that stick
        return {"seed": rng.randrange(10 ** 6), "lengths": [lengths[r] for r in order],
                "reach": rng.randint(*spans[rank]), "away": rng.randint(*spans[other])}

    def twin(self, params: dict) -> dict:
        return {**params, "reach": params["away"]}

    def question(self, params: dict) -> str:
        return ("The sticks are drawn to the same scale as the scene, each starting under the hand. If the person "
                "holds a stick straight out, which is the shortest stick that can still reach the ball?")

    def options(self, params: dict) -> list[str]:
        return list(_STICK_OPTIONS)

    def answer(self, params: dict) -> str:
        need = params["reach"] / 2  # units from the hand to the ball's near side
        fits = [(n, i) for i, n in enumerate(params["lengths"]) if n >= need]
        return _STICK_OPTIONS[min(fits)[1]]

    def _ball(self, params: dict) -> tuple[float, float]:
        return (_GRIP[0] + params["reach"] * _UNIT / 2 + _BALL_R, _GRIP[1])

    def check(self, params: dict) -> str:
        """Independently: each drawn stick as a shapely LineString held straight out
        from the hand; which intersect the drawn ball's disc; the shortest of those."""
        from shapely.geometry import LineString, Point

        ball = Point(self._ball(params)).buffer(_BALL_R)
        reaching = []
        for i, n in enumerate(params["lengths"]):
            stick = LineString([_GRIP, (_GRIP[0] + n * _UNIT, _GRIP[1])])
            if stick.intersects(ball):
                reaching.append((stick.length, i))
        return _STICK_OPTIONS[min(reaching)[1]]

    def render(self, params: dict) -> list:
        rng = random.Random(params["seed"])
        image, draw = canvas((240, 246, 252))
        w, h = SIZE
        for i in range(-2, 14):  # the unit grid, whole picture
            x = _GRIP[0] + i * _UNIT
            draw.line([(x, 30), (x, h - 10)], fill=(214, 220, 230) if i else (180, 190, 205), width=1)
        ground = rng.choice([(120, 170, 90), (150, 160, 90)])
        draw.rectangle([0, 270, _BANK_X, 305], fill=ground)  # near bank
        draw.rectangle([_BANK_X, 282, _FAR_X, 305], fill=(90, 150, 220))  # water
        draw.rectangle([_FAR_X, _GRIP[1] + _BALL_R, w, 305], fill=(180, 140, 100), outline=_DARK, width=2)  # table
        # the person: legs, body, head, arm to the hand
        skin = rng.choice([(240, 200, 170), (200, 150, 110), (150, 105, 75)])
        shirt = rng.choice([(200, 70, 70), (70, 110, 190), (90, 150, 90)])
        draw.line([(50, 230), (38, 270)], fill=_DARK, width=5)
        draw.line([(50, 230), (62, 270)], fill=_DARK, width=5)
        draw.rounded_rectangle([38, 170, 62, 234], radius=8, fill=shirt)
        draw.ellipse([36, 136, 64, 164], fill=skin, outline=_DARK, width=2)
        draw.line([(58, 182), _GRIP], fill=shirt, width=7)
        draw.ellipse([_GRIP[0] - 7, _GRIP[1] - 7, _GRIP[0] + 7, _GRIP[1] + 7], fill=skin, outline=_DARK, width=2)
        # the ball on the far table
        bx, by = self._ball(params)
        draw.ellipse([bx - _BALL_R, by - _BALL_R, bx + _BALL_R, by + _BALL_R], fill=(230, 60, 60),
                     outline=_DARK, width=2)
        draw.ellipse([bx - 8, by - 10, bx - 2, by - 4], fill=(250, 170, 170))
        # the tool board
        draw.line([(0, 318), (w, 318)], fill=(150, 150, 160), width=2)
        colours = rng.sample(_STICK_COLOURS, 3)
        for i, (n, y) in enumerate(zip(params["lengths"], _STICK_Y)):
            draw.rounded_rectangle([_GRIP[0], y - 6, _GRIP[0] + n * _UNIT, y + 6], radius=5, fill=colours[i],
                                   outline=_DARK, width=2)
            draw.text((_GRIP[0] - 22, y), str(i + 1), font=font(22, bold=True), fill=_DARK, anchor="mm")
        return [image]

    def causal_box(self, params: dict) -> tuple[int, int, int, int]:
        bx, by = self._ball(params)
        return (math.floor(bx - _BALL_R) - 2, math.floor(by - _BALL_R) - 2, math.ceil(bx + _BALL_R) + 2,
                math.ceil(by + _BALL_R) + 2)

    def margin(self, params: dict) -> float:
        need = params["reach"] * _UNIT / 2
        return min(abs(n * _UNIT - need) for n in params["lengths"])

    def feature_px(self, params: dict) -> float:
        return self.margin(params)


# --------------------------------------------------------------------------- leaky cup

_TABLE_Y = 380
_CUP_X = (140, 320, 500)
_WALL = 10
_CUP_OPTIONS = ["The left cup", "The middle cup", "The right cup"]
_CUP_COLOURS = [(90, 140, 200), (210, 120, 80), (120, 170, 110), (190, 160, 70), (160, 110, 180)]


def _lerp(a, b, t):
    return a + (b - a) * t


def _cup_shapes(params: dict, i: int) -> dict:
    """Outer outline, cavity and hole (None when cup ``i`` is the intact one), as point
    lists in image coordinates; the cavity reaches the rim, so the cup is open at the top."""
    cup, hole = params["cups"][i], params["holes"][i]
    cx, bottom, top = _CUP_X[i], _TABLE_Y, _TABLE_Y - cup["height"]
    wb, wt = cup["w_bottom"] / 2, cup["w_top"] / 2
    outer = [(cx - wt, top), (cx + wt, top), (cx + wb, bottom), (cx - wb, bottom)]
    slope = (wt - wb) / cup["height"]  # how far the wall leans out per px of height
    inner = [(cx - wt + _WALL, top), (cx + wt - _WALL, top), (cx + wb + slope * _WALL - _WALL, bottom - _WALL),
             (cx - wb - slope * _WALL + _WALL, bottom - _WALL)]  # walls _WALL px thick across
    cut, faces = None, []
    if i != params["intact"]:
        size = hole["size"]
        if hole["wall"] == "bottom":
            x = _lerp(inner[3][0] + 4, inner[2][0] - 4 - size, hole["at"])
            cut = [(x, bottom - _WALL - 1), (x + size, bottom - _WALL - 1), (x + size, bottom + 1), (x, bottom + 1)]
            faces = [[(x, bottom - _WALL), (x, bottom)], [(x + size, bottom - _WALL), (x + size, bottom)]]
        else:
            y = _lerp(bottom - _WALL - size, top + cup["height"] * 0.45, hole["at"])  # lower half of the wall

            def edge(y_, side, inset):
                half = _lerp(wb, wt, (bottom - y_) / cup["height"]) - inset
                return cx + side * half

            side = -1 if hole["wall"] == "left" else 1
            cut = [(edge(y, side, -1), y), (edge(y, side, _WALL + 2), y), (edge(y + size, side, _WALL + 2), y + size),
                   (edge(y + size, side, -1), y + size)]
            faces = [[(edge(yy, side, 0), yy), (edge(yy, side, _WALL), yy)] for yy in (y, y + size)]
    return {"outer": outer, "inner": inner, "hole": cut, "faces": faces, "top": top, "bottom": bottom}


class LeakyCup(Family):
    concept = CONCEPT
    name = "leaky-cup"
    type = "MC"
    causal_param = "intact"
    min_margin = 12.0  # px, the smallest hole
    paradigm = "Container affordance: choosing an intact container (Gibson 1979; Hauser 1997 functional features)"
    level_cuts = (-15.0, -13.0)
    hardness_doc = "the smallest hole (px): smaller is harder"

    def sample(self, rng: random.Random, k: int) -> dict:
        cups = []
        for _ in range(3):
            w_bottom = rng.randrange(70, 111, 4)
            cups.append({"w_bottom": w_bottom, "w_top": w_bottom + rng.randrange(0, 41, 4),
                         "height": rng.randrange(110, 181, 5)})
        holes = [{"wall": rng.choice(["left", "right", "left", "right", "bottom"]), "at": round(rng.random(), 3),
                  "size": rng.randrange(12, 21, 2)} for _ in range(3)]
        intact = k % 3
        return {"seed": rng.randrange(10 ** 6), "cups": cups, "holes": holes, "intact": intact,
                "away": (intact + 1 + (k // 3) % 2) % 3}  # twins' answers cycle too

    def twin(self, params: dict) -> dict:
        return {**params, "intact": params["away"]}

    def question(self, params: dict) -> str:
        return "The cups are drawn cut in half so that their walls show. Which cup can hold water without leaking?"

    def options(self, params: dict) -> list[str]:
        return list(_CUP_OPTIONS)

    def answer(self, params: dict) -> str:
        return _CUP_OPTIONS[params["intact"]]

    def check(self, params: dict) -> str:
        """Independently: per cup, wall = outer shape - cavity - hole (shapely); below
        the rim, the free space that holds a point inside the cavity must not also hold
        a point outside the cup. Exactly one cup must be sealed."""
        from shapely.geometry import Point, Polygon, box

        sealed = []
        for i in range(3):
            s = _cup_shapes(params, i)
            (ax, _ay), (bx, _by) = s["inner"][0], s["inner"][1]
            cavity = Polygon([(ax, s["top"] - 20), (bx, s["top"] - 20)] + s["inner"][1:] + [s["inner"][0]])
            wall = Polygon(s["outer"]).difference(cavity)
            if s["hole"]:
                wall = wall.difference(Polygon(s["hole"]))
            xs = [p[0] for p in s["outer"]]
            free = box(min(xs) - 15, s["top"] + 2, max(xs) + 15, s["bottom"] + 15).difference(wall)
            inside = Point(_CUP_X[i], s["bottom"] - _WALL - 4)
            outside = Point(min(xs) - 8, (s["top"] + s["bottom"]) / 2)
            parts = getattr(free, "geoms", [free])
            piece = next(p for p in parts if p.contains(inside))
            if not piece.contains(outside):
                sealed.append(i)
        if len(sealed) != 1:
            raise ValueError(f"{len(sealed)} sealed cups, not one: {params}")
        return _CUP_OPTIONS[sealed[0]]

    def render(self, params: dict) -> list:
        rng = random.Random(params["seed"])
        back = (246, 244, 238)
        image, draw = canvas(back)
        w, h = SIZE
        draw.rectangle([0, _TABLE_Y, w, h], fill=(170, 130, 95))
        draw.line([(0, _TABLE_Y), (w, _TABLE_Y)], fill=(110, 80, 55), width=2)
        colours = rng.sample(_CUP_COLOURS, 3)
        for i in range(3):
            s = _cup_shapes(params, i)
            draw.polygon(s["outer"], fill=colours[i], outline=_DARK, width=2)
            draw.polygon(s["inner"], fill=back, outline=_DARK, width=2)
            if s["hole"]:  # the opening, then its two cut faces across the wall
                draw.polygon(s["hole"], fill=back)
                for face in s["faces"]:
                    draw.line(face, fill=_DARK, width=2)
        return [image]

    def causal_box(self, params: dict) -> tuple[int, int, int, int]:
        i = params["intact"]
        s = _cup_shapes(params, i)
        xs = [p[0] for p in s["outer"]]
        return (math.floor(min(xs)) - 4, s["top"] - 3, math.ceil(max(xs)) + 4, s["bottom"] + 3)

    def margin(self, params: dict) -> float:
        return min(hole["size"] for i, hole in enumerate(params["holes"]) if i != params["intact"])

    def feature_px(self, params: dict) -> float:
        return self.margin(params)


FAMILIES = [StickReach(), LeakyCup()]
