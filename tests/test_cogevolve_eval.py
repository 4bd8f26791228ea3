"""CogEvolve's scoring: reading ordering answers in their many spellings, the tier-3
metrics (EM, pairwise accuracy, Kendall's tau) against values worked out by hand,
the role confusion matrix, and the plugin inside the real Scorer and lmms-eval export."""

from __future__ import annotations

import json
import math
import sys
import types
from itertools import count, permutations
from pathlib import Path

import pytest

from cogforge.evaluate.cogevolve import chance, is_correct, parse_sequence, sequence_scores, strata, tables
from cogforge.evaluate.extract import extract
from cogforge.evaluate.score import Scorer

REASONING = ("Let me think step by step.\n[A] is abstract, so A > B in abstraction? No.\n"
             "B is the physical sense, and A extends it by metaphor, then C by metonymy.\n\n")


@pytest.mark.parametrize("text, expected", [
    ("Final Sequence: [B] -> [A] -> [C]", ["B", "A", "C"]),
    ("Final Sequence: B -> A -> C", ["B", "A", "C"]),
    ("**Final Sequence:** [ID B] -> [ID A]", ["B", "A"]),
    ("**Final Sequence**: B -> A", ["B", "A"]),
    ("[Image B] -> [Image A]", ["B", "A"]),
    ("Image B → Image A", ["B", "A"]),
    ("Final Sequence: B ⟶ A ⇒ C", ["B", "A", "C"]),
    ("B, A, C", ["B", "A", "C"]),
    ("B > A > C", ["B", "A", "C"]),
    ('["B","A"]', ["B", "A"]),
    ('["Image B", "Image A", "Image C"]', ["B", "A", "C"]),
    (REASONING + "Final Sequence: [B] -> [A] -> [C]\n\nThat is the path.", ["B", "A", "C"]),
    (REASONING + "B -> A -> C", ["B", "A", "C"]),
    ("Final Sequence:\n\n`B -> A -> C`", ["B", "A", "C"]),
    ("Final Sequence: [B] (the muscle) -> [A] (the kidnapper).", ["B", "A"]),
    ("Final Sequence: [B -> A -> C]", ["B", "A", "C"]),
    ("Final sequence: b -> a", ["B", "A"]),
    ("(B) -> (A)", ["B", "A"]),
    # the last marker wins over an earlier one and over sequence-like reasoning lines
    ("Final Sequence: A -> B\nOn reflection:\nFinal Sequence: B -> A", ["B", "A"]),
])
def test_parse_sequence_reads_every_spelling(text, expected):
    assert parse_sequence(text) == expected


@pytest.mark.parametrize("text, ids", [
    ("Final Sequence: B -> A -> B", None),          # a repeated ID
    ("Final Sequence: B -> A", ["A", "B", "C"]),    # an ID left out
    ("Final Sequence: B -> A -> D", ["A", "B", "C"]),  # an ID the item does not have
    ("Final Sequence: [ID] -> [ID] -> ...", None),  # the prompt's template echoed
    ("I am not sure which meaning came first.", None),
    ("so, A", None),
    ("", None),
])
def test_parse_sequence_refuses_what_is_not_a_well_formed_order(text, ids):
    assert parse_sequence(text, ids) is None


def test_a_malformed_final_line_is_not_rescued_by_an_earlier_draft():
    assert parse_sequence("Draft: B -> A -> C\nFinal Sequence: B -> B -> C") is None


SERIAL = count(1)


def row(task: str, answer: str, options=None, split: str = "test", **meta) -> dict:
    n = len(answer.split("->"))
    if task.startswith("3"):
        meta = {"n": n, "stratum": "N=2" if n == 2 else "N>2"} | meta
    return {"id": f"cogevolve-{task}-{next(SERIAL):05d}", "task": task,
            "split": split, "question": "q", "images": [], "options": options, "answer": answer, "meta": meta}


