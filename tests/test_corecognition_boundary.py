"""Hand-worked items of the boundary families: each answer formula and its independent
check on fixed parameters whose answers were worked out by hand, and the twin's flip."""

from __future__ import annotations

import pytest

from cogforge.generators.corecognition import boundary as b

# a square of half side 0.9 * 110 = 99 px at the frame's centre, lines turned by 90 degrees inside
SQUARE = {"seed": 1, "angle": 0, "cx": 320, "cy": 240, "r": 110, "turn": 0, "shape": "Square", "delta": 90}


def test_texture_hidden_shape_counts_the_lines_inside_the_square():
    family = b.TextureHiddenShape()
    # 198 x 198 px at one line per 15 x 15 px: about 174 lines run across the others
    _pts, odd = b._odd_elements(SQUARE)
    assert 150 <= odd.sum() <= 200
    assert family.answer(SQUARE) == family.check(SQUARE) == "Yes"
    flat = family.twin(SQUARE)
    assert flat["delta"] == 0 and b._odd_elements(flat)[1].sum() == 0
    assert family.answer(flat) == family.check(flat) == "No"


def test_texture_shape_is_read_from_the_odd_lines():
    family = b.TextureShape()
    triangle = {**SQUARE, "shape": "Triangle"}
    # the triangle's top corner sits 1.3 r above the centre, its base 0.65 r below
    top = b._shape_polygon("Triangle", 320, 240, 110, 0)[0]
    assert top == pytest.approx((320, 240 - 143))
    assert family.answer(triangle) == family.check(triangle) == "Triangle"
    twin = family.twin(triangle)
    assert family.answer(twin) == family.check(twin) == "Circle"


def test_one_or_more_blocks_counts_the_regions_a_seam_cuts():
    family = b.OneOrMoreBlocks()
    # seed 4 is even: with one seam, it is at joint 0, so the blocks group as [0] and [1, 2]
    params = {"seed": 4, "stacked": False, "widths": [120, 120, 120], "heights": [140, 140, 140], "x": 140,
              "y": 380, "count": 2}
    assert b._groups(params) == [[0], [1, 2]]
    assert b._blocks(params)[1] == (260, 240, 380, 380)
    assert family.answer(params) == family.check(params) == "2"
    assert family.answer(family.twin(params)) == family.check(family.twin(params)) == "3"
    merged = {**params, "count": 1}
    assert b._groups(merged) == [[0, 1, 2]] and family.check(merged) == "1"
