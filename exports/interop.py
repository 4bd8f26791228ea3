"""VLMEvalKit TSVs: one file per split and answer type, written the way VLMEvalKit reads them.

VLMEvalKit loads a custom dataset from ``$LMUData/<NAME>.tsv`` with ``pd.read_csv(f,
sep='\\t')`` and picks the dataset type from the columns (``A`` and ``B`` make it multiple
choice) and, for prompts, from the name (a name without "openended" is treated as
multiple choice). So:

* multiple-choice rows go to ``<benchmark>_<split>.tsv``: ``question`` holds the stem
  only (VLMEvalKit lists the options ``A``, ``B``, ... itself and asks for the letter),
  ``answer`` the letter. An instruction that asks for more than the letter (symbols'
  "Answer: <letter>" then a corrected SMILES or a force, the benchmark's
  ``VLMEVALKIT_DROP``) is left out: VLMEvalKit's exact matching (``can_infer_option``)
  reads any lone capital in a reply as an option letter, so a SMILES such as "CC(C)O"
  after the right letter makes the reply ambiguous and wrong. Those extra fields are
  measured by ``cogforge eval run`` and lmms-eval, whose prompts keep the instruction;
* free-text rows go to ``<benchmark>_openended_<split>.tsv``: ``question`` is the full
  prompt, ``answer`` the reference answer.

Columns: ``index`` (the row's position across the release's ``data/<split>.jsonl`` files
in name order: unique in the release, so a prediction maps back even without ``id``),
``id``, ``split``, ``question``, ``answer``, ``image`` (base64 PNG, or the Python-literal
list of them for a multi-image item, or the ``index`` of an earlier row of the same file
with the same images), ``image_path``, ``category`` (the task) and the option letters.
Cells are quoted CSV-style where needed, so line breaks survive. A cell that pandas
would read as missing ("None", "NA", "nan", ...) or an option column that it would turn
into floats is refused with the item named: the model would see something else.
"""

from __future__ import annotations

import base64
import csv
from pathlib import Path

from cogforge.core.shortcuts import question_stem

COLUMNS = ["index", "id", "split", "question", "answer", "image", "image_path", "category"]
# Substrings that switch VLMEvalKit to dataset-specific code paths (circular scoring, MMMU
# preprocessing, special report formats): a custom dataset's name must avoid them.
RESERVED = ("circular", "mmbench", "ccbench", "mmcr", "mmmu", "mmt", "mmsci", "lego", "blink", "wemath")


class ExportError(ValueError):
    """A release row that an export format cannot carry faithfully."""


def _na_strings() -> frozenset[str]:
    from pandas._libs.parsers import STR_NA_VALUES

    return frozenset(STR_NA_VALUES) | {""}


def tsv_name(benchmark: str, split: str, multiple_choice: bool, text_only: bool = False) -> str:
    """The dataset name (file stem) VLMEvalKit is run with: ``--data <name>``."""
    kind = ("" if multiple_choice else "openended_") + ("text_" if text_only else "")
    name = f"{benchmark}_{kind}{split}"
    bad = [r for r in RESERVED if r in name.lower()]
    if bad:
        raise ExportError(f"VLMEvalKit name {name!r} contains {bad[0]!r}, which switches VLMEvalKit to "
                          "another dataset's code path; rename the benchmark or split")
    return name


def release_order(rows: list[dict]) -> list[dict]:
    """Rows in the order of ``exports.release.read_rows``: split files by name, then file order."""
    return sorted(rows, key=lambda r: r["split"])  # stable: file order within a split


def mcq_question(row: dict, drop: tuple[str, ...] = ()) -> str:
    """A multiple-choice item's question as VLMEvalKit gets it: the stem, without the
    option lines, the answer instruction and the lines in ``drop`` (instructions that ask
    for more than the letter)."""
    stem = question_stem(row["question"], row["options"])
    return "\n".join(line for line in stem.split("\n") if line.strip() not in drop)


