"""Perceptual constancy: a change in appearance is not a change in physical properties.

* ``bridge-width`` (the paper's Figure 10 / Appendix K pair, size constancy): a straight
  jetty runs out over water marked with a grid of 1 m squares, drawn in exact pinhole
  perspective (camera at height ``eye`` looking level, so the ground plane maps to the
  picture by y = horizon + f * eye / Z, x = cx + f * X / Z). "Does the actual width of
  the bridge stay the same from near to far?" In the control the width is constant in
  the world (it narrows in the picture only); the twin keeps camera, water, grid and
  length and makes the jetty genuinely taper (``taper``, the fraction of width lost at
  the far end).
* ``cube-colours`` (the paper's Figure 2 Rubik's cubes under red and cyan light, colour
  constancy): two identical cubes, each in its own half of the picture lit by a
  coloured lamp; a white card beside each cube shows the light's colour (every pixel is
  reflectance x illuminant). "Are the actual colours of the two cubes the same?" The
  right cube's pixels never change across a pair: they are its reflectance under the
  light ``tint_right``. The twin changes only the light of the right half (wall, floor,
  card, lamp) between ``tint_right`` and ``alt_light``, so the same cube pixels now
  mean other surface colours (the paper's model twin: object pixels identical, answer
  flipped).

Answers come from the parameters (``taper == 0``; whether the right half's light is the
light the cube was drawn under). The checks are independent and read the drawing: the
bridge's drawn corner points are back-projected onto the water plane and the world
widths at the near and far ends compared; the cubes' sticker pixels are divided by the
white card's pixel on each side (von Kries) and the two corrected cubes compared.
"""

from __future__ import annotations

import math
import random

import numpy as np

from cogforge.generators.corecognition import SIZE, Family, canvas

CONCEPT = "perceptualconstancy"

# --------------------------------------------------------------------------- bridge

_F = 420.0  # focal length, px
_GRID_FAR = 24  # m: grid lines across the view stop here (further they blur into one)
_X_FAR = 70  # m: grid lines along the view stop here
_SKIES = [(170, 205, 235), (190, 215, 240), (215, 200, 190)]
_WATERS = [((40, 100, 150), (120, 170, 210)), ((30, 110, 120), (110, 180, 180)), ((50, 80, 140), (130, 150, 200))]
_WOODS = [((150, 105, 60), (95, 65, 35)), ((170, 130, 80), (110, 80, 45)), ((130, 95, 70), (80, 55, 40))]


def _ground(params: dict, x: float, z: float, y: float = 0.0) -> tuple[float, float]:
    """Pinhole projection of the world point (x, y, z): y up from the water, z ahead."""
    return (SIZE[0] / 2 + _F * x / z, params["horizon"] + _F * (params["eye"] - y) / z)


def _near(params: dict) -> float:
    """The depth at which the water meets the picture's bottom edge, a little beyond it."""
    return _F * params["eye"] / (SIZE[1] + 20 - params["horizon"])


def _edges(params: dict, z: float) -> tuple[float, float]:
    """World x of the bridge's left and right edges at depth z."""
    z0, z1 = _near(params), params["far"]
    width = params["width"] * (1 - params["taper"] * (z - z0) / (z1 - z0))
    centre = params["left"] + params["width"] / 2
    return centre - width / 2, centre + width / 2


def _deck(params: dict) -> list[tuple[float, float]]:
    """The deck's outline in the picture: near left, far left, far right, near right."""
    z0, z1 = _near(params), params["far"]
    (a0, b0), (a1, b1) = _edges(params, z0), _edges(params, z1)
    return [_ground(params, a0, z0), _ground(params, a1, z1), _ground(params, b1, z1), _ground(params, b0, z0)]