def test_is_correct_right_wrong_and_reversed():
    item = row("3a", "B -> A -> C")
    assert is_correct("[B] -> [A] -> [C]", item)
    assert not is_correct("[A] -> [B] -> [C]", item)
    assert not is_correct("C -> A -> B", item)  # reversed
    assert not is_correct("B -> A", item)
    assert is_correct("Image A → Image B", row("3b", "A -> B"))
    with pytest.raises(ValueError, match="cogevolve-1a"):
        is_correct("x", row("1a", "x") | {"id": "cogevolve-1a-00001"})


def test_chance_and_strata():
    assert chance(row("3a", "A -> B")) == 1 / 2
    assert chance(row("3b-svg", "C -> A -> B")) == 1 / 6
    assert strata(row("3a-masked", "A -> C -> B")) == {"stratum": "N>2", "split": "test"}
    assert strata(row("2", "Metaphor", list(("Prototype", "Metaphor", "Metonymy")), role="Metaphor")) == \
        {"role": "Metaphor", "split": "test"}
    assert strata(row("1a", "a", ["a", "b"], split="train")) == {"split": "train"}


def test_sequence_scores_by_hand():
    assert sequence_scores(["A", "B"], ["A", "B"]) == {"exact_match": 1.0, "pairwise_accuracy": 1.0,
                                                       "kendall_tau": 1.0}
    assert sequence_scores(["B", "A"], ["A", "B"]) == {"exact_match": 0.0, "pairwise_accuracy": 0.0,
                                                       "kendall_tau": -1.0}
    s = sequence_scores(["B", "A", "C"], ["A", "B", "C"])  # one of three pairs swapped
    assert s["exact_match"] == 0 and s["pairwise_accuracy"] == pytest.approx(2 / 3)
    assert s["kendall_tau"] == pytest.approx(1 / 3)
    assert sequence_scores(None, ["A", "B"]) == {"exact_match": 0.0, "pairwise_accuracy": 0.0, "kendall_tau": 0.0}


@pytest.mark.parametrize("n", [2, 3, 4])
def test_tau_is_twice_pairwise_accuracy_minus_one_for_every_permutation(n):
    gold = [chr(65 + i) for i in range(n)]
    for predicted in permutations(gold):
        s = sequence_scores(list(predicted), gold)
        assert s["kendall_tau"] == pytest.approx(2 * s["pairwise_accuracy"] - 1)


def record(task: str, truth: str, response: str | None, answer=None, correct=False, **strata_) -> dict:
    return {"id": f"{task}-{truth}-{response}", "strata": {"task": task, "split": "test", **strata_},
            "truth": truth, "response": response, "answer": answer, "method": "final", "correct": correct}


