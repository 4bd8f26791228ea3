"""Intuitive Physics: expectations about support, gravity and falling.

* ``tipping-stacks`` (the paper's Figure 2 "which of the two systems tips over"): two
  stacks of 2 to 4 blocks stand side by side on a table, drawn side-on; which of them
  will tip over (Left, Right, Both, Neither)? A stack stands iff, at every level, the
  centre of mass of the blocks above (that level's block included) lies over the
  contact interval with the block below; the item's margin is the smallest distance,
  over all levels of both stacks, of such a centre of mass from an edge of its contact
  interval (at least 10 px either side; the level that decides is 18 px or more
  away). The twin shifts ONE block (and whatever
  rests on it) sideways by ``shift`` pixels so that its stack changes from standing to
  falling or back. The four pair types (Neither/Left, Left/Both, Both/Right,
  Right/Neither) are taken in turn, so each option is the answer of a quarter of the
  controls and a quarter of the twins. The check drops the drawn blocks into a pymunk
  space (fixed step, fixed iteration count) and calls a stack fallen when a block
  moves or turns.
* ``drop-time`` (the paper's Figure 10 pair): a big and a small ball rest on little
  shelves at drawn heights; if both are released at once, which lands first (air
  resistance ignored)? The answer comes from t = sqrt(2h/g) for each ball's fall
  height (floor to the bottom of the ball): ball size plays no part. The twin changes
  the small ball's height (``h_small``). Pair types (same/big, big/small, small/same)
  are taken in turn, so "they land at the same time", the textbook prior, is the answer
  of only a third of the items. The check integrates both falls numerically (fixed
  step) and compares the landing step counts.
"""

from __future__ import annotations

import math
import random

from cogforge.generators.corecognition import SIZE, Family, canvas

CONCEPT = "intuitivephysics"
_BLOCK_COLOURS = [(214, 96, 77), (244, 165, 80), (236, 204, 90), (120, 180, 110), (90, 150, 210),
                  (150, 120, 200), (200, 120, 160), (110, 190, 190)]
_OUTLINE = (50, 40, 35)

# --------------------------------------------------------------------------- stacks of blocks

_GROUND = 410  # y of the table top
_STACK_X = (165, 475)  # centre of the bottom block of the left and right stacks
_STACK_OPTIONS = ["Left", "Right", "Both", "Neither"]
# pair type k % 4: (control answer, twin answer, the stack whose block moves)
_STACK_PAIRS = [("Neither", "Left", 0), ("Left", "Both", 1), ("Both", "Right", 0), ("Right", "Neither", 1)]
_STABLE_MARGIN, _UNSTABLE_MARGIN, _ANY_MARGIN = 18, 18, 10  # px, see _state_ok
_MIN_OVERLAP = 16  # px of contact between a block and the one it rests on


def _blocks(params: dict, s: int) -> list[tuple[int, int, int]]:
    """Stack ``s`` as drawn: (centre x, width, height) of each block, bottom first."""
    stack = params["stacks"][s]
    moved_stack, moved_block = params["moved"]
    out, cx = [], stack["x"]
    for i, (w, h, dx) in enumerate(stack["blocks"]):
        cx += dx + (params["shift"] if s == moved_stack and i == moved_block else 0)
        out.append((cx, w, h))
    return out


def _level_margins(blocks: list[tuple[int, int, int]]) -> list[float]:
    """For each block resting on another (level j >= 1): the signed distance of the
    centre of mass of blocks j.. from the nearer edge of their contact interval with
    block j - 1 (positive inside, so the stack holds at that level)."""
    out = []
    for j in range(1, len(blocks)):
        above = blocks[j:]
        mass = sum(w * h for _x, w, h in above)
        com = sum(x * w * h for x, w, h in above) / mass
        (x0, w0, _), (x1, w1, _) = blocks[j - 1], blocks[j]
        lo, hi = max(x0 - w0 / 2, x1 - w1 / 2), min(x0 + w0 / 2, x1 + w1 / 2)
        out.append(min(com - lo, hi - com))
    return out


def _stands(blocks) -> bool:
    return min(_level_margins(blocks)) > 0


