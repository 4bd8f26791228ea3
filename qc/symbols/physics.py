"""Physics answers re-derived from ``meta``: every circuit re-solved with lcapy from its
netlist (which must be the netlist of the drawn tree); every force diagram's forces
compared with the free-body rules for its scene (the same forces, or exactly the
labelled error) and every answer recomputed from the exact forces; every picture drawn
again."""

from __future__ import annotations

from fractions import Fraction
from functools import partial

from cogforge.core.parallel import draw_all
from cogforge.qc.core import Build, CheckResult, Finding


def _current(solution: dict, element: str) -> Fraction:
    return solution[element][0]


def _mark_problem(m: dict, every: dict) -> str | None:
    """The + and − marks drawn on each meter against lcapy's solution: + where current
    enters an ammeter, at the higher potential of a voltmeter; the meter an error item
    reversed the other way round, and it must read something."""
    from cogforge.generators.symbols import _circuits as circ
    from cogforge.generators.symbols import physics as phys

    marks = circ.meter_signs(circ.tree_from_json(m["tree"]), m["polarity"])
    if not marks:
        return None
    solution = circ.solve(m["netlist"])
    for name, sign in marks.items():
        current, voltage = solution[f"{'V' if every[name].kind == 'ammeter' else 'R'}_{name}"]
        value = current if every[name].kind == "ammeter" else voltage
        if name == m.get("reversed_meter"):
            sign = -sign
            if abs(value) < phys.ZERO or value * sign > 0:
                return f"{name} is drawn reversed but lcapy reads {value} through it: the error does not show"
        elif value * sign < 0 and abs(value) > phys.ZERO:
            return f"{name}'s + and − marks are the wrong way round for lcapy's reading {value}"
    return None


def _circuit_problem(item) -> str | None:
    from cogforge.generators.symbols import _circuits as circ
    from cogforge.generators.symbols import physics as phys

    m = item.meta
    tree = circ.tree_from_json(m["tree"])
    every = {p.name: p for p in circ.parts(tree)}
    if m["netlist"] != circ.netlist(m["emf"], tree, m["polarity"], m.get("open_return", False)):
        return "meta.netlist is not the netlist of the drawn circuit"
    kind = m.get("question_kind")
    if problem := _mark_problem(m, every):
        return problem
    if "error_type" in m:
        return _error_problem(item, tree, every)
    if kind == "count":
        want = str(sum(p.kind == m["counted"] for p in every.values()))
    elif kind == "relation":
        want = phys.RELATIONS[circ.relation(tree, *m["pair"])]
    elif kind == "identify":
        want = phys.KIND_NAMES[every[m["part"]].kind]
        if any(not label.isdigit() for label in m["labels"].values()):
            return "identify items must label parts by number only"
    else:
        solution = circ.solve(m["netlist"])

        def element(name: str) -> str:
            part = every[name]
            return f"R_{name}" if part.kind in ("resistor", "lamp", "voltmeter") else f"V_{name}"
        if kind == "reading":
            current, voltage = solution[element(m["meter"])]
            want = phys.fmt(abs(current) if m["unit"] == "A" else abs(voltage), m["unit"])
        elif kind == "brightest":
            powers = {n: solution[element(n)][0] * solution[element(n)][1] for n, p in every.items() if p.kind == "lamp"}
            top = sorted(powers.values())
            if len(top) > 1 and top[-1] < top[-2] * Fraction(11, 10):
                return "the brightest lamp is not clearly brightest"
            want = f"Lamp {max(powers, key=powers.get)}"
        elif kind == "switch":
            action = "opened" if every[m["switch"]].closed else "closed"  # the state drawn decides the question
            if f"switch {m['switch']} is {action}?" not in item.question:
                return f"switch {m['switch']} is drawn {'closed' if action == 'opened' else 'open'}: " \
                       f"the question must ask what happens when it is {action}"
            after = circ.solve(m["netlist_toggled"])
            lamp = element(m["lamp"])
            want = phys.SWITCH_EFFECTS[phys.switch_effect(solution[lamp][0] * solution[lamp][1],
                                                          after[lamp][0] * after[lamp][1])]
        elif kind == "direction":
            want = phys.DIRECTIONS[1 if _current(solution, element(m["part"])) > 0 else -1]
        else:
            return f"unknown question kind {kind!r}"
    return None if item.answer == want else f"answer {item.answer!r}, re-derived {want!r}"


