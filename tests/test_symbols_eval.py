"""Scoring the symbols release: formulas by element counts, coefficient lists as lists,
corrected molecules by canonical SMILES, unparsed answers counted, the paper's tables."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cogforge.core.releases import load_release
from cogforge.evaluate.score import score
from cogforge.evaluate.symbols import chemistry, judge
from cogforge.generators.symbols import domains


@pytest.mark.parametrize("answer, truth, ok", [
    ("C8H10N4O2", "C8H10N4O2", True),
    ("H10C8O2N4", "C8H10N4O2", True),      # another order, same atoms
    ("C₈H₁₀N₄O₂", "C8H10N4O2", True),      # Unicode subscripts
    ("C8 H10 N4 O2.", "C8H10N4O2", True),
    ("C8H9N4O2", "C8H10N4O2", False),
    ("caffeine", "C8H10N4O2", False),
])
def test_formulas_compare_by_element_counts(answer, truth, ok):
    row = {"task": "chemistry-elements", "answer": truth, "meta": {"answer_format": "formula"}}
    assert judge.is_correct(answer, row) is ok


@pytest.mark.parametrize("answer, ok", [("2, 1, 2", True), ("2 1 2", True), ("2:1:2", True),
                                        ("Coefficients: 2, 1, 2", True), ("4, 2, 4", False), ("2, 1", False),
                                        ("2 H2 + O2", False)])
def test_coefficient_lists_compare_as_lists(answer, ok):
    row = {"task": "chemistry-balancing", "answer": "2, 1, 2", "meta": {"answer_format": "integer list"}}
    assert judge.is_correct(answer, row) is ok


def test_numbers_compare_within_the_stated_tolerance():
    row = {"task": "physics-x", "answer": "1.5", "meta": {"answer_format": "number", "tolerance": 0.05}}
    assert judge.is_correct("I = 1.52 A", row) and not judge.is_correct("1.6", row)
    assert not judge.is_correct("1.5 or 2", row)


@pytest.mark.parametrize("answer, truth, fmt, ok", [
    ("3*sqrt(2)", "3*sqrt(2)", "exact", True),
    ("3√2", "3*sqrt(2)", "exact", True),
    ("sqrt(18)", "3*sqrt(2)", "exact", True),         # another form, the same number
    ("4.24", "3*sqrt(2)", "exact", False),            # a rounding is not the exact value
    ("2.5", "5/2", "exact", True),                    # a decimal is the exact decimal it writes
    ("\\frac{5}{2}", "5/2", "exact", True),
    ("25π/4", "25*pi/4", "exact", True),
    ("35°", "35", "exact", True),
    ("-3", "3", "exact", False),
    ("2^3*3^2", "72", "exact", True),
    ("(-∞, 1) ∪ (2, ∞)", "(-oo, 1) U (2, oo)", "interval", True),
    ("(-oo, 1] U (2, oo)", "(-oo, 1) U (2, oo)", "interval", False),  # one endpoint closed
    ("R", "(-oo, oo)", "interval", True),
    ("[-2, 3)", "[-2, 3)", "interval", True),
    ("x > 0", "(0, oo)", "interval", False),
    ("{2, -1}", "{-1, 2}", "set", True),
    ("x = -1 or x = 2", "{-1, 2}", "set", True),
    ("{-1}", "{-1, 2}", "set", False),
    ("{}", "{}", "set", True),
    ("{sqrt(4), -1}", "{-1, 2}", "set", True),
])
def test_exact_values_intervals_and_sets_compare_by_sympy(answer, truth, fmt, ok):
    row = {"task": "mathematics-x", "answer": truth, "meta": {"answer_format": fmt}}
    assert judge.is_correct(answer, row) is ok


@pytest.mark.parametrize("hostile", ["9^9^9", "2^(10^6)", "(2)^(3)^(2)", "__import__('os').system('true')",
                                     "x.__class__", "lambda: 1", "1/0", "[1]*10**9", "9" * 200])
def test_hostile_replies_are_refused_without_running_them(hostile):
    """A reply is parsed only after its tokens are checked: no code, no tower of powers."""
    assert judge.exact_value(hostile) is None
    assert not judge.is_correct(hostile, {"answer": "1", "meta": {"answer_format": "exact"}})


def test_a_final_answer_keeps_the_stars_inside_its_value():
    from cogforge.evaluate.extract import extract

    assert extract("So the length is 3*sqrt(2).\n**Answer**: 3*sqrt(2)**", None) == ("3*sqrt(2)", "final")
    assert extract("The answer is **B**", None) == ("B", "final")  # bold around a value is still dropped


def test_corrected_smiles_compare_by_canonical_form():
    row = {"task": "chemistry-structure-error", "meta": {"reference_smiles": "CC(C)Cc1ccc([C@@H](C)C(=O)O)cc1"}}
    same = "Answer: C\nCorrected SMILES: OC(=O)[C@H](C)c1ccc(CC(C)C)cc1"
    assert chemistry.extra(row, same) == {"corrected molecule": True}
    assert chemistry.extra(row, "Answer: C\nCorrected SMILES: OC(=O)[C@@H](C)c1ccc(CC(C)C)cc1") == \
        {"corrected molecule": False}  # the other enantiomer
    assert chemistry.extra(row, "Answer: C") == {"corrected molecule": False}
    assert chemistry.extra(row, "Corrected SMILES: C1CC(") == {"corrected molecule": False}


def _respond(row: dict, right: bool) -> str:
    if row["options"]:
        k = row["options"].index(row["answer"])
        k = k if right else (k + 1) % len(row["options"])
        reply = f"Answer: {chr(65 + k)}"
        if row["task"] == "chemistry-structure-error" and right:
            reply += f"\nCorrected SMILES: {row['meta']['reference_smiles']}"
        if row["task"] == "physics-force-error" and right:
            reply += f"\nForce: {row['meta']['force_concerned']}"
        return reply
    if not right:
        return "I cannot tell."
    if row["task"] == "chemistry-balancing":
        return "Balancing atom by atom.\nAnswer: " + row["answer"].replace(", ", " ")
    return "Counting the atoms.\nAnswer: " + row["answer"]


def test_scoring_the_release_gives_the_papers_tables(symbols_release, tmp_path):
    rows, _info = load_release(symbols_release)
    right = tmp_path / "right.jsonl"
    right.write_text("".join(json.dumps({"id": r["id"], "response": _respond(r, True)}) + "\n" for r in rows))
    half = tmp_path / "half.jsonl"
    half.write_text("".join(json.dumps({"id": r["id"], "response": _respond(r, k % 2 == 0)}) + "\n"
                            for k, r in enumerate(rows)))
    results = score(symbols_release, [right, half])["models"]
    good, mixed = results["right"], results["half"]
    assert good["overall"]["accuracy"] == 1.0 and good["answer_extraction"]["failed"] == 0
    tables = good["tables"]
    # every domain the generators have, at every level its tasks have (the paper's 5 x 3 once all exist)
    expected = {f"{name} L{task.level}" for name, module in domains().items() for task in module.TASKS.values()}
    assert set(tables["by_domain_level"]) == expected | {f"{name} all" for name in domains()}
    assert {"chemistry", "mathematics", "physics"} <= set(domains())
    assert all(v["accuracy"] == 1.0 for v in tables["by_task"].values())
    assert tables["by_task"]["chemistry-structure-error"]["paper"] == "Chem T5"
    assert tables["extras"]["chemistry-structure-error: corrected molecule"]["rate"] == 1.0
    assert tables["extras"]["physics-force-error: force named"]["rate"] == 1.0
    free = sum(1 for k, r in enumerate(rows) if not r["options"] and k % 2)
    assert mixed["answer_extraction"]["methods"].get("text", 0) + mixed["answer_extraction"]["failed"] >= free
    assert 0.4 < mixed["overall"]["accuracy"] < 0.6
    assert mixed["breakdown"]["level"]["L3"]["n"] == len([r for r in rows if r["meta"]["level"] == 3])


def test_report_has_the_domain_level_table(symbols_release, tmp_path):
    from cogforge.evaluate import report

    rows, _ = load_release(symbols_release)
    path = tmp_path / "m.jsonl"
    path.write_text("".join(json.dumps({"id": r["id"], "response": _respond(r, True)}) + "\n" for r in rows))
    paths = report.write(score(symbols_release, [path]), tmp_path / "report")
    md = Path(paths["markdown"]).read_text()
    assert "Accuracy per domain and level" in md and "chemistry-balancing" in md and "Chem T4" in md
    assert "corrected molecule" in md
    assert "| model | domain | L1 | L2 | L3 | all |" in md and "| m | chemistry | " in md
