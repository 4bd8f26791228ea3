"""Chemistry answers re-derived from ``meta`` and from what the model is shown.

* Every picture is drawn again from ``meta`` (SMILES or equation, and style) and must
  give the item's image bytes: the image shows what ``meta`` says.
* ``elements``: atoms counted with RDKit (implicit H included) or the Hill formula.
* ``bonds``: bonds of the drawn form (Kekulé or aromatic) counted by kind.
* ``structure-error``: :func:`generators.symbols._molecules.classify` tells the error
  from the drawn and the reference SMILES alone; the question must state the
  reference's formula and its CIP label.
* ``reaction-type``: the exclusive type rules applied to the formulas.
* ``balancing``: the answer balances every element, has no common factor, and is the
  only balance (null space of dimension 1, sympy); the shown coefficients do not balance.
* ``equation-error``: the shown equation compared with the curated reaction it came
  from finds exactly the labelled error.
"""

from __future__ import annotations

import math
from pathlib import Path

from rdkit import Chem

from cogforge.qc.core import Build, CheckResult, Finding

ROOT = Path(__file__).resolve().parent.parent.parent


def _answer_problem(item, reactions: dict) -> str | None:
    from cogforge.generators.symbols import _equations as eq
    from cogforge.generators.symbols import _molecules as mol
    from cogforge.generators.symbols import chemistry

    m, name = item.meta, item.task.removeprefix("chemistry-")
    if name == "elements":
        atoms = mol.element_counts(Chem.MolFromSmiles(m["smiles"]))
        want = mol.formula(Chem.MolFromSmiles(m["smiles"])) if m["question_kind"] == "formula" \
            else str(atoms[m["element"]])
        return None if item.answer == want else f"answer {item.answer!r}, RDKit counts {want!r}"
    if name == "bonds":
        n = mol.bond_counts(m["smiles"], m["style"]["kekule"])[m["bond_kind"]]
        return None if item.answer == str(n) else f"answer {item.answer}, the drawing has {n} {m['bond_kind']} bonds"
    if name == "structure-error":
        found = mol.classify(m["smiles"], m["reference_smiles"])
        ref = Chem.MolFromSmiles(m["reference_smiles"])
        label = next(iter(mol.cip_labels(ref).values()))
        if found is None or chemistry.STRUCTURE_ERRORS[found] != item.answer or found != m["error_type"]:
            return (f"the drawn molecule differs from the reference by {found!r}; the answer says "
                    f"{item.answer!r}, meta says {m['error_type']!r}")
        if f"({mol.formula(ref)})" not in item.question or f"({label}) configuration" not in item.question:
            return "the question does not state the intended formula and configuration"
        return None
    if name in ("reaction-type", "balancing", "equation-error"):
        reactants, products = m["reactants"], m["products"]
        if name == "reaction-type":
            kind = eq.reaction_type(reactants, products)
            return None if chemistry.TYPE_NAMES[kind] == item.answer else f"the type rules give {kind!r}"
        if name == "balancing":
            gold = [int(x) for x in item.answer.split(", ")]
            totals = eq.element_totals
            if totals(reactants, gold[:len(reactants)]) != totals(products, gold[len(reactants):]):
                return f"answer {item.answer} does not balance"
            if math.gcd(*gold) != 1:
                return f"answer {item.answer} is not the smallest"
            if _null_space_dimension(reactants, products) != 1:
                return "the equation has more than one independent balance"
            if eq.is_balanced(reactants, products, m["coefficients"]):
                return "the shown equation is already balanced"
            return None
        reaction = reactions.get(m["reaction_id"])
        if reaction is None:
            return f"reaction {m['reaction_id']!r} is not in the curated file"
        shown = eq.Equation(tuple(reactants), tuple(products), tuple(m["states"]), tuple(m["coefficients"]),
                            m["arrow"], m["condition"], m["catalyst"])
        found = eq.find_error(shown, reaction)
        if found is None or chemistry.EQUATION_ERRORS[found] != item.answer or found != m["error_type"]:
            return (f"comparing with the curated reaction finds {found!r}; the answer says {item.answer!r}, "
                    f"meta says {m['error_type']!r}")
        return None
    return None  # imported questions: their key is the source's, the shared checks see the options


def _null_space_dimension(reactants: list[str], products: list[str]) -> int:
    import sympy

    from cogforge.generators.symbols._equations import parse_formula

    counts = [parse_formula(f) for f in reactants + products]
    elements = sorted(set().union(*counts))
    matrix = sympy.Matrix([[c[e] for c in counts] for e in elements])
    return len(counts) - matrix.rank()


def _redraw(item) -> list[bytes]:
    from cogforge.generators.symbols import _equations as eq
    from cogforge.generators.symbols import _molecules as mol

    m = item.meta
    if "reactants" in m:
        shown = eq.Equation(tuple(m["reactants"]), tuple(m["products"]), tuple(m["states"]),
                            tuple(m["coefficients"]), m["arrow"], m["condition"], m["catalyst"])
        s = m["style"]
        return [eq.render(shown, eq.Style(s["font"], s["size"], tuple(s["ink"]), s["dx"], s["dy"]))]
    style = mol.Style(**m["style"])
    smiles = m["smiles"] if isinstance(m["smiles"], list) else [m["smiles"]]
    return [mol.render(s, style, sanitise="error_type" not in m) for s in smiles]


def check(build: Build, items: list) -> CheckResult:
    from cogforge.generators.symbols._equations import load_reactions

    out = CheckResult()
    config = build.manifest.get("config", {}).get("domains", {}).get("chemistry", {})
    path = Path(config.get("reactions", "generators/data/symbols_reactions.txt"))
    reactions = {r.id: r for r in load_reactions(path if path.is_absolute() else ROOT / path)}
    wrong = redrawn = 0
    for item in items:
        try:
            problem = _answer_problem(item, reactions)
        except (ValueError, KeyError) as err:
            problem = f"cannot be re-derived: {err}"
        if problem:
            wrong += 1
            out.findings.append(Finding("error", "chemistry", item.id, problem))
        pictures = _redraw(item)
        stored = [(build.path / rel).read_bytes() for rel in item.images]
        if pictures != stored:
            redrawn += 1
            out.findings.append(Finding("error", "chemistry-images", item.id,
                                        "drawing meta again does not give the item's image bytes"))
    out.stats = {"items": len(items), "answers_not_rederived": wrong, "images_not_reproduced": redrawn}
    return out