class BridgeWidth(Family):
    concept = CONCEPT
    name = "bridge-width"
    type = "TF"
    causal_param = "taper"
    min_margin = 0.35  # of the width lost at the far end
    paradigm = "Size constancy under perspective (the paper's bridge pair, Figure 10 and Appendix K)"
    level_cuts = (-0.55, -0.45)
    hardness_doc = "the share of the width lost at the far end in the No item, 0.4 to 0.6: less is harder"

    def sample(self, rng: random.Random, k: int) -> dict:
        width = rng.choice([2, 3, 4])
        # edges on grid lines, none straight ahead of the camera (its posts would stack up)
        left = rng.choice([x for x in range(-6, 4) if x and x + width and abs(x + width / 2) <= 2])
        return {"seed": rng.randrange(10 ** 6), "horizon": rng.choice([130, 145, 160]),
                "eye": rng.choice([2.5, 3.0, 3.5]), "width": width, "left": left,
                "far": rng.choice([18, 21, 24]), "taper": 0.0 if k % 2 == 0 else rng.choice([0.4, 0.5, 0.6])}

    def twin(self, params: dict) -> dict:
        return {**params, "taper": 0.0 if params["taper"] else 0.5}

    def question(self, params: dict) -> str:
        return ("A wooden bridge runs out over water marked with a grid of equal squares. Does the actual width "
                "of the bridge stay the same from near to far?")

    def answer(self, params: dict) -> str:
        return "Yes" if params["taper"] == 0 else "No"

    def check(self, params: dict) -> str:
        """Independently: back-project the drawn deck corners onto the water plane
        (Z = f * eye / (y - horizon), X = (x - cx) * Z / f) and compare the world widths
        of the near and far ends."""
        def world(x: float, y: float) -> tuple[float, float]:
            z = _F * params["eye"] / (y - params["horizon"])
            return (x - SIZE[0] / 2) * z / _F, z

        nl, fl, fr, nr = (world(*q) for q in _deck(params))
        near, far = nr[0] - nl[0], fr[0] - fl[0]
        return "Yes" if abs(far / near - 1) < 0.03 else "No"

    def render(self, params: dict) -> list:
        rng = random.Random(params["seed"])
        sky, (water, line), (wood, dark) = rng.choice(_SKIES), rng.choice(_WATERS), rng.choice(_WOODS)
        image, draw = canvas(sky)
        w, h = SIZE
        hz = params["horizon"]
        draw.rectangle([0, hz, w, h], fill=water)
        hills = [(0, hz)] + [(x, hz - rng.uniform(4, 18)) for x in range(0, w + 40, 40)] + [(w, hz)]
        draw.polygon(hills, fill=tuple(c * 70 // 100 for c in line))
        z0 = _near(params)
        for z in range(math.ceil(z0), _GRID_FAR + 1):
            y = _ground(params, 0, z)[1]
            draw.line([(0, y), (w, y)], fill=line, width=2 if z < 10 else 1)
        for x in range(-40, 41):
            draw.line([_ground(params, x, z0), _ground(params, x, _X_FAR)], fill=line, width=2)
        draw.polygon(_deck(params), fill=wood)
        # planks every half metre, posts and a rail on both edges every 3 m
        z = math.ceil(z0 * 2) / 2
        while z <= params["far"]:
            a, b = _edges(params, z)
            draw.line([_ground(params, a, z), _ground(params, b, z)], fill=dark, width=max(1, round(_F * 0.04 / z)))
            z += 0.5
        posts = [z0 + 0.5 + 3 * i for i in range(int((params["far"] - z0 - 0.5) // 3) + 1)]
        for side in (0, 1):
            tops = []
            for z in posts:
                x = _edges(params, z)[side]
                top = _ground(params, x, z, 1.0)
                draw.line([_ground(params, x, z), top], fill=dark, width=max(2, round(_F * 0.12 / z)))
                tops.append(top)
            draw.line(tops, fill=dark, width=3)
        return [image]

    def causal_box(self, params: dict) -> tuple[int, int, int, int]:
        straight = {**params, "taper": 0.0}  # the widest the deck gets; a taper stays inside
        pts = _deck(straight) + [_ground(straight, x, z, 1.0) for x in _edges(straight, _near(straight))
                                 for z in (_near(straight) + 0.5, params["far"])]
        return (max(0, math.floor(min(p[0] for p in pts)) - 12), max(0, math.floor(min(p[1] for p in pts)) - 12),
                min(SIZE[0], math.ceil(max(p[0] for p in pts)) + 12), SIZE[1])

    def margin(self, params: dict) -> float | None:
        return float(params["taper"]) if params["taper"] else None

    def feature_px(self, params: dict) -> float:
        # how much narrower the far end is drawn when tapered (by the twin's 0.5 if straight)
        return _F * params["width"] * (params["taper"] or 0.5) / params["far"]


# --------------------------------------------------------------------------- colour constancy

LIGHTS = {  # the illuminant's colour, max channel 1
    "red": (1.0, 0.55, 0.5), "orange": (1.0, 0.75, 0.45), "yellow": (1.0, 0.95, 0.5), "green": (0.6, 1.0, 0.6),
    "cyan": (0.5, 0.9, 1.0), "blue": (0.6, 0.7, 1.0), "magenta": (1.0, 0.6, 0.95), "white": (1.0, 1.0, 1.0),
}
_STICKERS = [(0.92, 0.92, 0.92), (0.95, 0.85, 0.1), (0.8, 0.1, 0.1), (0.95, 0.45, 0.05), (0.1, 0.25, 0.75),
             (0.1, 0.6, 0.25)]  # white, yellow, red, orange, blue, green (reflectances)
_SHADE = {"front": 1.0, "top": 0.85, "side": 0.62}
_CARD = 0.95  # the white card's reflectance
_PANEL = 300  # px, each half's width
_STICK = 34  # px, a sticker's side
_GAP = 5  # px of black plastic between stickers
_CUBE = 3 * _STICK + 4 * _GAP
_CUBE_DEPTH = 0.45 * _CUBE  # px the top and right faces recede (up and to the right)


def _reflectances(params: dict) -> list[tuple[float, float, float]]:
    """The 27 stickers' reflectances (front, top, side faces, 9 each)."""
    s = params["scale"]
    return [tuple(s * c for c in _STICKERS[i]) for i in params["stickers"]]


def _pixel(reflectance, light, shade: float) -> tuple[int, int, int]:
    return tuple(round(255 * r * l * shade) for r, l in zip(reflectance, light))


def _panel_origin(side: int) -> int:
    return 10 + side * (_PANEL + 20)


def _cube_at(params: dict, side: int) -> tuple[float, float]:
    """Top-left corner of the cube's front face."""
    return _panel_origin(side) + params["cube_x"], params["cube_y"]


def _card_box(params: dict, side: int) -> tuple[float, float, float, float]:
    x = _panel_origin(side) + params["card_x"]
    bottom = params["cube_y"] + _CUBE
    return (x, bottom - 84, x + 60, bottom)


class CubeColours(Family):
    concept = CONCEPT
    name = "cube-colours"
    type = "TF"
    causal_param = "light_right"
    min_margin = 0.15  # reflectance units: the largest change of a front sticker's channel
    paradigm = "Colour constancy under coloured illuminants (the paper's Rubik's-cube item, Figure 2)"
    level_cuts = (-0.39, -0.34)
    hardness_doc = "the largest change of a front sticker's channel in the No item: smaller is harder"

    def sample(self, rng: random.Random, k: int) -> dict:
        names = sorted(LIGHTS)
        while True:
            left = rng.choice(names)
            # the same light on both sides in some Yes items (identical pixels) and in some No
            # items (different pixels), so "same card colours" predicts nothing by itself
            tint = left if rng.random() < 0.3 else rng.choice([n for n in names if n != left])
            alt = left if tint != left and rng.random() < 0.35 else rng.choice([n for n in names if n != tint])
            ratio = [p / a for p, a in zip(LIGHTS[tint], LIGHTS[alt])]
            if max(abs(r - 1) for r in ratio) < 0.3 or max(ratio) > 1.45:
                continue  # too alike to tell apart, or the cube would have to be dark to stay physical
            stickers = [rng.randrange(len(_STICKERS)) for _ in range(27)]
            # every surface physically possible under either light: reflectance <= 0.95
            top = max(_STICKERS[i][c] * max(1.0, ratio[c]) for i in stickers for c in range(3))
            params = {"seed": rng.randrange(10 ** 6), "stickers": stickers, "scale": round(min(1.0, 0.95 / top), 3),
                      "light_left": left, "tint_right": tint, "alt_light": alt,
                      "cube_x": rng.choice([96, 104, 112]), "cube_y": rng.choice([220, 240, 260]),
                      "card_x": rng.choice([14, 22]), "light_right": tint if k % 2 == 0 else alt}
            if self._change({**params, "light_right": alt}) >= 0.2:
                return params

    def twin(self, params: dict) -> dict:
        tint, alt = params["tint_right"], params["alt_light"]
        return {**params, "light_right": alt if params["light_right"] == tint else tint}

    def question(self, params: dict) -> str:
        return ("Each cube is lit by the lamp above it, and the card next to each cube is plain white paper. "
                "Are the actual colours of the two cubes the same?")

    def answer(self, params: dict) -> str:
        return "Yes" if params["light_right"] == params["tint_right"] else "No"

    def _change(self, params: dict) -> float:
        """The largest difference, over front stickers and channels, between the right
        cube's actual reflectance (its pixels over its light) and the left cube's."""
        tint, light = LIGHTS[params["tint_right"]], LIGHTS[params["light_right"]]
        return max(abs(r[c] * tint[c] / light[c] - r[c]) for r in _reflectances(params)[:9] for c in range(3))

    def check(self, params: dict) -> str:
        """Independently, von Kries: read the drawn front stickers and white card on each
        side, divide each sticker by its side's card, and compare the two cubes."""
        pixels = np.asarray(self.render(params)[0], dtype=float)
        corrected = []
        for side in (0, 1):
            x0, y0, x1, y1 = _card_box(params, side)
            card = pixels[round((y0 + y1) / 2), round((x0 + x1) / 2)]
            cx, cy = _cube_at(params, side)
            stickers = [pixels[round(cy + _GAP + j * (_STICK + _GAP) + _STICK / 2),
                               round(cx + _GAP + i * (_STICK + _GAP) + _STICK / 2)] for j in range(3) for i in range(3)]
            corrected.append(np.array(stickers) / card)
        return "Yes" if np.max(np.abs(corrected[0] - corrected[1])) < 0.05 else "No"

    def render(self, params: dict) -> list:
        image, draw = canvas((40, 40, 44))
        h = SIZE[1]
        refl = _reflectances(params)
        for side in (0, 1):
            light = LIGHTS[params["light_left"] if side == 0 else params["light_right"]]
            x0 = _panel_origin(side)
            floor = params["cube_y"] + _CUBE - 40
            draw.rectangle([x0, 10, x0 + _PANEL - 1, floor], fill=_pixel((0.72,) * 3, light, 1.0))
            draw.rectangle([x0, floor, x0 + _PANEL - 1, h - 11], fill=_pixel((0.5,) * 3, light, 1.0))
            # the lamp: a dark shade and its bulb, which glows in the light's colour
            lx = x0 + _PANEL / 2
            draw.line([(lx, 10), (lx, 40)], fill=(30, 30, 30), width=3)
            draw.ellipse([lx - 16, 52, lx + 16, 84], fill=tuple(round(255 * c) for c in light))
            draw.polygon([(lx - 34, 72), (lx - 16, 38), (lx + 16, 38), (lx + 34, 72)], fill=(45, 45, 50))
            draw.rectangle(_card_box(params, side), fill=_pixel((_CARD,) * 3, light, 1.0))
            # the cube's pixels: the left cube under its light, the right cube always under tint_right
            tint = light if side == 0 else LIGHTS[params["tint_right"]]
            self._cube(draw, _cube_at(params, side), refl, tint)
        return [image]

    def _cube(self, draw, corner: tuple[float, float], refl: list, light) -> None:
        """A 3x3x3 cube in oblique view: front face, top face and right face."""
        cx, cy, c, d = *corner, _CUBE, _CUBE_DEPTH

        def top(s: float, t: float) -> tuple[float, float]:  # s along the front edge, t from front (0) to back (1)
            return cx + s + t * d, cy - t * d

        def right(s: float, t: float) -> tuple[float, float]:  # s down the front edge, t from front to back
            return cx + c + t * d, cy + s - t * d

        body = _pixel((0.06,) * 3, light, 1.0)
        draw.polygon([top(0, 0), top(c, 0), top(c, 1), top(0, 1)], fill=body)
        draw.polygon([right(0, 0), right(c, 0), right(c, 1), right(0, 1)], fill=body)
        draw.rectangle([cx, cy, cx + c - 1, cy + c - 1], fill=body)
        step = _STICK + _GAP
        for j in range(3):
            for i in range(3):
                x, y = cx + _GAP + i * step, cy + _GAP + j * step
                draw.rectangle([x, y, x + _STICK - 1, y + _STICK - 1],
                               fill=_pixel(refl[3 * j + i], light, _SHADE["front"]))
                s0, s1 = _GAP + i * step, _GAP + i * step + _STICK  # top face: column i, row j from the front
                t0, t1 = (j + 0.12) / 3, (j + 0.88) / 3
                draw.polygon([top(s0, t0), top(s1, t0), top(s1, t1), top(s0, t1)],
                             fill=_pixel(refl[9 + 3 * j + i], light, _SHADE["top"]))
                s0, s1 = _GAP + j * step, _GAP + j * step + _STICK  # right face: row j, column i from the front
                t0, t1 = (i + 0.12) / 3, (i + 0.88) / 3
                draw.polygon([right(s0, t0), right(s1, t0), right(s1, t1), right(s0, t1)],
                             fill=_pixel(refl[18 + 3 * j + i], light, _SHADE["side"]))

    def causal_box(self, params: dict) -> tuple[int, int, int, int]:
        x0 = _panel_origin(1)
        return (x0, 0, x0 + _PANEL, SIZE[1])

    def margin(self, params: dict) -> float | None:
        return None if self.answer(params) == "Yes" else self._change(params)

    def feature_px(self, params: dict) -> float:
        return float(_STICK)


FAMILIES = [BridgeWidth(), CubeColours()]
