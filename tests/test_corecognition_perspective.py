"""Hand-worked items of the perspective-taking families: the doll's right hand, the line
of sight past a wall, and a number read from across the table."""

from __future__ import annotations

from cogforge.generators.corecognition.perspective import AcrossTheTable, DollRightmost, LineOfSight


def test_the_doll_across_the_table_has_the_pictures_left_on_its_right():
    family = DollRightmost()
    # near doll at (320, 422) looking up: its right is the picture's right; the far doll at
    # (320, 66) looks down, so its right is the picture's left
    near = {"seed": 1, "centre": [320, 244], "distance": 178, "tilt": 0.0, "head": 17, "table": 140,
            "objects": [{"shape": "ball", "colour": "red", "x": 260, "y": 250},
                        {"shape": "block", "colour": "blue", "x": 320, "y": 200},
                        {"shape": "star", "colour": "green", "x": 380, "y": 260}],
            "side": "near"}
    far = family.twin(near)
    assert far["side"] == "far"
    assert family.answer(near) == family.check(near) == "the green star"
    assert family.answer(far) == family.check(far) == "the red ball"
    # bearings from the near doll: -19.2, 0 and 20.3 degrees, so the green star leads by 20.3
    assert abs(family.margin(near) - 20.3) < 0.1


def test_a_wall_across_the_line_of_sight_hides_the_star():
    family = LineOfSight()
    # eye (100, 240), star (500, 240); the vertical wall (axis pointing down the picture)
    # ends 40 px above the line of sight, then 40 px below it once shifted
    free = {"seed": 2, "eye": [100, 240], "star": [500, 240], "star_radius": 18, "head": 14,
            "pivot": [300, 240], "axis": 90.0, "length": 150, "thickness": 16, "turn": 0.0, "shift": -40.0}
    blocked = family.twin(free)
    assert blocked["shift"] == 40.0
    assert family.answer(free) == family.check(free) == "Yes"
    assert family.answer(blocked) == family.check(blocked) == "No"
    assert family.margin(free) == family.margin(blocked) == 40 - 18 - 6


def test_a_six_reads_as_nine_from_across_the_table_and_an_eight_as_eight():
    family = AcrossTheTable()
    six = {"seed": 1, "text": "6", "card": [320, 245], "size": 110, "doll_x": 300, "you_x": 340}
    eight = family.twin(six)  # the partners of "6" are "0" and "8"; seed 1 takes "8"
    assert eight["text"] == "8"
    assert family.answer(six) == family.check(six) == "No"
    assert family.answer(eight) == family.check(eight) == "Yes"
    assert family.answer({**six, "text": "96"}) == "Yes"  # turned: reversed "69", then 6 <-> 9
    assert family.answer({**six, "text": "68"}) == "No"  # the doll reads 89
