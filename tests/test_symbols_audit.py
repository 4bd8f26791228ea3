"""What a careful reader misread or could not tell in the symbols items (issue 23, part 6),
and the shared checks that now catch each: switches drawn so their state is plain,
format examples that are no item's answer (every benchmark), force arrows and labels on
their own body, split units that are the problem rather than its style, and the bond
counting rule said exactly."""

from __future__ import annotations

import json
import random
from collections import Counter
from fractions import Fraction
from types import SimpleNamespace

import pytest

from cogforge.core.positions import Positions
from cogforge.generators.symbols import _circuits as circ
from cogforge.generators.symbols import _forces as fz
from cogforge.generators.symbols import _mathbase as mb
from cogforge.generators.symbols import physics as phys
from cogforge.qc.checks import check_splits
from cogforge.qc.core import load_build
from cogforge.qc.examples import check_examples, format_examples
from conftest import make_toy_build

P = circ.Part


def _ctx():
    return SimpleNamespace(positions=Positions(), dropped=Counter())


@pytest.fixture(scope="module")
def chem_ctx():
    from cogforge.generators.symbols import chemistry

    ctx = chemistry.prepare(chemistry.Config().model_dump(), {}, False)
    ctx.positions = Positions()
    return ctx


# --------------------------------------------------------------------------- switches


def test_a_closed_switch_lies_flat_and_an_open_one_stands_clear():
    """Closed: the lever runs along the wire from contact to contact; open: it stands up,
    its tip well clear of the second contact (schemdraw's nc symbol rested a raised lever
    on the contact, read as open)."""
    lever = circ._switch_class()
    closed, opened = lever(closed=True), lever(closed=False)
    (c_tip,) = [p for p in closed.segments[0].path if p not in ((0, 0), (1, 0)) and p[0] > 0.5]
    (o_tip,) = [p for p in opened.segments[0].path if p not in ((0, 0), (1, 0)) and p[0] > 0.5]
    assert c_tip[1] == 0 and c_tip[0] >= 1 - 2 * 0.12  # reaches the second contact, on the wire
    assert o_tip[1] > 0.3  # raised: a gap a reader sees
    tree = lambda closed: ("series", [P("R1", "resistor", 4), P("S1", "switch", closed=closed)])  # noqa: E731
    assert circ.draw(6, tree(True)) != circ.draw(6, tree(False))


def test_sampled_circuits_have_open_and_closed_switches():
    rng = random.Random(0)
    states = Counter(p.closed for _ in range(300) for p in circ.parts(circ.sample(rng, rng.choice([1, 2, 3]))[1])
                     if p.kind == "switch")
    assert states[True] > 40 and states[False] > 40


def test_switch_questions_follow_the_drawn_state():
    """A closed switch is asked about opening, an open one about closing (lighting a lamp)."""
    drafts = phys.make_circuit_operation(_ctx(), 48, random.Random(3))
    asked = Counter()
    for d in drafts:
        if d.meta["question_kind"] != "switch":
            continue
        switch = next(p for p in circ.parts(circ.tree_from_json(d.meta["tree"])) if p.name == d.meta["switch"])
        action = "opened" if switch.closed else "closed"
        assert f"is {action}?" in d.question and d.meta["action"] == action
        asked[action] += 1
    assert asked["opened"] and asked["closed"]
    # no "brightest" question on a circuit whose lamps are all out
    for d in drafts:
        if d.meta["question_kind"] == "brightest":
            assert max(Fraction(p) for p in d.meta["powers"].values()) > phys.ZERO


def test_circuit_errors_keep_every_switch_closed():
    """An open switch would read as the "open circuit" error."""
    for d in phys.make_circuit_error(_ctx(), 20, random.Random(1)):
        assert all(p.closed for p in circ.parts(circ.tree_from_json(d.meta["tree"])))


# --------------------------------------------------------------------------- format examples


def test_format_examples_are_found_in_every_kind_of_prompt():
    from cogforge.builders import carv, cogevolve

    assert format_examples("on the last line as 'Answer: 2, 1, 2'.") == ["2, 1, 2"]
    assert format_examples(mb.FORMATS["interval"]) == ["[-2, 3)", "(-oo, 1) U (2, oo)"]
    assert format_examples(mb.FORMATS["exact"]) == ["5/2", "3*sqrt(2)"]
    assert format_examples(mb.FORMATS["set"]) == ["{-1, 2}"]
    assert format_examples(carv._reply()) == ["one vase on a red chair"]
    assert format_examples("Reply with the line 'Answer: <letter>'.") == []  # a placeholder
    assert format_examples("End with the line: " + cogevolve.SEQUENCE_FORMAT) == []


def test_the_examples_check_fails_an_item_keyed_with_its_own_example(tmp_path):
    prompt = "Balance it; on the last line as 'Answer: 2, 1, 2'."
    build = make_toy_build(tmp_path / "b", [{"question": prompt, "answer": "2, 1, 2", "options": None},
                                            {"question": prompt, "answer": "1, 3, 2", "options": None}])
    found = check_examples(load_build(build)).findings
    assert [f.target for f in found] == ["toy-0000"] and found[0].severity == "error"


