"""Chemical equations: formulas, balancing, the curated reactions, types, errors, pictures.

* :func:`parse_formula` counts atoms in a formula (``Ca(OH)2``, ``CH3COOC2H5``).
* :func:`balance` gives the smallest integer coefficients from the null space of the
  element matrix (sympy); an equation whose null space is not one-dimensional has
  no unique answer and is refused.
* :func:`load_reactions` reads ``generators/data/symbols_reactions.txt`` (format in
  its header); a bad line raises :class:`ReactionError` naming ``file:line``.
* :func:`reaction_type` re-derives a reaction's type from its formulas with the
  exclusive rules in the data file's header; the loader insists it agrees.
* :func:`render` draws an equation with Pillow and the DejaVu fonts that come with
  matplotlib: real subscripts, state symbols, the catalyst above the arrow and the
  condition below it.
"""

from __future__ import annotations

import io
import math
import random
import re
from collections import Counter
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

from cogforge.core.errors import UserError, read_text

REACTIONS = Path(__file__).resolve().parent.parent / "data" / "symbols_reactions.txt"
TYPES = ("combination", "decomposition", "single-displacement", "double-displacement", "neutralisation",
         "combustion", "redox")
STATES = ("s", "l", "g", "aq")
ARROWS = ("->", "<=>")
# Conditions written below the arrow and catalysts above it, with a class each: an
# injected "wrong" one comes from a class that none of the right ones belongs to.
CONDITIONS = {"heat": "thermal", "high temperature": "thermal", "ignite": "thermal",
              "high temperature, high pressure": "thermal", "high pressure": "pressure",
              "electrolysis": "electric", "electric spark": "electric", "light": "light"}
CATALYSTS = {"MnO2": "oxide", "V2O5": "oxide", "Fe2O3": "oxide", "Cu/ZnO": "oxide",
             "Fe": "metal", "Pt": "metal", "Ni": "metal", "Pd": "metal", "Cu": "metal", "Ag": "metal",
             "conc. H2SO4": "acid", "dil. H2SO4": "acid", "H3PO4": "acid", "HgSO4": "mercury salt",
             "FeBr3": "Lewis acid", "FeCl3": "Lewis acid", "AlCl3": "Lewis acid", "CuCl2": "copper salt",
             "yeast": "biological", "chlorophyll": "biological"}
ERROR_TYPES = ("element imbalance", "wrong condition", "wrong arrow", "wrong state symbol", "wrong catalyst")
ACIDS = {"HCl", "HBr", "HI", "HNO3", "H2SO4", "H3PO4", "CH3COOH", "HF"}
ELEMENTS = frozenset("""H He Li Be B C N O F Ne Na Mg Al Si P S Cl Ar K Ca Sc Ti V Cr Mn Fe Co Ni Cu Zn Ga Ge As
Se Br Kr Rb Sr Y Zr Nb Mo Tc Ru Rh Pd Ag Cd In Sn Sb Te I Xe Cs Ba La Ce Pr Nd Pm Sm Eu Gd Tb Dy Ho Er Tm Yb
Lu Hf Ta W Re Os Ir Pt Au Hg Tl Pb Bi Po At Rn Fr Ra Ac Th Pa U""".split())


class ReactionError(UserError):
    """A formula, equation or data line that cannot be used; the message says where."""


# --------------------------------------------------------------------------- formulas

_TOKEN = re.compile(r"([A-Z][a-z]?)|(\()|(\))|(\d+)")


def parse_formula(text: str) -> Counter:
    """Atoms per element of a neutral formula such as ``Al2(SO4)3``."""
    stack, pos = [Counter()], 0
    last: Counter | None = None
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise ReactionError(f"formula {text!r}: unexpected {text[pos]!r} at position {pos + 1}")
        element, opening, closing, digits = m.groups()
        if element:
            if element not in ELEMENTS:
                raise ReactionError(f"formula {text!r}: {element!r} is not an element symbol")
            last = Counter({element: 1})
            stack[-1] += last
        elif opening:
            stack.append(Counter())
            last = None
        elif closing:
            if len(stack) == 1:
                raise ReactionError(f"formula {text!r}: ')' without '('")
            last = stack.pop()
            stack[-1] += last
        else:
            if last is None:
                raise ReactionError(f"formula {text!r}: a number must follow an element or ')'")
            for element, n in last.items():
                stack[-1][element] += n * (int(digits) - 1)
            last = None
        pos = m.end()
    if len(stack) != 1 or not stack[0]:
        raise ReactionError(f"formula {text!r}: unbalanced parentheses or empty")
    return stack[0]


