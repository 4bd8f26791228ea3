"""Exports in the formats people's tools already read, and readers to check them.

VLMEvalKit TSV: columns ``index, question, answer, image, image_path, category``
(and ``A``, ``B``, ... for multiple choice). ``image`` holds base64 PNG bytes, or, for a
multi-image item, the Python-literal list of them that VLMEvalKit's ``toliststr``
reads; ``image_path`` names each image so VLMEvalKit writes a shared image to disk
once. The format can reference only a whole cell: a row whose image list equals an
earlier row's holds that row's index instead of repeating the bytes.
"""

from __future__ import annotations

import ast
import base64
import csv
from pathlib import Path
from typing import Iterable

csv.field_size_limit(1 << 30)

TSV_COLUMNS = ["index", "question", "answer", "image", "image_path", "category"]


def _cell(text: str) -> str:
    # TSV has no quoting in VLMEvalKit's reader (pandas, sep='\t'); keep cells on one line.
    return text.replace("\t", " ").replace("\r", " ").replace("\n", " ")


def write_vlmevalkit_tsv(rows: Iterable[dict], data_dir: Path, path: Path) -> None:
    """Write the TSV for release rows whose ``file_names`` are relative to ``data_dir``.

    Rows are streamed to the file: a multi-image benchmark's TSV holds every image of
    every item in base64 and runs to hundreds of megabytes.
    """
    rows = list(rows)
    letters = max((len(r["options"]) for r in rows if r["options"]), default=0)
    header = TSV_COLUMNS + [chr(65 + i) for i in range(letters)]
    encoded: dict[str, str] = {}
    first_row_with: dict[tuple, int] = {}
    with open(path, "w", encoding="utf-8", newline="") as out:
        out.write("\t".join(header) + "\n")
        for index, row in enumerate(rows):
            out.write(_tsv_line(index, row, data_dir, letters, encoded, first_row_with))


def _tsv_line(index: int, row: dict, data_dir: Path, letters: int, encoded: dict[str, str],
              first_row_with: dict[tuple, int]) -> str:
    names = tuple(row["file_names"])
    if names in first_row_with:
        image = str(first_row_with[names])
    else:
        first_row_with[names] = index
        for name in names:
            if name not in encoded:
                encoded[name] = base64.b64encode((data_dir / name).read_bytes()).decode()
        blobs = [encoded[n] for n in names]
        image = blobs[0] if len(blobs) == 1 else repr(blobs)
    paths = [Path(n).name for n in names]
    answer = row["answer"]
    if row["options"]:
        answer = chr(65 + row["options"].index(row["answer"]))
    cells = [str(index), _cell(row["question"]), _cell(answer), image,
             paths[0] if len(paths) == 1 else repr(paths), row["task"]]
    cells += [_cell(o) for o in (row["options"] or [])] + [""] * (letters - len(row["options"] or []))
    return "\t".join(cells) + "\n"


def read_vlmevalkit_tsv(path: Path | str) -> list[dict]:
    """Read the TSV back the way VLMEvalKit does: references resolved, images decoded to bytes."""
    with open(path, encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    by_index = {r["index"]: r["image"] for r in rows}
    out = []
    for r in rows:
        image = r["image"]
        if len(image) <= 64:
            image = by_index[image]
        blobs = ast.literal_eval(image) if image.startswith("[") else [image]
        paths = ast.literal_eval(r["image_path"]) if r["image_path"].startswith("[") else [r["image_path"]]
        out.append({**r, "images": [base64.b64decode(b) for b in blobs], "image_path": paths})
    return out
