"""DC circuits for the physics domain: series-parallel netlists, schemdraw pictures, lcapy solutions.

A circuit is a battery in series with a tree of parts: ``("series", [...])``,
``("parallel", [...])`` or a :class:`Part` (resistor, lamp, switch, ammeter,
voltmeter). :func:`netlist` writes the tree as an lcapy netlist (the ground truth):
a lamp is its resistance, a closed switch and an ammeter are 0 V sources (their
current is exact), an open switch and a voltmeter are 10^12 and 10^9 ohm resistors.
:func:`solve` runs lcapy (exact rationals; a shorted source is a singular matrix,
reported as such). :func:`draw` lays the tree out on a grid and draws it with
schemdraw's SVG backend, rasterised with cairosvg (text drawn as paths is not needed:
the picture is a PNG). :func:`parse_netlist` reads a user's netlist file and names
the file, line and element of any problem.
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from pathlib import Path

from cogforge.core.errors import UserError, read_text

KINDS = ("resistor", "lamp", "switch", "ammeter", "voltmeter")
PREFIX = {"resistor": "R", "lamp": "L", "switch": "S", "ammeter": "A", "voltmeter": "V"}
OPEN_OHMS = 10 ** 12
VOLTMETER_OHMS = 10 ** 9
ERROR_TYPES = ("wrong component symbol", "short circuit", "open circuit", "wrong label or polarity",
               "misconnected meter")
U = 3.0  # schemdraw units per grid slot


class CircuitError(UserError):
    """A netlist or circuit that cannot be used; the message says where and what to do."""


@dataclass(frozen=True)
class Part:
    name: str          # the label drawn: R1, L2, S1, A1, V1
    kind: str          # one of KINDS
    ohms: int = 0      # resistors and lamps
    closed: bool = True  # switches
    drawn_as: str = ""  # the symbol drawn when it differs from the kind (an injected error)

    def as_dict(self) -> dict:
        return {"name": self.name, "kind": self.kind, "ohms": self.ohms, "closed": self.closed,
                "drawn_as": self.drawn_as}


def tree_to_json(node):
    if isinstance(node, Part):
        return node.as_dict()
    return [node[0], [tree_to_json(c) for c in node[1]]]


def tree_from_json(data):
    if isinstance(data, dict):
        return Part(**data)
    return (data[0], [tree_from_json(c) for c in data[1]])


def parts(node) -> list[Part]:
    return [node] if isinstance(node, Part) else [p for c in node[1] for p in parts(c)]


# --------------------------------------------------------------------------- sampling


def sample(rng: random.Random, depth: int) -> tuple[int, object]:
    """(emf, tree) of growing depth: 1 a series chain, 2 a chain with a parallel pair,
    3 two parallel branches with chains in them. Names are numbered per kind."""
    counter = {k: 0 for k in KINDS}

    def part(kind: str, **kw) -> Part:
        counter[kind] += 1
        return Part(f"{PREFIX[kind]}{counter[kind]}", kind, **kw)

    def load() -> Part:
        kind = rng.choice(["resistor", "lamp"])
        return part(kind, ohms=rng.choice([2, 3, 4, 6, 12]))

    emf = rng.choice([3, 6, 12])
    if depth == 1:
        chain = [load() for _ in range(rng.choice([2, 3]))]
    elif depth == 2:
        chain = [load(), ("parallel", [load(), load()])]
    else:
        chain = [("parallel", [("series", [load(), load()]), load()])]
        if rng.random() < 0.5:
            chain.insert(0, load())
    if rng.random() < 0.6:
        chain.insert(rng.randrange(len(chain) + 1), part("ammeter"))
    tree = ("series", chain)
    if rng.random() < 0.6:  # a switch in the main line or, where there are branches, in one of them
        branch_loads = [p for c in chain if not isinstance(c, Part) for p in parts(c)]
        switch = part("switch", closed=rng.random() < 0.5)  # open and closed equally often
        if branch_loads and rng.random() < 0.6:
            target = rng.choice(branch_loads)
            tree = replace_part(tree, target.name, ("series", [target, switch]))
        else:
            chain.insert(rng.randrange(len(chain) + 1), switch)
    if rng.random() < 0.5:  # a voltmeter across one load
        loads = [p for p in parts(tree) if p.kind in ("resistor", "lamp")]
        target = rng.choice(loads)
        tree = replace_part(tree, target.name, ("parallel", [target, part("voltmeter")]))
    return emf, tree


def replace_part(node, name: str, new):
    if isinstance(node, Part):
        return new if node.name == name else node
    return (node[0], [replace_part(c, name, new) for c in node[1]])


def set_switches(node, closed: bool = True, symbols: bool = False):
    """The tree with every switch ``closed`` (or open); ``symbols`` also draws every part as its kind."""
    if isinstance(node, Part):
        return Part(node.name, node.kind, node.ohms, closed if node.kind == "switch" else node.closed,
                    "" if symbols else node.drawn_as)
    return (node[0], [set_switches(c, closed, symbols) for c in node[1]])


def problem_unit(emf: int, tree) -> str:
    """The circuit a question is about, without how it is shown: the battery's emf and the
    parts and their connections, with every switch closed and every part drawn as its
    kind. The battery's orientation, the labels, a switch's state and the drawing's
    injected errors are presentation: one circuit with its switch open in one item and
    closed in another is one problem (the answers of one give the other's away), so it
    is one split unit."""
    import json

    return "circuit:" + json.dumps([emf, tree_to_json(set_switches(tree, True, symbols=True))])


# --------------------------------------------------------------------------- netlist and solving


def netlist(emf: int, tree, polarity: int = 1, open_return: bool = False) -> str:
    """lcapy netlist: node 1 is where the tree starts, node 0 where it ends; the battery's
    positive terminal is at node 1 when ``polarity`` is +1. ``open_return`` breaks the
    return wire (an open circuit)."""
    lines = []
    counter = [1]

    def node() -> int:
        counter[0] += 1
        return counter[0]

    def wire(n, a: int, b: int) -> None:
        if isinstance(n, Part):
            if n.kind in ("resistor", "lamp"):
                lines.append(f"R_{n.name} {a} {b} {n.ohms}")
            elif n.kind == "switch":
                lines.append(f"V_{n.name} {a} {b} dc 0" if n.closed else f"R_{n.name} {a} {b} {OPEN_OHMS}")
            elif n.kind == "ammeter":
                lines.append(f"V_{n.name} {a} {b} dc 0")
            elif n.kind == "voltmeter":
                lines.append(f"R_{n.name} {a} {b} {VOLTMETER_OHMS}")
            elif n.kind == "wire":
                lines.append(f"V_{n.name} {a} {b} dc 0")
            return
        kind, children = n
        if kind == "parallel":
            for c in children:
                wire(c, a, b)
            return
        nodes = [a] + [node() for _ in children[:-1]] + [b]
        for c, x, y in zip(children, nodes, nodes[1:]):
            wire(c, x, y)

    wire(tree, 1, 0)
    plus, minus = (1, 0) if polarity > 0 else (0, 1)
    if open_return:
        lines.append(f"R_BREAK {minus} 99 {OPEN_OHMS}")
        minus = 99
    return "\n".join([f"V_B {plus} {minus} dc {emf}"] + lines)


def _element(name: str, part: Part) -> str:
    """The lcapy name of a part (lcapy reads some two-letter prefixes, such as RV, as
    other component types: the underscore keeps them resistors and sources)."""
    if part.kind in ("resistor", "lamp", "voltmeter") or (part.kind == "switch" and not part.closed):
        return f"R_{name}"
    return f"V_{name}"


@cache
def solve(text: str) -> dict:
    """Exact branch currents (A, from an element's first node to its second) and voltages
    (V, first node minus second) of every element, by lcapy; raises CircuitError
    when the system is singular (a shorted source). Cached by netlist text: a build
    asks about one circuit several times (callers must not change the result)."""
    from lcapy import Circuit, state

    checking, state.check_units = state.check_units, False  # unit bookkeeping: a quarter of the time
    try:
        circuit = Circuit(text)
        out = {}
        for element in text.splitlines():
            name = element.split()[0]
            out[name] = (Fraction(str(circuit[name].I.dc.sympy)), Fraction(str(circuit[name].V.dc.sympy)))
        return out
    except ValueError as err:
        if "not invertible" in str(err):
            raise CircuitError("the circuit cannot be solved: a source is short-circuited") from None
        raise
    finally:
        state.check_units = checking


def readings(emf: int, tree, polarity: int = 1) -> dict[str, dict]:
    """Per part: current through it (A, in drawing order, left to right), voltage across
    it, power; meters' readings (ammeter: |I|, voltmeter: |V|)."""
    solution = solve(netlist(emf, tree, polarity))
    out = {}
    for p in parts(tree):
        current, voltage = solution[_element(p.name, p)]
        out[p.name] = {"current": current, "voltage": voltage, "power": current * voltage,
                       "reading": abs(current) if p.kind == "ammeter" else abs(voltage)}
    return out


def meter_signs(tree, polarity: int = 1) -> dict[str, int]:
    """Per meter, +1 when its + terminal is its first (left) end, else -1: the end where
    current enters an ammeter, the higher potential of a voltmeter. In a series-parallel
    network fed by one source every branch carries its current from the end nearer the
    source's + terminal, so each meter's + faces the battery's + side of the drawing
    (node 1, the left end, when ``polarity`` is +1). Tests and QC check every meter
    against lcapy's solution."""
    return {p.name: 1 if polarity > 0 else -1 for p in parts(tree) if p.kind in ("ammeter", "voltmeter")}


def connections(node):
    """The tree as its loads are connected, which is what "in series" and "in parallel"
    ask about: switches are part of the wiring (a connection does not change with a
    switch's state), a voltmeter across a part and an ammeter in a line are instruments,
    not connections (an ideal voltmeter draws no current, an ideal ammeter drops no
    voltage); then a node of one child is that child, and a node inside another of its
    kind is spliced into it. None: nothing is left."""
    if isinstance(node, Part):
        return node
    kind, kept = node[0], []
    for child in node[1]:
        if isinstance(child, Part) and (child.kind == "switch" or child.kind == {"parallel": "voltmeter",
                                                                                "series": "ammeter"}[kind]):
            continue
        child = connections(child)
        if child is None:
            continue
        kept += child[1] if not isinstance(child, Part) and child[0] == kind else [child]
    return None if not kept else kept[0] if len(kept) == 1 else (kind, kept)


def relation(tree, a: str, b: str) -> str:
    """"series" when a and b are children of one series node (same current), "parallel"
    when they are single-part branches of one parallel node (same voltage), else "neither";
    of the tree as its loads are connected (:func:`connections`: a voltmeter across L3
    leaves L3 a single-part branch)."""
    def walk(n):
        if isinstance(n, Part):
            return None
        names = [c.name for c in n[1] if isinstance(c, Part)]
        if a in names and b in names:
            return "series" if n[0] == "series" else "parallel"
        for c in n[1]:
            found = walk(c)
            if found:
                return found
        return None
    return walk(connections(tree)) or "neither"


# --------------------------------------------------------------------------- drawing


def _size(n) -> tuple[float, int]:
    """(width in slots, height in rows)."""
    if isinstance(n, Part):
        return 1.0, 1
    sizes = [_size(c) for c in n[1]]
    if n[0] == "series":
        return sum(w for w, _ in sizes), max(h for _, h in sizes)
    return max(w for w, _ in sizes) + 1.0, sum(h for _, h in sizes)


def _symbol(part: Part):
    import schemdraw.elements as elm

    kind = part.drawn_as or part.kind
    if kind == "resistor":
        return elm.Resistor()
    if kind == "lamp":
        return elm.Lamp()
    if kind == "switch":
        return _switch_class()(closed=part.closed)
    if kind == "ammeter":
        return elm.MeterA()
    if kind == "voltmeter":
        return elm.MeterV()
    return elm.Line()


@cache
def _switch_class():
    """A switch whose state no reader mistakes: closed, the lever lies flat from one contact
    to the other (a straight wire between two small circles); open, it stands up at 35
    degrees, well clear of the second contact. schemdraw's own closed symbol (``nc=True``)
    rests the raised lever on the contact, which many students read as open."""
    from schemdraw.elements.elements import Element2Term, gap
    from schemdraw.elements.switches import sw_dot_r
    from schemdraw.segments import Segment, SegmentCircle

    class Lever(Element2Term):
        def __init__(self, closed: bool, **kwargs):
            super().__init__(**kwargs)
            r = sw_dot_r
            tip = (1 - 2 * r, 0) if closed else (2 * r + 0.62 * math.cos(math.radians(35)),
                                                 0.62 * math.sin(math.radians(35)))
            self.segments.append(Segment([(0, 0), gap, (2 * r, 0), tip, gap, (1, 0)]))
            self.segments.append(SegmentCircle((r, 0), r, fill="bg", zorder=3))
            self.segments.append(SegmentCircle((1 - r, 0), r, fill="bg", zorder=3))
    return Lever


def _draw(d, n, x: float, y: float, w: float, labels: dict[str, str], shorted: str | None,
          signs: dict[str, int]) -> None:
    import schemdraw.elements as elm

    if isinstance(n, Part):
        nat = 1.0
        pad = (w - nat) * U / 2
        start, end = (x + pad, y), (x + pad + nat * U, y)
        if pad > 0:
            d.add(elm.Line().endpoints((x, y), start))
            d.add(elm.Line().endpoints(end, (x + w * U, y)))
        symbol = _symbol(n).endpoints(start, end).label(labels.get(n.name, n.name), loc="top")
        if n.name in signs:  # the meter's terminals, + where the current should enter
            symbol.label(["+", "", "−"] if signs[n.name] > 0 else ["−", "", "+"], loc="bottom", fontsize=17)
        d.add(symbol)
        if shorted == n.name:  # a wire from one terminal to the other, under the part
            low = y - 0.5 * U
            d.add(elm.Line().endpoints(start, (start[0], low)))
            d.add(elm.Line().endpoints((start[0], low), (end[0], low)))
            d.add(elm.Line().endpoints((end[0], low), end))
            d.add(elm.Dot().at(start))
            d.add(elm.Dot().at(end))
        return
    kind, children = n
    if kind == "series":
        widths = [_size(c)[0] for c in children]
        widths[-1] += w - sum(widths)
        for c, cw in zip(children, widths):
            _draw(d, c, x, y, cw, labels, shorted, signs)
            x += cw * U
        return
    left, right = x + 0.5 * U, x + (w - 0.5) * U
    d.add(elm.Line().endpoints((x, y), (left, y)))
    d.add(elm.Line().endpoints((right, y), (x + w * U, y)))
    row = y
    for k, c in enumerate(children):
        if k:
            d.add(elm.Line().endpoints((left, previous), (left, row)))
            d.add(elm.Line().endpoints((right, previous), (right, row)))
        _draw(d, c, left, row, w - 1.0, labels, shorted, signs)
        previous = row
        row -= _size(c)[1] * U * 1.1
    d.add(elm.Dot().at((left, y)))
    d.add(elm.Dot().at((right, y)))


def draw(emf: int, tree, polarity: int = 1, labels: dict[str, str] | None = None, shorted: str | None = None,
         open_return: bool = False, battery_shorted: bool = False, width: int = 900,
         reversed_meter: str | None = None) -> bytes:
    """PNG bytes of the circuit: the tree along the top, the battery on the left side,
    each meter's + and − terminals marked (:func:`meter_signs`; ``reversed_meter``'s
    the wrong way round, an injected error)."""
    import schemdraw
    import schemdraw.elements as elm

    w, h = _size(tree)
    d = schemdraw.Drawing(show=False, canvas="svg")
    d.config(unit=U, fontsize=15, font="DejaVu Sans", lw=2)
    signs = meter_signs(tree, polarity)
    if reversed_meter:
        signs[reversed_meter] *= -1
    _draw(d, tree, 0.0, 0.0, w, labels or {}, shorted, signs)
    bottom = -(h - 1) * U * 1.1 - 1.2 * U
    right = w * U
    d.add(elm.Line().endpoints((right, 0), (right, bottom)))
    if open_return:  # a gap in the return wire
        d.add(elm.Line().endpoints((right, bottom), (right * 0.55, bottom)))
        d.add(elm.Line().endpoints((right * 0.45, bottom), (0, bottom)))
    else:
        d.add(elm.Line().endpoints((right, bottom), (0, bottom)))
    top, low = (0, 0), (0, bottom)
    battery = elm.BatteryCell().endpoints(top, low) if polarity > 0 else elm.BatteryCell().endpoints(low, top)
    d.add(battery.label(f"{emf} V", loc="bottom"))
    if battery_shorted:
        d.add(elm.Line().endpoints((-0.8 * U, 0), (-0.8 * U, bottom)))
        d.add(elm.Line().endpoints((-0.8 * U, 0), (0, 0)))
        d.add(elm.Line().endpoints((-0.8 * U, bottom), (0, bottom)))
    return _rasterise(d.get_imagedata("svg"), width)


def _rasterise(svg: bytes, width: int) -> bytes:
    """An RGB PNG of the SVG, drawn by cairosvg on a white cairo surface whose pixels go
    straight to Pillow (the bytes ``reencode(cairosvg.svg2png(...))`` gives, without
    cairo's PNG writer and a decode in between)."""
    import io

    from cairosvg.parser import Tree
    from cairosvg.surface import PNGSurface
    from PIL import Image

    surface = PNGSurface(Tree(bytestring=svg), None, 96, output_width=width, background_color="white").cairo
    surface.flush()
    image = Image.frombuffer("RGBA", (surface.get_width(), surface.get_height()), bytes(surface.get_data()),
                             "raw", "BGRA", surface.get_stride(), 1).convert("RGB")
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=6, compress_type=3)
    return out.getvalue()


# --------------------------------------------------------------------------- user netlists

_LINE = re.compile(r"^(?P<name>[A-Za-z]\w*)\s+(?P<a>\w+)\s+(?P<b>\w+)(?:\s+(?P<rest>.+))?$")


def parse_netlist(path: Path | str) -> list[tuple[str, str, str, str]]:
    """A user's lcapy-style netlist file (``V1 1 0 dc 12``, ``R1 1 2 4``, ``W 2 0``): one
    element per line, ``#`` comments. Errors name ``file:line`` and the element."""
    path = Path(path)
    elements, names = [], {}
    try:
        lines = read_text(path, "netlist").splitlines()
    except UserError as err:
        raise CircuitError(str(err)) from None
    for number, line in enumerate(lines, 1):
        text = line.split("#")[0].strip()
        if not text:
            continue
        where = f"{path}:{number}"
        m = _LINE.match(text)
        if not m:
            raise CircuitError(f"{where}: {text!r} is not 'NAME NODE NODE [VALUE]' (e.g. 'R1 1 2 4')")
        name, rest = m["name"], (m["rest"] or "").strip()
        if name in names:
            raise CircuitError(f"{where}: element {name} already defined on line {names[name]}")
        names[name] = number
        kind = name[0].upper()
        if kind not in "RVIW":
            raise CircuitError(f"{where}: element {name}: the first letter must be R, V, I or W")
        if kind != "W":
            value = rest.removeprefix("dc").strip()
            try:
                Fraction(value)
            except (ValueError, ZeroDivisionError):
                raise CircuitError(f"{where}: element {name}: value {rest!r} is not a number") from None
            if kind == "R" and Fraction(value) <= 0:
                raise CircuitError(f"{where}: element {name}: a resistance must be positive")
        elements.append((name, m["a"], m["b"], rest))
    if not elements:
        raise CircuitError(f"{path}: no elements")
    return elements
