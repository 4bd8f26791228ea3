"""How ``generators/data/symbols_molecules.tsv`` was made (run again to re-derive it).

Source: the PubChem identifier tables shipped in the wheel of ``chemicals`` 1.5.2
(MIT licence; the records are PubChem's, public domain): ``chemical identifiers
pubchem small.tsv`` (1,815 common chemicals) and, for medicines, vitamins, amino
acids and natural products the small table lacks, the records of
``chemical identifiers pubchem large.tsv`` whose common name is one of
:data:`WELL_KNOWN`. Kept: one connected, neutral molecule of C, H, N, O, S, P and
halogens, 3 to 40 heavy atoms, no radicals, a lower-case common name of at most 40
characters, each name and each canonical SMILES once.

    pip download --no-deps chemicals==1.5.2 && unzip chemicals-1.5.2-py3-none-any.whl
    python -m cogforge.generators.symbols._molecule_source chemicals/Identifiers > generators/data/symbols_molecules.tsv
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from rdkit import Chem, RDLogger

ELEMENTS = {"C", "H", "N", "O", "S", "P", "F", "Cl", "Br", "I"}
NAME = re.compile(r"[a-z][a-z0-9\-,' ()]{2,40}")
WELL_KNOWN = set("""
acetaminophen acyclovir adenine amitriptyline amlodipine amphetamine ampicillin atenolol barbital benzocaine
biotin capsaicin captopril carbamazepine carvone chloramphenicol chloroquine chlorpromazine cimetidine
cytosine diazepam diclofenac diphenhydramine dipentene dopamine ephedrine epinephrine estradiol fentanyl
5-fluorouracil folic\\ acid furosemide guanine haloperidol histamine hydrochlorothiazide hydrocortisone
ibuprofen imipramine isoleucine isoniazid ketamine ketoprofen l-cysteine l-glutamine l-histidine l-serine
l-tryptophan l-tyrosine l-valine lidocaine linalool lorazepam melatonin menthol mescaline metformin
methadone methamphetamine methotrexate metronidazole morphine naloxone naproxen nicotinamide nifedipine
penicillin\\ g phenacetin phenobarbital phenytoin procaine progesterone propofol propranolol pseudoephedrine
psilocin pyridoxine quinine riboflavin salbutamol serotonin sulfamethoxazole sulfanilamide testosterone
theobromine theophylline thiamine thymine tramadol trimethoprim uracil uric\\ acid verapamil warfarin
asparagine dl-alanine dl-arginine dl-leucine dl-methionine dl-proline dl-threonine
""".replace("\\ ", "\u00a0").split())
WELL_KNOWN = {w.replace("\u00a0", " ") for w in WELL_KNOWN}


def records(folder: Path):
    for table, keep in (("small", None), ("large", WELL_KNOWN)):
        path = folder / f"chemical identifiers pubchem {table}.tsv"
        for line in path.read_text(encoding="utf-8").splitlines():
            cols = line.split("\t")
            if len(cols) > 8 and (keep is None or cols[8] in keep):
                yield cols[0], cols[8], cols[4]


def main(folder: str) -> None:
    RDLogger.DisableLog("rdApp.*")
    names, smiles = set(), set()
    print("# name\tsmiles\tsource (PubChem CID, via the wheel of chemicals 1.5.2, MIT; see "
          "generators/symbols/_molecule_source.py)")
    for cid, name, smi in records(Path(folder)):
        mol = Chem.MolFromSmiles(smi) if "." not in smi else None
        if mol is None or Chem.GetFormalCharge(mol) or not NAME.fullmatch(name) or ", " in name:
            continue
        if any(a.GetSymbol() not in ELEMENTS or a.GetNumRadicalElectrons() or a.GetIsotope()
               for a in mol.GetAtoms()):
            continue
        canonical = Chem.MolToSmiles(mol)
        if not 3 <= mol.GetNumHeavyAtoms() <= 40 or name in names or canonical in smiles:
            continue
        names.add(name)
        smiles.add(canonical)
        print(f"{name}\t{canonical}\tPubChem CID {cid}")


if __name__ == "__main__":
    main(sys.argv[1])