def _error_problem(item, tree, every) -> str | None:
    from cogforge.generators.symbols import _circuits as circ
    from cogforge.generators.symbols import physics as phys

    m, kind = item.meta, item.meta["error_type"]
    if phys.CIRCUIT_ERRORS.get(kind) != item.answer:
        return f"answer {item.answer!r} does not name the error {kind!r}"
    if kind == "wrong component symbol":
        ok = any(p.drawn_as and p.drawn_as != p.kind for p in every.values())
    elif kind == "wrong label or polarity" and m.get("variant") == "duplicate label":
        shown = [m["labels"][n].split()[0] for n in every]
        ok = len(set(shown)) < len(shown)
    elif kind == "wrong label or polarity":  # the meter drawn reversed must read something
        ok = _mark_problem(m, every) is None and m["reversed_meter"] in every
    else:
        reference = circ.solve(m["reference_netlist"])
        try:
            solution = circ.solve(m["netlist_solved"])
        except circ.CircuitError:
            solution = None
        if kind == "open circuit":
            ok = solution is not None and all(abs(i) < phys.ZERO for i, _v in solution.values())
        elif kind == "short circuit":
            name = f"R_{m['changed']}"
            ok = solution is None or (abs(solution[name][0]) < phys.ZERO and abs(reference[name][0]) >= phys.ZERO)
        elif kind == "misconnected meter":
            shunted = next(p.name for p in every.values() if p.kind in ("resistor", "lamp")
                           and circ.relation(tree, p.name, m["changed"]) == "parallel")
            ok = solution is not None and abs(solution[f"R_{shunted}"][0]) < phys.ZERO
        else:
            return f"unknown error type {kind!r}"
    return None if ok else f"the {kind!r} error does not show when the circuit is re-solved or inspected"


def _force_problem(item) -> str | None:
    from collections import Counter

    from cogforge.generators.symbols import _forces as fz
    from cogforge.generators.symbols import physics as phys

    m = item.meta
    scene = fz.Scene.from_dict(m["scene"])
    drawn = [fz.Force.from_dict(f) for f in m["forces"]]
    # arrows and labels on their own body (a weight arrow running into the block below reads as acting there)
    if problems := fz.drawing_problems(scene, drawn, {int(k): v for k, v in m["labels"].items()} or None,
                                       show_values=m.get("show_values", True),
                                       show_motion=m.get("show_motion", True)):
        return "; ".join(problems)
    if "error_type" in m:
        found = fz.find_error(scene, drawn)
        if found != (m["error_type"], m["force_concerned"]) or phys.FORCE_ERRORS[m["error_type"]] != item.answer:
            return f"comparing with the free-body rules finds {found}, meta says {m['error_type']!r}"
        return None
    if drawn and Counter(f.key() for f in drawn) != Counter(f.key() for f in fz.free_body(scene)):
        return "the diagram's forces are not the scene's free-body forces"
    kind, facts = m["question_kind"], fz.motion(scene)
    by_label = {label: drawn[int(i)] for i, label in m["labels"].items()}
    if kind == "which":
        want = phys.FORCE_KINDS[by_label[m["arrow"]].kind]
    elif kind == "largest":
        sizes = sorted((f.magnitude for f in drawn), reverse=True)
        if sizes[0] < sizes[1] * Fraction(6, 5):
            return "the largest force is not clearly largest"
        want = f"Arrow {next(k for k, f in by_label.items() if f.magnitude == sizes[0])}"
    elif kind == "arrow-direction" or kind == "direction":
        want = phys.direction_word(scene, by_label[m["arrow"]].angle)
    elif kind == "body":
        force = by_label[m["arrow"]]
        if phys.on_contact(scene, force):
            return "the arrow starts where the blocks touch: the picture does not say which block"
        want = f"Block {force.body}"
    elif kind in ("net-force", "acceleration"):
        word = _net_direction(scene, drawn, m["body"]) if kind == "net-force" else _released(scene, m["body"])
        want = phys.NO_NET[kind] if word == "none" else word
    elif kind == "equilibrium":
        want = item.options[0 if facts["equilibrium"] else 1]
    elif kind == "slides":
        want = item.options[0 if facts["slides"] else 1]
    else:
        return f"unknown question kind {kind!r}"
    return None if item.answer == want else f"answer {item.answer!r}, re-derived {want!r}"


