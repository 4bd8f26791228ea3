"""The contract every CoreCognition family keeps (generators/corecognition/__init__.py),
checked on a few pairs of each: JSON-able parameters, twins that change only the causal
parameter and flip the answer under byte-identical question and options, answers
re-derived by the family's independent check, margins, features that survive 336 px,
reproducible frames whose control/twin difference lies inside the declared causal region."""

from __future__ import annotations

import json
import random
from collections import Counter

import numpy as np
import pytest

from cogforge.generators.corecognition import CONCEPTS, SIZE, families, png

FAMILIES = families()


def test_every_family_names_a_known_concept_and_each_concept_it_covers_has_two():
    per_concept = Counter(f.concept for f in FAMILIES.values())
    assert set(per_concept) <= set(CONCEPTS)
    assert all(n >= 2 for n in per_concept.values()), per_concept


def changed_box(a, b):
    """The bounding box (x0, y0, x1, y1) of the pixels that differ, or None."""
    diff = np.any(np.asarray(a, dtype=np.int16) != np.asarray(b, dtype=np.int16), axis=2)
    ys, xs = np.nonzero(diff)
    return None if not len(xs) else (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1)


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_family_contract(name):
    family = FAMILIES[name]
    assert family.type in ("TF", "MC") and family.causal_param and family.paradigm
    rng = random.Random(name)
    answers = Counter()
    for k in range(4):
        control = family.sample(rng, k)
        twin = family.twin(control)
        assert json.loads(json.dumps(control)) == control and json.loads(json.dumps(twin)) == twin
        assert set(control) == set(twin) and {key for key in control if control[key] != twin[key]} == \
            {family.causal_param}
        assert family.question(control) == family.question(twin)
        assert family.options(control) == family.options(twin)
        assert 2 <= len(family.options(control)) <= 5 and len(set(family.options(control))) == \
            len(family.options(control))
        assert family.answer(control) != family.answer(twin)
        answers[family.answer(control)] += 1
        for params in (control, twin):
            assert family.answer(params) in family.options(params)
            assert family.check(params) == family.answer(params)
            margin = family.margin(params)
            assert margin is None or margin >= family.min_margin
            assert family.feature_px(params) * 336 / min(SIZE) >= 0.01 * 336
        frames_c, frames_t = family.render(control), family.render(twin)
        assert len(frames_c) == len(frames_t) == family.frames
        assert all(f.size == SIZE and f.mode == "RGB" for f in frames_c + frames_t)
        assert [png(f) for f in family.render(control)] == [png(f) for f in frames_c]  # same params, same bytes
        boxes = [family.causal_box(control), family.causal_box(twin)]
        moved = [changed_box(a, b) for a, b in zip(frames_c, frames_t)]
        assert any(moved), "the twin looks the same as the control"
        for box in filter(None, moved):
            x0, y0, x1, y1 = box
            assert any(b[0] <= x0 and b[1] <= y0 and x1 <= b[2] and y1 <= b[3] for b in boxes) or (
                min(b[0] for b in boxes) <= x0 and min(b[1] for b in boxes) <= y0
                and x1 <= max(b[2] for b in boxes) and y1 <= max(b[3] for b in boxes)), \
                f"pixels changed at {box}, outside the causal regions {boxes}"
    assert len(answers) >= 2, f"pair k = 0..3 always start from the same answer: {answers}"
