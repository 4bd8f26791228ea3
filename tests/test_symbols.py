"""The symbols benchmark, chemistry domain: data files, drawings, injected errors, the
full build (every answer re-derived here, independently of QC), QC, CLI and config."""

from __future__ import annotations

import hashlib
import json
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from rdkit import Chem
from rdkit.Chem.Draw import rdMolDraw2D

from cogforge.builders import symbols as builder
from cogforge.core.config import ConfigError
from cogforge.generators.symbols import _equations as eq
from cogforge.generators.symbols import _molecules as mol
from cogforge.generators.symbols import chemistry
from conftest import ROOT, read_jsonl

FIXTURES = ROOT / "tests" / "fixtures" / "chembench4k"


@pytest.fixture(scope="module")
def items(symbols_build) -> list[dict]:
    return read_jsonl(symbols_build / "items.jsonl")


def by_task(items, task):
    return [i for i in items if i["task"] == f"chemistry-{task}"]


# --------------------------------------------------------------------------- data files


def test_library_has_500_named_molecules_that_sanitise():
    library = mol.load_library()
    assert len({m.name for m in library}) >= 500 and len({m.smiles for m in library}) == len(library)
    sizes = [Chem.MolFromSmiles(m.smiles).GetNumHeavyAtoms() for m in library]
    assert min(sizes) <= 4 and max(sizes) >= 30
    assert {"caffeine", "ibuprofen", "acetaminophen", "benzene", "ethanol"} <= {m.name for m in library}


def test_a_bad_library_line_names_file_and_line(tmp_path):
    path = tmp_path / "m.tsv"
    path.write_text("# header\nethanol\tCCO\tx\nbroken\tC1CC(\tx\n")
    with pytest.raises(mol.MoleculeError, match=r"m\.tsv:3: invalid SMILES 'C1CC\('"):
        mol.load_library(path)
    path.write_text("ethanol\tCCO\n")
    with pytest.raises(mol.MoleculeError, match=r"m\.tsv:1: expected 3 tab-separated fields"):
        mol.load_library(path)


def test_every_curated_reaction_balances_and_has_its_type():
    reactions = eq.load_reactions()
    counts = Counter(r.type for r in reactions)
    assert set(counts) == set(eq.TYPES) and min(counts.values()) >= 15
    for r in reactions:
        e = r.equation
        assert eq.is_balanced(list(e.reactants), list(e.products), list(e.coefficients)), r.where
        assert eq.balance(list(e.reactants), list(e.products)) == list(e.coefficients), r.where
        assert eq.reaction_type(list(e.reactants), list(e.products)) == r.type, r.where


@pytest.mark.parametrize("line, message", [
    ("x | combustion | 2 H2(g) + O2(g) -> H2O(l) | | | | |", "not the smallest balanced ones"),
    ("x | combustion | 2 H2(g) + O2(g) = 2 H2O(l) | | | | |", "no ' -> ' or ' <=> ' arrow"),
    ("x | combination | 2 H2(g) + O2(g) -> 2 H2O(l) | | | | |", "the type rules give 'combustion'"),
    ("x | combustion | 2 H2(g) + O2(g) -> 2 H2O(l) | boil | | | |", "condition 'boil'"),
    ("x | combustion | 2 Hq(g) + O2(g) -> 2 H2O(l) | | | | |", "'Hq' is not an element symbol"),
    ("x | combustion | 2 H2(g) + O2(g) -> 2 H2O(l) | | |", "expected 8 fields"),
])
def test_a_malformed_reaction_line_names_file_and_line(tmp_path, line, message):
    path = tmp_path / "r.txt"
    path.write_text("# comment\n\nok | combustion | 2 H2(g) + O2(g) -> 2 H2O(l) | ignite | | | arrow-fixed | H2:s\n"
                    + line + "\n")
    with pytest.raises(eq.ReactionError, match=rf"r\.txt:4: .*{message}"):
        eq.load_reactions(path)


def test_balancing_is_unique_or_refused():
    assert eq.balance(["Fe", "O2"], ["Fe2O3"]) == [4, 3, 2]
    assert eq.balance(["C3H8", "O2"], ["CO2", "H2O"]) == [1, 5, 3, 4]
    assert eq.balance(["Ca(OH)2", "H3PO4"], ["Ca3(PO4)2", "H2O"]) == [3, 2, 1, 6]
    with pytest.raises(eq.ReactionError, match="more than one way"):
        eq.balance(["H2", "O2"], ["H2O", "H2O2"])