def _net_direction(scene, drawn, body: str) -> str | None:
    """The direction of the exact sum of the arrows drawn on ``body``."""
    from cogforge.generators.symbols import _forces as fz

    return fz.direction_name(scene, fz.net_force(drawn, body))


def _released(scene, body: str) -> str:
    """Which way ``body`` starts from rest, from textbook inequalities rather than the
    free-body sums: a slope steeper than its friction allows, a rope pulling harder
    along the floor than mu N, a hanging mass heavier than the table's friction, the
    heavier side of Atwood's machine."""
    from cogforge.generators.symbols import _forces as fz

    a, *rest = scene.masses
    if scene.kind == "incline":
        cos, sin = fz.unit(scene.angle)
        return "down the slope" if sin > scene.mu * cos else "none"
    if scene.kind == "atwood":
        b = rest[0]
        return "none" if a == b else ("up" if (b > a) == (body == "A") else "down")
    toward = "left" if scene.mirrored else "right"
    if scene.kind == "table":
        moves = rest[0] > scene.mu * a
        return "none" if not moves else toward if body == "A" else "down"
    cos, sin = fz.unit(scene.rope_angle)  # pulled
    return toward if scene.applied * cos > scene.mu * (a * fz.G - scene.applied * sin) else "none"


def _redraw(m: dict) -> bytes:
    from cogforge.generators.symbols import _circuits as circ
    from cogforge.generators.symbols import _forces as fz

    if "scene" in m:
        labels = {int(k): v for k, v in m["labels"].items()} or None
        return fz.render(fz.Scene.from_dict(m["scene"]), [fz.Force.from_dict(f) for f in m["forces"]], labels,
                         style_seed=m["style_seed"], show_values=m.get("show_values", True),
                         show_motion=m.get("show_motion", True))
    return circ.draw(m["emf"], circ.tree_from_json(m["tree"]), m["polarity"], m["labels"],
                     shorted=m.get("shorted"), open_return=m.get("open_return", False),
                     reversed_meter=m.get("reversed_meter"))


def _problem(item) -> str | None:
    try:
        return _circuit_problem(item) if "netlist" in item.meta else _force_problem(item)
    except (ValueError, KeyError) as err:
        return f"cannot be re-derived: {err}"


def check(build: Build, items: list) -> CheckResult:
    out = CheckResult()
    wrong = 0
    # each item on its own (re-solving, free-body rules, label geometry): on every core
    for item, problem in zip(items, draw_all([partial(_problem, i) for i in items], progress=False,
                                             desc="re-deriving")):
        if problem:
            wrong += 1
            out.findings.append(Finding("error", "physics", item.id, problem))
    redrawn = 0
    for item, picture in zip(items, draw_all([partial(_redraw, i.meta) for i in items], progress=False,
                                             desc="redrawing")):
        if picture != (build.path / item.images[0]).read_bytes():
            redrawn += 1
            out.findings.append(Finding("error", "physics-images", item.id,
                                        "drawing meta again does not give the item's image bytes"))
    out.stats = {"items": len(items), "answers_not_rederived": wrong, "images_not_reproduced": redrawn}
    return out
