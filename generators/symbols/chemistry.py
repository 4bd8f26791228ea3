"""Chemistry (paper Table 1, chemistry rows T1-T8): molecules drawn by RDKit, equations
drawn from the curated reactions, errors injected and confirmed, ChemBench4K imported.

Tasks (ids ``chemistry-<name>``; levels and the paper's ids in :data:`TASKS`):

* ``elements`` (T1): atoms of one element, implicit H included (4 consecutive counts),
  or the molecular formula (free answer, Hill order);
* ``bonds`` (T2): single / double / triple / aromatic bonds **as drawn** (a Kekulé
  drawing has no aromatic bonds; an aromatic drawing shows them dashed);
* ``reaction-type`` (T3): the exclusive type of a drawn equation, balanced over types;
* ``balancing`` (T4): an equation drawn unbalanced (no coefficients) or wrongly
  balanced; the smallest coefficients, free answer ``2, 1, 2``;
* ``structure-error`` (T5): a hand-drawn-style (comic) structure with one injected
  error; the intended molecule's name, formula and configuration are given;
* ``equation-error`` (T5): an equation with one injected error;
* ``condition`` / ``product`` / ``yield`` (T6-T8): ChemBench4K questions with their
  SMILES drawn as images (``--input chembench=FILE`` or the config's ``chembench``).
"""

from __future__ import annotations

import functools
import hashlib
import random
from collections import Counter, defaultdict
from pathlib import Path
from types import SimpleNamespace

from rdkit import Chem

from cogforge.generators.symbols import DomainConfig, Draft, Task, count_options, mcq_prompt, resolve, rotation
from cogforge.generators.symbols import _chembench, _equations, _molecules

DOMAIN = "chemistry"
DEFAULT_COUNTS = {"elements": 481, "bonds": 200, "reaction-type": 1000, "balancing": 1000,
                  "structure-error": 190, "equation-error": 200, "condition": 300, "product": 202, "yield": 300}
CREDITS = [
    "Molecules: PubChem records (public domain) as shipped in the `chemicals` 1.5.2 wheel (MIT), "
    "filtered by `generators/symbols/_molecule_source.py` into `generators/data/symbols_molecules.tsv`.",
    "Reactions: `generators/data/symbols_reactions.txt`, textbook equations curated for cogforge.",
    "Drawings: RDKit (BSD-3-Clause) rdMolDraw2D; equations drawn with Pillow in the DejaVu fonts.",
]
ELEMENT_NAMES = {"C": "carbon", "H": "hydrogen", "N": "nitrogen", "O": "oxygen", "S": "sulfur", "P": "phosphorus",
                 "F": "fluorine", "Cl": "chlorine", "Br": "bromine", "I": "iodine"}
TYPE_NAMES = {"combination": "Combination", "decomposition": "Decomposition",
              "single-displacement": "Single displacement", "double-displacement": "Double displacement",
              "neutralisation": "Neutralisation", "combustion": "Combustion", "redox": "Redox (other)"}
STRUCTURE_ERRORS = {"missing atom": "A required atom is missing", "extra atom": "There is an extra atom",
                    "wrong bond order": "A bond has the wrong order", "wrong charge": "An atom has a wrong charge",
                    "wrong stereochemistry": "The stereocentre has the wrong configuration"}
EQUATION_ERRORS = {"element imbalance": "The elements do not balance",
                   "wrong condition": "The condition under the arrow is wrong",
                   "wrong arrow": "The arrow is wrong (reversible vs one-way)",
                   "wrong state symbol": "A state symbol is wrong",
                   "wrong catalyst": "The catalyst above the arrow is wrong"}
CHEMBENCH_TASKS = {"condition": ("Temperature_Prediction", "Solvent_Prediction"),
                   "product": ("Product_Prediction",), "yield": ("Yield_Prediction",)}

