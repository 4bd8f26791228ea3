"""Permanence: objects do not cease to exist when they are no longer seen.

Both families are frame sequences (Baillargeon-style occlusion events), so the answer
lives in the history, not in the last frame alone.

* ``cover-with-cup`` (the paper's Figure 2 die-and-cup item, made a pair): two toys sit
  side by side on a table and an upside-down cup hangs above them. In frame 2 a hand
  carries one toy off the table; in frame 3 the cup comes down; in frame 4 it rests on
  the table over the place where the toys were. The question asks about one toy by
  colour and shape: "Is there a red ball under the cup in the last frame?". The answer
  is Yes iff the toy asked about is not the one carried away. The twin changes only
  which toy the hand carries away, so both items show a removal and their last frames
  are pixel-identical: only the remembered history decides. The check follows each toy
  along its frame-by-frame trajectory and asks shapely whether the toy's outline lies
  inside the cup's outline in the last frame.
* ``cups-and-ball`` (the paper's Figure 3 prototype, Zewald & Jacobs 2020): three
  identical cups; in frame 1 they are lifted and show the ball under one of them; in
  frames 2 and 3 a pair of curved arrows shows two cups trading places; frame 4 is the
  end. "Which cup is the ball under at the end?" with the options left, middle, right.
  The answer applies the two transpositions to the ball's slot. The twin replaces one
  swap by another pair of cups, which always moves the ball to a different final slot.
  Control answers cycle over the three slots with the pair index and twin answers are
  the next slot, so a fixed guess scores chance. The check instead moves every cup (not
  the ball) along the arrows, finds with shapely which cup covered the ball in frame 1,
  and reads off where that cup ends. Two swaps keep the working-memory load small
  (Minimal Confounding).
"""

from __future__ import annotations

import math
import random

from cogforge.generators.corecognition import SIZE, Family, arrow, canvas, font

CONCEPT = "permanence"

_COLOURS = {"red": (215, 45, 45), "blue": (40, 95, 215), "green": (35, 150, 70),
            "yellow": (240, 195, 20), "purple": (135, 60, 175)}
_SHAPES = ["ball", "star", "block", "triangle"]
_TABLE_Y = 380  # the table top in cover-with-cup
_SKIN, _SKIN_EDGE = (238, 196, 160), (170, 120, 90)
_INK = (40, 40, 60)


# --------------------------------------------------------------------------- drawing helpers


def _arc(p0, p1, control, n=24):
    """Points of the quadratic Bezier curve from p0 to p1 bent towards ``control``."""
    out = []
    for i in range(n + 1):
        t = i / n
        out.append(((1 - t) ** 2 * p0[0] + 2 * (1 - t) * t * control[0] + t ** 2 * p1[0],
                    (1 - t) ** 2 * p0[1] + 2 * (1 - t) * t * control[1] + t ** 2 * p1[1]))
    return out


def _toy_outline(shape: str, x: float, y_bottom: float, s: float) -> list[tuple[float, float]]:
    """The outline of a toy of size s standing on y_bottom, centred on x (a polygon,
    also used by the check)."""
    cy = y_bottom - s / 2
    if shape == "ball":
        return [(x + s / 2 * math.cos(2 * math.pi * i / 32), cy + s / 2 * math.sin(2 * math.pi * i / 32))
                for i in range(32)]
    if shape == "star":
        return [(x + (s / 2 if i % 2 == 0 else s / 4.6) * math.sin(math.pi * i / 5),
                 cy + 2 - (s / 2 if i % 2 == 0 else s / 4.6) * math.cos(math.pi * i / 5)) for i in range(10)]
    if shape == "triangle":
        return [(x, y_bottom - s), (x + s / 2, y_bottom), (x - s / 2, y_bottom)]
    return [(x - s / 2, y_bottom - s), (x + s / 2, y_bottom - s), (x + s / 2, y_bottom), (x - s / 2, y_bottom)]


def _draw_toy(draw, shape: str, colour: str, x: float, y_bottom: float, s: float):
    draw.polygon(_toy_outline(shape, x, y_bottom, s), fill=_COLOURS[colour], outline=(30, 30, 30), width=2)
    if shape == "block":  # a die's pips make the block read as a solid toy
        for dx, dy in ((-0.22, -0.22), (0, 0), (0.22, 0.22)):
            px, py = x + dx * s, y_bottom - s / 2 + dy * s
            draw.ellipse([px - 3.5, py - 3.5, px + 3.5, py + 3.5], fill=(250, 250, 250))


def _cup_outline(x: float, y_bottom: float, w: float, h: float) -> list[tuple[float, float]]:
    """An upside-down cup: the mouth (wide) at the bottom, the base at the top."""
    return [(x - w / 2, y_bottom), (x + w / 2, y_bottom), (x + w * 0.38, y_bottom - h), (x - w * 0.38, y_bottom - h)]


