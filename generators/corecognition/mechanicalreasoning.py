"""Mechanical Reasoning: inferring what a machine does from how it is built.

* ``gear-chain``: a row of meshing gears with drawn teeth; the orange gear at one end
  carries a curved arrow, the blue gear sits at the other end. Which way does the blue
  gear turn? Each mesh reverses the sense of rotation, so with n gears in the row the
  blue gear turns the driver's way times (-1)^(n-1). One gap in the row (``span``, the
  same width in both items) is bridged either by one big idler or by two small idlers
  of half its radius (``idlers``, the causal parameter): the twin swaps one for the
  other, which adds or removes one gear, flips the answer and leaves every other
  pixel alone. The check rebuilds the mesh graph from the drawn centres and radii
  (two gears mesh when their centre distance equals the sum of their radii) and
  propagates the sense of rotation through it, failing on a jam.
* ``lever-balance``: identical blocks stacked on a bar over a fulcrum, at whole
  numbers of marked steps from it. Which side goes down (Left, Right, Neither)? The
  answer is the sign of m1 d1 - m2 d2, unbalanced items by at least 20% of the larger
  moment, balanced ones exactly. The twin moves the right-hand stack (``d2``). Pair
  types (balanced/left, left/right, right/balanced) are taken in turn, so each option
  is right for a third of the items; half of the controls put the heavier stack nearer
  the fulcrum so "more blocks goes down" is not a shortcut. The check sums the torque
  of every drawn block about the drawn fulcrum, block by block, in pixels.
* ``belt-drive``: two wheels joined by a belt, open or crossed (``crossed``, the
  causal parameter); the orange wheel turns the way its arrow points. Which way does
  the blue wheel turn? An open belt keeps the sense of rotation, a crossed one
  reverses it. The check builds the belt's two straight runs as tangent segments from
  the drawn circles, moves the driver's rim point along its run and reads the driven
  wheel's sense from the cross product at the other end.
"""

from __future__ import annotations

import math
import random

from cogforge.generators.corecognition import SIZE, Family, canvas

CONCEPT = "mechanicalreasoning"
_TURN = ["Clockwise", "Counter-clockwise"]
_ORANGE, _BLUE, _GREY = (240, 150, 50), (60, 120, 220), (165, 168, 176)
_DARK = (45, 45, 50)


def _curved_arrow(draw, cx: float, cy: float, radius: float, clockwise: bool, start: int = 150, end: int = 400,
                  colour=_DARK, width: int = 5):
    """An arc around (cx, cy) from ``start`` to ``end`` (Pillow's degrees, clockwise
    from 3 o'clock) with an arrowhead at the end it turns towards."""
    draw.arc([cx - radius, cy - radius, cx + radius, cy + radius], start, end, fill=colour, width=width)
    tip_deg = end if clockwise else start
    t = math.radians(tip_deg)
    px, py = cx + radius * math.cos(t), cy + radius * math.sin(t)
    tx, ty = (-math.sin(t), math.cos(t)) if clockwise else (math.sin(t), -math.cos(t))
    nx, ny = math.cos(t), math.sin(t)
    head = min(18.0, max(9.0, radius * 0.45))
    draw.polygon([(px + tx * head, py + ty * head), (px + nx * head * 0.6, py + ny * head * 0.6),
                  (px - nx * head * 0.6, py - ny * head * 0.6)], fill=colour)


# --------------------------------------------------------------------------- gear chain

_PITCH = 15.0  # px of pitch circle per tooth, the same for every gear so they mesh
_ADD = 4.5  # tooth half-height around the pitch circle
_CY = 240


def _radius(teeth: int) -> float:
    return teeth * _PITCH / (2 * math.pi)


def _next_phase(phase: float, r: float, r_next: float) -> float:
    """Phase (math angle of a tooth, y up) of the gear meshing on the right of a gear
    with ``phase`` and radius ``r``: its teeth sit half a pitch from the first gear's
    along the common tangent at the contact point."""
    u = (r * phase) % _PITCH
    return math.pi - (u + _PITCH / 2) / r_next


