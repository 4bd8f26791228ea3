"""Hand-worked items of the perceptual-constancy families: each answer formula and its
independent check on fixed parameters whose answers were worked out by hand, and the
twin's flip."""

from __future__ import annotations

import pytest

from cogforge.generators.corecognition import perceptualconstancy as pc


def test_bridge_projection_and_taper():
    family = pc.BridgeWidth()
    params = {"seed": 5, "horizon": 140, "eye": 3.0, "width": 3, "left": -2, "far": 20, "taper": 0.0}
    # near end at z = 420 * 3 / (500 - 140) = 3.5 m: x = 320 - 420 * 2 / 3.5 = 80, y = 140 + 1260 / 3.5 = 500;
    # far end at 20 m: x = 320 - 42 = 278, y = 140 + 63 = 203
    near_left, far_left, _fr, _nr = pc._deck(params)
    assert near_left == pytest.approx((80, 500)) and far_left == pytest.approx((278, 203))
    assert family.answer(params) == family.check(params) == "Yes"
    tapered = family.twin(params)
    # half the width at 20 m, about the same centre (-0.5 m): the far left edge at -1.25 m
    assert tapered["taper"] == 0.5
    assert pc._deck(tapered)[1] == pytest.approx((320 - 420 * 1.25 / 20, 203))
    assert family.answer(tapered) == family.check(tapered) == "No"


def test_cube_colours_von_kries_by_hand():
    family = pc.CubeColours()
    # all white stickers (0.92) scaled by 0.45: reflectance 0.414 in every channel
    params = {"seed": 1, "stickers": [0] * 27, "scale": 0.45, "light_left": "red", "tint_right": "cyan",
              "alt_light": "red", "cube_x": 100, "cube_y": 240, "card_x": 14, "light_right": "cyan"}
    pixels = family.render(params)[0]

    def sticker(side: int) -> tuple:  # the top-left front sticker's centre: 5 px of plastic, then 17 px in
        return pixels.getpixel((pc._cube_at(params, side)[0] + 22, 240 + 22))

    def card(side: int) -> tuple:  # the card stands on the cube's base line (240 + 122), 84 px tall
        return pixels.getpixel((pc._panel_origin(side) + 14 + 30, 362 - 42))

    # red light (1, .55, .5): sticker 255 * 0.414 * light, card 255 * 0.95 * light
    assert sticker(0) == (106, 58, 53) and card(0) == (242, 133, 121)
    # the right cube is drawn under cyan (.5, .9, 1) and so is its half: 53/121 = 106/242, as on the left
    assert sticker(1) == (53, 95, 106) and card(1) == (121, 218, 242)
    assert family.answer(params) == family.check(params) == "Yes"
    twin = family.twin(params)
    # same cube pixels, but now the right card is red: 53/242 vs 106/242, a different surface
    assert twin["light_right"] == "red"
    assert family.render(twin)[0].getpixel((pc._cube_at(params, 1)[0] + 22, 262)) == (53, 95, 106)
    assert family.answer(twin) == family.check(twin) == "No"
    assert family.margin(twin) == pytest.approx(0.414 * (1.0 / 0.5 - 1))  # the blue channel doubles