def _state_ok(blocks, stable: bool, x: int) -> bool:
    """A clear case: every level far from its edge, blocks resting on one another with
    a real contact, the stack inside its half of the picture."""
    margins = _level_margins(blocks)
    if any(abs(m) < _ANY_MARGIN for m in margins):
        return False
    if (min(margins) < _STABLE_MARGIN) if stable else (min(margins) > -_UNSTABLE_MARGIN):
        return False
    for (x0, w0, _), (x1, w1, _) in zip(blocks, blocks[1:]):
        if min(x0 + w0 / 2, x1 + w1 / 2) - max(x0 - w0 / 2, x1 - w1 / 2) < _MIN_OVERLAP:
            return False
    return all(abs(cx - x) + w / 2 <= 148 for cx, w, _h in blocks)


def _draw_stack(rng: random.Random, x: int) -> dict:
    n = rng.randint(2, 4)
    blocks = [[rng.randrange(70, 141, 10), rng.randrange(30, 56, 5), 0]]
    for _ in range(n - 1):
        blocks.append([rng.randrange(40, 121, 10), rng.randrange(30, 56, 5), rng.randint(-45, 45)])
    return {"x": x, "blocks": blocks}


def _absolute(stack: dict, shift_at: int = -1, shift: int = 0) -> list[tuple[int, int, int]]:
    out, cx = [], stack["x"]
    for i, (w, h, dx) in enumerate(stack["blocks"]):
        cx += dx + (shift if i == shift_at else 0)
        out.append((cx, w, h))
    return out


