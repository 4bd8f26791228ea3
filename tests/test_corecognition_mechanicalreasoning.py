"""Hand-worked items of the mechanical-reasoning families: gears that alternate along a
row, a balance beam's moments, and a belt that keeps or reverses the sense of turning."""

from __future__ import annotations

from cogforge.generators.corecognition.mechanicalreasoning import BeltDrive, GearChain, LeverBalance


def test_each_gear_in_a_row_turns_against_its_neighbour():
    family = GearChain()
    # driver (20 teeth), a 16-tooth gear, the blue 12-tooth gear, and between the first two a
    # span bridged by one 20-tooth idler: 4 gears, so the blue one turns against the driver
    control = {"seed": 5, "teeth": [20, 16, 12], "span": 0, "idler_teeth": 10, "idlers": 1, "spin": "Clockwise",
               "flip": False}
    twin = family.twin(control)
    assert twin["idlers"] == 2  # two 10-tooth idlers in the same span: 5 gears
    assert family.answer(control) == family.check(control) == "Counter-clockwise"
    assert family.answer(twin) == family.check(twin) == "Clockwise"
    mirrored = {**control, "flip": True, "spin": "Counter-clockwise"}
    assert family.answer(mirrored) == family.check(mirrored) == "Clockwise"


def test_the_side_with_the_larger_moment_goes_down():
    family = LeverBalance()
    # 2 blocks 3 steps left (moment 6) against 3 blocks 2 steps right (6): level
    control = {"seed": 1, "m1": 2, "d1": 3, "m2": 3, "d2": 2, "away": 1}
    twin = family.twin(control)
    assert family.answer(control) == family.check(control) == "Neither: it stays level"
    assert family.answer(twin) == family.check(twin) == "Left"  # 6 against 3 x 1 = 3
    assert family.margin(twin) == 0.5
    further = {**control, "d2": 3}  # 6 against 3 x 3 = 9
    assert family.answer(further) == family.check(further) == "Right"


def test_an_open_belt_keeps_the_sense_and_a_crossed_one_reverses_it():
    family = BeltDrive()
    control = {"seed": 4, "r_driver": 60, "r_driven": 50, "distance": 300, "crossed": False, "spin": "Clockwise",
               "flip": False}
    twin = family.twin(control)
    assert family.answer(control) == family.check(control) == "Clockwise"
    assert family.answer(twin) == family.check(twin) == "Counter-clockwise"
    flipped = {**twin, "flip": True, "spin": "Counter-clockwise"}  # driver on the right
    assert family.answer(flipped) == family.check(flipped) == "Clockwise"