PROMPTS = {
    "count": ("How many {name} atoms ({symbol}) does the molecule in the image contain? Count every atom, "
              "including the hydrogen atoms a skeletal drawing leaves implicit."),
    "formula": ("What is the molecular formula of the molecule in the image? Count the hydrogen atoms a "
                "skeletal drawing leaves implicit. Write it in Hill order (C, then H, then the other elements "
                "alphabetically), e.g. {example}, on the last line as 'Answer: FORMULA'."),
    # every bond counted joins two non-hydrogen atoms (the library has no explicit H): a hydrogen
    # written in a label (NH2, HO) is part of the label, not a bond of the skeleton
    "bonds": ("How many {kind} bonds does the structure in the image show? Count only bonds between two "
              "atoms that are not hydrogen (the lines of the skeleton, a double or triple bond counted once); "
              "bonds to hydrogen never count, including the hydrogens written in atom labels such as NH2 "
              "or OH.{convention}"),
    "reaction-type": ("Classify the reaction in the image. Use the first class that fits, in this order: "
                      "Combustion (a substance burns in O2 and every product is an oxide); Neutralisation (an acid "
                      "and a metal hydroxide give a salt and water); Single displacement (an element replaces "
                      "another element in a compound); Double displacement (two compounds exchange partners, "
                      "no free element); Combination (several reactants give one product); Decomposition (one "
                      "reactant gives several products); Redox (other): any other reaction in which an element "
                      "is oxidised or reduced."),
    "balancing": ("The chemical equation in the image is not balanced correctly. Give the smallest whole-number "
                  "coefficients that balance it, one for every formula from left to right (write 1 where no "
                  "number is needed), on the last line as 'Answer: ' and the coefficients separated by commas "
                  "(for {equation} the line is 'Answer: {example}')."),
    "structure-error": ("The drawing is meant to show {name} ({formula}), with the {label} configuration at its "
                        "stereocentre. The drawing contains exactly one error. What kind of error is it?"),
    "equation-error": ("The chemical equation in the image contains exactly one error (states: s solid, "
                       "l liquid, g gas, aq aqueous solution; the catalyst is written above the arrow and the "
                       "condition below it). What kind of error is it?"),
    "chembench": ("There is a single choice question about chemistry. The molecules it mentions are shown in "
                  "the images, in order ([Image 1], [Image 2], ...).\nQuestion: {text}"),
}
# Format examples that are no answer of the data: the first formula no library molecule has,
# and the first worked equation whose coefficients balance no curated reaction (QC's
# `examples` check fails an item whose key equals its prompt's example).
FORMULA_EXAMPLES = ("C8H10N4O2", "C11H9N3O2", "C13H11ClN2O3", "C17H13N5O4S")
BALANCING_EXAMPLES = (("2 H2 + O2 → 2 H2O", (2, 1, 2)), ("4 NH3 + 5 O2 → 4 NO + 6 H2O", (4, 5, 4, 6)),
                      ("C5H12 + 8 O2 → 5 CO2 + 6 H2O", (1, 8, 5, 6)),
                      ("2 C6H14 + 19 O2 → 12 CO2 + 14 H2O", (2, 19, 12, 14)))


def _unused(candidates, taken, what: str):
    for candidate in candidates:
        if (candidate[1] if isinstance(candidate, tuple) else candidate) not in taken:
            return candidate
    raise ValueError(f"every {what} format example is an answer of the data; add one to chemistry.py")


STRUCTURE_REPLY = ("\nReply with the line 'Answer: <letter>' and then the intended molecule on the line "
                   "'Corrected SMILES: <SMILES>'.")


class Config(DomainConfig):
    """``[domains.chemistry]`` in ``builders/symbols.toml``."""

    DOMAIN = "chemistry"
    DEFAULT_COUNTS = DEFAULT_COUNTS
    molecules: str = "generators/data/symbols_molecules.tsv"
    reactions: str = "generators/data/symbols_reactions.txt"
    chembench: list[str] = []