def element_totals(formulas: list[str], coefficients: list[int]) -> Counter:
    total = Counter()
    for formula, c in zip(formulas, coefficients):
        for element, n in parse_formula(formula).items():
            total[element] += c * n
    return total


def is_balanced(reactants: list[str], products: list[str], coefficients: list[int]) -> bool:
    k = len(reactants)
    return element_totals(reactants, coefficients[:k]) == element_totals(products, coefficients[k:])


def balance(reactants: list[str], products: list[str]) -> list[int]:
    """The smallest positive integer coefficients (sympy null space); raises when not unique."""
    import sympy

    species = reactants + products
    counts = [parse_formula(f) for f in species]
    elements = sorted(set().union(*counts))
    matrix = sympy.Matrix([[c[e] * (1 if j < len(reactants) else -1) for j, c in enumerate(counts)]
                           for e in elements])
    space = matrix.nullspace()
    if len(space) != 1:
        raise ReactionError(f"{' + '.join(reactants)} -> {' + '.join(products)}: "
                            f"{'no' if not space else 'more than one'} way to balance it")
    vector = space[0]
    scale = math.lcm(*[sympy.fraction(x)[1] for x in vector])
    ints = [int(x * scale) for x in vector]
    if all(x < 0 for x in ints):
        ints = [-x for x in ints]
    if any(x <= 0 for x in ints):
        raise ReactionError(f"{' + '.join(reactants)} -> {' + '.join(products)}: cannot be balanced "
                            "with positive coefficients")
    g = math.gcd(*ints)
    return [x // g for x in ints]


# --------------------------------------------------------------------------- reactions


@dataclass(frozen=True)
class Equation:
    """What an equation picture shows."""
    reactants: tuple[str, ...]
    products: tuple[str, ...]
    states: tuple[str, ...]  # reactants then products
    coefficients: tuple[int, ...]
    arrow: str = "->"
    condition: str = ""
    catalyst: str = ""

    def as_meta(self) -> dict:
        return {"reactants": list(self.reactants), "products": list(self.products), "states": list(self.states),
                "coefficients": list(self.coefficients), "arrow": self.arrow, "condition": self.condition,
                "catalyst": self.catalyst}


@dataclass(frozen=True)
class Reaction:
    id: str
    type: str
    equation: Equation
    accepted: tuple[str, ...]
    arrow_fixed: bool
    wrong_state: tuple[str, str] | None
    where: str


_SPECIES = re.compile(r"(?:(\d+) )?([A-Za-z0-9()]+)\((s|l|g|aq)\)$")


def parse_equation(text: str) -> Equation:
    """``2 Mg(s) + O2(g) -> 2 MgO(s)`` (coefficients, states, ``->`` or ``<=>``)."""
    arrow = next((a for a in (" <=> ", " -> ") if a in text), None)
    if arrow is None:
        raise ReactionError(f"equation {text!r}: no ' -> ' or ' <=> ' arrow")
    sides = text.split(arrow)
    if len(sides) != 2:
        raise ReactionError(f"equation {text!r}: more than one arrow")
    formulas, states, coefficients = [[], []], [], []
    for k, side in enumerate(sides):
        for part in side.strip().split(" + "):
            m = _SPECIES.match(part.strip())
            if not m:
                raise ReactionError(f"equation {text!r}: {part.strip()!r} is not 'COEFFICIENT FORMULA(state)'")
            parse_formula(m.group(2))
            formulas[k].append(m.group(2))
            states.append(m.group(3))
            coefficients.append(int(m.group(1) or 1))
    return Equation(tuple(formulas[0]), tuple(formulas[1]), tuple(states), tuple(coefficients), arrow.strip())


def _is_element(formula: str) -> bool:
    return len(parse_formula(formula)) == 1


def _is_oxide(formula: str) -> bool:
    atoms = parse_formula(formula)
    return len(atoms) == 2 and "O" in atoms


def _is_hydroxide(formula: str) -> bool:
    """A metal hydroxide base: NaOH, Ca(OH)2, Al(OH)3 (not an alcohol)."""
    m = re.fullmatch(r"([A-Z][a-z]?)(?:OH|\(OH\)\d)", formula)
    return bool(m) and m.group(1) not in {"H", "C", "N", "O", "S", "P"}


def reaction_type(reactants: list[str], products: list[str]) -> str:
    """The exclusive type, by the first rule that fits (the data file's header lists them)."""
    r, p = list(reactants), list(products)
    if "O2" in r and len(r) == 2 and all(_is_oxide(f) for f in p):
        return "combustion"
    if (len(r) == 2 and len(p) == 2 and p.count("H2O") == 1
            and any(f in ACIDS for f in r) and any(_is_hydroxide(f) for f in r)):
        return "neutralisation"
    elements_r = [f for f in r if _is_element(f)]
    elements_p = [f for f in p if _is_element(f)]
    if (len(r) == 2 and len(p) == 2 and len(elements_r) == 1 and len(elements_p) == 1
            and elements_r[0] != elements_p[0]):
        return "single-displacement"
    if len(r) >= 2 and len(p) >= 2 and not elements_r and not elements_p:
        return "double-displacement"
    if len(r) >= 2 and len(p) == 1:
        return "combination"
    if len(r) == 1 and len(p) >= 2:
        return "decomposition"
    if set(elements_r) ^ set(elements_p):
        return "redox"
    raise ReactionError(f"{' + '.join(r)} -> {' + '.join(p)} fits none of the type rules")


def load_reactions(path: Path | str = REACTIONS) -> list[Reaction]:
    """The curated reactions; each line is checked (balance, smallest coefficients, a
    unique balance, vocabularies, the type rule) and a bad one names ``file:line``."""
    path = Path(path)
    out, ids = [], {}
    for number, line in enumerate(read_text(path, "reaction file", error=ReactionError).splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        where = f"{path}:{number}"
        try:
            out.append(_reaction(line, where))
        except ReactionError as err:
            raise ReactionError(f"{where}: {err}") from None
        if out[-1].id in ids:
            raise ReactionError(f"{where}: id {out[-1].id!r} already used on line {ids[out[-1].id]}")
        ids[out[-1].id] = number
    if not out:
        raise ReactionError(f"{path}: no reactions")
    return out


def _reaction(line: str, where: str) -> Reaction:
    fields = [f.strip() for f in line.split("|")]
    if len(fields) != 8:
        raise ReactionError(f"expected 8 fields separated by ' | ' (id, type, equation, condition, catalyst, "
                            f"accepted, flags, wrong_state), got {len(fields)}")
    rid, kind, text, condition, catalyst, accepted, flags, wrong_state = fields
    if not re.fullmatch(r"[a-z0-9-]+", rid):
        raise ReactionError(f"id {rid!r}: use lower-case letters, digits and '-'")
    if kind not in TYPES:
        raise ReactionError(f"type {kind!r}: one of {', '.join(TYPES)}")
    eq = replace(parse_equation(text), condition=condition, catalyst=catalyst)
    if condition and condition not in CONDITIONS:
        raise ReactionError(f"condition {condition!r}: one of {', '.join(CONDITIONS)}")
    if catalyst and catalyst not in CATALYSTS:
        raise ReactionError(f"catalyst {catalyst!r}: one of {', '.join(CATALYSTS)}")
    others = tuple(a.strip() for a in accepted.split(";") if a.strip())
    for a in others:
        if a not in CONDITIONS and a not in CATALYSTS:
            raise ReactionError(f"accepted {a!r} is neither a known condition nor a known catalyst")
    gold = balance(list(eq.reactants), list(eq.products))
    if list(eq.coefficients) != gold:
        raise ReactionError(f"coefficients {list(eq.coefficients)} are not the smallest balanced ones {gold}")
    derived = reaction_type(list(eq.reactants), list(eq.products))
    if derived != kind:
        raise ReactionError(f"type {kind!r}, but the type rules give {derived!r}")
    flag_set = {f.strip() for f in flags.split(";") if f.strip()}
    if flag_set - {"arrow-fixed"}:
        raise ReactionError(f"unknown flags {sorted(flag_set - {'arrow-fixed'})}; known: arrow-fixed")
    wrong = None
    if wrong_state:
        formula, _, state = wrong_state.partition(":")
        species = eq.reactants + eq.products
        if formula not in species or state not in STATES or eq.states[species.index(formula)] == state:
            raise ReactionError(f"wrong_state {wrong_state!r}: name a species of the equation and another state "
                                f"({', '.join(STATES)})")
        wrong = (formula, state)
    return Reaction(rid, kind, eq, others, "arrow-fixed" in flag_set, wrong, where)


# --------------------------------------------------------------------------- errors


def wrong_choices(reaction: Reaction, field: str) -> list[str]:
    """Conditions or catalysts of a class none of the reaction's right ones belongs to."""
    vocabulary = CONDITIONS if field == "condition" else CATALYSTS
    right = {getattr(reaction.equation, field)} | {a for a in reaction.accepted if a in vocabulary}
    classes = {vocabulary[r] for r in right if r}
    return sorted(v for v, c in vocabulary.items() if c not in classes)


def applicable_errors(reaction: Reaction) -> list[str]:
    eq = reaction.equation
    out = ["element imbalance"]
    if eq.condition:
        out.append("wrong condition")
    if reaction.arrow_fixed:
        out.append("wrong arrow")
    if reaction.wrong_state:
        out.append("wrong state symbol")
    if eq.catalyst:
        out.append("wrong catalyst")
    return out


def inject(reaction: Reaction, kind: str, rng: random.Random) -> Equation:
    """The reaction's equation with exactly one error of ``kind``."""
    eq = reaction.equation
    if kind == "element imbalance":
        coefficients = list(eq.coefficients)
        while True:
            k = rng.randrange(len(coefficients))
            new = rng.choice([coefficients[k] + 1, coefficients[k] * 2, coefficients[k] - 1])
            if new >= 1 and new != coefficients[k]:
                coefficients[k] = new
                if not is_balanced(list(eq.reactants), list(eq.products), coefficients):
                    return replace(eq, coefficients=tuple(coefficients))
                coefficients = list(eq.coefficients)
    if kind == "wrong condition":
        return replace(eq, condition=rng.choice(wrong_choices(reaction, "condition")))
    if kind == "wrong catalyst":
        return replace(eq, catalyst=rng.choice(wrong_choices(reaction, "catalyst")))
    if kind == "wrong arrow":
        return replace(eq, arrow="->" if eq.arrow == "<=>" else "<=>")
    if kind == "wrong state symbol":
        formula, state = reaction.wrong_state
        states = list(eq.states)
        states[(eq.reactants + eq.products).index(formula)] = state
        return replace(eq, states=tuple(states))
    raise ValueError(f"unknown error type {kind!r}; known: {', '.join(ERROR_TYPES)}")


def find_error(shown: Equation, reaction: Reaction) -> str | None:
    """Which one thing ``shown`` gets wrong against the curated ``reaction``; None when
    nothing or more than one thing is wrong (recomputed, for QC)."""
    right = reaction.equation
    if shown.reactants != right.reactants or shown.products != right.products:
        return None
    found = []
    if not is_balanced(list(shown.reactants), list(shown.products), list(shown.coefficients)):
        found.append("element imbalance")
    elif shown.coefficients != right.coefficients:
        return None  # balanced with other numbers: not one of the five errors
    if shown.condition != right.condition:
        found.append("wrong condition" if shown.condition in wrong_choices(reaction, "condition") else "?")
    if shown.catalyst != right.catalyst:
        found.append("wrong catalyst" if shown.catalyst in wrong_choices(reaction, "catalyst") else "?")
    if shown.arrow != right.arrow:
        found.append("wrong arrow" if reaction.arrow_fixed else "?")
    if shown.states != right.states:
        diff = [k for k, (a, b) in enumerate(zip(shown.states, right.states)) if a != b]
        species = shown.reactants + shown.products
        ok = len(diff) == 1 and reaction.wrong_state == (species[diff[0]], shown.states[diff[0]])
        found.append("wrong state symbol" if ok else "?")
    return found[0] if len(found) == 1 and found[0] != "?" else None


# --------------------------------------------------------------------------- pictures

WIDTH, HEIGHT = 1280, 320


@dataclass(frozen=True)
class Style:
    font: str = "DejaVuSans"
    size: int = 44
    ink: tuple[int, int, int] = (0, 0, 0)
    dx: int = 0  # offset of the centred equation, pixels
    dy: int = 0

    @classmethod
    def draw(cls, rng: random.Random) -> "Style":
        return cls(font=rng.choice(["DejaVuSans", "DejaVuSerif"]), size=rng.choice([40, 44, 48]),
                   ink=rng.choice([(0, 0, 0), (20, 20, 60), (40, 40, 40)]),
                   dx=rng.randrange(-40, 41, 8), dy=rng.randrange(-24, 25, 8))

    def as_dict(self) -> dict:
        return {"font": self.font, "size": self.size, "ink": list(self.ink), "dx": self.dx, "dy": self.dy}


@cache
def _font(name: str, size: int):
    import matplotlib
    from PIL import ImageFont

    return ImageFont.truetype(str(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / f"{name}.ttf"), size)


def _runs(text: str, chemical: bool) -> list[tuple[str, bool]]:
    """(text, subscript) runs: digits after an element symbol or ')' are subscripts."""
    runs, prev = [], ""
    for ch in text:
        sub = chemical and ch.isdigit() and (prev.isalpha() or prev == ")" or (prev.isdigit() and runs[-1][1]))
        if runs and runs[-1][1] == sub:
            runs[-1] = (runs[-1][0] + ch, sub)
        else:
            runs.append((ch, sub))
        prev = ch
    return runs


class _Line:
    """A row of text pieces laid out left to right on one baseline, then painted."""

    def __init__(self, style: Style, scale: float = 1.0):
        self.style, self.scale, self.pieces, self.width = style, scale, [], 0.0

    def text(self, text: str, chemical: bool = True, small: bool = False, face: str | None = None) -> "_Line":
        base = round(self.style.size * self.scale * (0.62 if small else 1.0))
        for run, sub in _runs(text, chemical):
            font = _font(face or self.style.font, round(base * 0.65) if sub else base)
            self.pieces.append((self.width, run, font, round(base * 0.3) if sub else 0))
            self.width += font.getlength(run)
        return self

    def gap(self, pixels: float) -> "_Line":
        self.width += pixels * self.scale * self.style.size / 44
        return self

    def paint(self, draw, x: float, baseline: float) -> None:
        for dx, run, font, drop in self.pieces:
            draw.text((x + dx, baseline + drop), run, font=font, fill=self.style.ink, anchor="ls")


def _species(line: _Line, coefficient: int, formula: str, state: str) -> None:
    if coefficient != 1:
        line.text(str(coefficient), chemical=False).gap(6)
    # serif state symbols: a sans-serif (l) reads as (I)
    line.text(formula).text(f"({state})", chemical=False, small=True, face="DejaVuSerif")


def _layout(eq: Equation, style: Style) -> tuple[_Line, _Line, _Line | None, _Line | None, float]:
    n = len(eq.reactants)
    left, right = _Line(style), _Line(style)
    for side, formulas, offset in ((left, eq.reactants, 0), (right, eq.products, n)):
        for k, formula in enumerate(formulas):
            if k:
                side.gap(14).text("+", chemical=False).gap(14)
            _species(side, eq.coefficients[offset + k], formula, eq.states[offset + k])
    above = _Line(style, 0.62).text(eq.catalyst) if eq.catalyst else None
    below = _Line(style, 0.62).text(eq.condition, chemical=False) if eq.condition else None
    arrow = max([style.size * 2.2] + [t.width + style.size for t in (above, below) if t])
    return left, right, above, below, arrow


def render(eq: Equation, style: Style) -> bytes:
    """PNG bytes (RGB, WIDTH x HEIGHT) of the equation, scaled to fill the width."""
    from PIL import Image, ImageDraw

    left, right, above, below, arrow = _layout(eq, style)
    total = left.width + 1.2 * style.size + arrow + right.width
    fit = min(1.5, (WIDTH - 80) / total)
    style = replace(style, size=max(12, int(style.size * fit)))  # lay out again at the size that fits
    left, right, above, below, arrow = _layout(eq, style)
    pad = style.size * 0.6
    total = left.width + 2 * pad + arrow + right.width
    canvas = Image.new("RGB", (WIDTH, HEIGHT), "white")
    draw = ImageDraw.Draw(canvas)
    x = (WIDTH - total) / 2 + style.dx
    baseline = HEIGHT / 2 + style.size * 0.35 + style.dy
    left.paint(draw, x, baseline)
    x0 = x + left.width + pad
    mid = baseline - style.size * 0.32
    _arrow(draw, x0, x0 + arrow, mid, eq.arrow, style)
    if above:
        above.paint(draw, x0 + (arrow - above.width) / 2, mid - style.size * (0.62 if eq.arrow == "<=>" else 0.45))
    if below:
        below.paint(draw, x0 + (arrow - below.width) / 2, mid + style.size * (1.1 if eq.arrow == "<=>" else 0.95))
    right.paint(draw, x0 + arrow + pad, baseline)
    out = io.BytesIO()
    canvas.save(out, format="PNG", compress_level=6, compress_type=3)  # zlib RLE: fast on flat text
    return out.getvalue()


def _arrow(draw, x0: float, x1: float, y: float, kind: str, style: Style) -> None:
    w = max(2, round(style.size / 16))
    head = style.size * 0.28
    if kind == "->":
        draw.line([(x0, y), (x1, y)], fill=style.ink, width=w)
        draw.polygon([(x1, y), (x1 - head, y - head * 0.55), (x1 - head, y + head * 0.55)], fill=style.ink)
        return
    gap, head = style.size * 0.16, style.size * 0.5
    draw.line([(x0, y - gap), (x1, y - gap)], fill=style.ink, width=w)
    draw.line([(x1, y - gap), (x1 - head, y - gap - head * 0.55)], fill=style.ink, width=w)
    draw.line([(x0, y + gap), (x1, y + gap)], fill=style.ink, width=w)
    draw.line([(x0, y + gap), (x0 + head, y + gap + head * 0.55)], fill=style.ink, width=w)
