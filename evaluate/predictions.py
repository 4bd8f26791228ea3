"""Reading predictions files: every problem reported with its line, nothing dropped silently.

Predictions are JSON lines ``{"id": ..., "response": "..."}`` (extra fields kept), or
VLMEvalKit's prediction files (``<model>_<dataset>.xlsx`` or ``.tsv``: a ``prediction``
column, joined to items by ``id`` or, failing that, by ``index``), or lmms-eval's sample
logs (``evaluate/lmms_logs.py``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from cogforge.core.errors import UserError, read_text


@dataclass
class PredictionProblems:
    malformed: list[str] = field(default_factory=list)  # "line N: why"
    duplicates: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"malformed": self.malformed, "duplicate_ids": self.duplicates,
                "unknown_ids": self.unknown, "missing_ids": self.missing}


TABLE_SUFFIXES = (".xlsx", ".tsv", ".csv")


class PredictionError(UserError):
    """A predictions file that holds nothing to score (empty, binary, another format,
    cut short); a file of good lines with some bad ones is scored and its problems listed."""


def read_predictions(path: Path | str, known: set[str],
                     by_index: dict[str, str] | None = None) -> tuple[dict[str, dict], PredictionProblems]:
    """Predictions by id; every problem is reported with its line number, nothing dropped silently.

    ``known`` holds the ids the release expects (rotated ids included); ``by_index`` maps
    a VLMEvalKit ``index`` to its item id.
    """
    problems = PredictionProblems()
    out: dict[str, dict] = {}
    path = Path(path)
    if not path.is_file():
        raise PredictionError("no such predictions file; check the path", path)
    from cogforge.evaluate import lmms_logs  # imported here: it builds on this module

    if lmms_logs.is_samples_log(path):
        return lmms_logs.read_samples(path, known)
    if path.suffix.lower() in TABLE_SUFFIXES:
        return _read_table(path, known, by_index or {}, problems)
    try:
        # a byte-order mark (as some editors and Windows tools write) is not data
        text = read_text(path, "predictions file (JSON Lines)")
    except UserError as err:
        raise PredictionError(str(err)) from None
    lines = text.splitlines()
    if not text.strip():
        raise PredictionError("empty; a predictions file has one JSON object per line with 'id' and "
                              "'response'", path)
    if not text.endswith(("\n", "\r")) and lines[-1].strip():
        try:
            json.loads(lines[-1])
        except (ValueError, RecursionError):
            raise PredictionError("the last line stops in the middle of a record: the file is cut short; "
                                  "finish the run (`cogforge eval run` resumes) or remove that line",
                                  path, len(lines)) from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            problems.malformed.append(f"line {number}: not valid JSON ({err.msg} at column {err.colno})")
            continue
        except (RecursionError, ValueError):  # nested without end, or a number of 4300+ digits
            problems.malformed.append(f"line {number}: not a prediction (a JSON object with 'id' and 'response')")
            continue
        if not isinstance(row, dict) or not isinstance(row.get("id"), str):
            problems.malformed.append(f"line {number}: needs a string 'id'")
            continue
        if not isinstance(row.get("response"), str):
            problems.malformed.append(f"line {number}: id {row['id']}: 'response' must be a string")
            continue
        if row["id"] not in known:
            problems.unknown.append(f"line {number}: {row['id']}")
            continue
        if row["id"] in out:
            problems.duplicates.append(f"line {number}: {row['id']} (first kept)")
            continue
        out[row["id"]] = row
    if not out and not problems.unknown and not problems.duplicates:
        first = problems.malformed[0]
        raise PredictionError(f"no line is a prediction ({first.split(': ', 1)[1]}); a predictions file has one "
                              "JSON object per line with 'id' and 'response'", path,
                              int(first.split(":")[0].removeprefix("line ")))
    return out, problems


def _read_table(path: Path, known: set[str], by_index: dict[str, str],
                problems: PredictionProblems) -> tuple[dict[str, dict], PredictionProblems]:
    """A VLMEvalKit prediction file; cells are read as written ("None" stays a string)."""
    import pandas as pd

    try:
        if path.suffix.lower() == ".xlsx":
            frame = pd.read_excel(path, dtype=str, keep_default_na=False)
        else:
            frame = pd.read_csv(path, sep="\t" if path.suffix.lower() == ".tsv" else ",", dtype=str,
                                keep_default_na=False)
    except Exception as err:  # a corrupt workbook or table: say which file and why
        reason = " ".join(str(err).split())[:200]
        raise PredictionError(f"not a readable VLMEvalKit prediction file ({reason})", path) from None
    if "prediction" not in frame.columns or not {"id", "index"} & set(frame.columns):
        raise PredictionError(f"{path}: a VLMEvalKit prediction file needs a 'prediction' column and 'id' or "
                         f"'index'; found {list(frame.columns)}")
    out: dict[str, dict] = {}
    for number, row in enumerate(frame.to_dict("records"), 2):  # line 1 is the header
        item_id = row.get("id") or by_index.get(str(row.get("index", "")).strip())
        if not item_id:
            problems.malformed.append(f"line {number}: index {row.get('index')!r} is not in the release")
            continue
        if item_id not in known:
            problems.unknown.append(f"line {number}: {item_id}")
            continue
        if item_id in out:
            problems.duplicates.append(f"line {number}: {item_id} (first kept)")
            continue
        out[item_id] = {**row, "id": item_id, "response": row["prediction"]}
    return out, problems


# --------------------------------------------------------------------------- extraction
