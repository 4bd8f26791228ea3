"""Hand-worked items of the tool-using families: the shortest stick that still reaches,
and the one cup without a hole."""

from __future__ import annotations

from cogforge.generators.corecognition.toolusing import LeakyCup, StickReach


def test_the_shortest_stick_longer_than_the_distance_is_the_answer():
    family = StickReach()
    # sticks 1, 2, 3 are 4, 9 and 6 units; the ball's near side 5.5 units (11 half units)
    # from the hand: sticks 2 and 3 reach, 3 is the shorter
    control = {"seed": 3, "lengths": [4, 9, 6], "reach": 11, "away": 15}
    twin = family.twin(control)
    assert family.answer(control) == family.check(control) == "Stick 3"
    assert family.answer(twin) == family.check(twin) == "Stick 2"  # 7.5 units: only the 9 reaches
    near = {**control, "reach": 5}  # 2.5 units: all three reach, 1 is the shortest
    assert family.answer(near) == family.check(near) == "Stick 1"
    assert family.margin(control) == 20  # 6 units = 240 px against 220 px


def test_only_the_cup_without_a_hole_holds_water():
    family = LeakyCup()
    cups = [{"w_bottom": 90, "w_top": 120, "height": 150}] * 3
    holes = [{"wall": "left", "at": 0.5, "size": 16}, {"wall": "bottom", "at": 0.5, "size": 14},
             {"wall": "right", "at": 0.0, "size": 12}]
    control = {"seed": 8, "cups": cups, "holes": holes, "intact": 1, "away": 2}
    twin = family.twin(control)
    assert family.answer(control) == family.check(control) == "The middle cup"
    # the middle cup now has its bottom hole, the right cup loses its side hole
    assert family.answer(twin) == family.check(twin) == "The right cup"
    assert family.margin(control) == 12 and family.margin(twin) == 14
