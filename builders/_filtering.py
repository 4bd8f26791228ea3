"""Adversarial filtering shared by builders (not a benchmark: the registry skips ``_`` modules)."""

from __future__ import annotations

import random
from collections import Counter

SHORTCUT_MARGIN = 0.03  # blind heuristics may beat chance by this much (QC fails at 0.05)
SMALL_TASK = 100  # below this many questions a task may ask for a margin by its noise (qc.checks.SHORTCUT_MIN_ITEMS)


def filter_shortcuts(pending: list[dict], rng: random.Random, dropped: Counter, tasks: list[str],
                     noise: dict[str, float] | None = None) -> list[dict]:
    """Adversarial filtering: drop questions that blind heuristics answer.

    ``pending`` holds one dict per multiple-choice question with ``task``, ``options``,
    ``answer`` and ``question`` (the stem, without the options). Where a builder cannot
    even the rates out (CONSTRUCTURE's common-ancestor distractors are always the
    concept's own lineage; a CogEvolve sentence's sense tends to have the shorter
    gloss), a heuristic that never looks at the image still finds the answer:
    QC's choices-only baseline and every heuristic of :data:`cogforge.core.shortcuts.HEURISTICS`.
    Each round takes the heuristic furthest above chance and drops a seeded random
    half of the questions it gets right (for an "avoid-" heuristic, that its cue gets
    wrong), until all are within SHORTCUT_MARGIN of chance; what is dropped is
    counted in the manifest by task and heuristic.

    ``noise`` gives a task of fewer than SMALL_TASK questions a margin of that many
    standard errors of chance's hit rate (when wider than SHORTCUT_MARGIN): on a small
    task the best of twenty heuristics beats chance by several points through sampling
    alone, and dropping on that only empties the task (QC, too, asks small tasks for
    significance; from QC's SHORTCUT_MIN_ITEMS on, the fixed margin holds).
    """
    import math

    from cogforge.core.shortcuts import choices_only_predictions, heuristic_accuracies

    for task in tasks:
        for _ in range(40):
            mine = [q for q in pending if q["task"] == task]
            if not mine:
                break
            options, answers = [q["options"] for q in mine], [q["answer"] for q in mine]
            chance = sum(1 / len(o) for o in options) / len(mine)
            scores = heuristic_accuracies(options, answers, [q["question"] for q in mine])
            picks = choices_only_predictions(options, answers)
            hits = [p == a for p, a in zip(picks, answers)]
            scores["choices-only"] = (sum(hits) / len(mine), hits)
            name, (acc, hits) = max(scores.items(), key=lambda kv: (kv[1][0], kv[0]))
            margin = SHORTCUT_MARGIN if len(mine) >= SMALL_TASK else \
                max(SHORTCUT_MARGIN, (noise or {}).get(task, 0) * math.sqrt(chance * (1 - chance) / len(mine)))
            if acc <= chance + margin:
                break
            solved = [id(q) for q, hit in zip(mine, hits) if hit]
            drop = set(rng.sample(solved, max(1, len(solved) // 4)))
            dropped[f"{task} (blind heuristic: {name})"] += len(drop)
            pending = [q for q in pending if id(q) not in drop]
    return pending
