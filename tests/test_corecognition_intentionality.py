"""Hand-worked items of the intentionality families: goals inferred from a path by
inverse planning, and efficiency judged against the obstacles actually present."""

from __future__ import annotations

import math

import pytest

from cogforge.generators.corecognition.intentionality import EfficientJump, GoalInference


def test_goal_inference_posterior_on_an_open_map_and_the_swapped_twin():
    family = GoalInference()
    # start cell (1, 6), planned goal (14, 6) straight to the right, no walls; half the path
    # walked ends in cell (8, 6) after 6.5 cells. Excess cost over the optimal plan:
    #   (14, 6): 6.5 + 6 - 13 = -0.5
    #   (1, 0):  6.5 + (6 * sqrt 2 + 1) - 6 = 9.99
    #   (1, 11): 6.5 + (5 * sqrt 2 + 2) - 5 = 10.57
    control = {"seed": 4, "walls": [], "start": [1, 6], "target": [14, 6], "other": [1, 0],
               "goals": ["red star", "blue square", "green triangle"],
               "goal_positions": [[1, 0], [14, 6], [1, 11]], "cut": 0.5}
    excess = [6.5 + 6 * math.sqrt(2) + 1 - 6, -0.5, 6.5 + 5 * math.sqrt(2) + 2 - 5]
    expected = [math.exp(-e) / sum(math.exp(-x) for x in excess) for e in excess]
    assert family._posterior(control) == pytest.approx(expected, rel=1e-6)
    assert family.answer(control) == family.check(control) == "The blue square"
    twin = family.twin(control)  # the red star and the blue square trade places
    assert twin["goal_positions"] == [[14, 6], [1, 0], [1, 11]]
    assert family.answer(twin) == family.check(twin) == "The red star"


def test_efficient_jump_is_sensible_only_with_the_wall_in_the_way():
    family = EfficientJump()
    control = {"seed": 9, "start": 80, "goal": 560, "wall_x": 320, "wall_w": 40, "wall_h": 150,
               "clearance": 10, "run_up": 70, "barrier": True}
    twin = family.twin(control)
    assert family.answer(control) == family.check(control) == "Yes"
    assert family.answer(twin) == family.check(twin) == "No"
    path = family._trajectory(control)
    assert path == family._trajectory(twin)  # the same hop in both
    taken = sum(math.dist(a, b) for a, b in zip(path, path[1:]))
    # without the wall the shortest way is straight along the ground: 560 - 22 - 8 - 80 = 450 px
    assert family._ratio(twin) == pytest.approx(taken / 450)
    assert family._ratio(twin) > 1.35 > family._ratio(control)
