"""Every streaming task as a training environment (cogforge/environments): item i from
(seed, task, i) alone, the verifier agreeing with the key, difficulty knobs, streams kept
out of a real release, and the datasets adapter run by datasets' own code."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from cogforge import environments as env
from cogforge.core.registry import get
from cogforge.core.releases import iter_rows
from streams import assert_kept_out, digest, digests_in_another_process

STREAMING = ["carv", "cogevolve", "constructure", "corecognition", "symbols"]
HERE = ["carv", "corecognition"]  # the others have a test file each: tests/test_environments_<benchmark>.py
PER_TASK = 200


def test_the_streaming_benchmarks_are_registered_with_their_hooks():
    assert env.streaming() == STREAMING
    for name in STREAMING:
        stream = env.open(name)
        assert stream.tasks and stream.size is None
        with pytest.raises(TypeError, match="endless"):
            len(stream)


@pytest.mark.parametrize("benchmark", HERE)
def test_item_i_is_the_same_in_any_order_and_in_another_process(benchmark):
    indices = [0, 1, 7, 123, 4_567, 10**9]
    forward = [digest(env.open(benchmark, seed=5)[i]) for i in indices]
    backward = [digest(env.open(benchmark, seed=5)[i]) for i in reversed(indices)][::-1]
    assert forward == backward
    assert digests_in_another_process(benchmark, 5, indices) == forward
    assert digest(env.open(benchmark, seed=6)[7]) != forward[2], "another seed, another item"
    tasks = env.open(benchmark).tasks
    assert [env.open(benchmark)[i]["task"] for i in range(len(tasks))] == tasks, "tasks interleave"


def replies(item: dict) -> tuple[list[str], list[str]]:
    """The key written the ways a model writes it, and wrong replies."""
    if item["options"]:
        letter = "ABCDE"[item["options"].index(item["answer"])]
        wrong_option = next(o for o in item["options"] if o != item["answer"])
        wrong_letter = "ABCDE"[item["options"].index(wrong_option)]
        right = [letter, f"{letter}.", f"The answer is {letter}.", f"({letter}) {item['answer']}",
                 json.dumps({"answer": letter})]
        return right, [wrong_letter, f"The answer is {wrong_letter}.", ""]
    states = item["meta"]["states"]
    other = next(json.dumps({"caption": c}) for c in (
        "one cup on a red table", "two books under a blue chair") if c != item["answer"])
    right = [json.dumps({"caption": item["answer"]}), f'Here it is: {{"caption": "{item["answer"]}"}}']
    assert states["answer"] and item["answer"]
    return right, [other, json.dumps({"caption": ""})]


@pytest.mark.parametrize("benchmark", HERE)
def test_the_verifier_agrees_with_the_key_on_every_task(benchmark):
    stream = env.open(benchmark, seed=11)
    positions: Counter = Counter()
    for task in stream.tasks:
        one = env.open(benchmark, task=task, seed=11)
        for i in range(PER_TASK):
            item = one[i]
            right, wrong = replies(item)
            assert all(env.score(item, r) == 1.0 for r in right), (item["id"], item["answer"])
            assert all(env.score(item, w) == 0.0 for w in wrong), (item["id"], item["answer"])
            if item["options"]:
                positions[(len(item["options"]), item["options"].index(item["answer"]))] += 1
    # answer positions are drawn per item: each position near its share
    for n in {n for n, _ in positions}:
        total = sum(v for (m, _), v in positions.items() if m == n)
        if total >= 200:
            shares = [positions[(n, p)] / total for p in range(n)]
            assert max(abs(s - 1 / n) for s in shares) < 0.1, (n, shares)


def test_score_refuses_hostile_and_ambiguous_replies():
    item = env.open("corecognition", task="boundary", seed=1)[0]
    letter = "ABCDE"[item["options"].index(item["answer"])]
    for reply in ["A B", "A or B", "ABCDE", None, 42, "x" * 100_000]:
        assert env.score(item, reply) == 0.0
    assert env.score(item, letter) == 1.0


def test_the_carv_knob_sets_the_atomic_changes_per_pair():
    knobs = env.knobs("carv")
    assert knobs["ss-union-2"]["atomic"] == (1, 2, 3, 4)
    stream = env.open("carv", task="ss-union-2", difficulty={"atomic": 3}, seed=2)
    for i in range(20):
        meta = stream[i]["meta"]
        assert meta["atomic"] == 3 and len(meta["T1"]) == 3 and len(meta["T2"]) == 3
    assert env.knobs("corecognition")["boundary"] == {"level": (1, 2, 3)}


@pytest.mark.parametrize("call, message", [
    (lambda: env.open("no-such-benchmark"), "unknown benchmark"),
    (lambda: env.open("carv", exclude_splits=["test"]), "needs exclude=RELEASE"),
    (lambda: env.open("carv", task="nope"), "has no task 'nope'"),
    (lambda: env.open("carv", task="single", difficulty={"depth": 2}), "no difficulty knob 'depth'"),
    (lambda: env.open("carv", task="single", difficulty={"atomic": 9}), "atomic=9 is not one of"),
    (lambda: env.open("carv", size=-1), "size must be"),
    (lambda: env.open("carv", exclude="/nonexistent/release"), "not a release folder"),
])
def test_bad_arguments_are_one_clear_error(call, message):
    from cogforge.core.errors import UserError

    with pytest.raises(UserError, match=message):
        call()


def test_an_index_outside_the_stream_is_an_index_error():
    stream = env.open("carv", size=3)
    assert len(stream) == 3 and len(list(stream)) == 3
    for bad in (3, -1):
        with pytest.raises(IndexError):
            stream[bad]


@pytest.mark.parametrize("benchmark, items", [("carv", 100_000), ("corecognition", 600)])
def test_a_stream_never_yields_what_the_release_holds(benchmark, items, request):
    release = request.getfixturevalue(f"{benchmark}_release")
    hooks = get(benchmark).stream
    held = env.Exclusion.of(release, hooks)
    assert len(held.content) == sum(1 for _ in iter_rows(release)) and held.units
    kept = env.open(benchmark, seed=0, exclude=release)
    assert_kept_out(kept, held, hooks, items)
    if benchmark == "carv":
        assert kept.refused > 0, "without the exclusion the stream would have yielded released items"


def test_the_datasets_adapter_is_read_by_datasets(tmp_path):
    from datasets.distributed import split_dataset_by_node

    stream = env.open("corecognition", task=["boundary", "hierarchy"], seed=3, size=8)
    ds = stream.to_iterable_dataset()
    rows = list(ds)
    assert [r["index"] for r in rows] == list(range(8))
    assert [r["id"] for r in rows] == [stream[i]["id"] for i in range(8)]
    first = rows[0]
    assert first["images"][0].size == first["images"][0].size and first["options"] == stream[0]["options"]
    assert json.loads(first["meta"]) == stream[0]["meta"]
    halves = [list(split_dataset_by_node(env.iterable_dataset(stream, shards=2), rank=k, world_size=2))
              for k in range(2)]
    assert sorted(r["index"] for half in halves for r in half) == list(range(8))
    assert {r["index"] % 2 for r in halves[0]} == {0} and {r["index"] % 2 for r in halves[1]} == {1}
    endless = env.open("carv", seed=1).to_iterable_dataset()
    assert [r["index"] for r in endless.take(3)] == [0, 1, 2]


def test_a_curriculum_steps_the_knob_up_and_down_with_the_rewards():
    curriculum = env.Curriculum("carv", task=["ss-union-2", "ss-union-3"], knob="atomic", window=4, seed=9)
    assert curriculum.levels == [1, 2, 3, 4] and curriculum.difficulty == {"atomic": 1}
    for reward in [1, 1, 1, 0.5]:  # mean 0.875 >= 0.8: up
        item = curriculum.next_item()
        assert item["meta"]["atomic"] == 1
        curriculum.record(reward)
    assert curriculum.level == 1 and curriculum.next_item()["meta"]["atomic"] == 2
    for reward in [0.5, 0.5, 0.5, 0.5]:  # between: stays
        curriculum.record(reward)
    assert curriculum.level == 1
    for reward in [0, 0, 1, 0]:  # mean 0.25 <= 0.3: down
        curriculum.record(reward)
    assert curriculum.level == 0 and curriculum.history == [0, 1, 0]
    again = env.Curriculum("carv", task=["ss-union-2", "ss-union-3"], knob="atomic", window=4, seed=9)
    assert digest(again.next_item()) == digest(env.open("carv", task=["ss-union-2", "ss-union-3"], seed=9,
                                                        difficulty={"atomic": 1})[0])
    from cogforge.core.errors import UserError

    with pytest.raises(UserError, match="share no difficulty knob"):
        env.Curriculum("cogevolve", task=["1b-i2t", "3a"])
