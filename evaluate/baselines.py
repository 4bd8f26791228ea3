"""Baselines that need no model, written as predictions files ``score`` reads.

* ``random``: a uniformly random option letter; for free text, a random answer from
  the benchmark's answer space (CARV: the caption of a uniformly random state).
* ``majority``: the most common answer of the item's task (free text), or the option
  that is most often correct across the release (multiple choice).
* ``choices-only``: what a model reading only the options would pick (the QC audit's
  leave-one-out cues; multiple choice only).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Literal

from cogforge.core.releases import load_release
from cogforge.evaluate.score import _plugin
from cogforge.core.shortcuts import choices_only_predictions

Kind = Literal["random", "majority", "choices-only"]


def baseline(release: Path | str, kind: Kind, seed: int = 0) -> list[dict]:
    rows, info = load_release(release)
    rng = random.Random(f"baseline:{kind}:{seed}")
    plugin = _plugin(info["benchmark"])
    out = []
    if kind == "random":
        answers = sorted({r["answer"] for r in rows if not r["options"]})
        for r in rows:
            if r["options"]:
                out.append(chr(65 + rng.randrange(len(r["options"]))))
            elif plugin and hasattr(plugin, "random_answer"):  # uniform over the item's answer space
                out.append(plugin.random_answer(rng, r))
            else:
                out.append(rng.choice(answers))
    elif kind == "majority":
        by_task: dict[str, Counter] = {}
        for r in rows:
            by_task.setdefault(r["task"], Counter())[r["answer"]] += 1
        overall = Counter(r["answer"] for r in rows if r["options"])
        for r in rows:
            if r["options"]:
                best = max(r["options"], key=lambda o: (overall[o], -r["options"].index(o)))
                out.append(chr(65 + r["options"].index(best)))
            else:
                out.append(by_task[r["task"]].most_common(1)[0][0])
    elif kind == "choices-only":
        mcq = [r for r in rows if r["options"]]
        if not mcq:
            raise ValueError(f"{info['benchmark']} has no multiple-choice items: no choices-only baseline")
        picks = dict(zip([r["id"] for r in mcq], choices_only_predictions(
            [r["options"] for r in mcq], [r["answer"] for r in mcq])))
        rows = mcq
        out = [chr(65 + r["options"].index(picks[r["id"]])) for r in mcq]
    else:
        raise ValueError(f"unknown baseline {kind!r}: random, majority or choices-only")
    return [{"id": r["id"], "response": a, "baseline": kind} for r, a in zip(rows, out)]


def write_baseline(release: Path | str, kind: Kind, out: Path | str, seed: int = 0) -> Path:
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in baseline(release, kind, seed)))
    return out