def test_tier3_tables_by_hand():
    records = [
        record("3a", "A -> B", "Final Sequence: [A] -> [B]", stratum="N=2"),           # EM 1, PA 1, tau 1
        record("3a", "A -> B", "Final Sequence: [B] -> [A]", stratum="N=2"),           # EM 0, PA 0, tau -1
        record("3a", "A -> B -> C", REASONING + "Final Sequence: B -> A -> C", stratum="N>2"),  # 0, 2/3, 1/3
        record("3a", "A -> B -> C", "I cannot tell.", stratum="N>2"),                 # unparsed: 0, 0, 0
        record("3a-masked", "A -> B", "B -> A", stratum="N=2"),
        record("3a-masked", "A -> B", None, stratum="N=2"),                           # missing: unparsed
    ]
    t = tables(records)["tier 3"]
    assert set(t) == {"3a", "3a-masked"}
    two, more, every = t["3a"]["N=2"], t["3a"]["N>2"], t["3a"]["all"]
    assert (two["n"], two["exact_match"], two["pairwise_accuracy"], two["kendall_tau"], two["unparsed"]) == \
        (2, 0.5, 0.5, 0.0, 0)
    assert (more["n"], more["exact_match"], more["unparsed"]) == (2, 0.0, 1)
    assert more["pairwise_accuracy"] == pytest.approx(1 / 3) and more["kendall_tau"] == pytest.approx(1 / 6)
    assert more["pairwise_accuracy_parsed"] == pytest.approx(2 / 3)
    assert more["kendall_tau_parsed"] == pytest.approx(1 / 3)
    assert every["n"] == 4 and every["exact_match"] == 0.25 and every["unparsed"] == 1
    assert every["pairwise_accuracy"] == pytest.approx((1 + 0 + 2 / 3 + 0) / 4)
    assert every["kendall_tau"] == pytest.approx((1 - 1 + 1 / 3 + 0) / 4)
    # over parsed answers the paper's identity holds for the means too
    assert every["kendall_tau_parsed"] == pytest.approx(2 * every["pairwise_accuracy_parsed"] - 1)
    masked = t["3a-masked"]["all"]
    assert (masked["n"], masked["exact_match"], masked["kendall_tau"], masked["unparsed"]) == (2, 0.0, -0.5, 1)

    control = tables(records)["masked control"]
    assert set(control) == {"N=2", "all"}  # no masked item has N>2 here
    assert control["all"]["3a"] == {"n": 4, "exact_match": 0.25, "kendall_tau": pytest.approx(1 / 12)}
    assert control["all"]["difference"]["exact_match"] == 0.25
    assert control["all"]["difference"]["kendall_tau"] == pytest.approx(1 / 12 + 0.5)


def test_tier1_accuracy_and_tier2_confusion_matrix():
    records = [record("1a", "x", "A", "x", True), record("1a", "x", "B", "y", False),
               record("1b-t2i", "Image 1", "A", "Image 1", True)]
    said = [("Prototype", "Prototype"), ("Prototype", "Metaphor"), ("Metaphor", "Metaphor"),
            ("Metaphor", "Metaphor"), ("Metonymy", "Metaphor"), ("Metonymy", None)]
    records += [record("2", gold, "...", pred, gold == pred, role=gold) for gold, pred in said]
    t = tables(records)
    assert t["tier 1"] == {"1a": {"n": 2, "accuracy": 0.5}, "1b-t2i": {"n": 1, "accuracy": 1.0}}
    assert t["tier 2"]["confusion"] == {
        "Prototype": {"Prototype": 1, "Metaphor": 1, "Metonymy": 0, "unparsed": 0},
        "Metaphor": {"Prototype": 0, "Metaphor": 2, "Metonymy": 0, "unparsed": 0},
        "Metonymy": {"Prototype": 0, "Metaphor": 1, "Metonymy": 0, "unparsed": 1}}
    acc = t["tier 2"]["accuracy"]
    assert acc["Prototype"] == {"n": 2, "accuracy": 0.5} and acc["Metaphor"] == {"n": 2, "accuracy": 1.0}
    assert acc["Metonymy"]["accuracy"] == 0 and acc["all"] == {"n": 6, "accuracy": 0.5}
    assert "tier 3" not in t and "masked control" not in t


def test_extraction_reads_the_final_sequence_marker():
    assert extract(REASONING + "**Final Sequence:** [B] -> [A]", None) == ("[B] -> [A]", "final")
    assert extract(REASONING + "**Final Sequence**: B -> A -> C", None) == ("B -> A -> C", "final")
    assert extract("Final Sequence:\n[B] -> [A]", None) == ("[B] -> [A]", "final")


def release_rows() -> list[dict]:
    roles = ["Prototype", "Metaphor", "Metonymy"]
    rows = [row("3a", gold, split=split) for gold in ("A -> B", "B -> A") for split in ("test", "train")]
    rows += [row("3a-masked", "B -> A"), row("3b", "A -> B"), row("3b-svg", "B -> A"), row("3a", "B -> A -> C")]
    rows += [row("2", role, roles, role=role) for role in roles]
    rows += [row("1a", "the literal sense", ["a figurative sense", "the literal sense"])]
    return rows


