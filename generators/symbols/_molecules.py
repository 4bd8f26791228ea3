"""Molecules for the chemistry domain: the named library, RDKit depictions, injected errors.

* :func:`load_library` reads ``generators/data/symbols_molecules.tsv`` (name, SMILES,
  source; how it was made: :mod:`generators.symbols._molecule_source`); every entry
  must sanitise in RDKit, and a bad line names the file and line.
* :func:`render` draws with ``rdMolDraw2D.MolDraw2DCairo`` to a fixed-size PNG with
  ``includeMetadata = False`` (RDKit otherwise stores the SMILES, the mol block and a
  pickle in the PNG's text chunks, which hands a model the answer); should a chunk
  still appear, the pixels alone are re-encoded with Pillow. A
  :class:`Style` (rotation, bond width, font scale, comic mode, Kekulé or aromatic
  bonds) comes from the build's RNG; broken molecules are drawn unsanitised, with
  no warning marks.
* :func:`inject` makes exactly one error in a Kekulé reference with RDKit's
  ``RWMol``; :func:`classify` tells the error type from the drawn and the reference
  SMILES alone (used to confirm every injection and by QC).
"""

from __future__ import annotations

import dataclasses
import io
import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from PIL import Image
from rdkit import Chem, RDLogger
from rdkit.Chem import rdCIPLabeler, rdDepictor, rdMolDescriptors
from rdkit.Chem.Draw import rdMolDraw2D
from rdkit.Chem.EnumerateStereoisomers import EnumerateStereoisomers, StereoEnumerationOptions

from cogforge.core.errors import UserError, read_text

RDLogger.DisableLog("rdApp.*")

LIBRARY = Path(__file__).resolve().parent.parent / "data" / "symbols_molecules.tsv"
SIZE = 512
ERROR_TYPES = ("missing atom", "extra atom", "wrong bond order", "wrong charge", "wrong stereochemistry")
BOND_KINDS = {Chem.BondType.SINGLE: "single", Chem.BondType.DOUBLE: "double", Chem.BondType.TRIPLE: "triple",
              Chem.BondType.AROMATIC: "aromatic"}


class MoleculeError(UserError):
    """A library line or SMILES that RDKit cannot read."""


@dataclass(frozen=True)
class Molecule:
    name: str
    smiles: str  # canonical, as RDKit writes it
    source: str
    where: str  # file:line


