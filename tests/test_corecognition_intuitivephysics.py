"""Hand-worked items of the intuitive-physics families: a two-block stack whose top
block slides past the edge of the one below, and balls whose fall times follow their
heights and not their sizes."""

from __future__ import annotations

from cogforge.generators.corecognition.intuitivephysics import DropTime, TippingStacks


def test_a_block_stands_while_its_centre_is_over_the_block_below():
    family = TippingStacks()
    # left: a 100 px base at x = 165 (115..215) with a 60 px block 30 px to the right,
    # centre 195, 20 px inside the base's edge; right: the same blocks centred (30 px)
    control = {"seed": 1, "stacks": [{"x": 165, "blocks": [[100, 40, 0], [60, 40, 30]]},
                                     {"x": 475, "blocks": [[100, 40, 0], [60, 40, 0]]}],
               "moved": [0, 1], "shift": 0, "away": 45}
    twin = family.twin(control)
    assert twin["shift"] == 45  # the top block's centre at 240, 25 px past the edge at 215
    assert family.answer(control) == family.check(control) == "Neither"
    assert family.answer(twin) == family.check(twin) == "Left"
    assert family.margin(control) == 20 and family.margin(twin) == 25
    # three blocks, each centred over the one below, that still tip: the middle block
    # (60 x 40 at 205) sits 10 px inside the base's edge (215) and the heavy top one
    # (120 x 50 at 225) 10 px inside the middle's (235), but the two together have their
    # centre at (2400 x 205 + 6000 x 225) / 8400 = 219.3, past the base's edge
    overhang = {**control, "stacks": [{"x": 165, "blocks": [[100, 40, 0], [60, 40, 40], [120, 50, 20]]},
                                      control["stacks"][1]], "moved": [1, 1]}
    assert family.answer(overhang) == family.check(overhang) == "Left"


def test_the_lower_ball_lands_first_whatever_its_size():
    family = DropTime()
    control = {"seed": 2, "r_big": 44, "r_small": 16, "h_big": 200, "h_small": 200, "away": 300, "big_left": True}
    twin = family.twin(control)
    assert family.answer(control) == family.check(control) == "They land at the same time"
    # t = sqrt(2h / g): 0.639 s for the big ball's 200 px against 0.782 s for the small one's 300 px
    assert family.answer(twin) == family.check(twin) == "The big ball"
    lower_small = {**control, "h_big": 300, "h_small": 120}
    assert family.answer(lower_small) == family.check(lower_small) == "The small ball"
    assert family.margin(control) is None and family.margin(twin) == 100