INPUTS = ("chembench",)  # --input chembench=FILE


def prepare(config: dict, inputs: dict[str, list[str]], progress: bool) -> SimpleNamespace:
    questions = []
    for path in list(config["chembench"]) + list(inputs.get("chembench", [])):
        questions += _chembench.read_chembench(resolve(path))
    library = _molecules.load_library(resolve(config["molecules"]))
    reactions = _equations.load_reactions(resolve(config["reactions"]))
    return SimpleNamespace(library=library, reactions=reactions, chembench=questions, dropped=Counter(),
                           formula_example=_unused(FORMULA_EXAMPLES, {_molecules.formula(Chem.MolFromSmiles(m.smiles))
                                                                      for m in library}, "formula"),
                           balancing_example=_unused(BALANCING_EXAMPLES, {r.equation.coefficients for r in reactions},
                                                     "balancing"))


def counts(config: dict) -> dict[str, int]:
    return DEFAULT_COUNTS | dict(config["counts"])


# --------------------------------------------------------------------------- molecules


def _window(ctx, task: str, n: int, rng: random.Random) -> list[str]:
    return count_options(ctx.positions, task, n, rng)


def _l1_share(ctx, task: str) -> list:
    """The molecules one L1 task draws: each molecule serves one task only (the same
    molecule twice, in two similar drawings, would be a near-duplicate picture)."""
    def bucket(m) -> int:
        return int(hashlib.sha256(m.name.encode()).hexdigest(), 16) % 3
    return [m for m in ctx.library if (bucket(m) == 0) == (task == "bonds")]


def _molecule_meta(molecule, style: _molecules.Style) -> dict:
    return {"smiles": molecule.smiles, "molecule": molecule.name, "style": style.as_dict()}


def make_elements(ctx, count: int, rng: random.Random) -> list[Draft]:
    out = []
    pool = _l1_share(ctx, "elements")
    example = ctx.formula_example
    for molecule in rng.sample(pool, min(count, len(pool))):
        mol = Chem.MolFromSmiles(molecule.smiles)
        style = _molecules.Style.draw(rng)
        png = functools.partial(_molecules.render, molecule.smiles, style)  # drawn if the item is kept
        atoms = _molecules.element_counts(mol)
        meta = _molecule_meta(molecule, style) | {"element_counts": dict(sorted(atoms.items()))}
        if rng.random() < 1 / 3:
            out.append(Draft(PROMPTS["formula"].format(example=example), [png], None, _molecules.formula(mol),
                             molecule.name,
                             meta | {"question_kind": "formula", "answer_format": "formula"}))
            continue
        symbol = rng.choice(sorted(atoms))
        options = _window(ctx, "chemistry-elements", atoms[symbol], rng)
        question = mcq_prompt(PROMPTS["count"].format(name=ELEMENT_NAMES[symbol], symbol=symbol), options)
        out.append(Draft(question, [png], options, str(atoms[symbol]), molecule.name,
                         meta | {"question_kind": "count", "element": symbol}))
    return out


def make_bonds(ctx, count: int, rng: random.Random) -> list[Draft]:
    out = []
    pool = _l1_share(ctx, "bonds")
    for molecule in rng.sample(pool, min(count, len(pool))):
        style = _molecules.Style.draw(rng)
        bonds = _molecules.bond_counts(molecule.smiles, style.kekule)
        kind = rng.choice(sorted(k for k, n in bonds.items() if n))
        convention = "" if not _molecules.has_aromatic_bonds(molecule.smiles) else (
            " The aromatic rings are drawn with alternating single and double bonds: count them as single and "
            "double bonds." if style.kekule else
            " An aromatic bond is drawn as a solid line with a dashed line beside it and counts only as "
            "aromatic.")
        options = _window(ctx, "chemistry-bonds", bonds[kind], rng)
        question = mcq_prompt(PROMPTS["bonds"].format(kind=kind, convention=convention), options)
        out.append(Draft(question, [functools.partial(_molecules.render, molecule.smiles, style)], options,
                         str(bonds[kind]),
                         molecule.name, _molecule_meta(molecule, style) | {"bond_kind": kind,
                                                                        "bond_counts": dict(bonds)}))
    return out


