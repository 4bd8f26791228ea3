"""CONSTRUCTURE as a training stream (cogforge/environments): item i from (seed, task, i)
alone, every item re-judged by QC's independent check and scored by the benchmark's own
judge, QC's blind baselines at chance on the stream, the banks' epochs, the chain-length
and level knobs, and a stream kept out of the real release."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

import pytest

from cogforge import environments as env
from cogforge.core.errors import UserError
from cogforge.core.record import Item
from cogforge.core.registry import get
from cogforge.core.releases import iter_rows
from streams import assert_kept_out, digest, digests_in_another_process

TASKS = ["atomic", "abstraction", "concretization", "common-ancestor"]


def test_every_task_streams_with_its_knobs():
    stream = env.open("constructure")
    assert stream.tasks == TASKS and "constructure" in env.streaming()
    knobs = env.knobs("constructure")
    assert set(knobs) == set(TASKS)
    for task in TASKS:
        assert knobs[task]["chain_length"] == tuple(range(2, 12))  # the build's 3 to 5 among them
    assert knobs["atomic"]["level"] == tuple(range(0, 11)) and knobs["abstraction"]["level"] == tuple(range(1, 11))
    assert knobs["concretization"]["level"] == tuple(range(0, 10))
    # the 10- and 11-concept chains have no common-ancestor question at their deepest level
    assert knobs["common-ancestor"]["level"] == tuple(range(1, 10))


def test_item_i_is_the_same_in_any_order_and_in_another_process():
    indices = [0, 1, 7, 123, 4_567, 10**9]
    forward = [digest(env.open("constructure", seed=5)[i]) for i in indices]
    backward = [digest(env.open("constructure", seed=5)[i]) for i in reversed(indices)][::-1]
    assert forward == backward
    assert digests_in_another_process("constructure", 5, indices, hash_seed="321") == forward
    assert digest(env.open("constructure", seed=6)[7]) != forward[2], "another seed, another item"
    item = env.open("constructure", seed=5)[10**9]
    assert item["id"] == f"constructure-{TASKS[10**9 % 4]}-stream-{10**9 // 4}" and item["answer"] not in item["id"]


def replies(item: dict) -> tuple[list[str], list[str]]:
    """The key written the ways a model writes it, and wrong replies."""
    letter = "ABCD"[item["options"].index(item["answer"])]
    wrong = next(o for o in item["options"] if o != item["answer"])
    wrong_letter = "ABCD"[item["options"].index(wrong)]
    right = [letter, f"{letter}.", f"The answer is {letter}.", f"({letter}) {item['answer']}", item["answer"],
             json.dumps({"answer": letter}), json.dumps({"answer": item["answer"]})]
    return right, [wrong_letter, f"The answer is {wrong_letter}.", wrong, json.dumps({"answer": wrong}), ""]


def test_the_verifier_agrees_with_the_key_and_qc_rejudges_every_item():
    """200 items a task: the keyed answer scores 1, a wrong one 0; QC's own CONSTRUCTURE
    check (independent of the builder: every name read under every WordNet sense) finds
    nothing; answer positions near uniform."""
    from cogforge.builders import constructure
    from cogforge.qc.constructure import check_constructure
    from cogforge.qc.core import Build

    kept: list[Item] = []
    for task in TASKS:
        positions: Counter = Counter()
        stream = env.open("constructure", task=task, seed=11)
        for i in range(200):
            item = stream[i]
            right, wrong = replies(item)
            assert all(env.score(item, r) == 1.0 for r in right), (item["id"], item["answer"], item["options"])
            assert all(env.score(item, w) == 0.0 for w in wrong), (item["id"], item["answer"], item["options"])
            positions[item["options"].index(item["answer"])] += 1
            kept.append(Item(**{k: v for k, v in item.items() if k not in ("index", "images")},
                             images=[f"images/{hashlib.sha256(png).hexdigest()}.png" for png in item["images"]]))
        n = len(stream[0]["options"])
        shares = [positions[p] / 200 for p in range(n)]
        assert max(abs(s - 1 / n) for s in shares) < 0.1, (task, shares)
    build = Build(Path("stream"), {"config": constructure.load_config()}, kept, [], [])
    result = check_constructure(build)
    assert not result.findings, result.findings[:5]
    assert result.stats["items_checked"] == 800


def stream_build(seed: int, items: int) -> "Build":
    """The first ``items`` items of every task as QC reads a build, at most one pass of a
    multiple-choice task's bank (the next pass repeats its questions)."""
    from cogforge.builders import constructure
    from cogforge.qc.core import Build

    kept = []
    for task in TASKS:
        stream = env.open("constructure", task=task, seed=seed)
        bank = constructure.stream_bank(constructure.load_stream_config(), seed, task, {}) if task != "atomic" else ()
        for i in range(min(items, len(bank) or items)):
            item = stream[i]
            kept.append(Item(**{k: v for k, v in item.items() if k not in ("index", "images")},
                             images=[f"images/{hashlib.sha256(png).hexdigest()}.png" for png in item["images"]]))
    return Build(Path("stream"), {"benchmark": "constructure", "config": constructure.load_config()}, kept, [], [])