def load_library(path: Path | str = LIBRARY) -> list[Molecule]:
    """The named molecules; each must sanitise. Errors name ``file:line`` and the field."""
    path = Path(path)
    out, names = [], {}
    for number, line in enumerate(read_text(path, "molecule library", error=MoleculeError).splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        where = f"{path}:{number}"
        cols = line.split("\t")
        if len(cols) != 3:
            raise MoleculeError(f"{where}: expected 3 tab-separated fields (name, SMILES, source), got {len(cols)}")
        name, smiles, source = (c.strip() for c in cols)
        mol = Chem.MolFromSmiles(smiles)
        if mol is None:
            raise MoleculeError(f"{where}: invalid SMILES {smiles!r} for {name!r}: RDKit cannot sanitise it; "
                                "fix the SMILES or remove the line")
        if name in names:
            raise MoleculeError(f"{where}: name {name!r} already used on line {names[name]}")
        names[name] = number
        out.append(Molecule(name, Chem.MolToSmiles(mol), source, where))
    if not out:
        raise MoleculeError(f"{path}: no molecules")
    return out


# --------------------------------------------------------------------------- facts


def formula(mol: Chem.Mol) -> str:
    return rdMolDescriptors.CalcMolFormula(mol)


def element_counts(mol: Chem.Mol) -> Counter:
    """Atoms per element, implicit hydrogens included."""
    counts = Counter()
    for atom in mol.GetAtoms():
        counts[atom.GetSymbol()] += 1
        counts["H"] += atom.GetTotalNumHs()
    return +counts


def has_aromatic_bonds(smiles: str) -> bool:
    """Whether the molecule has an aromatic ring (the only bonds a drawing convention changes)."""
    return any(bond.GetIsAromatic() for bond in Chem.MolFromSmiles(smiles).GetBonds())


def bond_counts(smiles: str, kekule: bool) -> Counter:
    """Bonds between drawn atoms by kind, as a drawing shows them (Kekulé: no aromatic)."""
    mol = Chem.MolFromSmiles(smiles)
    if kekule:
        Chem.Kekulize(mol, clearAromaticFlags=True)
    counts = Counter({k: 0 for k in BOND_KINDS.values()})
    for bond in mol.GetBonds():
        counts[BOND_KINDS[bond.GetBondType()]] += 1
    return counts


def stereocentres(mol: Chem.Mol) -> list[tuple[int, str]]:
    return Chem.FindMolChiralCenters(mol, includeUnassigned=True, useLegacyImplementation=False)


def cip_labels(mol: Chem.Mol) -> dict[int, str]:
    mol = Chem.Mol(mol)
    rdCIPLabeler.AssignCIPLabels(mol)
    return {a.GetIdx(): a.GetProp("_CIPCode") for a in mol.GetAtoms() if a.HasProp("_CIPCode")}


def with_one_configuration(smiles: str, rng: random.Random) -> str | None:
    """The molecule with its single stereocentre set (drawn by ``rng`` when unassigned);
    None when it has no or several stereocentres or stereo double bonds."""
    mol = Chem.MolFromSmiles(smiles)
    if len(stereocentres(mol)) != 1 or any(b.GetStereo() != Chem.BondStereo.STEREONONE for b in mol.GetBonds()):
        return None
    if any(a.GetFormalCharge() for a in mol.GetAtoms()):
        return None
    isomers = sorted(Chem.MolToSmiles(m) for m in
                     EnumerateStereoisomers(mol, options=StereoEnumerationOptions(onlyUnassigned=True)))
    chosen = rng.choice(isomers)
    return chosen if len(cip_labels(Chem.MolFromSmiles(chosen))) == 1 else None


# --------------------------------------------------------------------------- drawing


@dataclass(frozen=True)
class Style:
    rotate: int = 0
    bond_width: float = 2.0
    font_scale: float = 1.0
    comic: bool = False
    kekule: bool = True

    @classmethod
    def draw(cls, rng: random.Random, comic: bool | None = None, kekule: bool | None = None) -> "Style":
        return cls(rotate=rng.randrange(0, 360, 15), bond_width=rng.choice([1.5, 2.0, 2.5, 3.0]),
                   font_scale=rng.choice([0.8, 1.0, 1.2]),
                   comic=rng.random() < 0.3 if comic is None else comic,
                   kekule=rng.random() < 0.5 if kekule is None else kekule)

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)


def parse_unsanitised(smiles: str) -> Chem.Mol:
    """A molecule as written, valence errors and all (for drawing and comparing)."""
    mol = Chem.MolFromSmiles(smiles, sanitize=False)
    if mol is None:
        raise MoleculeError(f"SMILES {smiles!r} does not parse")
    mol.UpdatePropertyCache(strict=False)
    Chem.FastFindRings(mol)
    return mol