def make_structure_error(ctx, count: int, rng: random.Random) -> list[Draft]:
    references = []
    for molecule in ctx.library:
        reference = _molecules.with_one_configuration(molecule.smiles, rng)
        if reference:
            references.append((molecule, reference))
    per_type = count // len(_molecules.ERROR_TYPES)
    made: dict[str, list] = {}
    for kind in _molecules.ERROR_TYPES:
        made[kind] = []
        for molecule, reference in rng.sample(references, len(references)):
            drawn = next((d for d in (_molecules.inject(reference, kind, rng) for _ in range(10)) if d), None)
            if drawn:
                made[kind].append((molecule, reference, drawn))
            if len(made[kind]) == per_type:
                break
    per_type = min(len(v) for v in made.values())
    ctx.dropped["structure-error (balancing error types)"] += sum(len(v) - per_type for v in made.values())
    return [_structure_item(molecule, reference, drawn, kind, rng)
            for kind, found in made.items() for molecule, reference, drawn in found[:per_type]]


def _structure_item(molecule, reference: str, drawn: str, kind: str, rng: random.Random) -> Draft:
    ref = Chem.MolFromSmiles(reference)
    style = _molecules.Style.draw(rng, comic=True, kekule=True)
    label = next(iter(_molecules.cip_labels(ref).values()))
    options = list(STRUCTURE_ERRORS.values())
    question = mcq_prompt(PROMPTS["structure-error"].format(
        name=molecule.name, formula=_molecules.formula(ref), label=f"({label})"), options)
    return Draft(question + STRUCTURE_REPLY, [_molecules.render(drawn, style, sanitise=False)],
                 options, STRUCTURE_ERRORS[kind], molecule.name,
                 {"smiles": drawn, "reference_smiles": reference, "error_type": kind,
                  "molecule": molecule.name, "configuration": label, "style": style.as_dict()})


@functools.lru_cache(maxsize=4)
def _single_stereocentre(library: tuple) -> tuple:
    """The molecules :func:`_molecules.with_one_configuration` can set (one stereocentre,
    no stereo double bond, no charge), for the stream: the build tries every molecule."""
    out = []
    for molecule in library:
        mol = Chem.MolFromSmiles(molecule.smiles)
        if (len(_molecules.stereocentres(mol)) == 1 and not any(a.GetFormalCharge() for a in mol.GetAtoms())
                and all(b.GetStereo() == Chem.BondStereo.STEREONONE for b in mol.GetBonds())):
            out.append(molecule)
    return tuple(out)


def stream_structure_error(ctx, count: int, rng: random.Random) -> list[Draft]:
    """One item: the error type of its turn, a molecule drawn from those with one
    stereocentre, the error injected as the build injects it (up to 10 tries)."""
    (kind,) = rotation(ctx, _molecules.ERROR_TYPES)
    molecule = rng.choice(_single_stereocentre(tuple(ctx.library)))
    reference = _molecules.with_one_configuration(molecule.smiles, rng)
    drawn = next((d for d in (_molecules.inject(reference, kind, rng) for _ in range(10)) if d), None) \
        if reference else None
    return [_structure_item(molecule, reference, drawn, kind, rng)] if drawn else []


# --------------------------------------------------------------------------- equations


def _equation_meta(reaction, shown: _equations.Equation, style: _equations.Style) -> dict:
    return {"reaction_id": reaction.id, **shown.as_meta(), "style": style.as_dict()}