def test_blind_baselines_stay_at_chance_on_the_stream():
    """QC's own shortcuts check on the first 1,000 items of every task (a pass of a smaller
    bank): no baseline that reads only the options and the question (answer priors learned
    from the stream itself, option frequency, length, ...) is an error. Drawn one at a time,
    common-ancestor distractors were the picture's lineage, and the answer prior scored 0.49
    against 0.25."""
    from cogforge.qc.checks import check_shortcuts

    result = check_shortcuts(stream_build(11, 1000))
    assert not [f for f in result.findings if f.severity == "error"], result.findings
    rows = [r for r in result.stats["baselines"] if r["stratum"] != "atomic"]
    assert len({r["stratum"] for r in rows}) == 3 and len(rows) > 60
    assert all(r["accuracy"] <= r["chance"] + 0.05 for r in rows), max(rows, key=lambda r: r["accuracy"] - r["chance"])


def test_an_epoch_goes_through_the_bank_once_in_a_fresh_order():
    """The first n items of a multiple-choice task are its bank's n questions, each once
    (a window of an epoch repeats nothing); the next n are the same questions in another
    order, with their options drawn again."""
    from cogforge.builders import constructure

    for task in TASKS[1:]:
        n = len(constructure.stream_bank(constructure.load_stream_config(), 11, task, {}))
        stream = env.open("constructure", task=task, seed=11)
        first = [stream[i] for i in range(n)]
        second = [stream[i] for i in range(n, 2 * n)]
        units = [get("constructure").stream.stream_unit(item) for item in first]
        assert len(set(units)) == n > 500, task
        assert {get("constructure").stream.stream_unit(item) for item in second} == set(units)
        assert units != [get("constructure").stream.stream_unit(item) for item in second]
        again = {(u, item["answer"], frozenset(item["options"])) for u, item in zip(units, first)}
        assert {(get("constructure").stream.stream_unit(item), item["answer"], frozenset(item["options"]))
                for item in second} == again


def test_the_knobs_set_the_chain_and_the_level_the_item_shows():
    for task in TASKS:
        for length in (2, 4, 7):
            items = [env.open("constructure", task=task, seed=3, difficulty={"chain_length": length})[i]
                     for i in range(10)]
            assert all(len(item["meta"]["chain"]) == length for item in items), task
        for level in (1, 5):
            for i in range(10):
                item = env.open("constructure", task=task, seed=3, difficulty={"level": level})[i]
                meta = item["meta"]
                assert meta["question_level"] == level and len(meta["chain"]) > level
                asked = meta["chain"][level]["name"]
                if task == "atomic":  # the question names the concept at that level
                    assert meta["concept"]["name"] == asked and f" {asked}?" in item["question"]
                else:  # the option in the "current" role is that concept
                    assert {"text": asked, "role": "current"}.items() <= next(
                        o for o in meta["options"] if o["role"] == "current").items()
    # a longer chain asks about more abstract concepts: level 0 of a 9-chain is far above the picture
    far = env.open("constructure", task="atomic", seed=3, difficulty={"chain_length": 9, "level": 0})[0]
    assert len(far["meta"]["chain"]) == 9 and far["meta"]["concept"]["level"] == 0
    with pytest.raises(UserError, match="needs a chain longer"):
        env.open("constructure", task="abstraction", difficulty={"chain_length": 3, "level": 5})[0]


def test_a_stream_never_yields_what_the_release_holds(constructure_release):
    hooks = get("constructure").stream
    held = env.Exclusion.of(constructure_release, hooks)
    assert len(held.content) == sum(1 for _ in iter_rows(constructure_release)) == len(held.units)
    kept = env.open("constructure", seed=0, exclude=constructure_release)
    assert_kept_out(kept, held, hooks, 600)
    assert kept.refused > 0, "without the exclusion the stream would have yielded released questions"
    # a bank leaves the release's units out before it is filled: none of its questions is one
    from cogforge.builders import constructure

    config, excluded = constructure.load_stream_config(), kept._excluded()
    for task in TASKS[1:]:
        beside = constructure.stream_bank(config, 0, task, {}, excluded)
        units = {hashlib.sha256(f"{task}:{q['chain'][-1]}:{q['chain'][q['level']]}".encode()).hexdigest()
                 for q in beside}
        assert beside and len(units) == len(beside) and not units & held.units, task
        assert len(beside) < len(constructure.stream_bank(config, 0, task, {})) / 3, task
    # the release asks concretization at nearly every level of every chain of 2 to 5 concepts:
    # beside it, a longer chain still has questions left (about concepts far above the picture)
    longer = env.open("constructure", task="concretization", difficulty={"chain_length": 8},
                      exclude=constructure_release)
    assert all(longer[i]["meta"]["question_level"] >= 0 for i in range(50))