def test_builders_choose_examples_that_are_no_answer(chem_ctx):
    from cogforge.builders import carv
    from cogforge.generators.carv import load_world
    from cogforge.generators.symbols import chemistry

    drawn = {w for forms in load_world().words["subject"].values() for w in forms}
    assert not any(word in drawn for word in format_examples(carv._reply())[0].split())
    ctx = chem_ctx
    drafts = chemistry.make_balancing(ctx, 60, random.Random(0))
    keys = {", ".join(map(str, r.equation.coefficients)) for r in ctx.reactions}
    assert all(not set(format_examples(d.question)) & keys for d in drafts)
    # mathematics: an item whose answer is an example gets the other examples
    assert "5/2" not in mb.format_text("exact", "5/2") and "5/2" in mb.format_text("exact", "7/2")
    assert "{-1, 2}" not in mb.format_text("set", "{2, -1}")


# --------------------------------------------------------------------------- force pictures

# force-motion-00141 of the audited build: block A's weight ran into block B, its label inside B
STACKED = fz.Scene("stacked", (Fraction(3), Fraction(2)))


def test_the_drawing_check_catches_an_arrow_on_another_body(monkeypatch):
    assert fz.drawing_problems(STACKED, fz.free_body(STACKED), show_motion=False) == []
    monkeypatch.setattr(fz, "_room", lambda blocked, start, d: 10_000.0)  # the old layout: no room limit
    problems = fz.drawing_problems(STACKED, fz.free_body(STACKED), show_motion=False)
    assert any("G on A runs into another body" in p for p in problems)


def test_arrows_and_labels_stay_on_their_body_in_every_kind_of_scene():
    rng = random.Random(7)
    for k in range(2 * len(fz.KINDS)):  # two of each kind (the build's QC runs it on every picture)
        scene = fz.sample_scene(rng, fz.KINDS[k % len(fz.KINDS)])
        correct = fz.free_body(scene)
        kinds = fz.ERROR_TYPES if scene.kind in fz.TWO_BODIES else fz.ERROR_TYPES[:3]
        for forces in [correct] + [fz.inject(scene, correct, e, rng)[0] for e in kinds]:
            for values in (True, False):
                assert fz.drawing_problems(scene, forces, show_values=values) == [], (scene, forces)


# --------------------------------------------------------------------------- split units


def _incline(state: str, mirrored: bool) -> fz.Scene:
    return fz.Scene("incline", (Fraction(3),), angle=37, mu=Fraction(3, 4), state=state, velocity=-1,
                    mirrored=mirrored)


def test_one_problem_in_two_styles_is_one_split_unit():
    """force-motion-00220 (test) and -00077 (validation): one incline, drawn in two colours,
    its state hidden by the question."""
    assert fz.problem_unit(_incline("rest", True)) == fz.problem_unit(_incline("constant velocity", False))
    tree = ("series", [P("R1", "resistor", 4), P("S1", "switch", closed=False)])
    assert circ.problem_unit(6, tree) == circ.problem_unit(6, circ.set_switches(tree, True))


def test_qc_finds_one_problem_in_two_splits(tmp_path):
    stem = phys.PROMPTS["slides"]
    options = ["Yes, it slides", "No, it stays at rest"]

    def item(scene, seed, split):
        return {"question": phys.mcq_prompt(stem, options), "options": options, "answer": options[1],
                "split": split, "images": [seed],
                "meta": {"domain": "physics", "level": 2, "scene": scene.as_dict(), "forces": [], "labels": {},
                         "question_kind": "slides", "style_seed": seed, "show_motion": False}}
    build = make_toy_build(tmp_path / "b", [item(_incline("rest", True), 1, "test"),
                                            item(_incline("constant velocity", True), 2, "validation")], "symbols")
    found = [f for f in check_splits(load_build(build)).findings if "same problem" in f.message]
    assert len(found) == 1 and found[0].severity == "error"


# --------------------------------------------------------------------------- bonds


def test_the_bond_prompt_says_what_counts_and_only_what_applies(chem_ctx):
    from cogforge.generators.symbols import chemistry

    for d in chemistry.make_bonds(chem_ctx, 60, random.Random(0)):
        assert "atom labels such as NH2 or OH" in d.question
        text = d.question.split("\nA. ")[0]
        if chemistry._molecules.has_aromatic_bonds(d.meta["smiles"]):  # the drawing convention, said once
            assert "aromatic" in text.split("NH2 or OH.")[1].lower()
        else:  # nothing about rings in a molecule with none
            assert "ring" not in text and "aromatic" not in text


@pytest.mark.parametrize("task", ["physics-force-motion", "physics-circuit-operation"])
def test_full_build_keeps_problems_in_one_split(symbols_build, task):
    items = [json.loads(line) for line in (symbols_build / "items.jsonl").read_text().splitlines()]
    items = [i for i in items if i["task"] == task]
    from cogforge.core.record import Item
    from cogforge.qc.symbols import problem_key

    splits: dict[str, set] = {}
    for raw in items:
        splits.setdefault(problem_key(Item.from_dict(raw, "x")), set()).add(raw["split"])
    assert all(len(s) == 1 for s in splits.values())
