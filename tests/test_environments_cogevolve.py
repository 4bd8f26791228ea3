"""CogEvolve as a training environment (cogforge/environments, builders/cogevolve.py
"streams"): item i from (seed, task, i) alone, the verifier agreeing with the key on every
task, the knobs, no offensive sense, and streams kept out of the real release."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from cogforge import environments as env
from cogforge.builders import cogevolve
from cogforge.core.registry import get
from cogforge.core.releases import iter_rows
from streams import assert_kept_out, digest, digests_in_another_process

PER_TASK = 200
INDICES = [0, 1, 7, 123, 4_567, 10**9]


def test_item_i_is_the_same_in_any_order_and_in_another_process():
    tasks = env.open("cogevolve").tasks
    assert tasks == cogevolve.TASKS
    forward = [digest(env.open("cogevolve", seed=5)[i]) for i in INDICES + [k for k in range(len(tasks))]]
    backward = [digest(env.open("cogevolve", seed=5)[i]) for i in reversed(INDICES + list(range(len(tasks))))]
    assert forward == backward[::-1]
    assert digests_in_another_process("cogevolve", 5, INDICES + list(range(len(tasks)))) == forward
    assert [env.open("cogevolve")[i]["task"] for i in range(len(tasks))] == tasks, "tasks interleave"
    assert len({digest(env.open("cogevolve", seed=s)[3]) for s in range(6)}) > 1, "another seed, other items"


def replies(item: dict) -> tuple[list[str], list[str]]:
    """The key written the ways a model writes it, and wrong replies."""
    if item["options"]:
        letter = "ABC"[item["options"].index(item["answer"])]
        wrong = next(k for k, o in enumerate(item["options"]) if o != item["answer"])
        return ([letter, f"{letter}.", f"The answer is {letter}.", item["answer"], f"({letter}) {item['answer']}",
                 json.dumps({"answer": letter})],
                ["ABC"[wrong], f"The answer is {'ABC'[wrong]}.", item["options"][wrong], ""])
    ids = item["answer"].split(" -> ")
    right = [item["answer"], f"Final Sequence: {item['answer']}", "Final Sequence: " + " -> ".join(f"[{i}]" for i in ids),
             "The first is the literal meaning.\nFinal Sequence: " + " → ".join(ids),
             json.dumps({"answer": item["answer"]})]
    backwards = " -> ".join(ids[::-1])
    return right, [backwards, f"Final Sequence: {backwards}", ids[0], ""]


def test_the_verifier_agrees_with_the_key_on_every_task():
    from cogforge.generators import wordnet

    offensive = wordnet.offensive()
    for task in cogevolve.TASKS:
        stream = env.open("cogevolve", task=task, seed=11)
        positions: Counter = Counter()
        for i in range(PER_TASK):
            item = stream[i]
            right, wrong = replies(item)
            assert all(env.score(item, r) == 1.0 for r in right), (item["id"], item["answer"])
            assert all(env.score(item, w) == 0.0 for w in wrong), (item["id"], item["answer"])
            assert item["answer"] not in item["id"] and item["split"] == "train"
            assert not any(offensive.sense(s["key"]) for s in item["meta"]["graph"]["senses"])
            assert all(png.startswith(b"\x89PNG") for png in item["images"])
            if item["options"]:
                positions[(len(item["options"]), item["options"].index(item["answer"]))] += 1
            elif item["meta"]["n"] == 2:  # pairs: shown in gold order or reversed, each half the time
                positions[(2, item["answer"] == "A -> B")] += 1
        for n in {n for n, _ in positions}:  # answer positions drawn per item: each near its share
            total = sum(v for (m, _), v in positions.items() if m == n)
            if total >= 100:
                shares = [positions[(n, p)] / total for p in range(n)]
                assert max(abs(s - 1 / n) for s in shares) < 0.12, (task, n, shares)


def test_each_knob_changes_what_the_item_shows():
    knobs = env.knobs("cogevolve")
    assert knobs["1b-i2t"] == {"options": (2, 3)} and knobs["1b-t2i"] == {"images": (2, 3)}
    assert knobs["3a"] == knobs["3a-masked"] == {"n": (2, 3)} and knobs["2"] == {}
    for task, (knob, values) in ((t, next(iter(k.items()))) for t, k in knobs.items() if k):
        for value in values:
            stream = env.open("cogevolve", task=task, seed=4, difficulty={knob: value})
            for i in range(10):
                item = stream[i]
                if knob == "options":
                    assert len(item["options"]) == value == len(item["meta"]["graph"]["senses"])
                elif knob == "images":
                    assert len(item["images"]) == value == len(item["meta"]["image_senses"])
                else:
                    assert item["meta"]["n"] == value == len(item["answer"].split(" -> "))
                    assert f"[{chr(64 + value)}]" in item["question"] and f"[{chr(65 + value)}]" not in item["question"]


def test_a_stream_never_yields_what_the_release_holds(cogevolve_release):
    """The unit is the word; the full release (all three splits) holds every word of every
    task's pool, so beside it no task has an item left: each says so. Beside the release's
    test split alone, streams yield the other words' items and never a test item's word."""
    hooks = get("cogevolve").stream
    held = env.Exclusion.of(cogevolve_release, hooks)
    rows = list(iter_rows(cogevolve_release))
    assert len(held.content) == len(rows) and held.units
    for task in cogevolve.TASKS:
        with pytest.raises(RuntimeError, match="too few distinct items"):
            env.open("cogevolve", task=task, exclude=cogevolve_release)[0]
    test = env.Exclusion.of(cogevolve_release, hooks, splits=["test"])
    assert len(test.content) == sum(row["split"] == "test" for row in rows) > 0
    stream = env.open("cogevolve", seed=0, exclude=cogevolve_release, exclude_splits=["test"])
    assert_kept_out(stream, test, hooks, 400)
    assert stream.refused > 0, "without the exclusion the stream would have yielded test words"
