"""Read ChemBench4K task files, with every SMILES in them swapped for a placeholder.

The published format (Hugging Face ``AI4Chem/ChemBench4K``, MIT, revision
``f8ad41a``): two folders, ``dev/`` (5 questions a task) and ``test/``, each with one
file per task named ``{task}_benchmark.json``. A file is one JSON list (not JSON
Lines) of records ``{"question", "answer", "A", "B", "C", "D"}``; ``answer`` is a
letter. Sources: the dataset card's example record and file listing, and
OpenCompass's loader (open-compass/opencompass, ``opencompass/datasets/chembench.py``),
which reads ``{path}/{split}/{name}_benchmark.json`` with ``json.load`` and takes
exactly those six fields. There is no task field: the task is the file name less
``_benchmark.json``. The card says 4,100 questions; a third-party checksum test of
revision ``f8ad41a`` counts 4,009 in ``test/`` and 45 in ``dev/``. Options are either
bare values or prose around a SMILES ("In my opinion, the answer would be ...").

A question's SMILES become ``<molecule 1>``, ``<molecule 2>``, ... numbered by first
appearance across the question and then options A to D; the same string again gets
the same number. :attr:`Question.molecules` holds the strings exactly as written.

What counts as a SMILES, token by token (a token is a run of non-whitespace):

* Trimmed first: quotes, ``,;:?!``, braces, a possessive ``'s``, a trailing ``.``
  (a SMILES never ends in one), brackets that enclose the whole token or are left
  unmatched at either end. The trimmed characters stay in the text.
* A token with ``>`` is a reaction when it splits into exactly three parts
  (``A>>C``, ``A>B>C``; a side may be empty, as in ``A>>``). It reads
  ``reactants → products``, or ``reactants (with agents) → products``.
* Any part, or a plain token, is ``.``-separated fragments; each fragment is a
  molecule of its own and they read joined by `` + `` (a salt such as
  ``[Na+].[Cl-]`` therefore becomes two placeholders).
* Every fragment must sanitise in RDKit. Then a reaction counts as it is; any other
  token counts only if it is at least 2 characters and holds one of ``()=#[]@/\\``,
  a digit (ring closure) or a lower-case aromatic atom (``bcnops``). Without that
  rule prose breaks: "I", "CO", "NO", "IN", and reagent abbreviations like "PCC"
  and "NBS" all parse. Formulas such as "NaBH4" or "CO2" fail to parse.
* An option that is a single token needs no such mark, only 2 heavy atoms, so
  solvent options like ``CO`` (methanol) or ``ClCCl`` are taken; ``O`` (water) or
  ``C`` alone are not. A mark-less SMILES inside prose (``CCO``) is missed too.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from rdkit import Chem, RDLogger

from cogforge.core.errors import UserError, read_bytes

RDLogger.DisableLog("rdApp.*")

TASKS = ("Name_Conversion", "Property_Prediction", "Mol2caption", "Caption2mol", "Product_Prediction",
         "Retrosynthesis", "Yield_Prediction", "Temperature_Prediction", "Solvent_Prediction")
LETTERS = ("A", "B", "C", "D")
MAX_BYTES = 200 * 1024 * 1024  # the largest published file is 583 kB
SUFFIX = "_benchmark.json"
LEAD = "\"'“‘`{"
TRAIL = "\"'”’`},;:.?!"
MARK = re.compile(r"[()=#\[\]@/\\0-9bcnops]")
SPACE = re.compile(r"\s*")


class ChemBenchError(UserError):
    """A ChemBench4K file that cannot be read as published."""


@dataclass(frozen=True)
class Question:
    task: str  # e.g. "Yield_Prediction"
    number: int  # 1-based position in the file
    text: str  # with <molecule n> placeholders
    options: dict[str, str]  # letter -> text with placeholders
    answer: str  # "A" to "D"
    molecules: list[str]  # SMILES as written, molecule n at index n - 1
    source: str  # "path:line" of the record's opening brace


def read_chembench(path: Path) -> list[Question]:
    """Read one ChemBench4K task file, e.g. ``test/Yield_Prediction_benchmark.json``.

    Args:
        path: the task file; its name gives the task.

    Raises:
        ChemBenchError: naming the file, line and record, for a wrong name, a file that
            is not a JSON list of records, or a record with a missing or bad field.
    """
    path = Path(path)
    task = path.name.removesuffix(SUFFIX)
    if not path.name.endswith(SUFFIX) or task not in TASKS:
        raise ChemBenchError(f"{path}: not a ChemBench4K task file name; expected {{task}}{SUFFIX} "
                             f"with task one of {', '.join(TASKS)}")
    try:
        data = read_bytes(path, "ChemBench4K task file", MAX_BYTES)
    except UserError as err:
        raise ChemBenchError(str(err)) from None
    try:
        text = data.decode("utf-8-sig")
        records = json.loads(text)
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise ChemBenchError(f"{path}:{line}: not UTF-8 text; "
                             "the published files are UTF-8 JSON, download the file again") from None
    except json.JSONDecodeError as error:
        raise ChemBenchError(f"{path}:{error.lineno}: not valid JSON ({error.msg}, column {error.colno}); "
                             "fix the file or download it again") from None
    except RecursionError:
        raise ChemBenchError(f"{path}: JSON nested too deeply; this is not a ChemBench4K file") from None
    except ValueError as error:  # a number of more than 4300 digits
        raise ChemBenchError(f"{path}: not a ChemBench4K file ({error})") from None
    if not isinstance(records, list):
        raise ChemBenchError(f"{path}:1: top level is a JSON {type(records).__name__}, expected a list "
                             "of question records as published")
    return [_question(task, number, record, f"{path}:{line}")
            for number, (line, record) in enumerate(zip(_record_lines(text), records), 1)]


def _record_lines(text: str):
    """Yield the line each element of an already valid top-level JSON list starts on."""
    decoder, line, last = json.JSONDecoder(), 1, 0
    pos = SPACE.match(text, SPACE.match(text).end() + 1).end()  # past "["
    while text[pos] != "]":
        line, last = line + text.count("\n", last, pos), pos
        yield line
        pos = SPACE.match(text, decoder.raw_decode(text, pos)[1]).end()
        pos = SPACE.match(text, pos + 1).end() if text[pos] == "," else pos


def _question(task: str, number: int, record, source: str) -> Question:
    where = f"{source}: record {number}"
    if not isinstance(record, dict):
        raise ChemBenchError(f"{where} is a JSON {type(record).__name__}, expected an object with "
                             "question, A, B, C, D and answer")
    for field in ("question", *LETTERS, "answer"):
        if field not in record:
            raise ChemBenchError(f"{where} has no {field!r}; every record needs question, A, B, C, D and "
                                 "answer: fix the record or download the file again")
        if not isinstance(record[field], str):
            raise ChemBenchError(f"{where}: {field!r} is {type(record[field]).__name__}, expected text")
    if record["answer"] not in LETTERS:
        raise ChemBenchError(f"{where}: answer {record['answer']!r} is not one of the options "
                             f"{', '.join(LETTERS)}; fix the record")
    molecules: list[str] = []
    text = _replace(record["question"], molecules, option=False)
    options = {letter: _replace(record[letter], molecules, option=True) for letter in LETTERS}
    return Question(task, number, text, options, record["answer"], molecules, source)


def _replace(text: str, molecules: list[str], option: bool) -> str:
    """Swap the SMILES in text for placeholders, numbering new ones onto molecules."""
    def tag(smiles: str) -> str:
        if smiles not in molecules:
            molecules.append(smiles)
        return f"<molecule {molecules.index(smiles) + 1}>"

    whole = option and len(text.split()) == 1
    pieces = re.split(r"(\s+)", text)
    for i, token in enumerate(pieces):
        found = _smiles(token, whole) if token.strip() else None
        if found:
            lead, parts, trail = found
            joined = [" + ".join(tag(f) for f in part) for part in parts]
            if len(joined) == 3:
                joined = [joined[0] + (f" (with {joined[1]})" if joined[1] else ""), joined[2]]
            pieces[i] = lead + " → ".join(joined).strip() + trail
    return "".join(pieces)


def _smiles(token: str, whole: bool) -> tuple[str, list[list[str]], str] | None:
    """(lead, parts of fragments, trail) when the token holds a SMILES, else None."""
    lead, core, trail = _trim(token)
    parts = _parts(core, whole)
    if parts is None and core[:1] == "[" and _closing(core, 0) == len(core) - 1:
        lead, trail, parts = lead + "[", "]" + trail, _parts(core[1:-1], whole)
    return (lead, parts, trail) if parts else None


def _parts(core: str, whole: bool) -> list[list[str]] | None:
    parts = [part.split(".") if part else [] for part in core.split(">")]
    if len(parts) not in (1, 3) or not (parts[0] or parts[-1]):
        return None
    mols = [Chem.MolFromSmiles(f) if f else None for part in parts for f in part]
    if any(mol is None for mol in mols):
        return None
    if len(parts) == 3 or (len(core) >= 2 and MARK.search(core)):
        return parts
    return parts if whole and sum(mol.GetNumHeavyAtoms() for mol in mols) >= 2 else None


def _trim(token: str) -> tuple[str, str, str]:
    """Split off the punctuation and brackets around what may be a SMILES."""
    start, end = 0, len(token)
    while start < end:
        core = token[start:end]
        if core[0] in LEAD:
            start += 1
        elif core[-1] in TRAIL:
            end -= 1
        elif core.endswith("'s") or core.endswith("’s"):
            end -= 2
        elif core[0] == "(" and (close := _closing(core, 0)) in (None, len(core) - 1):
            start, end = start + 1, end if close is None else end - 1
        elif core[-1] == ")" and core.count(")") > core.count("("):
            end -= 1
        else:
            break
    return token[:start], token[start:end], token[end:]


def _closing(text: str, at: int) -> int | None:
    """Index of the bracket closing the one at text[at], or None if it is never closed."""
    pair = {"(": ")", "[": "]"}[text[at]]
    depth = 0
    for i in range(at, len(text)):
        depth += (text[i] == text[at]) - (text[i] == pair)
        if depth == 0:
            return i
    return None