def write_vlmevalkit(rows: list[dict], benchmark: str, data_dir: Path, out_dir: Path,
                     drop: tuple[str, ...] = ()) -> list[str]:
    """Write every TSV into ``out_dir``; returns the dataset names written.

    Args:
        drop: instruction lines that multiple-choice questions leave out (see ``mcq_question``).
    """
    ordered = release_order(rows)
    files: dict[str, list[tuple[int, dict]]] = {}
    for index, row in enumerate(ordered):
        # VLMEvalKit reads a short `image` cell as a reference to another row, so items
        # without images get files without that column (its meta-only mode: image_path "[]")
        files.setdefault(tsv_name(benchmark, row["split"], bool(row["options"]), not row["file_names"]),
                         []).append((index, row))
    out_dir.mkdir(parents=True, exist_ok=True)
    encoded: dict[str, str] = {}
    for name, indexed in files.items():
        letters = max((len(r["options"] or []) for _, r in indexed), default=0)
        _check_options(name, [r for _, r in indexed], letters)
        with open(out_dir / f"{name}.tsv", "w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle, delimiter="\t", lineterminator="\n")
            text_only = not indexed[0][1]["file_names"]
            columns = [c for c in COLUMNS if not (text_only and c == "image")]
            writer.writerow(columns + [chr(65 + k) for k in range(letters)])
            first_with: dict[tuple[str, ...], int] = {}
            for index, row in indexed:
                cells = _cells(index, row, data_dir, letters, encoded, first_with, drop)
                writer.writerow(cells[:5] + cells[6:] if text_only else cells)
    return sorted(files)


def _cells(index: int, row: dict, data_dir: Path, letters: int, encoded: dict[str, str],
           first_with: dict[tuple[str, ...], int], drop: tuple[str, ...]) -> list[str]:
    names = tuple(row["file_names"])
    if names in first_with:
        image = str(first_with[names])
    else:
        first_with[names] = index
        for name in names:
            if name not in encoded:
                encoded[name] = base64.b64encode((data_dir / name).read_bytes()).decode()
        blobs = [encoded[n] for n in names]
        image = blobs[0] if len(blobs) == 1 else repr(blobs)
    paths = [Path(n).name for n in names]
    options = row["options"] or []
    question = mcq_question(row, drop) if options else row["question"]
    answer = chr(65 + options.index(row["answer"])) if options else row["answer"]
    cells = {"id": row["id"], "split": row["split"], "question": question, "answer": answer,
             "category": row["task"], **{chr(65 + k): o for k, o in enumerate(options)}}
    na = _na_strings()
    for column, text in cells.items():
        if text.strip() in na or text != text.strip():
            what = f"option {column}" if len(column) == 1 else column
            raise ExportError(f"item {row['id']}: {what} {text!r} would load in VLMEvalKit (pandas) as "
                              "missing or changed; fix the item (QC's `answers` check lists such strings)")
    return ([str(index), row["id"], row["split"], question, answer, image,
             paths[0] if len(paths) == 1 else repr(paths), row["task"]]
            + options + [""] * (letters - len(options)))


def _reads_back(cells: list[str]) -> bool:
    """Whether pandas' type inference shows these cells of one column as written."""
    try:
        numbers = [float(c) for c in cells]
    except ValueError:
        return True  # a text column: pandas keeps strings as they are
    if all(c == str(int(n)) for c, n in zip(cells, numbers) if n.is_integer()) and all(n.is_integer() for n in numbers):
        return True  # int64
    return all(c == str(n) for c, n in zip(cells, numbers))  # float64 prints like Python


def _check_options(name: str, rows: list[dict], letters: int) -> None:
    """pandas infers column types: "3" beside an empty cell would show as "3.0"."""
    for k in range(letters):
        column = [(r["options"] or [])[k] if k < len(r["options"] or []) else None for r in rows]
        filled = [c for c in column if c is not None]
        numeric = all(_is_number(c) for c in filled)
        if filled and ((numeric and None in column) or not _reads_back(filled)):
            raise ExportError(f"{name}.tsv: option column {chr(65 + k)} holds numbers ({filled[0]!r}) that pandas "
                              "would rewrite (3 -> 3.0 beside an empty cell); give every item of a split the "
                              "same number of options or spell the numbers as words")


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