def _draw_cup(draw, x, y_bottom, w, h, colour):
    draw.polygon(_cup_outline(x, y_bottom, w, h), fill=colour, outline=(40, 40, 40), width=3)
    rim = tuple(max(0, c - 45) for c in colour)
    draw.rectangle([x - w / 2 + 2, y_bottom - 14, x + w / 2 - 2, y_bottom - 2], fill=rim)
    shine = tuple(min(255, c + 55) for c in colour)
    draw.line([(x - w * 0.25, y_bottom - h + 14), (x - w * 0.33, y_bottom - 24)], fill=shine, width=6)


def _draw_hand(draw, tip: tuple[float, float], side: int):
    """An arm coming in from the top corner on ``side`` (-1 left, +1 right), its hand
    ending just above ``tip``."""
    x, y = tip
    edge_x = 0 if side < 0 else SIZE[0]
    draw.line([(edge_x, y - 150), (x, y - 22)], fill=_SKIN_EDGE, width=30)
    draw.line([(edge_x, y - 150), (x, y - 22)], fill=_SKIN, width=24)
    draw.ellipse([x - 22, y - 34, x + 22, y + 4], fill=_SKIN, outline=_SKIN_EDGE, width=3)
    for i in (-1, 0, 1):  # fingers gripping the toy
        draw.line([(x + i * 12, y - 4), (x + i * 12, y + 8)], fill=_SKIN_EDGE, width=8)


# --------------------------------------------------------------------------- cover with a cup


class CoverWithCup(Family):
    concept = CONCEPT
    name = "cover-with-cup"
    type = "TF"
    causal_param = "carried"
    frames = 4
    paradigm = "Occlusion by a cover (Baillargeon 1986; the paper's Figure 2 die-and-cup item)"
    level_cuts = (-55.0, -49.0)
    hardness_doc = "the toys' size, 58, 52 or 46 px: smaller is harder"

    def hardness(self, control: dict, twin: dict) -> float:
        return -float(control["size"])

    def sample(self, rng: random.Random, k: int) -> dict:
        shapes = rng.sample(_SHAPES, 2)
        colours = rng.sample(sorted(_COLOURS), 2)
        toys = [{"shape": s, "colour": c} for s, c in zip(shapes, colours)]
        asked = rng.randrange(2)
        # even k: the other toy is carried away (Yes); odd k: the toy asked about (No)
        carried = 1 - asked if k % 2 == 0 else asked
        return {"seed": rng.randrange(10 ** 6), "toys": toys, "asked": asked, "carried": carried,
                "x": rng.randint(270, 370), "size": rng.choice([46, 52, 58])}

    def twin(self, params: dict) -> dict:
        return {**params, "carried": 1 - params["carried"]}

    def question(self, params: dict) -> str:
        toy = params["toys"][params["asked"]]
        return f"Is there a {toy['colour']} {toy['shape']} under the cup in the last frame?"

    def answer(self, params: dict) -> str:
        return "No" if params["carried"] == params["asked"] else "Yes"

    # geometry shared by render and check
    def _layout(self, params: dict) -> dict:
        s = params["size"]
        gap = s + 22  # centre-to-centre distance of the two toys
        xs = [params["x"] - gap / 2, params["x"] + gap / 2]
        cup_w = gap + s + 56
        return {"xs": xs, "s": s, "cup_w": cup_w, "cup_h": round(s * 1.4 + 50),
                "cup_bottom": [_TABLE_Y - s - 120, _TABLE_Y - s - 120, _TABLE_Y - s - 24, _TABLE_Y]}

    def _toy_at(self, params: dict, i: int, frame: int):
        """Where toy i stands in a frame: (x, y_bottom), or None once it has left the scene."""
        lay = self._layout(params)
        if i != params["carried"] or frame == 0:
            return lay["xs"][i], _TABLE_Y
        if frame == 1:  # lifted by the hand and on its way out of the scene
            side = -1 if i == 0 else 1
            return (95 if side < 0 else SIZE[0] - 95), _TABLE_Y - 40
        return None

    def check(self, params: dict) -> str:
        """Independently: follow each toy to the last frame and test containment of its
        outline in the cup's outline with shapely."""
        from shapely.geometry import Polygon

        lay = self._layout(params)
        last = self.frames - 1
        cup = Polygon(_cup_outline(params["x"], lay["cup_bottom"][last], lay["cup_w"], lay["cup_h"]))
        where = self._toy_at(params, params["asked"], last)
        if where is None:
            return "No"
        toy = Polygon(_toy_outline(params["toys"][params["asked"]]["shape"], where[0], where[1], lay["s"]))
        return "Yes" if cup.buffer(1).contains(toy) else "No"

    def render(self, params: dict) -> list:
        rng = random.Random(params["seed"])
        cup_colour = rng.choice([(190, 70, 60), (70, 120, 190), (120, 120, 130), (200, 150, 60)])
        wall = rng.choice([(236, 240, 248), (246, 240, 230), (236, 246, 238)])
        lay = self._layout(params)
        out = []
        for frame in range(self.frames):
            image, draw = canvas(wall)
            draw.rectangle([0, _TABLE_Y, SIZE[0], SIZE[1]], fill=(176, 128, 84))
            draw.line([(0, _TABLE_Y), (SIZE[0], _TABLE_Y)], fill=(120, 84, 50), width=3)
            for i, toy in enumerate(params["toys"]):
                where = self._toy_at(params, i, frame)
                if where is None:
                    continue
                _draw_toy(draw, toy["shape"], toy["colour"], where[0], where[1], lay["s"])
                if frame == 1 and i == params["carried"]:
                    side = -1 if i == 0 else 1
                    _draw_hand(draw, (where[0], where[1] - lay["s"]), side)
                    start = lay["xs"][i]
                    arrow(draw, [(start, _TABLE_Y + 40), (where[0] + side * 60, _TABLE_Y + 40)], _INK, width=6)
            bottom = lay["cup_bottom"][frame]
            _draw_cup(draw, params["x"], bottom, lay["cup_w"], lay["cup_h"], cup_colour)
            if frame == 2:  # the cup is coming down
                top = bottom - lay["cup_h"]
                arrow(draw, [(params["x"], top - 70), (params["x"], top - 14)], _INK, width=6)
            out.append(image)
        return out

    def causal_box(self, params: dict) -> tuple[int, int, int, int]:
        lay = self._layout(params)
        s = lay["s"]
        i = params["carried"]
        other = lay["xs"][1 - i]
        if i == 0:
            x0, x1 = 0, other + s / 2 + 4
        else:
            x0, x1 = other - s / 2 - 4, SIZE[0]
        return (math.floor(x0), _TABLE_Y - s - 40 - 160, math.ceil(x1), _TABLE_Y + 60)

    def margin(self, params: dict) -> float | None:
        return None  # a toy is either carried away or not

    def feature_px(self, params: dict) -> float:
        return params["size"]


