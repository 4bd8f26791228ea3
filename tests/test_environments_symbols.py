"""The symbols benchmark as a training stream (builders/symbols.py, "streams"): every task
the build makes, item i from (seed, task, i) alone, the judge agreeing with the key (and
giving the F1 tasks their partial credit), each difficulty knob changing the item, and a
stream kept out of the real release.

A symbols item costs what the build pays for it (RDKit, lcapy, schemdraw, stroke fonts),
most of it drawing its pictures, which no verifier reads: the 200 items per task are the
hook's ``stream_key`` records (the item without its pictures drawn), and the first items of
every task are checked to be the stream's own items, pictures and all."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter

import pytest

from cogforge import environments as env
from cogforge.core.registry import get
from cogforge.core.releases import iter_rows
from cogforge.evaluate.symbols import partial_credit
from cogforge.generators import symbols
from streams import assert_kept_out, digest, digests_in_another_process

PER_TASK = 200
FULL = 3  # items per task made with their pictures too
# tasks whose every unit (reaction, stereocentre molecule, sentence) a default release holds,
# or all but a few: a stream beside that release has nothing (or too little) left to draw
SPENT_BY_THE_RELEASE = {"chemistry-balancing", "chemistry-structure-error", "chemistry-reaction-type",
                        "chemistry-equation-error", "language-faked-characters", "language-misused-characters",
                        "language-correction"}


def test_every_generated_task_of_the_build_streams():
    tasks = env.open("symbols").tasks
    made = [f"{name}-{task}" for name, module in symbols.domains().items() for task in module.TASKS]
    imported = {f"chemistry-{t}" for t in ("condition", "product", "yield")}  # ChemBench4K files, none by default
    assert tasks == [t for t in made if t not in imported]
    assert set(env.knobs("symbols")) == set(tasks)


def test_item_i_is_the_same_in_any_order_and_in_another_process():
    indices = [0, 1, 37, 4_567, 10**9]
    forward = [digest(env.open("symbols", seed=5)[i]) for i in indices]
    backward = [digest(env.open("symbols", seed=5)[i]) for i in reversed(indices)][::-1]
    assert forward == backward
    assert digests_in_another_process("symbols", 5, indices) == forward
    assert digest(env.open("symbols", seed=6)[1]) != forward[1], "another seed, another item"
    item = env.open("symbols", seed=5)[10**9]
    assert item["answer"] not in item["id"] and item["split"] == "train"


def _equivalent(answer: str, kind: str | None) -> list[str]:
    """The key as a model might write it, in forms the judge of ``kind`` accepts."""
    forms = [answer, f"Answer: {answer}", json.dumps({"answer": answer}, ensure_ascii=False)]
    if kind == "formula":
        forms.append("".join(reversed(__import__("re").findall(r"[A-Z][a-z]?\d*", answer))))
    elif kind == "integer list":
        forms.append(answer.replace(", ", ":"))
    elif kind == "exact":
        forms.append(f"({answer})")
    elif kind in ("word-en", "phrase-en"):
        forms.append(f"The answer is {answer.upper()}!")
    elif kind == "zh-idiom":
        forms.append(f"成语是「{answer}」。")
    elif kind == "zh-sentence":
        forms.append(" ".join(answer))
    return forms


def replies(item: dict) -> tuple[list[str], list[str]]:
    """The key written the ways a model writes it, and wrong replies (sharing nothing with
    the key, so that a partial-credit task gives them 0 too)."""
    if item["options"]:
        letter = "ABCDEFGH"[item["options"].index(item["answer"])]
        wrong = next(o for o in item["options"] if o != item["answer"])
        wrong_letter = "ABCDEFGH"[item["options"].index(wrong)]
        right = [letter, f"The answer is {letter}.", f"({letter}) {item['answer']}", json.dumps({"answer": letter}),
                 f"Answer: {letter}"]
        return right, [wrong_letter, f"Answer: {wrong_letter}", ""]
    kind = item["meta"].get("answer_format")
    wrong = {"word-en": "zzyzx", "phrase-en": "zzyzx qwv", "zh-idiom": "鑫鑫鑫鑫", "zh-sentence": "鑫鑫鑫鑫。",
             "x-transcription": item["answer"].replace("X", "鑫"),
             "marked-transcription": item["answer"].replace("[", "").replace("]", ""),
             "formula": "Xe2", "integer list": "9, 9, 9, 9, 9, 9, 9"}.get(kind, "123457/7")
    return _equivalent(item["answer"], kind), [wrong, f"Answer: {wrong}", ""]


def partly_right(item: dict) -> str | None:
    """A reply half right, for the tasks whose metric is an F1."""
    kind, answer = item["meta"].get("answer_format"), item["answer"]
    if kind in ("word-en", "phrase-en"):  # the words and one more: precision 1/2 or more, recall 1
        return answer + " zzyzx"
    if kind == "zh-idiom":
        return answer[:2] + "鑫" * (len(answer) - 2)
    if kind in ("x-transcription", "marked-transcription"):  # the first mark kept, one more made elsewhere
        marks = [k for k, ch in enumerate(answer) if ch in "X["]
        plain = [k for k, ch in enumerate(answer) if "\u4e00" <= ch <= "\u9fff" and (k + 1 >= len(answer)
                 or answer[k + 1] != "]") and (k == 0 or answer[k - 1] != "[")]
        extra = max(plain, key=lambda k: min(abs(k - m) for m in marks))  # far from every mark
        out = ""
        for k, ch in enumerate(answer):
            if k == extra:
                out += "X" if kind == "x-transcription" else f"[{ch}]"
            elif ch == "X" and k != marks[0]:
                out += "鑫"
            elif ch in "[]" and not (marks[0] <= k <= marks[0] + 2):
                continue
            else:
                out += ch
        return out
    return None


def test_the_verifier_agrees_with_the_key_on_every_task():
    hooks = get("symbols").stream
    config = hooks.load_stream_config()
    partial_seen, positions = Counter(), Counter()
    for task in env.open("symbols").tasks:
        stream = env.open("symbols", task=task, seed=11)
        for i in range(PER_TASK):
            key = dataclasses.asdict(hooks.stream_key(config, 11, task, i, 0, {}))
            if i < FULL:  # the stream's item is that record with its pictures
                item = stream[i]
                assert {k: item[k] for k in ("id", "question", "options", "answer", "meta")} == \
                    {k: key[k] for k in ("id", "question", "options", "answer", "meta")}
                assert item["images"], item["id"]
            item = key
            right, wrong = replies(item)
            assert all(env.score(item, r) == 1.0 for r in right), (item["id"], item["answer"],
                                                                   [env.score(item, r) for r in right])
            assert all(env.score(item, w) == 0.0 for w in wrong), (item["id"], item["answer"])
            if item["options"]:
                positions[(task, len(item["options"]), item["options"].index(item["answer"]))] += 1
            half = None if item["options"] else partly_right(item)
            credit = partial_credit(item, half) if half else None
            if half and credit is not None:
                assert 0.0 < env.score(item, half) == credit < 1.0, (item["id"], half, credit)
                partial_seen[task] += 1
            elif not item["options"]:
                assert env.score(item, item["answer"] + " 鑫") in (0.0, 1.0)
    assert set(partial_seen) == {"culture-emoji-word", "culture-emoji-idiom", "culture-emoji-chengyu",
                                 "culture-emoji-chengyu-long", "language-faked-characters",
                                 "language-misused-characters"}
    for task, n in {(t, n) for t, n, _ in positions}:  # answer positions drawn per item: each near its share
        total = sum(v for (t, m, _), v in positions.items() if (t, m) == (task, n))
        if total >= 100:
            shares = [positions[(task, n, p)] / total for p in range(n)]
            assert max(abs(share - 1 / n) for share in shares) < 0.1, (task, n, shares)


def _nodes(node) -> list:
    return [] if isinstance(node, dict) else [node] + [n for child in node[1] for n in _nodes(child)]


def _loads(node) -> int:
    if isinstance(node, dict):
        return node["kind"] in ("resistor", "lamp")
    return sum(_loads(child) for child in node[1])


def _shows(task: str, item: dict, knob: str, value) -> bool:
    """What the item shows for a knob's value, read from its meta and answer."""
    from cogforge.generators.symbols import _forces, _solids, chemistry, culture

    meta = item["meta"]
    if knob == "depth":  # loads in parallel branches: none (a chain), one each, a chain in one
        branches = [[_loads(child) for child in node[1]] for node in _nodes(meta["tree"]) if node[0] == "parallel"]
        branches = [b for b in branches if sum(n > 0 for n in b) > 1]
        return (max((max(b) for b in branches), default=0) == {1: 0, 2: 1, 3: 2}[value])
    if knob == "scene":
        return meta["scene"]["kind"] == value
    if knob == "forces":  # the free-body diagram; an error item drew one arrow fewer or more
        return len(_forces.free_body(_forces.Scene.from_dict(meta["scene"]))) == value and \
            abs(len(meta["forces"]) - value) <= (task == "physics-force-error")
    if knob == "size":
        lo, hi = chemistry.MOLECULE_SIZES[value]
        return lo <= chemistry._heavy_atoms(meta.get("reference_smiles", meta["smiles"])) <= hi
    if knob == "formulas":
        return len(meta["coefficients"]) == value
    if knob == "cubes":
        lo, hi = _solids.CUBE_BANDS[value]
        return lo <= len(meta["voxels"]) <= hi
    if knob == "emoji":
        return len(culture.split_emoji(meta["emoji"])) == value
    if knob == "characters":
        return len(item["answer"]) == value
    if knob == "fakes":
        return len(meta["fakes"]) == value
    if knob == "misuses":
        return len(meta["substitutions"]) == value
    raise AssertionError(f"no check for knob {knob}")