def _gears(params: dict) -> list[dict]:
    """The drawn gears, left to right before mirroring: centre, radius, teeth, phase,
    role (driver, last, idler, gear). The driver's tooth sits a quarter pitch from its
    contact, so along a straight row every gear does, and the gears after the span have
    the same phase with one big idler or two small ones (so the twin leaves them alone)."""
    teeth, span, small = params["teeth"], params["span"], params["idler_teeth"]
    r_small = _radius(small)
    fixed = [_radius(n) for n in teeth]
    width = sum(2 * r for r in fixed) + 4 * r_small
    x = SIZE[0] / 2 - width / 2 + fixed[0]
    phase = (_PITCH / 4) / fixed[0] + 2 * math.pi * (params["seed"] % teeth[0]) / teeth[0]
    out = []
    for i, (n, r) in enumerate(zip(teeth, fixed)):
        out.append({"x": x, "r": r, "teeth": n, "phase": phase,
                    "role": "driver" if i == 0 else "last" if i == len(teeth) - 1 else "gear"})
        if i == len(teeth) - 1:
            break
        if i == span:
            idlers = [2 * small] if params["idlers"] == 1 else [small, small]
            ix, iphase, prev_r = x, phase, r
            for m in idlers:  # the real idlers, meshed from gear i
                ir = _radius(m)
                iphase = _next_phase(iphase, prev_r, ir)
                ix += prev_r + ir
                out.append({"x": ix, "r": ir, "teeth": m, "phase": iphase, "role": "idler"})
                prev_r = ir
            for _ in range(2):  # the gears after the span: always through two small idlers
                phase, r = _next_phase(phase, r, r_small), r_small
        phase = _next_phase(phase, r, fixed[i + 1])
        x += r + fixed[i + 1] if i != span else fixed[i] + 4 * r_small + fixed[i + 1]
    if params["flip"]:  # the mirror image: x -> w - x, angle -> pi - angle
        out = [{**g, "x": SIZE[0] - g["x"], "phase": math.pi - g["phase"]} for g in out]
    return out


def _gear_polygon(g: dict) -> list[tuple[float, float]]:
    pts, step = [], 2 * math.pi / g["teeth"]
    for k in range(g["teeth"]):
        a = g["phase"] + k * step
        for rad, off in ((g["r"] - _ADD, -0.27), (g["r"] + _ADD, -0.14), (g["r"] + _ADD, 0.14),
                         (g["r"] - _ADD, 0.27)):
            pts.append((g["x"] + rad * math.cos(a + off * step), _CY - rad * math.sin(a + off * step)))
    return pts


