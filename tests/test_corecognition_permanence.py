"""Hand-worked items of the permanence families: the answer follows the history of the
hidden object, and the twin flips it."""

from __future__ import annotations

import numpy as np

from cogforge.generators.corecognition.permanence import CoverWithCup, CupsAndBall


def test_cover_with_cup_answers_from_which_toy_was_carried_away_and_ends_on_the_same_last_frame():
    family = CoverWithCup()
    control = {"seed": 7, "toys": [{"shape": "ball", "colour": "red"}, {"shape": "star", "colour": "yellow"}],
               "asked": 0, "carried": 1, "x": 320, "size": 52}
    twin = family.twin(control)
    assert twin["carried"] == 0
    assert family.question(control) == "Is there a red ball under the cup in the last frame?"
    # the star was carried off, so the red ball is still under the cup; in the twin the ball was
    assert family.answer(control) == family.check(control) == "Yes"
    assert family.answer(twin) == family.check(twin) == "No"
    last_c, last_t = family.render(control)[-1], family.render(twin)[-1]
    assert np.array_equal(np.asarray(last_c), np.asarray(last_t))  # only the history differs


def test_cups_and_ball_applies_both_swaps_and_the_twin_replaces_one():
    family = CupsAndBall()
    # ball under the left cup; swap left-middle (ball -> middle), then middle-right (ball -> right)
    control = {"seed": 2, "start": 0, "swaps": [[0, 1], [1, 2]], "spacing": 170}
    assert family.answer(control) == family.check(control) == "The right cup"
    # an even seed replaces the first swap by the pair that is neither swap: left-right, so the
    # ball goes left -> right, then middle-right brings it to the middle
    twin = family.twin(control)
    assert twin["swaps"] == [[0, 2], [1, 2]]
    assert family.answer(twin) == family.check(twin) == "The middle cup"