# --------------------------------------------------------------------------- drawings


def test_rdkit_hides_the_answer_in_png_chunks_by_default_and_our_drawings_do_not():
    drawer = rdMolDraw2D.MolDraw2DCairo(300, 300)
    drawer.DrawMolecule(Chem.MolFromSmiles("Cn1c(=O)c2c(ncn2C)n(C)c1=O"))
    drawer.FinishDrawing()
    raw = drawer.GetDrawingText()
    assert any(b"SMILES" in c or b"MOL" in c for c in mol.png_text_chunks(raw))  # the leak we avoid
    assert Chem.MolFromPNGString(raw) is not None
    ours = mol.render("Cn1c(=O)c2c(ncn2C)n(C)c1=O", mol.Style(comic=True))
    assert mol.png_text_chunks(ours) == [] and Chem.MolFromPNGString(ours) is None
    assert b"Cn1" not in ours and b"caffeine" not in ours


def test_drawings_are_reproducible_across_processes():
    code = ("import hashlib; from generators.symbols import _molecules as m, _equations as e; "
            "print(hashlib.sha256(m.render('CC(=O)Nc1ccc(O)cc1', m.Style(comic=True, rotate=45))).hexdigest(), "
            "hashlib.sha256(e.render(e.parse_equation('2 H2(g) + O2(g) -> 2 H2O(l)'), e.Style())).hexdigest())")
    runs = {subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                           check=True).stdout for _ in range(2)}
    assert len(runs) == 1


def test_styles_change_the_picture():
    pictures = {mol.render("c1ccccc1O", s) for s in
                (mol.Style(), mol.Style(rotate=90), mol.Style(kekule=False), mol.Style(comic=True), mol.Style(bond_width=3))}
    assert len(pictures) == 5


def test_bonds_follow_the_drawing():
    assert mol.bond_counts("c1ccccc1", kekule=True) == Counter(single=3, double=3, triple=0, aromatic=0)
    assert mol.bond_counts("c1ccccc1", kekule=False) == Counter(single=0, double=0, triple=0, aromatic=6)
    assert mol.element_counts(Chem.MolFromSmiles("O=[N+]([O-])c1ccccc1"))["H"] == 5  # the paper's nitrobenzene


# --------------------------------------------------------------------------- injected errors


@pytest.mark.parametrize("kind", mol.ERROR_TYPES)
def test_each_structure_error_is_confirmed_and_distinguishable(kind):
    rng = random.Random(kind)
    reference = "CC(C)Cc1ccc([C@@H](C)C(=O)O)cc1"  # (S)-ibuprofen
    for _ in range(5):
        drawn = mol.inject(reference, kind, rng)
        assert drawn is not None
        assert mol.classify(drawn, reference) == kind
        png = mol.render(drawn, mol.Style(comic=True), sanitise=False)
        assert png.startswith(b"\x89PNG") and mol.png_text_chunks(png) == []
    assert mol.classify(reference, reference) is None


def test_confirmations_match_the_issue():
    reference = "CC(C)Cc1ccc([C@@H](C)C(=O)O)cc1"
    ref = Chem.MolFromSmiles(reference)
    rng = random.Random(1)
    missing = mol.inject(reference, "missing atom", rng)
    assert mol.formula(Chem.MolFromSmiles(missing)) != mol.formula(ref)
    charged = mol.parse_unsanitised(mol.inject(reference, "wrong charge", rng))
    assert any(a.GetFormalCharge() for a in charged.GetAtoms())
    flipped = Chem.MolFromSmiles(mol.inject(reference, "wrong stereochemistry", rng))
    assert mol.cip_labels(flipped) != mol.cip_labels(ref)


@pytest.mark.parametrize("kind", eq.ERROR_TYPES)
def test_each_equation_error_is_found_again(kind):
    reactions = [r for r in eq.load_reactions() if kind in eq.applicable_errors(r)]
    assert len(reactions) >= 20
    rng = random.Random(kind)
    for reaction in reactions:
        shown = eq.inject(reaction, kind, rng)
        assert eq.find_error(shown, reaction) == kind, reaction.where
    assert eq.find_error(reactions[0].equation, reactions[0]) is None


# --------------------------------------------------------------------------- the full build