class GearChain(Family):
    concept = CONCEPT
    name = "gear-chain"
    type = "MC"
    causal_param = "idlers"
    min_margin = 0.0
    paradigm = "Gear-train direction problems (Hegarty 2004; Schwartz & Black 1996)"
    level_cuts = (3.0, 4.0)
    hardness_doc = "gears in the chain besides the idlers, 2 to 4: a longer chain is harder"

    def hardness(self, control: dict, twin: dict) -> float:
        return float(len(control["teeth"]))

    def sample(self, rng: random.Random, k: int) -> dict:
        while True:
            m = rng.randint(2, 4)
            teeth = [rng.choice([18, 20, 22, 24])] + [rng.choice([12, 14, 16, 18, 20, 24]) for _ in range(m - 1)]
            small = rng.choice([10, 12])
            width = sum(2 * _radius(n) for n in teeth) + 4 * _radius(small) + 2 * _ADD
            if width <= SIZE[0] - 40:
                break
        idlers = rng.choice([1, 2])
        n = m + idlers
        want = _TURN[k % 2]
        # the blue gear turns the driver's way when n is odd
        spin = want if n % 2 == 1 else _TURN[1 - _TURN.index(want)]
        return {"seed": rng.randrange(10 ** 6), "teeth": teeth, "span": rng.randrange(m - 1),
                "idler_teeth": small, "idlers": idlers, "spin": spin, "flip": rng.random() < 0.5}

    def twin(self, params: dict) -> dict:
        return {**params, "idlers": 3 - params["idlers"]}

    def question(self, params: dict) -> str:
        return "The orange gear turns in the direction of its arrow. Which way does the blue gear turn?"

    def options(self, params: dict) -> list[str]:
        return list(_TURN)

    def answer(self, params: dict) -> str:
        n = len(params["teeth"]) + params["idlers"]
        same = (n - 1) % 2 == 0
        return params["spin"] if same else _TURN[1 - _TURN.index(params["spin"])]

    def check(self, params: dict) -> str:
        """Independently: mesh graph of the drawn gears (touching pitch circles mesh,
        overlapping ones jam), the driver's sense propagated breadth-first with a sign
        flip at each mesh."""
        gears = _gears(params)
        edges = {i: [] for i in range(len(gears))}
        for i, a in enumerate(gears):
            for j, b in enumerate(gears[:i]):
                d = abs(a["x"] - b["x"])
                if abs(d - (a["r"] + b["r"])) < 0.5:
                    edges[i].append(j)
                    edges[j].append(i)
                elif d < a["r"] + b["r"] + 2 * _ADD:
                    raise ValueError(f"gears {j} and {i} overlap without meshing: {params}")
        start = next(i for i, g in enumerate(gears) if g["role"] == "driver")
        sense, queue = {start: 1 if params["spin"] == "Clockwise" else -1}, [start]
        while queue:
            i = queue.pop(0)
            for j in edges[i]:
                if j not in sense:
                    sense[j] = -sense[i]
                    queue.append(j)
                elif sense[j] == sense[i]:
                    raise ValueError(f"the gear train jams (an odd loop): {params}")
        last = next(i for i, g in enumerate(gears) if g["role"] == "last")
        return "Clockwise" if sense[last] == 1 else "Counter-clockwise"

    def render(self, params: dict) -> list:
        rng = random.Random(params["seed"])
        image, draw = canvas((246, 246, 242))
        grey = rng.choice([_GREY, (176, 170, 160), (160, 172, 168)])
        gears = _gears(params)
        for g in gears:
            fill = {"driver": _ORANGE, "last": _BLUE}.get(g["role"], grey)
            draw.polygon(_gear_polygon(g), fill=fill, outline=_DARK, width=2)
            inner = g["r"] - _ADD - 5
            draw.ellipse([g["x"] - inner, _CY - inner, g["x"] + inner, _CY + inner],
                         outline=tuple(max(0, c - 40) for c in fill), width=2)
            draw.ellipse([g["x"] - 5, _CY - 5, g["x"] + 5, _CY + 5], fill=_DARK)
        driver = next(g for g in gears if g["role"] == "driver")
        _curved_arrow(draw, driver["x"], _CY, driver["r"] * 0.55, params["spin"] == "Clockwise")
        return [image]

    def causal_box(self, params: dict) -> tuple[int, int, int, int]:
        fixed = [g for g in _gears(params) if g["role"] != "idler"]
        a, b = sorted((fixed[params["span"]], fixed[params["span"] + 1]), key=lambda g: g["x"])
        reach = 2 * _radius(params["idler_teeth"]) + _ADD + 3
        return (math.floor(a["x"] + a["r"] - _ADD - 3), math.floor(_CY - reach),
                math.ceil(b["x"] - b["r"] + _ADD + 3), math.ceil(_CY + reach))

    def margin(self, params: dict) -> float | None:
        return None  # a count of meshes: exact

    def feature_px(self, params: dict) -> float:
        return 2 * _radius(params["idler_teeth"])  # the smallest gear, whose presence is counted


# --------------------------------------------------------------------------- lever