# --------------------------------------------------------------------------- cups and ball

_SLOTS = ["left", "middle", "right"]
_PAIRS = [(0, 1), (0, 2), (1, 2)]


def _final_slot(start: int, swaps: list) -> int:
    slot = start
    for a, b in swaps:
        if slot == a:
            slot = b
        elif slot == b:
            slot = a
    return slot


class CupsAndBall(Family):
    concept = CONCEPT
    name = "cups-and-ball"
    type = "MC"
    causal_param = "swaps"
    frames = 4
    paradigm = "Shell game: a ball hidden under one of several cups, then the cups swap (Zewald & Jacobs 2020)"
    level_cuts = (3.0, 4.0)
    hardness_doc = "moves of the ball's cup in the pair's two items, 0 to 4: more is harder to follow"

    def hardness(self, control: dict, twin: dict) -> float:
        moves = 0
        for params in (control, twin):
            slot = params["start"]
            for a, b in params["swaps"]:
                if slot in (a, b):
                    slot, moves = a + b - slot, moves + 1
        return float(moves)

    _TABLE = 330
    _CUP_W, _CUP_H = 104, 112

    def sample(self, rng: random.Random, k: int) -> dict:
        # the control ends on slot k % 3 and its twin on the next slot, so both cycle
        while True:
            params = {"seed": rng.randrange(10 ** 6), "start": rng.randrange(3),
                      "swaps": [list(p) for p in rng.sample(_PAIRS, 2)], "spacing": rng.choice([160, 170, 180])}
            if self._slot(params) == k % 3 and self._slot(self.twin(params)) == (k + 1) % 3:
                return params

    def twin(self, params: dict) -> dict:
        """Replace one swap (the first or the second, by the seed's parity) by another pair
        of cups; avoid repeating the other swap. Any other pair moves the ball elsewhere."""
        swaps = [list(p) for p in params["swaps"]]
        i = params["seed"] % 2
        keep = tuple(swaps[1 - i])
        options = [p for p in _PAIRS if p != tuple(swaps[i]) and p != keep] or \
            [p for p in _PAIRS if p != tuple(swaps[i])]
        swaps[i] = list(options[0])
        return {**params, "swaps": swaps}

    def question(self, params: dict) -> str:
        return ("In frame 1 the three identical cups are lifted to show where the ball is. Then each pair of "
                "arrows shows two cups trading places. Which cup is the ball under in the last frame?")

    def options(self, params: dict) -> list[str]:
        return [f"The {s} cup" for s in _SLOTS]

    def _slot(self, params: dict) -> int:
        return _final_slot(params["start"], params["swaps"])

    def answer(self, params: dict) -> str:
        return self.options(params)[self._slot(params)]

    def _xs(self, params: dict) -> list[float]:
        c, d = SIZE[0] / 2, params["spacing"]
        return [c - d, c, c + d]

    def check(self, params: dict) -> str:
        """Independently: move the cups themselves. Each cup has an identity and an x
        position; a swap exchanges the positions of the two cups standing at the arrows'
        ends. The ball belongs to the cup whose outline (shapely) covers it in frame 1."""
        from shapely.geometry import Point, Polygon

        xs = self._xs(params)
        cup_x = {cup: xs[cup] for cup in range(3)}  # cup identity -> x
        ball = Point(xs[params["start"]], self._TABLE - 20)
        holder = [cup for cup, x in cup_x.items()
                  if Polygon(_cup_outline(x, self._TABLE, self._CUP_W, self._CUP_H)).contains(ball)]
        assert len(holder) == 1
        for a, b in params["swaps"]:
            at_a = next(cup for cup, x in cup_x.items() if abs(x - xs[a]) < 1)
            at_b = next(cup for cup, x in cup_x.items() if abs(x - xs[b]) < 1)
            cup_x[at_a], cup_x[at_b] = xs[b], xs[a]
        end_x = cup_x[holder[0]]
        return self.options(params)[min(range(3), key=lambda s: abs(xs[s] - end_x))]

    def _swap_arrows(self, draw, params: dict, pair, colour):
        xs = self._xs(params)
        a, b = sorted(pair)
        top = self._TABLE - self._CUP_H
        span = xs[b] - xs[a]
        lift = 40 + span * 0.28
        # the cup on the left goes over the top to the right, the one on the right comes back below
        arrow(draw, _arc((xs[a], top - 12), (xs[b], top - 12), ((xs[a] + xs[b]) / 2, top - 12 - 2 * lift)),
               colour, width=6, head=20)
        low = self._TABLE + 26
        arrow(draw, _arc((xs[b], low), (xs[a], low), ((xs[a] + xs[b]) / 2, low + 2 * (30 + span * 0.12))),
               colour, width=6, head=20)

    def render(self, params: dict) -> list:
        rng = random.Random(params["seed"])
        cup_colour = rng.choice([(200, 60, 55), (60, 110, 190), (90, 150, 90), (150, 90, 160)])
        ball_colour = rng.choice([(245, 200, 30), (250, 140, 20), (60, 190, 220)])
        arrow_colour = rng.choice([(30, 30, 30), (20, 60, 140)])
        # a wall tint of its own per pair: a start frame is never byte-identical to another
        # pair's (twins share theirs), so no picture crosses splits
        wall = tuple(c + rng.randint(-8, 0) for c in rng.choice([(240, 240, 246), (246, 242, 234)]))
        xs = self._xs(params)
        captions = ["Start: the ball is under one cup", "Swap 1", "Swap 2", "End"]
        out = []
        for frame in range(self.frames):
            image, draw = canvas(wall)
            draw.rectangle([0, self._TABLE, SIZE[0], SIZE[1]], fill=(150, 170, 150))
            draw.line([(0, self._TABLE), (SIZE[0], self._TABLE)], fill=(90, 110, 90), width=3)
            draw.text((SIZE[0] / 2, 28), captions[frame], font=font(24, bold=True), fill=(50, 50, 50), anchor="mm")
            lifted = 84 if frame == 0 else 0
            if frame == 0:
                bx, r = xs[params["start"]], 20
                draw.ellipse([bx - r, self._TABLE - 2 * r, bx + r, self._TABLE], fill=ball_colour,
                             outline=(40, 40, 40), width=2)
            for x in xs:
                _draw_cup(draw, x, self._TABLE - lifted, self._CUP_W, self._CUP_H, cup_colour)
            if frame in (1, 2):
                self._swap_arrows(draw, params, params["swaps"][frame - 1], arrow_colour)
            out.append(image)
        return out

    def causal_box(self, params: dict) -> tuple[int, int, int, int]:
        xs = self._xs(params)
        return (math.floor(xs[0] - 30), 45, math.ceil(xs[2] + 30), SIZE[1])

    def margin(self, params: dict) -> float | None:
        return None  # a discrete permutation: no boundary to sit near

    def feature_px(self, params: dict) -> float:
        return 20.0  # the arrowheads that tell which cups trade places


FAMILIES = [CoverWithCup(), CupsAndBall()]
