"""Continuity families worked by hand: the pieces of a line behind bars and a rod behind a
screen, their answers and their twins."""

from __future__ import annotations

import pytest

from cogforge.generators.corecognition.continuity import LineBehindBars, RodBehindScreen, _segments


def test_line_behind_bars_pieces_and_answers():
    family = LineBehindBars()
    params = {"seed": 1, "bars": [200, 400], "bar_width": 80, "y0": 240, "slope": 0.1, "thickness": 8,
              "shifted": 1, "shift": 0.0}
    # visible pieces: 0-160, 240-360 and 440-640, all on y = 240 + x / 10
    assert _segments(params) == [((0.0, 240.0), (160.0, 256.0)), ((240.0, 264.0), (360.0, 276.0)),
                                 ((440.0, 284.0), (640.0, 304.0))]
    assert family.answer(params) == family.check(params) == "Yes"
    moved = {**params, "shift": 40.0}  # the middle piece 40 px below the line
    assert _segments(moved)[1] == ((240.0, 304.0), (360.0, 316.0))
    assert family.answer(moved) == family.check(moved) == "No"
    assert family.twin(params)["shift"] == 40.0 and family.twin(moved)["shift"] == 0.0  # seed odd: 5 x 8 down
    assert family.margin(moved) == 40.0 and family.margin(params) is None


@pytest.mark.parametrize("tilt, answer", [(0, "Yes"), (20, "No"), (-15, "No")])
def test_rod_behind_screen(tilt, answer):
    family = RodBehindScreen()
    params = {"seed": 2, "angle": 10, "screen": 160, "rod": 20, "tilt": tilt}
    assert family.answer(params) == family.check(params) == answer
    (p0, p1), (q0, q1) = family._parts(params)
    assert p1[0] < 320 < q0[0] and q0[0] - p1[0] < 160  # both inner ends hidden behind the screen (240-400)
    assert family.twin(params)["tilt"] == (0 if tilt else -20)  # seed even: tilt down
