"""Circuits of the physics domain: exact lcapy solutions checked by hand, the netlist
reader's errors, the five injected errors confirmed by re-solving, reproducible pictures."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from cogforge.generators.symbols import _circuits as circ
from cogforge.generators.symbols import physics as phys
from cogforge.generators.symbols._molecules import png_text_chunks

P = circ.Part


def test_series_parallel_solution_by_hand():
    # 12 V, R1 = 4 ohm in series with R2 = 6 || R3 = 3: 2 A in all, 4 V across the pair
    tree = ("series", [P("A1", "ammeter"), P("R1", "resistor", 4),
                       ("parallel", [P("R2", "resistor", 6), ("parallel", [P("R3", "resistor", 3)])])])
    r = circ.readings(12, tree)
    assert r["A1"]["reading"] == 2 and r["R1"]["current"] == 2
    assert r["R2"]["current"] == Fraction(2, 3) and r["R3"]["current"] == Fraction(4, 3)
    assert r["R2"]["voltage"] == 4 and r["R1"]["power"] == 16
    assert circ.readings(12, tree, polarity=-1)["R1"]["current"] == -2  # battery turned round


def test_voltmeter_and_open_switch():
    tree = ("series", [("parallel", [P("L1", "lamp", 6), P("V1", "voltmeter")]), P("L2", "lamp", 6),
                       P("S1", "switch")])
    r = circ.readings(12, tree)
    assert phys.fmt(r["V1"]["reading"], "V") == "6 V" and abs(r["V1"]["current"]) < phys.ZERO
    opened = circ.replace_part(tree, "S1", P("S1", "switch", closed=False))
    assert abs(circ.readings(12, opened)["L2"]["current"]) < phys.ZERO
    assert phys.switch_effect(r["L2"]["power"], circ.readings(12, opened)["L2"]["power"]) == "out"


def test_relations():
    tree = ("series", [P("R1", "resistor", 2), ("parallel", [("series", [P("L1", "lamp", 2), P("L2", "lamp", 3)]),
                                                              P("L3", "lamp", 4)])])
    assert circ.relation(tree, "L1", "L2") == "series"
    assert circ.relation(tree, "R1", "L3") == "neither"
    tree2 = ("series", [("parallel", [P("L1", "lamp", 2), P("L3", "lamp", 4)])])
    assert circ.relation(tree2, "L1", "L3") == "parallel"
    # instruments and switches are not connections: a voltmeter across L3 (the audit's case), an
    # ammeter or a switch in a branch leave L2 and L3 in parallel, and L1 and L2 in series
    meters = ("series", [P("L1", "lamp", 3), ("parallel", [P("L2", "lamp", 4), ("parallel", [
        ("series", [P("L3", "lamp", 4), P("S1", "switch", closed=False)]), P("V1", "voltmeter")])]),
        P("A1", "ammeter")])
    assert circ.relation(meters, "L2", "L3") == "parallel"
    assert circ.relation(meters, "L1", "L2") == "neither" and circ.relation(meters, "L1", "L3") == "neither"
    chain = ("series", [("parallel", [P("L1", "lamp", 2), P("V1", "voltmeter")]), P("A1", "ammeter"),
                        P("L2", "lamp", 3)])
    assert circ.relation(chain, "L1", "L2") == "series"


def test_a_shorted_source_is_reported():
    with pytest.raises(circ.CircuitError, match="short-circuited"):
        circ.solve("V_B 1 0 dc 12\nR_R1 1 0 4\nV_W 1 0 dc 0")


def test_meters_are_marked_plus_where_current_enters():
    # the battery's + terminal at node 1 (left end of the top line): current runs left to right
    tree = ("series", [P("A1", "ammeter"), ("parallel", [P("R1", "resistor", 4), P("V1", "voltmeter")])])
    assert circ.meter_signs(tree, 1) == {"A1": 1, "V1": 1}
    assert circ.meter_signs(tree, -1) == {"A1": -1, "V1": -1}  # battery turned round
    assert circ.draw(12, tree) != circ.draw(12, tree, reversed_meter="A1")
    rng = random.Random(7)  # the series-parallel rule agrees with lcapy on every meter that reads
    for _ in range(40):
        emf, tree = circ.sample(rng, rng.choice([1, 2, 3]))
        polarity = rng.choice([1, -1])
        solution = circ.solve(circ.netlist(emf, tree, polarity))
        for name, sign in circ.meter_signs(tree, polarity).items():
            current, voltage = solution[("V_" if name.startswith("A") else "R_") + name]
            value = current if name.startswith("A") else voltage
            assert value * sign > 0 or abs(value) < phys.ZERO


@pytest.mark.parametrize("kind, variant", [(k, "duplicate label") for k in circ.ERROR_TYPES]
                         + [("wrong label or polarity", "reversed meter")])
def test_each_circuit_error_is_confirmed_by_re_solving(kind, variant):
    rng = random.Random(kind + variant)
    confirmed = 0
    for _ in range(40):
        emf, tree = circ.sample(rng, rng.choice([1, 2, 3]))
        tree = circ.set_switches(tree, closed=True)  # as the builder: an error circuit's switches are closed
        tree = ("series", [P("A9", "ammeter")] + list(tree[1]))
        shown = phys.inject_circuit_error(emf, tree, 1, kind, rng, variant)
        if shown is None:
            continue
        assert phys.confirm_circuit_error(kind, emf, shown, 1)
        confirmed += 1
        if kind in ("short circuit", "open circuit", "misconnected meter"):  # the correct circuit passes
            clean = {"tree": tree, "solved": tree, "labels": phys._labelled(circ.parts(tree)),
                     "changed": shown["changed"], "shunted": shown.get("shunted")}
            assert not phys.confirm_circuit_error(kind, emf, clean, 1)
    assert confirmed >= 10


def test_pictures_are_reproducible_rgb_and_carry_no_text_chunks():
    rng = random.Random(1)
    emf, tree = circ.sample(rng, 3)
    a, b = circ.draw(emf, tree), circ.draw(emf, tree)
    assert a == b and png_text_chunks(a) == []
    from PIL import Image
    import io
    assert Image.open(io.BytesIO(a)).mode == "RGB"
    assert circ.draw(emf, tree, polarity=-1) != a


@pytest.mark.parametrize("line, message", [
    ("R5 1 2 four", r"element R5: value 'four' is not a number"),
    ("X1 1 2 4", r"element X1: the first letter must be R, V, I or W"),
    ("R1 1", r"'R1 1' is not 'NAME NODE NODE \[VALUE\]'"),
    ("R2 1 2 -3", r"element R2: a resistance must be positive"),
    ("V1 3 0 dc 5", r"element V1 already defined on line 2"),
])
def test_a_malformed_netlist_names_file_line_and_element(tmp_path, line, message):
    path = tmp_path / "c.net"
    path.write_text(f"# a divider\nV1 1 0 dc 12\nR1 1 2 4\n{line}\n")
    with pytest.raises(circ.CircuitError, match=rf"c\.net:4: {message}"):
        circ.parse_netlist(path)
    path.write_text("V1 1 0 dc 12\nR1 1 0 4\n")
    assert [e[0] for e in circ.parse_netlist(path)] == ["V1", "R1"]