_UNIT = 40  # px between the marks on the bar
_FULCRUM_X, _BAR_Y = 320, 300  # bar top
_BLOCK_W, _BLOCK_H = 30, 24
_LEVER_OPTIONS = ["Left", "Right", "Neither: it stays level"]
_MIN_RATIO = 0.2


def _side(m1: int, d1: int, m2: int, d2: int) -> str:
    left, right = m1 * d1, m2 * d2
    return "Left" if left > right else "Right" if right > left else _LEVER_OPTIONS[2]


def _clear(m1, d1, m2, d2) -> bool:
    left, right = m1 * d1, m2 * d2
    return left == right or abs(left - right) >= _MIN_RATIO * max(left, right)


class LeverBalance(Family):
    concept = CONCEPT
    name = "lever-balance"
    type = "MC"
    causal_param = "d2"
    min_margin = _MIN_RATIO  # relative difference of the two moments
    paradigm = "Balance-scale task (Inhelder & Piaget 1958; Siegler 1976)"
    level_cuts = (-0.45, -0.3)
    hardness_doc = "the relative difference of the two moments: smaller is harder"

    def sample(self, rng: random.Random, k: int) -> dict:
        control, twin = [("Neither: it stays level", "Left"), ("Left", "Right"),
                         ("Right", "Neither: it stays level")][k % 3]
        conflict = rng.random() < 0.5  # the heavier stack nearer the fulcrum
        combos = []
        for m1 in range(1, 6):
            for d1 in range(1, 7):
                for m2 in range(1, 6):
                    for d2 in range(1, 7):
                        if (m1, d1) == (m2, d2) or not _clear(m1, d1, m2, d2) or _side(m1, d1, m2, d2) != control:
                            continue
                        if conflict and (m1 - m2) * (d1 - d2) >= 0:
                            continue
                        aways = [a for a in range(1, 7) if a != d2 and _clear(m1, d1, m2, a)
                                 and _side(m1, d1, m2, a) == twin]
                        if aways:
                            combos.append((m1, d1, m2, d2, aways))
        m1, d1, m2, d2, aways = rng.choice(combos)
        return {"seed": rng.randrange(10 ** 6), "m1": m1, "d1": d1, "m2": m2, "d2": d2, "away": rng.choice(aways)}

    def twin(self, params: dict) -> dict:
        return {**params, "d2": params["away"]}

    def question(self, params: dict) -> str:
        return ("All the blocks weigh the same, and the bar on its own is balanced on the triangle. "
                "When the bar is let go, which side goes down?")

    def options(self, params: dict) -> list[str]:
        return list(_LEVER_OPTIONS)

    def answer(self, params: dict) -> str:
        return _side(params["m1"], params["d1"], params["m2"], params["d2"])

    def _blocks(self, params: dict) -> list[tuple[int, int, int, int]]:
        out = []
        for count, dist, sign in ((params["m1"], params["d1"], -1), (params["m2"], params["d2"], 1)):
            x = _FULCRUM_X + sign * dist * _UNIT
            for i in range(count):
                out.append((x - _BLOCK_W // 2, _BAR_Y - (i + 1) * _BLOCK_H, x + _BLOCK_W // 2, _BAR_Y - i * _BLOCK_H))
        return out

    def check(self, params: dict) -> str:
        """Independently: the torque of every drawn block (unit weight at its centre)
        about the drawn fulcrum, summed in pixels; positive turns the bar clockwise,
        i.e. the right side down."""
        torque = sum((x0 + x1) / 2 - _FULCRUM_X for x0, _y0, x1, _y1 in self._blocks(params))
        return "Right" if torque > 0 else "Left" if torque < 0 else _LEVER_OPTIONS[2]

    def render(self, params: dict) -> list:
        rng = random.Random(params["seed"])
        image, draw = canvas((244, 246, 250))
        w, h = SIZE
        draw.rectangle([0, 420, w, h], fill=(200, 196, 186))
        draw.line([(0, 420), (w, 420)], fill=(120, 116, 108), width=2)
        draw.polygon([(_FULCRUM_X, _BAR_Y + 12), (_FULCRUM_X - 50, 420), (_FULCRUM_X + 50, 420)], fill=(90, 90, 96))
        bar = rng.choice([(170, 120, 70), (140, 140, 150), (120, 90, 60)])
        half = 6 * _UNIT + 25
        draw.rectangle([_FULCRUM_X - half, _BAR_Y, _FULCRUM_X + half, _BAR_Y + 12], fill=bar, outline=_DARK, width=2)
        for i in range(-6, 7):
            x = _FULCRUM_X + i * _UNIT
            draw.line([(x, _BAR_Y + 2), (x, _BAR_Y + 11)], fill=(255, 255, 255) if i else _DARK, width=2)
        colour = rng.choice([(200, 70, 60), (60, 110, 200), (60, 150, 90), (150, 80, 170)])
        for box in self._blocks(params):
            draw.rectangle(box, fill=colour, outline=_DARK, width=2)
        return [image]

    def causal_box(self, params: dict) -> tuple[int, int, int, int]:
        x = _FULCRUM_X + params["d2"] * _UNIT
        return (x - _BLOCK_W // 2 - 2, _BAR_Y - params["m2"] * _BLOCK_H - 2, x + _BLOCK_W // 2 + 2, _BAR_Y + 1)

    def margin(self, params: dict) -> float | None:
        left, right = params["m1"] * params["d1"], params["m2"] * params["d2"]
        return None if left == right else abs(left - right) / max(left, right)

    def feature_px(self, params: dict) -> float:
        return min(_UNIT, _BLOCK_H)  # one step along the bar, one block in a stack


# --------------------------------------------------------------------------- belt drive

_BELT = (70, 60, 55)


def _wheels(params: dict) -> list[tuple[float, float, float]]:
    """(x, y, r) of the driver and the driven wheel."""
    cx, d = SIZE[0] / 2, params["distance"]
    left, right = (cx - d / 2, 235, params["r_driver"]), (cx + d / 2, 235, params["r_driven"])
    return [right, left] if params["flip"] else [left, right]


def _runs(params: dict) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    """The belt's two straight runs, each from a tangent point on the driver to one on
    the driven wheel: outer tangents for an open belt, inner (crossing) ones for a crossed belt."""
    (x1, y1, r1), (x2, y2, r2) = _wheels(params)
    dx, dy = x2 - x1, y2 - y1
    d = math.hypot(dx, dy)
    base = math.atan2(dy, dx)
    out = []
    for sign in (1, -1):
        if params["crossed"]:
            a = base + sign * math.acos((r1 + r2) / d)
            p = (x1 + r1 * math.cos(a), y1 + r1 * math.sin(a))
            q = (x2 - r2 * math.cos(a), y2 - r2 * math.sin(a))
        else:
            a = base + sign * math.acos((r1 - r2) / d)
            p = (x1 + r1 * math.cos(a), y1 + r1 * math.sin(a))
            q = (x2 + r2 * math.cos(a), y2 + r2 * math.sin(a))
        out.append((p, q))
    return out


class BeltDrive(Family):
    concept = CONCEPT
    name = "belt-drive"
    type = "MC"
    causal_param = "crossed"
    min_margin = 0.0
    paradigm = "Belt and pulley systems (Hegarty 1992, mental animation)"
    level_cuts = (-218.0, -180.0)
    hardness_doc = "the gap between the two pulleys (px): smaller is harder (a shorter crossing)"

    def hardness(self, control: dict, twin: dict) -> float:
        return -(control["distance"] - control["r_driver"] - control["r_driven"])

    def sample(self, rng: random.Random, k: int) -> dict:
        crossed = rng.random() < 0.5
        want = _TURN[k % 2]
        spin = _TURN[1 - _TURN.index(want)] if crossed else want
        return {"seed": rng.randrange(10 ** 6), "r_driver": rng.randrange(48, 86, 2),
                "r_driven": rng.randrange(48, 86, 2), "distance": rng.randrange(280, 381, 10),
                "crossed": crossed, "spin": spin, "flip": rng.random() < 0.5}

    def twin(self, params: dict) -> dict:
        return {**params, "crossed": not params["crossed"]}

    def question(self, params: dict) -> str:
        return "The orange wheel turns in the direction of its arrow and drives the belt. Which way does the blue " \
               "wheel turn?"

    def options(self, params: dict) -> list[str]:
        return list(_TURN)

    def answer(self, params: dict) -> str:
        return _TURN[1 - _TURN.index(params["spin"])] if params["crossed"] else params["spin"]

    def check(self, params: dict) -> str:
        """Independently: on the run that leaves the driver, the belt moves like the
        driver's rim at the tangent point (v = w x r, image y down so clockwise is a
        positive z); the driven wheel's rim at the run's other end moves the same way,
        and the sign of r x v there is its sense."""
        (x1, y1, _r1), (x2, y2, _r2) = _wheels(params)
        w = 1 if params["spin"] == "Clockwise" else -1
        for p, q in _runs(params):
            rx, ry = p[0] - x1, p[1] - y1
            v = (-w * ry, w * rx)  # rim velocity of the driver at p
            run = (q[0] - p[0], q[1] - p[1])
            if v[0] * run[0] + v[1] * run[1] > 0:  # this run leaves the driver towards q
                sx, sy = q[0] - x2, q[1] - y2
                return "Clockwise" if sx * v[1] - sy * v[0] > 0 else "Counter-clockwise"
        raise ValueError(f"no belt run leaves the driver: {params}")

    def render(self, params: dict) -> list:
        rng = random.Random(params["seed"])
        image, draw = canvas((246, 244, 240))
        base = rng.choice([(120, 120, 128), (130, 115, 100)])
        (x1, y1, r1), (x2, y2, r2) = _wheels(params)
        for x, y, r in ((x1, y1, r1), (x2, y2, r2)):  # stands behind the wheels
            draw.polygon([(x, y), (x - 30, 430), (x + 30, 430)], fill=base)
        draw.rectangle([0, 430, SIZE[0], SIZE[1]], fill=(205, 200, 190))
        for (x, y, r), fill in (((x1, y1, r1), _ORANGE), ((x2, y2, r2), _BLUE)):
            draw.ellipse([x - r - 6, y - r - 6, x + r + 6, y + r + 6], fill=_BELT)  # the belt around the rim
            draw.ellipse([x - r, y - r, x + r, y + r], fill=fill, outline=_DARK, width=2)
            for i in range(6):  # spokes
                a = math.radians(i * 60 + 15)
                draw.line([(x, y), (x + (r - 8) * math.cos(a), y + (r - 8) * math.sin(a))],
                          fill=tuple(max(0, c - 50) for c in fill), width=3)
            draw.ellipse([x - 7, y - 7, x + 7, y + 7], fill=_DARK)
        for p, q in _runs(params):
            draw.line([p, q], fill=_BELT, width=8)
        away = (90, 270) if x1 < x2 else (270, 450)  # on the side away from the belt
        _curved_arrow(draw, x1, y1, r1 + 24, params["spin"] == "Clockwise", *away)
        return [image]

    def causal_box(self, params: dict) -> tuple[int, int, int, int]:
        pts = [pt for run in _runs(params) for pt in run]
        return (math.floor(min(p[0] for p in pts)) - 6, math.floor(min(p[1] for p in pts)) - 6,
                math.ceil(max(p[0] for p in pts)) + 6, math.ceil(max(p[1] for p in pts)) + 6)

    def margin(self, params: dict) -> float | None:
        return None  # open or crossed: exact

    def feature_px(self, params: dict) -> float:
        return 8.0  # the belt's width, whose crossing decides


FAMILIES = [GearChain(), LeverBalance(), BeltDrive()]
