"""The CARV caption judge on hand-written captions, right and subtly wrong."""

from __future__ import annotations

import pytest

from cogforge.evaluate.carv import judge_caption


def state(subject, number, obj, colour, relation):
    return {"subject": subject, "subject_number": number, "object": obj, "object_color": colour,
            "spatial_relation": relation}


CASES = [
    (state("cup", "two", "table", "blue", "under"), [
        ("two cups under a blue table", True),
        ("Two mugs underneath a blue table.", True),
        ("2 cups beneath the blue table", True),
        ("cups under a blue table", True),
        ("two white cups with orange stripes under a blue table", True),
        ("two coffee cups below a blue desk", True),
        ("one cup under a blue table", False),
        ("a cup under a blue table", False),
        ("two cups on a blue table", False),
        ("two cups under a red table", False),
        ("two cups under a blue chair", False),
        ("two bowls under a blue table", False),
        ("two cups under a table", False),
        ("two cups and a bowl under a blue table", False),
        ("three cups under a blue table", False),
        ("two cups to the left of a blue table", False),
    ]),
    (state("scissors", "one", "chair", "wood", "left"), [
        ("one pair of scissors to the left of a wooden chair", True),
        ("a pair of scissors left of a wooden chair", True),
        ("one scissors to the left of a wood chair", True),
        ("a pair of scissors on the left of a brown chair", True),
        ("two pairs of scissors to the left of a wooden chair", False),
        ("two scissors to the left of a wooden chair", False),
        ("a pair of scissors to the right of a wooden chair", False),
        ("a pair of scissors left of a red chair", False),
        ("a pair of scissors left of a wooden table", False),
        ("scissors on the left of the wooden chair", False),
    ]),
    (state("teapot", "one", "table", "red", "on"), [
        ("one teapot on a red table", True),
        ("a pink teapot on top of a red table", True),
        ("a tea pot sitting on a red table", True),
        ("{\"caption\": \"one teapot on a red table\"}".split('"')[3], True),
        ("A teapot atop a red table", True),
        ("two teapots on a red table", False),
        ("one teapot under a red table", False),
        ("one teapot on a blue table", False),
        ("one teapot on a red chair", False),
        ("one cup on a red table", False),
        ("one teapot next to a red table", False),
    ]),
    (state("apple", "two", "chair", "red", "right"), [
        ("two apples to the right of a red chair", True),
        ("two green apples on the right side of a red chair", True),
        ("2 apples right of a red chair", True),
        ("two apples to the left of a red chair", False),
        ("one apple to the right of a red chair", False),
        ("an apple to the right of a red chair", False),
        ("two apples to the right of a red table", False),
        ("two apples to the right of a wooden chair", False),
        ("two bananas to the right of a red chair", False),
    ]),
    (state("bottle", "one", "table", "wood", "under"), [
        ("one bottle under a wooden table", True),
        ("a green bottle beneath a wooden table", True),
        ("a single bottle underneath a wood table", True),
        ("a bottle below a brown table", True),
        ("one bottle on a wooden table", False),
        ("two bottles under a wooden table", False),
        ("one bottle under a blue table", False),
        ("one bottle under a wooden chair", False),
        ("one candle under a wooden table", False),
    ]),
    (state("book", "two", "chair", "blue", "on"), [
        ("two books on a blue chair", True),
        ("two purple books resting on a blue chair", True),
        ("two books on top of a blue chair", True),
        ("two books under a blue chair", False),
        ("a book on a blue chair", False),
        ("two books on a red chair", False),
        ("two books on a blue table", False),
        ("two bowls on a blue chair", False),
    ]),
    (state("banana", "one", "chair", "wood", "right"), [
        ("one banana to the right of a wooden chair", True),
        ("a yellow banana on the right of a wooden chair", True),
        ("one banana to the left of a wooden chair", False),
        ("two bananas to the right of a wooden chair", False),
        ("one banana to the right of a blue chair", False),
        ("one banana on a wooden chair", False),
        ("one apple to the right of a wooden chair", False),
    ]),
    (state("candle", "two", "table", "blue", "left"), [
        ("two candles to the left of a blue table", True),
        ("two lit candles left of a blue table", True),
        ("two candles to the right of a blue table", False),
        ("one candle to the left of a blue table", False),
        ("two candles to the left of a red table", False),
        ("two candles to the left of a blue chair", False),
        ("two bottles to the left of a blue table", False),
    ]),
    (state("bowl", "one", "table", "red", "under"), [
        ("one bowl under a red table", True),
        ("an orange bowl under a red table", True),
        ("a bowl underneath the red table", True),
        ("one bowl on a red table", False),
        ("two bowls under a red table", False),
        ("one bowl under a blue table", False),
        ("one cup under a red table", False),
        ("one bowl under a red chair", False),
    ]),
    (state("cup", "one", "chair", "blue", "on"), [
        ("one cup on a blue chair", True),
        ("a mug on a blue chair", True),
        ("a white mug on a blue seat", True),
        ("two mugs on a blue chair", False),
        ("a mug under a blue chair", False),
        ("a mug on a red chair", False),
        ("a blue mug on a wooden chair", False),
        ("a mug on a blue table", False),
    ]),
    (state("teapot", "two", "chair", "red", "left"), [
        ("two teapots to the left of a red chair", True),
        ("two pink tea pots left of a red chair", True),
        ("two teapots to the right of a red chair", False),
        ("a teapot to the left of a red chair", False),
        ("two teapots to the left of a blue chair", False),
        ("two teapots to the left of a red table", False),
        ("two cups to the left of a red chair", False),
    ]),
    (state("apple", "one", "table", "wood", "on"), [
        ("one apple on a wooden table", True),
        ("a green apple on a wood table", True),
        ("an apple on a brown table", True),
        ("one apple under a wooden table", False),
        ("two apples on a wooden table", False),
        ("one apple on a red table", False),
        ("one apple on a wooden chair", False),
        ("one apple", False),
        ("", False),
    ]),
]

FLAT = [(caption, truth, expected) for truth, cases in CASES for caption, expected in cases]


def test_the_set_is_large_and_mixed():
    assert len(FLAT) >= 100
    assert 30 <= sum(e for _, _, e in FLAT) <= 70


@pytest.mark.parametrize("caption, truth, expected", FLAT, ids=[c or "(empty)" for c, _, _ in FLAT])
def test_judge(caption, truth, expected):
    assert judge_caption(caption, truth) is expected
