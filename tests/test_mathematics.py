"""The mathematics domain of the symbols benchmark on the full build: the paper's 17
tasks at their levels, L3 inconsistencies balanced against consistent items, free
answers the judge reads (in other equivalent spellings too), QC catching a wrong
answer, a wrong picture and an unreadable free answer. Each generator module's own
tests (tests/test_math_*.py) work its answers by hand and confirm every injected
inconsistency."""

from __future__ import annotations

import json
import shutil
from collections import Counter, defaultdict

import pytest

from conftest import read_jsonl
from cogforge.evaluate.symbols import judge
from cogforge.generators.symbols import mathematics
from cogforge.qc.core import load_build
from cogforge.qc.symbols import mathematics as qc_math

# the paper's Table 1: task ids at each level
PAPER_LEVELS = {**{f"Math T{k}": 1 for k in range(1, 6)}, **{f"Math T{k}": 2 for k in range(6, 13)},
                **{f"Math T{k}": 3 for k in range(13, 18)}}


@pytest.fixture(scope="module")
def items(symbols_build) -> list[dict]:
    return [i for i in read_jsonl(symbols_build / "items.jsonl") if i["meta"]["domain"] == "mathematics"]


def test_every_paper_task_is_built_at_its_level(items):
    assert {t.paper for t in mathematics.TASKS.values()} == set(PAPER_LEVELS)
    seen = {(i["meta"]["paper_task"], i["meta"]["level"]) for i in items}
    assert seen == set(PAPER_LEVELS.items())
    counts = Counter(i["task"] for i in items)
    for name, wanted in mathematics.DEFAULT_COUNTS.items():
        assert counts[f"mathematics-{name}"] == wanted, name
    assert {i["meta"]["sub_field"] for i in items} == {"function", "geometry", "general"}


def test_l3_inconsistencies_are_half_and_evenly_spread(items):
    by_task = defaultdict(Counter)
    for i in items:
        if "error_type" in i["meta"]:
            by_task[i["task"]][i["meta"]["error_type"]] += 1
    assert {"mathematics-plot-consistency", "mathematics-vertical-line", "mathematics-definition-check"} <= set(by_task)
    for task, counts in by_task.items():
        errors = {k: v for k, v in counts.items() if k != "none"}
        assert len(errors) >= 3 and max(errors.values()) - min(errors.values()) <= 1, (task, counts)
        assert abs(counts["none"] - sum(errors.values())) <= 1, (task, counts)
    for i in items:  # a consistent item says yes, an inconsistent one no
        if "error_type" in i["meta"] and i["options"] == ["Yes", "No"] and i["task"] != "mathematics-analysis":
            assert (i["answer"] == "No") == (i["meta"]["error_type"] != "none") or \
                i["task"] == "mathematics-definition-check", i["id"]


def _respellings(answer: str, fmt: str) -> list[str]:
    """The answer as a model might write it: Unicode and LaTeX signs, decimals that are exact."""
    import sympy

    out = [answer.replace("sqrt", "√").replace("pi", "π").replace("oo", "∞").replace(" U ", " ∪ ")]
    if fmt == "exact":
        value = sympy.sympify(answer)
        out.append(sympy.latex(value))
        if value.is_Rational:
            out.append(str(value.p / value.q) if value.q in (1, 2, 4, 5, 8, 10) else str(value))
    return out


def test_free_answers_are_read_in_other_spellings_and_wrong_ones_are_not(items):
    free = [i for i in items if i["options"] is None]
    assert free and {i["meta"]["answer_format"] for i in free} >= {"exact", "interval"}
    for i in free:
        fmt = i["meta"]["answer_format"]
        assert judge.is_correct(i["answer"], i), i["id"]
        for spelling in _respellings(i["answer"], fmt):
            assert judge.is_correct(spelling, i), (i["id"], i["answer"], spelling)
        assert not judge.is_correct("I cannot tell.", i)
        exact_wrong = f"-({i['answer']})" if "oo" in i["answer"] else f"({i['answer']}) + 1"  # oo + 1 is oo
        wrong = {"exact": exact_wrong, "set": "{100}", "interval": "[100, 101]"}[fmt]
        assert not judge.is_correct(wrong, i), i["id"]


def test_questions_state_the_answer_format(items):
    for i in items:
        if i["options"] is None:
            assert "exact" in i["question"] or "interval" in i["question"] or "set" in i["question"], i["id"]
        else:
            assert i["question"].rstrip().endswith("Answer with the option's letter."), i["id"]


def test_qc_catches_a_wrong_answer_a_wrong_picture_and_an_unreadable_answer(symbols_build, tmp_path):
    copy = tmp_path / "b"
    shutil.copytree(symbols_build, copy)
    rows = read_jsonl(copy / "items.jsonl")
    math = [r for r in rows if r["meta"]["domain"] == "mathematics"]
    mcq = next(r for r in math if r["options"] and r["task"] == "mathematics-keypoints")
    mcq["answer"] = next(o for o in mcq["options"] if o != mcq["answer"])
    free = next(r for r in math if r["options"] is None and r["meta"]["answer_format"] == "exact")
    free["answer"] = "three halves"
    other = next(r for r in math if r["task"] == "mathematics-projection")
    pictured = next(r for r in math if r["task"] == "mathematics-shape")
    (copy / pictured["images"][0]).write_bytes((copy / other["images"][0]).read_bytes())
    (copy / "items.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    build = load_build(copy)
    picked = {mcq["id"], free["id"], pictured["id"]}
    found = {(f.check, f.target) for f in qc_math.check(build, [i for i in build.items if i.id in picked]).findings}
    assert found == {("mathematics", mcq["id"]), ("mathematics", free["id"]), ("mathematics-images", pictured["id"])}