def render(smiles: str, style: Style, sanitise: bool = True) -> bytes:
    """PNG bytes (RGB, SIZE x SIZE, no text chunks) of ``smiles`` in ``style``."""
    if sanitise:
        mol = Chem.MolFromSmiles(smiles)
        if mol is None:
            raise MoleculeError(f"SMILES {smiles!r} does not sanitise (draw it with sanitise=False)")
        if style.kekule:
            Chem.Kekulize(mol, clearAromaticFlags=True)
    else:
        mol = parse_unsanitised(smiles)
    rdDepictor.SetPreferCoordGen(False)
    rdDepictor.Compute2DCoords(mol)
    Chem.AssignChiralTypesFromBondDirs(mol)
    drawer = rdMolDraw2D.MolDraw2DCairo(SIZE, SIZE)
    opts = drawer.drawOptions()
    opts.includeMetadata = False
    opts.prepareMolsBeforeDrawing = False
    opts.rotate = style.rotate
    opts.bondLineWidth = style.bond_width
    opts.baseFontSize = 0.6 * style.font_scale
    opts.comicMode = style.comic
    opts.addStereoAnnotation = False
    opts.unspecifiedStereoIsUnknown = False
    mol = rdMolDraw2D.PrepareMolForDrawing(mol, kekulize=False, addChiralHs=False, wedgeBonds=True)
    if style.comic:
        _seed_c_rand(f"{smiles}|{style}")
    drawer.DrawMolecule(mol)
    drawer.FinishDrawing()
    png = drawer.GetDrawingText()
    return png if not png_text_chunks(png) else reencode(png)  # includeMetadata=False leaves none


def _seed_c_rand(key: str) -> None:
    """RDKit's comic mode wobbles its lines with the C library's ``rand()``: seeding it
    from what is drawn makes the same molecule and style give the same bytes."""
    import ctypes
    import hashlib

    ctypes.CDLL(None).srand(int.from_bytes(hashlib.sha256(key.encode()).digest()[:4], "big"))


def reencode(png: bytes) -> bytes:
    """The pixels alone, as an RGB PNG Pillow writes the same way every time."""
    with Image.open(io.BytesIO(png)) as image:
        rgb = image.convert("RGB")
    out = io.BytesIO()
    rgb.save(out, format="PNG", compress_level=6, compress_type=3)
    return out.getvalue()


def png_text_chunks(png: bytes) -> list[bytes]:
    """Every ancillary text or metadata chunk (tEXt, zTXt, iTXt, eXIf) in a PNG."""
    chunks, pos = [], 8
    while pos + 8 <= len(png):
        length = int.from_bytes(png[pos:pos + 4], "big")
        kind = png[pos + 4:pos + 8]
        if kind in (b"tEXt", b"zTXt", b"iTXt", b"eXIf"):
            chunks.append(kind + png[pos + 8:pos + 8 + length])
        pos += 12 + length
    return chunks


# --------------------------------------------------------------------------- errors


def _kekule(smiles: str) -> Chem.RWMol:
    mol = Chem.MolFromSmiles(smiles)
    Chem.Kekulize(mol, clearAromaticFlags=True)
    return Chem.RWMol(mol)


def _smiles(mol: Chem.Mol) -> str:
    mol = mol.GetMol() if isinstance(mol, Chem.RWMol) else mol
    mol.UpdatePropertyCache(strict=False)
    return Chem.MolToSmiles(mol, kekuleSmiles=True)


def inject(reference: str, kind: str, rng: random.Random) -> str | None:
    """``reference`` (SMILES with one set stereocentre) with exactly one error of ``kind``,
    as a Kekulé SMILES that may break valence rules; None when this draw made nothing."""
    rw = _kekule(reference)
    centre = stereocentres(rw)[0][0]
    heavy = [a for a in rw.GetAtoms()]
    if kind == "missing atom":
        leaves = [a.GetIdx() for a in heavy if a.GetDegree() == 1 and centre not in
                  [n.GetIdx() for n in a.GetNeighbors()]]
        if not leaves:
            return None
        rw.RemoveAtom(rng.choice(leaves))
    elif kind == "extra atom":
        hosts = [a.GetIdx() for a in heavy if a.GetIdx() != centre]
        host = rng.choice(hosts)
        new = rw.AddAtom(Chem.Atom(rng.choice(["C", "C", "O", "N", "Cl"])))
        rw.AddBond(host, new, Chem.BondType.SINGLE)
    elif kind == "wrong bond order":
        bonds = [b for b in rw.GetBonds() if centre not in (b.GetBeginAtomIdx(), b.GetEndAtomIdx())]
        if not bonds:
            return None
        bond = rng.choice(bonds)
        order = bond.GetBondType()
        choices = {Chem.BondType.SINGLE: [Chem.BondType.DOUBLE, Chem.BondType.DOUBLE, Chem.BondType.TRIPLE],
                   Chem.BondType.DOUBLE: [Chem.BondType.SINGLE, Chem.BondType.TRIPLE],
                   Chem.BondType.TRIPLE: [Chem.BondType.SINGLE, Chem.BondType.DOUBLE]}[order]
        bond.SetBondType(rng.choice(choices))
    elif kind == "wrong charge":
        atom = rw.GetAtomWithIdx(rng.choice([a.GetIdx() for a in heavy if a.GetIdx() != centre]))
        atom.SetFormalCharge(rng.choice([-1, 1]))
        atom.SetNoImplicit(False)
    elif kind == "wrong stereochemistry":
        rw.GetAtomWithIdx(centre).InvertChirality()
    else:
        raise ValueError(f"unknown error type {kind!r}; known: {', '.join(ERROR_TYPES)}")
    drawn = _smiles(rw)
    return drawn if classify(drawn, reference) == kind else None


