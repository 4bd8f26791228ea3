"""The ChemBench4K reader on hand-written fixtures in the published layout: SMILES found
and numbered, prose left alone, reactions split, and bad files named with their line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from rdkit import Chem

from cogforge.generators.symbols._chembench import ChemBenchError, read_chembench

FIXTURES = Path(__file__).parent / "fixtures" / "chembench4k"
TASKS = ("Temperature_Prediction", "Solvent_Prediction", "Product_Prediction", "Yield_Prediction")
PLACEHOLDER = re.compile(r"<molecule (\d+)>")


def read(task: str):
    return read_chembench(FIXTURES / f"{task}_benchmark.json")


def raw(task: str) -> list[dict]:
    return json.loads((FIXTURES / f"{task}_benchmark.json").read_text(encoding="utf-8"))


def restore(text: str, molecules: list[str]) -> str:
    """Undo the placeholders and the reaction wording, back to the source text."""
    text = re.sub(r"> \(with (.*?)\) → <", r">>\1><", text)
    text = text.replace("> → <", ">>><").replace("> →", ">>>").replace("> + <", ">.<")
    return PLACEHOLDER.sub(lambda m: molecules[int(m.group(1)) - 1], text)


def write(tmp_path: Path, content, name: str = "Yield_Prediction_benchmark.json") -> Path:
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content, indent=4), encoding="utf-8")
    return path


def record(question: str = "What yield?", answer: str = "A", **options: str) -> dict:
    return {"question": question, "answer": answer, "A": "1%", "B": "2%", "C": "3%", "D": "4%", **options}


@pytest.mark.parametrize("task", TASKS)
def test_each_file_gives_its_questions_in_order_with_task_answer_and_line(task):
    questions, records = read(task), raw(task)
    assert len(questions) == len(records) == 5
    assert [q.task for q in questions] == [task] * 5
    assert [q.number for q in questions] == [1, 2, 3, 4, 5]
    assert [q.answer for q in questions] == [r["answer"] for r in records]
    assert [q.source for q in questions] == [f"{FIXTURES / f'{task}_benchmark.json'}:{line}"
                                             for line in (2, 10, 18, 26, 34)]


@pytest.mark.parametrize("task", TASKS)
def test_placeholders_count_up_by_first_appearance_in_question_then_options(task):
    for q in read(task):
        numbers = [int(n) for n in PLACEHOLDER.findall(q.text + " ".join(q.options[k] for k in "ABCD"))]
        first_seen = list(dict.fromkeys(numbers))
        assert first_seen == list(range(1, len(q.molecules) + 1)), q.source


@pytest.mark.parametrize("task", TASKS)
def test_every_molecule_parses_and_the_source_text_comes_back(task):
    for q, r in zip(read(task), raw(task)):
        assert all(Chem.MolFromSmiles(s) is not None for s in q.molecules), q.source
        assert len(set(q.molecules)) == len(q.molecules)
        assert restore(q.text, q.molecules) == r["question"]
        assert {k: restore(v, q.molecules) for k, v in q.options.items()} == {k: r[k] for k in "ABCD"}


def test_words_and_formulas_in_prose_are_not_molecules():
    carbonylation = read("Temperature_Prediction")[1]
    assert carbonylation.text.startswith("Under a CO atmosphere, <molecule 1> + <molecule 2> (with")
    # CO is methanol inside the reaction and carbon monoxide in the prose
    assert carbonylation.molecules == ["Ic1ccccc1", "CO", "[Pd]", "COC(=O)c1ccccc1"]
    assert read("Yield_Prediction")[0].text.startswith("If I run <molecule 1>")
    assert read("Yield_Prediction")[0].text.endswith("what yield can I expect?")
    assert read("Product_Prediction")[4].text.endswith("with HNO3 in H2SO4 gives which main product? "
                                                       "Assume no NO or NO2 forms.")
    assert read("Solvent_Prediction")[3].text == ("I want to reduce <molecule 1> to <molecule 2> with NaBH4. "
                                                  "Which solvent would you choose?")
    assert read("Solvent_Prediction")[2].options["D"] == "tetrahydrofuran (THF)"
    assert read("Solvent_Prediction")[4].options["B"] == "I would conclude that O"


def test_short_words_that_rdkit_parses_stay_text(tmp_path):
    prose = "I think C, Cl, CO, NO, IN and A react in water with PCC or NBS to give CO2 and B."
    path = write(tmp_path, [record(prose)], "Name_Conversion_benchmark.json")
    [q] = read_chembench(path)
    assert (q.text, q.molecules) == (prose, [])


def test_reaction_smiles_split_into_reactants_agents_and_products():
    esterification = read("Temperature_Prediction")[0]
    assert esterification.text.startswith("What is the most suitable reaction temperature for "
                                          "<molecule 1> + <molecule 2> → <molecule 3> with")
    assert esterification.molecules == ["CC(=O)O", "OCC", "CCOC(C)=O"]
    acylation = read("Temperature_Prediction")[3]
    assert ": <molecule 1> + <molecule 2> (with <molecule 3>) → <molecule 4>. At" in acylation.text
    assert acylation.molecules == ["CC(=O)Cl", "NCc1ccccc1", "CCN(CC)CC", "CC(=O)NCc1ccccc1"]
    suzuki = read("Yield_Prediction")[1]
    assert "(with <molecule 3> + <molecule 4> + <molecule 4>) → <molecule 5>?" in suzuki.text
    assert suzuki.molecules[2:4] == ["O=C([O-])[O-]", "[K+]"]
    diels_alder = read("Temperature_Prediction")[4]
    assert diels_alder.text.startswith("<molecule 1> + <molecule 2> → <molecule 3>'s typical")
    no_product = read("Product_Prediction")[2]
    assert no_product.text == "What is the product of <molecule 1> + <molecule 2> → after aqueous workup?"


def test_options_get_placeholders_and_share_them_with_the_question():
    esters = read("Product_Prediction")[0]
    assert esters.options == dict(zip("ABCD", ["<molecule 3>", "<molecule 4>", "<molecule 5>", "<molecule 2>"]))
    assert esters.molecules[1] == "OCc1ccccc1"
    amide = read("Product_Prediction")[3]
    assert amide.text == ("With EDC (<molecule 1>) as the coupling agent, "
                          "what does <molecule 2> form with <molecule 3>?")
    assert amide.options["B"] == "The product is <molecule 5>."
    assert amide.options["C"] == "The product is <molecule 3>."
    assert amide.molecules[4] == "O=C(NCCc1ccccc1)c1ccccc1"
    heck = read("Yield_Prediction")[4]
    assert heck.text.count("<molecule 1>") == 2 and heck.molecules[0] == "Ic1ccccc1"


def test_a_whole_option_needs_no_smiles_mark_but_two_heavy_atoms():
    suzuki = read("Solvent_Prediction")[1]
    assert suzuki.options == dict(zip("ABCD", ["<molecule 4>", "<molecule 5>", "<molecule 6>", "<molecule 7>"]))
    assert suzuki.molecules[3:] == ["ClCCl", "CCCCCC", "C1COCCO1", "CO"]
    assert read("Solvent_Prediction")[0].options == {"A": "water", "B": "dichloromethane", "C": "hexane",
                                                     "D": "acetic acid"}
    assert read("Temperature_Prediction")[0].options["D"] == "80 °C"


def test_a_record_without_answer_is_named_by_file_and_line():
    path = FIXTURES / "bad" / "Yield_Prediction_benchmark.json"
    with pytest.raises(ChemBenchError, match="answer") as error:
        read_chembench(path)
    assert str(error.value).startswith(f"{path}:10: record 2 has no 'answer'")


def test_text_that_is_not_json_is_named_by_line(tmp_path):
    missing_comma = '[\n    {\n        "question": "What yield?",\n        "answer": "A"\n        "A": "1%"\n'
    path = write(tmp_path, missing_comma)
    with pytest.raises(ChemBenchError, match="not valid JSON") as error:
        read_chembench(path)
    assert str(error.value).startswith(f"{path}:5: ")


def test_an_answer_that_is_not_an_option_letter_is_refused(tmp_path):
    path = write(tmp_path, [record(), record(answer="E")])
    with pytest.raises(ChemBenchError, match="answer 'E' is not one of the options") as error:
        read_chembench(path)
    assert str(error.value).startswith(f"{path}:10: record 2")


def test_a_missing_option_is_refused(tmp_path):
    incomplete = record()
    del incomplete["D"]
    with pytest.raises(ChemBenchError, match="record 1 has no 'D'"):
        read_chembench(write(tmp_path, [incomplete]))


@pytest.mark.parametrize("content, message", [
    ({"question": "What yield?"}, "top level is a JSON dict, expected a list"),
    (["What yield?"], "record 1 is a JSON str"),
    ([record(question=3)], "'question' is int, expected text"),
])
def test_other_shapes_are_refused_with_what_was_found(tmp_path, content, message):
    with pytest.raises(ChemBenchError, match=re.escape(message)):
        read_chembench(write(tmp_path, content))


def test_a_file_name_that_names_no_task_is_refused(tmp_path):
    with pytest.raises(ChemBenchError, match=r"expected \{task\}_benchmark.json"):
        read_chembench(write(tmp_path, [record()], "yields.json"))