def test_each_knob_changes_what_the_item_shows():
    knobs = env.knobs("symbols")
    assert knobs["physics-circuit-operation"] == {"depth": (1, 2, 3)}
    assert knobs["mathematics-keypoints"] == {}
    for task, table in knobs.items():
        for knob, values in table.items():
            seen = set()
            for value in (values[0], values[-1]):  # the easiest and the hardest
                item = env.open("symbols", task=task, difficulty={knob: value}, seed=4)[0]
                assert _shows(task, item, knob, value), (task, knob, value, item["meta"])
                seen.add(digest(item))
            assert len(seen) == 2, (task, knob)


def test_a_stream_never_yields_what_the_release_holds(symbols_release):
    hooks = get("symbols").stream
    held = env.Exclusion.of(symbols_release, hooks)
    assert len(held.content) == sum(1 for _ in iter_rows(symbols_release)) and held.units
    tasks = [t for t in env.open("symbols").tasks if t not in SPENT_BY_THE_RELEASE]
    kept = env.open("symbols", task=tasks, seed=0, exclude=symbols_release)
    assert_kept_out(kept, held, hooks, 10 * len(tasks))
    assert kept.refused > 0, "without the exclusion the stream would have yielded released units"
    # what the whole release spends, its test split alone leaves: the other splits' units stream
    with pytest.raises(RuntimeError, match="too few distinct items"):
        env.open("symbols", task="language-correction", exclude=symbols_release)[0]
    spent = sorted(SPENT_BY_THE_RELEASE)
    test_only = env.open("symbols", task=spent, seed=0, exclude=symbols_release, exclude_splits=["test"])
    assert_kept_out(test_only, env.Exclusion.of(symbols_release, hooks, splits=["test"]), hooks, 3 * len(spent))
