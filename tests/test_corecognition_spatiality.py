"""Hand-worked items of the spatiality families: each answer formula and its independent
check on fixed parameters whose answers were worked out by hand, and the twin's flip."""

from __future__ import annotations

import math

import pytest

from cogforge.generators.corecognition import spatiality as s


def test_ray_cast_on_a_square():
    square = [(0, 0), (10, 0), (10, 10), (0, 10)]
    assert s._ray_cast_inside(5, 5, square) and not s._ray_cast_inside(15, 5, square)
    assert not s._ray_cast_inside(5, -1, square)


def test_dot_in_a_capsule_and_below_it():
    family = s.InsideClosedCurve()
    # the path from (200, 240) to (440, 240) buffered by 40 px: a capsule spanning y 200..280
    params = {"seed": 3, "path": [[200, 240], [440, 240]], "half_width": 40, "spots": [[320, 240], [320, 320]],
              "at": 0}
    assert family.answer(params) == family.check(params) == "Yes"
    assert family.margin(params) == pytest.approx(40, abs=0.5)  # to the long sides
    outside = family.twin(params)
    assert outside["at"] == 1 and family.answer(outside) == family.check(outside) == "No"
    assert family.margin(outside) == pytest.approx(40, abs=0.5)  # 320 - 280


def test_a_raised_row_is_off_the_board_lattice():
    family = s.SurfaceLevels()
    params = {"seed": 2, "tile": 40, "nx": 6, "nz": 5, "across": True, "start": 2, "size": 1, "ox": 100, "oy": 350,
              "height": 30}
    # a tile corner one step right and one step back: 40 px right, then 40 * 0.9 along 55 degrees
    x, y = family._project(params, 1, 0, 1)
    assert (x, y) == pytest.approx((140 + 36 * math.cos(math.radians(55)), 350 - 36 * math.sin(math.radians(55))))
    assert family.answer(params) == family.check(params) == "No"
    flat = family.twin(params)
    assert flat["height"] == 0 and family.answer(flat) == family.check(flat) == "Yes"