def write_predictions(path: Path, rows: list[dict], respond) -> Path:
    path.write_text("".join(json.dumps({"id": r["id"], "response": respond(r)}) + "\n" for r in rows))
    return path


def letter(r: dict) -> str:
    return f"The answer is {chr(65 + r['options'].index(r['answer']))}."


def test_scorer_end_to_end_gold_scores_100_and_reversed_scores_0(tmp_path):
    rows = release_rows()
    assert len({r["id"] for r in rows}) == len(rows)
    scorer = Scorer(rows, "cogevolve")

    def gold(r):
        if r["options"]:
            return letter(r)
        ids = " -> ".join(f"[{i.strip()}]" for i in r["answer"].split("->"))
        return REASONING + f"**Final Sequence:** {ids}"

    def reversed_(r):
        if r["options"]:
            return letter(r)
        return "Final Sequence: " + " -> ".join(reversed(r["answer"].split(" -> ")))

    right = scorer.score(write_predictions(tmp_path / "gold.jsonl", rows, gold))
    assert right["overall"]["accuracy"] == 1.0 and right["overall"]["n"] == len(rows)
    assert right["answer_extraction"]["failed"] == 0
    assert right["breakdown"]["stratum"]["N=2"]["chance"] == 0.5
    assert right["breakdown"]["stratum"]["N>2"]["chance"] == pytest.approx(1 / 6)
    assert right["breakdown"]["role"]["Metonymy"]["accuracy"] == 1.0
    t = right["tables"]
    assert {task: t["tier 3"][task]["all"]["exact_match"] for task in t["tier 3"]} == \
        {"3a": 1.0, "3a-masked": 1.0, "3b": 1.0, "3b-svg": 1.0}
    assert t["tier 3"]["3a"]["all"]["kendall_tau"] == 1.0 and t["tier 2"]["accuracy"]["all"]["accuracy"] == 1.0
    assert t["masked control"]["all"]["difference"] == {"exact_match": 0.0, "kendall_tau": 0.0}

    wrong = scorer.score(write_predictions(tmp_path / "reversed.jsonl", rows, reversed_))
    assert wrong["breakdown"]["stratum"]["N=2"]["accuracy"] == 0.0
    two = wrong["tables"]["tier 3"]["3a"]["N=2"]
    assert (two["exact_match"], two["pairwise_accuracy"], two["kendall_tau"], two["unparsed"]) == (0, 0, -1, 0)
    three = wrong["tables"]["tier 3"]["3a"]["N>2"]  # C -> A -> B against B -> A -> C: every pair flipped
    assert (three["exact_match"], three["pairwise_accuracy"], three["kendall_tau"]) == (0, 0, -1)

    test_only = scorer.score(tmp_path / "gold.jsonl", split="test")
    assert test_only["tables"]["tier 3"]["3a"]["all"]["n"] == 3  # the two train items left out


def test_the_lmms_eval_utils_judge_orders_as_the_scorer_does():
    from cogforge.exports.lmms_eval import utils_source

    module = types.ModuleType("cogevolve_lmms_utils")
    sys.modules[module.__name__] = module
    try:
        exec(compile(utils_source("cogevolve", ["3a"]), "utils.py", "exec"), module.__dict__)
    finally:
        del sys.modules[module.__name__]
    doc = {"id": "cogevolve-3a-00001", "task": "3a", "answer": "B -> A -> C", "options": None,
           "meta": json.dumps({"n": 3, "stratum": "N>2"})}
    assert module.is_right(REASONING + "Final Sequence: [B] -> [A] -> [C]", doc)
    assert module.is_right(module.doc_to_target(doc), doc)
    assert not module.is_right("Final Sequence: [C] -> [A] -> [B]", doc)
    assert math.isclose(module.chance({**doc, "meta": {"n": 3}}), 1 / 6)
