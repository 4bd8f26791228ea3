"""CoreCognition's difficulty knob in the stream (issue 29): one knob, ``level`` 1 to 3,
shared by the 12 concepts. Level ``L`` keeps a family's valid pairs whose hardness (the
family's own measure: a margin, a count of objects, ...) falls in band ``L``."""

from __future__ import annotations

import pytest

from cogforge import environments as env
from cogforge.core.errors import UserError
from cogforge.generators import corecognition as cc

CONCEPTS = list(cc.concepts())


def _pairs(stream, count: int):
    """The first ``count`` pairs of a one-concept stream: (control item, twin item)."""
    for p in range(count):
        items = [stream[2 * p], stream[2 * p + 1]]
        by_role = {item["meta"]["role"]: item for item in items}
        yield by_role["control"], by_role["manipulated"]


def test_every_concept_has_the_shared_level_knob():
    knobs = env.knobs("corecognition")
    assert list(knobs) == CONCEPTS
    assert all(knobs[c] == {"level": (1, 2, 3)} for c in CONCEPTS)
    with pytest.raises(UserError, match="level=4 is not one of"):
        env.open("corecognition", difficulty={"level": 4})


@pytest.mark.parametrize("concept", CONCEPTS)
def test_each_level_draws_pairs_of_its_band_that_pass_the_checks_and_the_key(concept):
    families = cc.concepts()[concept].FAMILIES
    shown = {}
    for level in cc.LEVELS:
        stream = env.open("corecognition", task=concept, seed=5, difficulty={"level": level})
        for p, (control, twin) in enumerate(_pairs(stream, len(families))):
            family = cc.families()[control["meta"]["family"]]
            assert family is families[p % len(families)]
            c, t = control["meta"]["params"], twin["meta"]["params"]
            assert family.level(c, t) == level, (family.name, family.hardness(c, t), family.level_cuts)
            for item, params in ((control, c), (twin, t)):
                assert item["meta"]["level"] == level
                # the build's own validity: the independent check agrees, the margin holds
                assert family.check(params) == family.answer(params) == item["answer"]
                margin = family.margin(params)
                assert margin is None or margin >= family.min_margin
                letter = "ABCDE"[item["options"].index(item["answer"])]
                assert env.score(item, letter) == 1.0
                assert env.score(item, f"The answer is {letter}.") == 1.0
                wrong = next(o for o in item["options"] if o != item["answer"])
                assert env.score(item, wrong) == 0.0
            shown[family.name, level] = (family.hardness(c, t), control["images"][0])
    for family in families:  # harder levels show harder pairs, and other pictures
        assert shown[family.name, 1][0] < shown[family.name, 2][0] < shown[family.name, 3][0]
        assert shown[family.name, 1][1] != shown[family.name, 3][1]


def test_without_a_level_the_stream_draws_from_the_whole_range():
    stream = env.open("corecognition", task="mechanicalreasoning", seed=1)
    levels = set()
    for control, twin in _pairs(stream, 12):
        assert "level" not in control["meta"] and "level" not in twin["meta"]
        family = cc.families()[control["meta"]["family"]]
        levels.add(family.level(control["meta"]["params"], twin["meta"]["params"]))
    assert len(levels) > 1
    again = env.open("corecognition", task="mechanicalreasoning", seed=1, difficulty={"level": 2})
    assert again[0]["meta"]["level"] == 2 and again[0]["id"] == stream[0]["id"]


def test_a_curriculum_over_all_twelve_concepts_steps_the_level():
    curriculum = env.Curriculum("corecognition", knob="level", window=12, seed=4)
    assert curriculum.tasks == CONCEPTS and curriculum.levels == [1, 2, 3]
    seen = []
    for _ in range(12):
        item = curriculum.next_item()
        seen.append(item["task"])
        assert item["meta"]["level"] == 1
        curriculum.record(env.score(item, "ABCDE"[item["options"].index(item["answer"])]))
    assert sorted(seen) == sorted(CONCEPTS) and curriculum.level == 1  # all right: up a level
    item = curriculum.next_item()
    assert item["meta"]["level"] == 2
    assert item["meta"]["params"] == env.open("corecognition", seed=4, difficulty={"level": 2})[0]["meta"]["params"]