def _heavy_formula(mol: Chem.Mol) -> Counter:
    return Counter(a.GetSymbol() for a in mol.GetAtoms())


def _bond_orders(mol: Chem.Mol) -> Counter:
    return Counter(b.GetBondTypeAsDouble() for b in mol.GetBonds())


def _stereo_kept(mol: Chem.Mol, reference: str) -> bool:
    """The drawn stereocentre still reads as the reference's (CIP label), where RDKit can label it."""
    want = sorted(cip_labels(Chem.MolFromSmiles(reference)).values())
    try:
        return sorted(cip_labels(mol).values()) == want
    except (RuntimeError, ValueError):
        return True  # a valence error RDKit cannot label around: the wedge is drawn as it was


def classify(drawn: str, reference: str) -> str | None:
    """The one error that turns ``reference`` into ``drawn``, from the molecules alone;
    None when RDKit cannot tell them apart or they differ in more than one way."""
    ref = _kekule(reference).GetMol()
    ref.UpdatePropertyCache(strict=False)
    sane = Chem.MolFromSmiles(drawn)
    if sane is not None:  # compare bond orders in Kekulé form, however the SMILES was written
        mol = Chem.Mol(sane)
        Chem.Kekulize(mol, clearAromaticFlags=True)
    else:
        mol = parse_unsanitised(drawn)
    atoms = sum(_heavy_formula(mol).values()) - sum(_heavy_formula(ref).values())
    charges = sorted(a.GetFormalCharge() for a in mol.GetAtoms() if a.GetFormalCharge())
    ref_charges = sorted(a.GetFormalCharge() for a in ref.GetAtoms() if a.GetFormalCharge())
    if not _stereo_kept(sane if sane is not None else mol, reference):
        if atoms or charges != ref_charges or _bond_orders(mol) != _bond_orders(ref) or sane is None:
            return None  # a second difference besides the configuration
        flat = Chem.MolFromSmiles(reference)
        same = Chem.MolToSmiles(sane, isomericSmiles=False) == Chem.MolToSmiles(flat, isomericSmiles=False)
        return "wrong stereochemistry" if same else None
    if atoms in (-1, 1):
        if charges != ref_charges or len(mol.GetBonds()) - len(ref.GetBonds()) != atoms:
            return None
        return "missing atom" if atoms == -1 else "extra atom"
    if atoms or _heavy_formula(mol) != _heavy_formula(ref):
        return None
    if charges != ref_charges:
        return "wrong charge" if _bond_orders(mol) == _bond_orders(ref) else None
    if _bond_orders(mol) != _bond_orders(ref):
        return "wrong bond order"
    return None


def canonical(smiles: str) -> str | None:
    """Canonical isomeric SMILES, or None when it does not sanitise."""
    mol = Chem.MolFromSmiles(smiles.strip()) if smiles and smiles.strip() else None
    return Chem.MolToSmiles(mol) if mol is not None else None