def test_full_build_has_every_generated_task_with_levels_and_paper_ids(items):
    from cogforge.generators.symbols import domains

    counts = Counter(i["task"] for i in items)
    for name in ("elements", "bonds", "reaction-type", "balancing", "structure-error", "equation-error"):
        assert counts[f"chemistry-{name}"] >= 100, name
    modules = domains()
    for i in items:
        domain = i["meta"]["domain"]
        task = modules[domain].TASKS[i["task"].removeprefix(f"{domain}-")]
        assert i["task"].startswith(domain + "-") and i["meta"]["level"] == task.level
        assert i["meta"]["paper_task"] == task.paper


def test_every_answer_recomputed_from_meta(items):
    for i in by_task(items, "elements"):
        m = Chem.MolFromSmiles(i["meta"]["smiles"])
        if i["meta"]["question_kind"] == "formula":
            assert i["answer"] == Chem.rdMolDescriptors.CalcMolFormula(m)
        else:
            hs = sum(a.GetTotalNumHs() for a in m.GetAtoms())
            n = hs if i["meta"]["element"] == "H" else sum(a.GetSymbol() == i["meta"]["element"] for a in m.GetAtoms())
            assert i["answer"] == str(n)
    for i in by_task(items, "bonds"):
        m = Chem.MolFromSmiles(i["meta"]["smiles"])
        if i["meta"]["style"]["kekule"]:
            Chem.Kekulize(m, clearAromaticFlags=True)
        kind = {"single": 1.0, "double": 2.0, "triple": 3.0, "aromatic": 1.5}[i["meta"]["bond_kind"]]
        assert i["answer"] == str(sum(b.GetBondTypeAsDouble() == kind for b in m.GetBonds()))
    for i in by_task(items, "balancing"):
        m = i["meta"]
        gold = [int(x) for x in i["answer"].split(", ")]
        assert eq.balance(m["reactants"], m["products"]) == gold == m["balanced_coefficients"]
        assert not eq.is_balanced(m["reactants"], m["products"], m["coefficients"])
    for i in by_task(items, "reaction-type"):
        assert chemistry.TYPE_NAMES[eq.reaction_type(i["meta"]["reactants"], i["meta"]["products"])] == i["answer"]


def test_every_injected_error_is_confirmed_on_the_full_build(items):
    reactions = {r.id: r for r in eq.load_reactions()}
    structure = by_task(items, "structure-error")
    for i in structure:
        m = i["meta"]
        assert mol.classify(m["smiles"], m["reference_smiles"]) == m["error_type"]
        assert chemistry.STRUCTURE_ERRORS[m["error_type"]] == i["answer"]
    for i in by_task(items, "equation-error"):
        m = i["meta"]
        shown = eq.Equation(tuple(m["reactants"]), tuple(m["products"]), tuple(m["states"]),
                            tuple(m["coefficients"]), m["arrow"], m["condition"], m["catalyst"])
        assert eq.find_error(shown, reactions[m["reaction_id"]]) == m["error_type"]
    for task in ("structure-error", "equation-error"):
        spread = Counter(i["meta"]["error_type"] for i in by_task(items, task))
        assert len(spread) == 5 and max(spread.values()) == min(spread.values()), spread


def test_no_image_carries_metadata_and_names_hide_nothing(items, symbols_build):
    for rel in {p for i in items for p in i["images"]}:
        data = (symbols_build / rel).read_bytes()
        assert mol.png_text_chunks(data) == [], rel
        assert Path(rel).stem == hashlib.sha256(data).hexdigest()


def test_splits_keep_molecules_and_reactions_apart(items):
    split_of = {}
    for i in items:
        assert split_of.setdefault(i["meta"]["split_unit"], i["split"]) == i["split"]
    assert set(Counter(i["split"] for i in items)) == {"train", "validation", "test"}


def test_qc_passes_clean_on_the_full_build(symbols_release):
    """The release ran QC on the full build (the same report ``cogforge qc`` writes)."""
    report = json.loads((symbols_release / "qc_report.json").read_text())
    errors = [f for f in report["findings"] if f["severity"] == "error"]
    warnings = [f for f in report["findings"] if f["severity"] == "warning"]
    assert report["summary"]["passed"] and not errors and not warnings, (errors + warnings)[:5]
    for domain in ("chemistry", "physics", "mathematics"):
        stats = report["stats"]["symbols"][domain]
        assert stats["answers_not_rederived"] == 0 and stats["images_not_reproduced"] == 0, domain


