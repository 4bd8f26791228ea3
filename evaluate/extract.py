"""Reading predictions and extracting answers from model responses.

Predictions are JSON lines ``{"id": ..., "response": "..."}`` (extra fields kept), or
VLMEvalKit's prediction files (``<model>_<dataset>.xlsx`` or ``.tsv``: a ``prediction``
column, joined to items by ``id`` or, failing that, by ``index``).
For multiple choice under circular evaluation, a rotated variant's id is
``<item id>::rot<r>`` and its options are the item's rotated left by ``r``.

Extraction is layered. The deterministic parser runs first and says how it found
the answer: ``json`` (a JSON object with ``answer``/``caption``), ``final`` (a
final-answer phrase), ``letter`` (an option letter), ``option`` (an option's text),
``yes/no``, or ``text`` (a short free-text reply taken whole). Only when it fails,
and only when asked, an LLM judge is consulted (``evaluate/judge.py``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from cogforge.errors import UserError, read_text

ROTATION = re.compile(r"^(?P<id>.+)::rot(?P<r>\d+)$")


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


def _json_answer(text: str) -> str | None:
    for match in re.finditer(r"\{[^{}]*\}", text, re.S):
        try:
            obj = json.loads(match.group(0))
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict):
            for key in ("answer", "caption", "final_answer", "choice", "option"):
                if isinstance(obj.get(key), (str, int)):
                    return str(obj[key]).strip()
    return None


# "Final Sequence" is CogEvolve's ordering marker; "**Answer**:" puts the bold before the colon.
# A star inside a value (3*sqrt(2), 2**x) is kept; stars around it (bold) are not.
_FINAL = re.compile(r"(?:final answer|final sequence|answer|caption)\s*\**\s*(?:is|:)\s*[\"'*]*"
                    r"((?:[^\n\"*]|(?<=[\w)])\*{1,2}(?=[\w(]))+)", re.I)
_LETTER_ALONE = re.compile(r"^\s*\(?([A-Z])\)?[.:)]?\s*$")
_LETTER_LEAD = re.compile(r"^\s*\(?([A-Z])[.:)]\s")


def _letter(text: str, k: int) -> str | None:
    valid = {chr(65 + i) for i in range(k)}
    candidates = [text.strip()]
    final = _FINAL.findall(text)
    if final:
        candidates.insert(0, final[-1].strip())
    for candidate in candidates:
        for pattern in (_LETTER_ALONE, _LETTER_LEAD):
            m = pattern.match(candidate)
            if m and m.group(1) in valid:
                return m.group(1)
    m = re.findall(r"\b(?:option|choice|answer)\s*\(?([A-Z])\)?\b", text, re.I)
    if m and m[-1].upper() in valid:
        return m[-1].upper()
    return None


def extract(response: str, options: list[str] | None) -> tuple[str | None, str]:
    """(answer, method). For multiple choice the answer is an option's text; else free text."""
    text = response.strip()
    if not text:
        return None, "empty"
    if options:
        inner = _json_answer(text)
        for candidate, method in ((inner, "json"), (text, "letter")):
            if candidate is None:
                continue
            letter = _letter(candidate, len(options))
            if letter:
                return options[ord(letter) - 65], "json" if method == "json" else "letter"
            lowered = candidate.strip().strip(".").lower()
            for option in options:
                if lowered == option.lower():
                    return option, "option" if method == "letter" else "json"
        mentioned = [o for o in options if re.search(rf"\b{re.escape(o.lower())}\b", text.lower())]
        if len(mentioned) == 1:
            return mentioned[0], "option"
        return None, "unparsed"
    inner = _json_answer(text)
    if inner:
        return inner, "json"
    final = _FINAL.findall(text)
    if final:
        return final[-1].strip().strip("."), "final"
    if text.lower().strip(".") in ("yes", "no"):
        return text.lower().strip("."), "yes/no"
    if len(text.split()) <= 25 and "\n" not in text:
        return text, "text"
    return None, "unparsed"


def rotate(options: list[str], r: int) -> list[str]:
    return options[r:] + options[:r]