def make_reaction_type(ctx, count: int, rng: random.Random) -> list[Draft]:
    by_type = defaultdict(list)
    for reaction in ctx.reactions:
        by_type[reaction.type].append(reaction)
    kinds = rotation(ctx, TYPE_NAMES)
    per_type = min([count // len(kinds)] + [len(by_type[t]) for t in TYPE_NAMES])
    options = list(TYPE_NAMES.values())
    out = []
    for kind in kinds:
        for reaction in rng.sample(by_type[kind], per_type):
            style = _equations.Style.draw(rng)
            out.append(Draft(mcq_prompt(PROMPTS["reaction-type"], options),
                             [_equations.render(reaction.equation, style)], options, TYPE_NAMES[kind], reaction.id,
                             _equation_meta(reaction, reaction.equation, style) | {"reaction_type": kind}))
    return out


MAX_SAME_BALANCE = 0.04  # no coefficient list answers more than this share of balancing items


def make_balancing(ctx, count: int, rng: random.Random) -> list[Draft]:
    pool = [r for r in ctx.reactions if set(r.equation.coefficients) != {1}]
    shown_forms = []
    for reaction in pool:
        eq = reaction.equation
        shown_forms.append((reaction, eq.__class__(**{**eq.__dict__, "coefficients": (1,) * len(eq.coefficients)})))
        shown_forms.append((reaction, _equations.inject(reaction, "element imbalance", rng)))
    rng.shuffle(shown_forms)
    cap = max(1, int(MAX_SAME_BALANCE * min(count, len(shown_forms))))
    used, out = Counter(), []
    for reaction, shown in shown_forms:
        gold = reaction.equation.coefficients
        if used[gold] >= cap:
            ctx.dropped["balancing (same coefficients too often)"] += 1
            continue
        if len(out) == count:
            break
        used[gold] += 1
        out.append(_balancing_item(ctx, reaction, shown, rng))
    return out


def _balancing_item(ctx, reaction, shown: _equations.Equation, rng: random.Random) -> Draft:
    equation, example = ctx.balancing_example
    prompt = PROMPTS["balancing"].format(equation=equation, example=", ".join(map(str, example)))
    gold = reaction.equation.coefficients
    style = _equations.Style.draw(rng)
    return Draft(prompt, [_equations.render(shown, style)], None, ", ".join(map(str, gold)), reaction.id,
                 _equation_meta(reaction, shown, style) | {"balanced_coefficients": list(gold),
                                                           "answer_format": "integer list"})


def stream_balancing(ctx, count: int, rng: random.Random) -> list[Draft]:
    """One item: a reaction that needs coefficients, shown with none or wrongly balanced
    (even odds, as the build's pool holds both forms of every reaction)."""
    reaction = rng.choice([r for r in ctx.reactions if set(r.equation.coefficients) != {1}])
    eq = reaction.equation
    shown = eq.__class__(**{**eq.__dict__, "coefficients": (1,) * len(eq.coefficients)}) if rng.random() < 0.5 \
        else _equations.inject(reaction, "element imbalance", rng)
    return [_balancing_item(ctx, reaction, shown, rng)]


def make_equation_error(ctx, count: int, rng: random.Random) -> list[Draft]:
    kinds = rotation(ctx, EQUATION_ERRORS)
    per_type = count // len(kinds)
    made: dict[str, list] = {}
    for kind in kinds:
        candidates = [r for r in ctx.reactions if kind in _equations.applicable_errors(r)]
        rng.shuffle(candidates)
        made[kind] = [(r, _equations.inject(r, kind, rng)) for r in candidates[:per_type]]
    per_type = min(len(v) for v in made.values())
    ctx.dropped["equation-error (balancing error types)"] += sum(len(v) - per_type for v in made.values())
    options = list(EQUATION_ERRORS.values())
    out = []
    for kind, found in made.items():
        for reaction, shown in found[:per_type]:
            style = _equations.Style.draw(rng)
            out.append(Draft(mcq_prompt(PROMPTS["equation-error"], options), [_equations.render(shown, style)],
                             options, EQUATION_ERRORS[kind], reaction.id,
                             _equation_meta(reaction, shown, style) | {"error_type": kind}))
    return out


# --------------------------------------------------------------------------- ChemBench4K


def _chembench_maker(name: str):
    def make(ctx, count: int, rng: random.Random) -> list[Draft]:
        out = []
        for q in [q for q in ctx.chembench if q.task in CHEMBENCH_TASKS[name]][:count]:
            def shown(text: str) -> str:
                for k in range(len(q.molecules), 0, -1):
                    text = text.replace(f"<molecule {k}>", f"[Image {k}]")
                return text

            texts = {letter: shown(t) for letter, t in q.options.items()}
            if len(set(texts.values())) != len(texts):
                ctx.dropped[f"{name} (two options read the same)"] += 1
                continue
            style = _molecules.Style.draw(rng, comic=False)  # a common reagent is drawn anew in each question
            images = [_molecules.render(s, style) for s in q.molecules]
            answer = texts[q.answer]
            options = ctx.positions.place(f"chemistry-{name}", answer,
                                          [t for letter, t in texts.items() if letter != q.answer], rng)
            question = mcq_prompt(PROMPTS["chembench"].format(text=shown(q.text)), options)
            out.append(Draft(question, images, options, answer, q.source,
                             {"smiles": list(q.molecules), "chembench_task": q.task, "source": q.source,
                              "source_answer": q.answer, "style": style.as_dict()}))
        return out
    return make


# --------------------------------------------------------------------------- streams
# ``builders/symbols.py`` streams the generated tasks; a stream item's knobs narrow the data
# it draws from: ``size`` the molecule (heavy atoms), ``formulas`` the equation.

MOLECULE_SIZES = {"small": (1, 8), "medium": (9, 14), "large": (15, 10 ** 6)}  # heavy atoms, inclusive
STREAM_KNOBS = {
    "elements": {"size": tuple(MOLECULE_SIZES)},
    "bonds": {"size": tuple(MOLECULE_SIZES)},
    "structure-error": {"size": tuple(MOLECULE_SIZES)},
    # formulas in the equation, reactants and products (the reaction type follows from it too
    # often to be a knob of reaction-type)
    "balancing": {"formulas": (3, 4, 5)},
    "equation-error": {"formulas": (3, 4, 5)},
}


def not_streamed(config: dict) -> dict[str, str]:
    return {name: "imported ChemBench4K questions: a fixed set, nothing to generate" for name in CHEMBENCH_TASKS}


@functools.lru_cache(maxsize=None)
def _heavy_atoms(smiles: str) -> int:
    return Chem.MolFromSmiles(smiles).GetNumHeavyAtoms()


def for_stream(ctx) -> SimpleNamespace:
    """A stream item's context: the molecules or reactions its knobs allow."""
    if "size" in ctx.knobs:
        lo, hi = MOLECULE_SIZES[ctx.knobs["size"]]
        ctx.library = [m for m in ctx.library if lo <= _heavy_atoms(m.smiles) <= hi]
    if "formulas" in ctx.knobs:
        ctx.reactions = [r for r in ctx.reactions if len(r.equation.coefficients) == ctx.knobs["formulas"]]
    return ctx


TASKS = {
    "elements": Task(1, "Chem T1", make_elements, filtered=True),
    "bonds": Task(1, "Chem T2", make_bonds, filtered=True),
    "reaction-type": Task(2, "Chem T3", make_reaction_type),
    "balancing": Task(2, "Chem T4", make_balancing, mcq=False, stream=stream_balancing),
    "structure-error": Task(3, "Chem T5", make_structure_error, stream=stream_structure_error),
    "equation-error": Task(3, "Chem T5", make_equation_error),
    "condition": Task(3, "Chem T6", _chembench_maker("condition")),
    "product": Task(3, "Chem T7", _chembench_maker("product")),
    "yield": Task(3, "Chem T8", _chembench_maker("yield")),
}