def test_qc_catches_a_wrong_answer_a_wrong_label_and_a_leaky_png(symbols_build, tmp_path):
    import shutil

    from cogforge.qc.core import load_build
    from cogforge.qc.symbols import check_symbols

    copy = tmp_path / "b"
    shutil.copytree(symbols_build, copy)
    rows = read_jsonl(copy / "items.jsonl")
    picked = [next(r for r in rows if r["task"] == f"chemistry-{t}") for t in
              ("balancing", "elements", "structure-error", "equation-error", "bonds")]
    picked[0]["answer"] = "1, 1, 1, 1"
    picked[2]["meta"]["error_type"] = "wrong charge" if picked[2]["meta"]["error_type"] != "wrong charge" else "extra atom"
    picked[3]["answer"] = next(o for o in picked[3]["options"] if o != picked[3]["answer"])
    (copy / "items.jsonl").write_text("".join(json.dumps(r) + "\n" for r in picked))
    drawer = rdMolDraw2D.MolDraw2DCairo(64, 64)
    drawer.DrawMolecule(Chem.MolFromSmiles("CCO"))
    drawer.FinishDrawing()
    (copy / picked[1]["images"][0]).write_bytes(drawer.GetDrawingText())
    found = {(f.check, f.target) for f in check_symbols(load_build(copy)).findings if f.severity == "error"}
    assert {("chemistry", picked[0]["id"]), ("chemistry", picked[2]["id"]), ("chemistry", picked[3]["id"]),
            ("chemistry-images", picked[1]["id"]), ("symbols-metadata", picked[1]["images"][0])} <= found
    assert not {t for c, t in found if t == picked[4]["id"]}


# --------------------------------------------------------------------------- small builds, CLI, config


def small_config(tmp_path: Path, chemistry: dict, physics: dict | None = None,
                 mathematics: dict | None = None) -> Path:
    """A config with small counts for every domain."""
    def cells(counts: dict) -> str:
        return ", ".join(f"{k} = {v}" for k, v in counts.items())

    path = tmp_path / "symbols.toml"
    path.write_text(f"seed = 0\n[domains.chemistry]\ncounts = {{ {cells(chemistry)} }}\n"
                    f"[domains.physics]\ncounts = {{ {cells(physics if physics is not None else SMALL_PHYSICS)} }}\n"
                    f"[domains.mathematics]\ncounts = {{ {cells(SMALL_MATH if mathematics is None else mathematics)} }}\n"
                    f"[domains.culture]\ncounts = {{ {cells(SMALL_CULTURE)} }}\n"
                    f"[domains.language]\ncounts = {{ {cells(SMALL_LANGUAGE)} }}\n")
    return path


SMALL = {"elements": 30, "bonds": 20, "reaction-type": 14, "balancing": 20, "structure-error": 10,
         "equation-error": 10, "condition": 10, "product": 10, "yield": 10}
SMALL_MATH = {name: 4 for name in ("keypoints", "function-type", "shape", "elements", "notation", "monotonicity",
                                   "global-properties", "domain-value", "geometry-quantity", "geometry-relation",
                                   "solid-structure", "combined", "plot-consistency", "vertical-line",
                                   "definition-check", "projection", "analysis")}
SMALL_CULTURE = {"emoji-word": 4, "emoji-idiom": 4, "emoji-chengyu": 4, "emoji-chengyu-long": 2}
SMALL_LANGUAGE = {"faked-characters": 3, "misused-characters": 3, "correction": 3}
SMALL_PHYSICS = {"force-symbols": 9, "force-motion": 9, "force-error": 4, "circuit-components": 6,
                 "circuit-operation": 8, "circuit-error": 5}


def test_small_builds_are_byte_identical(tmp_path):
    config = small_config(tmp_path, SMALL)
    a = builder.build(tmp_path / "a", config_path=config, progress=False)
    b = builder.build(tmp_path / "b", config_path=config, progress=False)
    assert a["files"] == b["files"]


def test_chembench_questions_become_items_with_molecule_images(tmp_path):
    inputs = {"chembench": [str(p) for p in sorted(FIXTURES.glob("*_benchmark.json"))]}
    builder.build(tmp_path / "b", config_path=small_config(tmp_path, SMALL), progress=False, inputs=inputs)
    rows = read_jsonl(tmp_path / "b" / "items.jsonl")
    imported = [r for r in rows if r["task"] in ("chemistry-condition", "chemistry-product", "chemistry-yield")]
    assert {r["task"] for r in imported} == {"chemistry-condition", "chemistry-product", "chemistry-yield"}
    for r in imported:
        assert len(r["images"]) == len(r["meta"]["smiles"]) >= 1
        assert "<molecule" not in r["question"] and all(s not in r["question"] for s in r["meta"]["smiles"]
                                                        if len(s) > 4)
        assert r["answer"] in r["options"] and r["meta"]["chembench_task"]


