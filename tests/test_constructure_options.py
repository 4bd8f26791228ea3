"""CONSTRUCTURE's option texts do not carry their answer rate (issue 23, part 5).

A text shown S times in a task of k-option questions should be the answer about S/k
times; and QC fails a task of 100+ items whose option frequency alone (most or least
frequent text) beats chance by more than 5 points, like every other blind heuristic.
"""

from __future__ import annotations

import math
from collections import Counter

from conftest import make_toy_build, read_jsonl

# Two-sided exact binomial test per text, Bonferroni-corrected over the task's texts:
# a balanced build fails this once in a thousand builds.
ALPHA = 1e-3


def _tail(k: int, n: int, p: float, upper: bool) -> float:
    """P(X >= k) (upper) or P(X <= k) for X ~ Binomial(n, p), computed here from scratch."""
    terms = range(k, n + 1) if upper else range(0, k + 1)
    return min(1.0, sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in terms))


def off_balance(items: list[dict]) -> list[tuple[str, int, int, float]]:
    """Option texts whose answer count is outside the binomial bound: (text, shown, answered, p)."""
    shown, answered = Counter(), Counter()
    for item in items:
        shown.update(item["options"])
        answered[item["answer"]] += 1
    k = {len(i["options"]) for i in items}
    assert len(k) == 1
    p = 1 / k.pop()
    out = []
    for text, n in shown.items():
        a = answered[text]
        two_sided = min(1.0, 2 * min(_tail(a, n, p, True), _tail(a, n, p, False)))
        if two_sided < ALPHA / len(shown):
            out.append((text, n, a, two_sided))
    return sorted(out, key=lambda row: row[3])


def test_each_option_text_is_the_answer_about_once_in_k_showings(constructure_build):
    items = read_jsonl(constructure_build / "items.jsonl")
    for task in ("abstraction", "concretization", "common-ancestor"):
        mine = [i for i in items if i["task"] == task]
        assert len(mine) >= 900, (task, len(mine))  # balance must not empty the task
        bad = off_balance(mine)
        assert not bad, (task, bad[:5])


def test_the_bound_catches_a_text_that_is_never_the_answer():
    # "instrumentality" in the first build's concretization task: shown 180 times, never right
    items = [{"options": ["instrumentality", f"a{n}", f"b{n}", f"c{n}"], "answer": f"a{n}"} for n in range(180)]
    assert [row[0] for row in off_balance(items)] == ["instrumentality"]
    fair = [{"options": ["instrumentality", f"a{n}", f"b{n}", f"c{n}"],
             "answer": "instrumentality" if n % 4 == 0 else f"a{n}"} for n in range(180)]
    assert off_balance(fair) == []


def _frequency_findings(tmp_path, items: list[dict]) -> list:
    from cogforge.qc import run_qc

    build = make_toy_build(tmp_path / "b", items)
    return [f for f in run_qc(build, tmp_path / "none.jsonl").findings
            if f.check == "shortcuts" and "frequent-option" in f.message]


def test_qc_fails_a_task_whose_rarest_option_is_the_answer(tmp_path):
    # 120 items: three texts shown in every item, and a text of each item's own that is
    # the answer in 5 of 8: "least frequent option" scores 62.5% against chance 25%
    common = ["oak", "elm", "ash"]
    items = []
    for n in range(120):
        own = f"tree {n}"
        answer = common[n % 3] if n % 8 < 3 else own
        options = common + [own]
        options = options[n % 4:] + options[:n % 4]
        items.append({"options": options, "answer": answer, "question": f"which tree is {n}?"})
    found = _frequency_findings(tmp_path, items)
    assert any(f.severity == "error" and "least-frequent-option baseline" in f.message for f in found), found


def test_qc_passes_option_frequency_near_chance(tmp_path):
    from conftest import balanced_mcq

    assert _frequency_findings(tmp_path, balanced_mcq(120)) == []
