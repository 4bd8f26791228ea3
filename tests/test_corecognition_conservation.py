"""Hand-worked items of the conservation families: a quantity is the same after a
transformation that adds or removes nothing, and the twin removes something."""

from __future__ import annotations

import pytest

from cogforge.generators.corecognition.conservation import LengthSticks, LiquidPour, NumberRows


def test_number_rows_removed_candy_means_fewer_at_the_same_final_length():
    family = NumberRows()
    control = {"seed": 3, "n": 8, "spacing": 44, "radius": 14, "spread": 520, "taken": 3, "removed": 0}
    twin = family.twin(control)
    assert family.answer(control) == family.check(control) == "Yes"
    assert family.answer(twin) == family.check(twin) == "No"
    top_c, top_t = family._top_xs(control, 2), family._top_xs(twin, 2)
    assert (len(top_c), len(top_t)) == (8, 7)
    # both spread rows span exactly 520 px, so the final length is no cue
    assert top_c[-1] - top_c[0] == pytest.approx(520) and top_t[-1] - top_t[0] == pytest.approx(520)


def test_liquid_pour_conserves_area_and_the_twin_leaves_juice_behind():
    family = LiquidPour()
    # 100 px wide, 80 px of juice (area 8000) into a 50 px wide glass: 8000 / 50 = 160 px
    control = {"seed": 5, "w1": 100, "w2": 50, "level": 80, "glass1": 140, "glass2": 200, "left_behind": 0.0}
    assert family._levels(control, 2) == (0.0, pytest.approx(160.0))
    assert family.answer(control) == family.check(control) == "Yes"
    # 30% left behind: 24 px stay in the first glass, 0.7 * 160 = 112 px reach the second
    twin = {**control, "left_behind": 0.3}
    assert family._levels(twin, 2) == (pytest.approx(24.0), pytest.approx(112.0))
    assert family.answer(twin) == family.check(twin) == "No"
    assert family.answer(family.twin(twin)) == "Yes"


def test_while_it_pours_the_juice_not_yet_poured_is_in_the_tilted_glass():
    """Frame 2 adds up: what the right glass has not received lies in the tilted glass, at its
    mouth (a No item's glass was drawn empty there, then held juice again in frame 3)."""
    family = LiquidPour()
    for left_behind in (0.0, 0.4):
        params = {"seed": 5, "w1": 100, "w2": 150, "level": 170, "glass1": 215, "glass2": 190,
                  "left_behind": left_behind}
        juice = family._tilted_juice(params)
        received = family._levels(params, 1)[1] * params["w2"]
        assert juice.area == pytest.approx(100 * 170 - received, rel=1e-3)
        _outer, inner, lip = family._tilted(params)
        assert juice.bounds[3] == pytest.approx(max(y for _x, y in inner))  # it lies at the lowest point
        box = family.causal_box(params)  # the twins differ there too, inside the declared region
        assert box[1] <= juice.bounds[1] and juice.bounds[2] <= box[2]
    assert "Juice is poured from the left glass" in family.question(params)


def test_length_sticks_shortened_stick_still_sticks_out_further():
    family = LengthSticks()
    control = {"seed": 1, "length": 300, "x0": 60, "shift": 140, "thickness": 20, "shortened": 0.2}
    assert family.answer(control) == family.check(control) == "No"  # 240 px against 300 px
    (_a0, a1, _), (b0, b1, _) = family._sticks(control, 2)
    assert (b1 - b0, b1 - a1) == (pytest.approx(240.0), pytest.approx(80.0))  # shorter, yet ends further right
    twin = family.twin(control)
    assert twin["shortened"] == 0.0
    assert family.answer(twin) == family.check(twin) == "Yes"