class TippingStacks(Family):
    concept = CONCEPT
    name = "tipping-stacks"
    type = "MC"
    causal_param = "shift"
    min_margin = float(_ANY_MARGIN)  # px between a centre of mass and its support edge
    paradigm = "Support and stability of block towers (Baillargeon 1992; Battaglia et al. 2013); Figure 2"
    level_cuts = (-18.0, -12.5)
    hardness_doc = "a centre of mass's distance to its support's edge (px): smaller is harder"

    def sample(self, rng: random.Random, k: int) -> dict:
        control, _twin, s = _STACK_PAIRS[k % 4]
        stable = [control in ("Neither", "Right"), control in ("Neither", "Left")]  # left, right
        fixed_stable, moved_stable = stable[1 - s], stable[s]
        stacks = [None, None]
        while True:
            stack = _draw_stack(rng, _STACK_X[1 - s])
            if _state_ok(_absolute(stack), fixed_stable, stack["x"]):
                stacks[1 - s] = stack
                break
        while True:
            stack = _draw_stack(rng, _STACK_X[s])
            if not _state_ok(_absolute(stack), moved_stable, stack["x"]):
                continue
            j = rng.randrange(1, len(stack["blocks"]))
            for _ in range(20):
                shift = rng.choice([-1, 1]) * rng.randrange(20, 90, 2)
                if _state_ok(_absolute(stack, j, shift), not moved_stable, stack["x"]):
                    break
            else:
                continue
            stacks[s] = stack
            break
        # the control stands as listed (shift 0); the twin moves block j, and what rests on
        # it, by `away` pixels
        return {"seed": rng.randrange(10 ** 6), "stacks": stacks, "moved": [s, j], "shift": 0, "away": shift}

    def twin(self, params: dict) -> dict:
        return {**params, "shift": 0 if params["shift"] else params["away"]}

    def question(self, params: dict) -> str:
        return "Which of the two stacks of blocks will tip over?"

    def options(self, params: dict) -> list[str]:
        return list(_STACK_OPTIONS)

    def answer(self, params: dict) -> str:
        left, right = (_stands(_blocks(params, s)) for s in (0, 1))
        return {(True, True): "Neither", (False, True): "Left", (True, False): "Right", (False, False): "Both"}[
            (left, right)]

    def check(self, params: dict) -> str:
        """Independently: put the drawn blocks of each stack into a pymunk space on a
        static floor and let gravity act for 0.6 s (fixed step and iteration count, so
        deterministic); a stack has tipped if any block moved more than 6 px or turned
        more than 0.1 rad."""
        import pymunk

        fell = []
        for s in (0, 1):
            space = pymunk.Space()
            space.gravity = (0, 980)  # image coordinates: y grows downwards
            space.iterations = 30
            floor = pymunk.Segment(space.static_body, (-2000, _GROUND), (2000, _GROUND), 0)
            floor.friction = 1.0
            space.add(floor)
            bodies, y = [], _GROUND
            for cx, w, h in _blocks(params, s):
                mass = w * h / 1000
                body = pymunk.Body(mass, pymunk.moment_for_box(mass, (w, h)))
                body.position = (cx, y - h / 2)
                shape = pymunk.Poly.create_box(body, (w, h))
                shape.friction, shape.elasticity = 1.0, 0.0
                space.add(body, shape)
                bodies.append((body, body.position))
                y -= h
            for _ in range(144):
                space.step(1 / 240)
            fell.append(any((b.position - p).length > 6 or abs(b.angle) > 0.1 for b, p in bodies))
        return {(False, False): "Neither", (True, False): "Left", (False, True): "Right", (True, True): "Both"}[
            tuple(fell)]

    def render(self, params: dict) -> list:
        rng = random.Random(params["seed"])
        image, draw = canvas((236, 240, 246))
        w, h = SIZE
        draw.rectangle([0, _GROUND, w, h], fill=(176, 140, 104))
        draw.line([(0, _GROUND), (w, _GROUND)], fill=(110, 80, 55), width=3)
        for x in range(rng.randrange(0, 40), w, 40):  # wood grain of the table, decoration
            draw.line([(x, _GROUND + 8), (x + 25, h)], fill=(166, 130, 96), width=2)
        colours = rng.sample(_BLOCK_COLOURS, 8)
        for s in (0, 1):
            y = _GROUND
            for i, (cx, bw, bh) in enumerate(_blocks(params, s)):
                colour = colours[4 * s + i]
                draw.rectangle([cx - bw // 2, y - bh, cx - bw // 2 + bw, y], fill=colour, outline=_OUTLINE, width=2)
                y -= bh
        return [image]

    def causal_box(self, params: dict) -> tuple[int, int, int, int]:
        s, j = params["moved"]
        blocks = _blocks(params, s)
        top = _GROUND - sum(bh for _x, _w, bh in blocks)
        bottom = _GROUND - sum(bh for _x, _w, bh in blocks[:j])
        x0 = min(cx - bw // 2 for cx, bw, _ in blocks[j:])
        x1 = max(cx - bw // 2 + bw for cx, bw, _ in blocks[j:])
        return (x0 - 3, top - 3, x1 + 3, bottom + 3)

    def margin(self, params: dict) -> float:
        return min(abs(m) for s in (0, 1) for m in _level_margins(_blocks(params, s)))

    def feature_px(self, params: dict) -> float:
        return self.margin(params)


# --------------------------------------------------------------------------- drop time

_FLOOR = 440
_GRID = 20  # px between the background's height lines; fall heights are multiples of it
_MIN_GAP = 80  # px between two different fall heights (15% of the picture's height is 72)
_DROP_OPTIONS = ["The big ball", "The small ball", "They land at the same time"]
_G = 980.0  # px / s^2


class DropTime(Family):
    concept = CONCEPT
    name = "drop-time"
    type = "MC"
    causal_param = "h_small"
    min_margin = float(_MIN_GAP)  # px between the two fall heights
    paradigm = "Galileo's falling bodies (the paper's Figure 10 ball-drop pair); gravity expectations"
    level_cuts = (-110.0, -90.0)
    hardness_doc = "the difference of the fall heights (px): smaller is harder"

    def sample(self, rng: random.Random, k: int) -> dict:
        r_big, r_small = rng.randrange(38, 49, 2), rng.randrange(14, 21, 2)
        heights = range(80, 301, _GRID)  # the big ball's top stays below y = 40
        pair = k % 3
        while True:
            h_big = rng.choice(heights)
            higher = [h for h in heights if h >= h_big + _MIN_GAP and h + 2 * r_small <= 380]
            lower = [h for h in heights if h <= h_big - _MIN_GAP]
            if pair == 0 and higher:  # same height, twin: the small ball higher (big lands first)
                h_small, away = h_big, rng.choice(higher)
            elif pair == 1 and higher and lower:  # big first, twin: small first
                h_small, away = rng.choice(higher), rng.choice(lower)
            elif pair == 2 and lower:  # small first, twin: same height
                h_small, away = rng.choice(lower), h_big
            else:
                continue
            break
        return {"seed": rng.randrange(10 ** 6), "r_big": r_big, "r_small": r_small, "h_big": h_big,
                "h_small": h_small, "away": away, "big_left": rng.random() < 0.5}

    def twin(self, params: dict) -> dict:
        return {**params, "h_small": params["away"]}

    def question(self, params: dict) -> str:
        return ("Each ball rests on a little shelf. If both shelves drop away at the same moment, which "
                "ball reaches the floor first? Ignore air resistance.")

    def options(self, params: dict) -> list[str]:
        return list(_DROP_OPTIONS)

    def answer(self, params: dict) -> str:
        t_big, t_small = (math.sqrt(2 * params[key] / _G) for key in ("h_big", "h_small"))
        if t_big == t_small:
            return _DROP_OPTIONS[2]
        return _DROP_OPTIONS[0] if t_big < t_small else _DROP_OPTIONS[1]

    def check(self, params: dict) -> str:
        """Independently: integrate each fall (semi-implicit Euler, 0.5 ms steps, the
        drawn gap between the ball's bottom and the floor) and compare the step on
        which each ball touches the floor."""
        steps = []
        for key in ("h_big", "h_small"):
            gap, v, n = float(params[key]), 0.0, 0
            while gap > 0:
                v += _G * 0.0005
                gap -= v * 0.0005
                n += 1
            steps.append(n)
        if steps[0] == steps[1]:
            return _DROP_OPTIONS[2]
        return _DROP_OPTIONS[0] if steps[0] < steps[1] else _DROP_OPTIONS[1]

    def _columns(self, params: dict) -> dict:
        """x of the big and the small ball's centres."""
        left, right = 230, 420
        return {"big": left if params["big_left"] else right, "small": right if params["big_left"] else left}

    def _draw_ball(self, draw, x, h, r, colour, pole_side):
        bottom = _FLOOR - h
        pole = x + pole_side * (r + 16)
        shelf = (min(pole, x - r - 4), bottom, max(pole, x + r + 4), bottom + 6)
        draw.rectangle(shelf, fill=(90, 90, 96))
        draw.ellipse([x - r, bottom - 2 * r, x + r, bottom], fill=colour, outline=(40, 40, 40), width=2)
        hl = r // 3
        draw.ellipse([x - r // 2 - hl // 2, bottom - 1.5 * r - hl // 2, x - r // 2 + hl // 2,
                      bottom - 1.5 * r + hl // 2], fill=tuple(min(255, c + 90) for c in colour))

    def render(self, params: dict) -> list:
        rng = random.Random(params["seed"])
        image, draw = canvas((248, 248, 244))
        w, h = SIZE
        for y in range(_FLOOR - _GRID, 20, -_GRID):
            draw.line([(0, y), (w, y)], fill=(222, 224, 230), width=1)
        draw.rectangle([0, _FLOOR, w, h], fill=(150, 150, 158))
        draw.line([(0, _FLOOR), (w, _FLOOR)], fill=(70, 70, 76), width=3)
        colours = rng.sample([(210, 50, 50), (40, 110, 210), (40, 150, 80), (230, 150, 30), (150, 70, 180)], 2)
        cols = self._columns(params)
        for name, side in (("big", -1 if params["big_left"] else 1), ("small", 1 if params["big_left"] else -1)):
            pole = cols[name] + side * (params[f"r_{name}"] + 16)
            draw.rectangle([pole - 4, 24, pole + 4, _FLOOR], fill=(120, 120, 128))
        self._draw_ball(draw, cols["big"], params["h_big"], params["r_big"], colours[0], -1 if params["big_left"]
                        else 1)
        self._draw_ball(draw, cols["small"], params["h_small"], params["r_small"], colours[1],
                        1 if params["big_left"] else -1)
        return [image]

    def causal_box(self, params: dict) -> tuple[int, int, int, int]:
        x, r = self._columns(params)["small"], params["r_small"]
        bottom = _FLOOR - params["h_small"]
        return (x - r - 30, bottom - 2 * r - 3, x + r + 30, bottom + 8)

    def margin(self, params: dict) -> float | None:
        gap = abs(params["h_big"] - params["h_small"])
        return gap or None

    def feature_px(self, params: dict) -> float:
        return abs(params["h_big"] - params["h_small"]) or _MIN_GAP


FAMILIES = [TippingStacks(), DropTime()]