def test_cli_builds_chosen_domains_and_refuses_unknown_ones(tmp_path):
    config = small_config(tmp_path, SMALL)
    run = subprocess.run([sys.executable, "-m", "cogforge.cli", "build", "symbols", "--domains", "chemistry",
                          "--quiet", "--config", str(config), "--out", str(tmp_path / "o")],
                         cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert json.loads((tmp_path / "o" / "manifest.json").read_text())["domains"] == ["chemistry"]
    run = subprocess.run([sys.executable, "-m", "cogforge.cli", "build", "symbols", "--domains", "alchemy",
                          "--config", str(config), "--out", str(tmp_path / "p")], cwd=ROOT, capture_output=True,
                         text=True)
    assert run.returncode != 0 and "unknown ['alchemy']" in run.stderr and not (tmp_path / "p").exists()


def test_scene_files_replace_the_sampled_force_scenes(tmp_path):
    from cogforge.generators.symbols import _forces as fz

    scenes = tmp_path / "scenes.txt"
    scenes.write_text("# two-block scenes and two single blocks\ntable m=3,2 mu=1/4 state=accelerating\n"
                      "atwood m=2,3 state=accelerating\nstacked m=2,3\n"
                      "incline m=2 angle=37 mu=1/2 state=accelerating mirror=yes\npulled m=5 T=20 rope=37 mu=1/4 state=accelerating\n")
    counts = {"force-symbols": 8, "force-motion": 8, "force-error": 8, "circuit-components": 0,
              "circuit-operation": 0, "circuit-error": 0}
    manifest = builder.build(tmp_path / "b", config_path=small_config(tmp_path, SMALL, counts), progress=False,
                             inputs={"scenes": [str(scenes)]}, domains=["physics"])
    allowed = {json.dumps(s.as_dict(), sort_keys=True) for s in fz.load_scenes(scenes)}
    rows = read_jsonl(tmp_path / "b" / "items.jsonl")
    assert rows and {r["task"] for r in rows} == {"physics-force-symbols", "physics-force-motion",
                                                  "physics-force-error"}
    assert {json.dumps(r["meta"]["scene"], sort_keys=True) for r in rows} <= allowed
    assert manifest["sources"]["physics"]["scenes"] == "files"
    scenes.write_text("table m=3,2 mu=1/4 state=accelerating\natwood m=2,2 state=accelerating\n")
    run = subprocess.run([sys.executable, "-m", "cogforge.cli", "build", "symbols", "--domains", "physics", "--quiet",
                          "--input", f"scenes={scenes}", "--out", str(tmp_path / "c")], cwd=ROOT,
                         capture_output=True, text=True)
    assert run.returncode != 0 and f"{scenes}:2: state=accelerating needs mA != mB" in run.stderr
    assert not (tmp_path / "c").exists()


def test_a_broken_config_names_the_key(tmp_path):
    config = small_config(tmp_path, {"elements": 5, "alchemy": 3})
    with pytest.raises(ConfigError, match=r"domains\.chemistry.*unknown chemistry tasks \['alchemy'\]"):
        builder.load_config(config)


def test_physics_errors_confirmed_and_even_on_the_full_build(items):
    from cogforge.generators.symbols import _circuits as circ
    from cogforge.generators.symbols import _forces as fz
    from cogforge.generators.symbols import physics

    for task, types in (("physics-force-error", fz.ERROR_TYPES), ("physics-circuit-error", circ.ERROR_TYPES)):
        chosen = [i for i in items if i["task"] == task]
        spread = Counter(i["meta"]["error_type"] for i in chosen)
        assert set(spread) == set(types) and max(spread.values()) - min(spread.values()) <= 1, spread
    for i in (i for i in items if i["task"] == "physics-force-error"):
        scene = fz.Scene.from_dict(i["meta"]["scene"])
        drawn = [fz.Force.from_dict(f) for f in i["meta"]["forces"]]
        assert fz.find_error(scene, drawn) == (i["meta"]["error_type"], i["meta"]["force_concerned"])
    for i in (i for i in items if i["task"] == "physics-circuit-operation" and i["meta"]["question_kind"] == "reading"):
        solution = circ.solve(i["meta"]["netlist"])
        name = i["meta"]["meter"]
        current, voltage = solution[f"V_{name}" if name.startswith("A") else f"R_{name}"]
        assert i["answer"] == physics.fmt(abs(current) if name.startswith("A") else abs(voltage), i["meta"]["unit"])
