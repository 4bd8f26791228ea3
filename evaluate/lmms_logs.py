"""Reading lmms-eval's sample logs as predictions: the response to each item, by item id.

``lmms-eval --log_samples --output_path OUT`` writes, for each task it ran,
``OUT/<model>/<run>_samples_<task>.jsonl`` (``<run>`` is the run's date and time) beside
``<run>_results.json``. A line is one document: ``doc_id`` (its position in the task,
not an item id), ``target``, ``filtered_resps`` (the response lmms-eval scored; ``resps``
holds the raw one when a filter or reasoning-tag stripping changed it), and the values
of the task's metrics. A release's task folder (``exports/lmms_eval.py``) makes the item
id one of those metrics, so every line says which item it answers; a log written by a
task folder without it is refused with what to do.

Each log answers one task of one split: ``cogforge eval score`` scores the logs of one
model together, one result per split, as it does VLMEvalKit's files.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from cogforge.core.errors import read_text
from cogforge.evaluate.predictions import PredictionError, PredictionProblems

NAME = re.compile(r"^(?P<run>.+?)_samples_(?P<task>.+)\.jsonl$")


def is_samples_log(path: Path) -> bool:
    """A file lmms-eval wrote with ``--log_samples`` (whatever its name): its first line has
    lmms-eval's ``doc_id`` and ``filtered_resps``, and no ``response`` of cogforge's format."""
    if path.suffix.lower() != ".jsonl" or not path.is_file():
        return False
    with path.open("rb") as f:
        first = f.readline(1 << 20)
    try:
        row = json.loads(first)
    except (ValueError, RecursionError):
        return False
    return isinstance(row, dict) and "doc_id" in row and "filtered_resps" in row and "response" not in row


def _response(row: dict) -> str | None:
    """The response lmms-eval scored: a string, or a list of one (lmms-eval flattens single responses)."""
    value = row.get("filtered_resps")
    while isinstance(value, list) and len(value) == 1:
        value = value[0]
    return value if isinstance(value, str) else None


def read_samples(path: Path, known: set[str]) -> tuple[dict[str, dict], PredictionProblems]:
    """Predictions by item id from one sample log; problems are listed with their line.

    Args:
        path: a ``<run>_samples_<task>.jsonl`` file.
        known: the ids the release expects.
    """
    problems = PredictionProblems()
    out: dict[str, dict] = {}
    text = read_text(path, "lmms-eval sample log", error=PredictionError)
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except (ValueError, RecursionError):
            problems.malformed.append(f"line {number}: not valid JSON")
            continue
        if not isinstance(row, dict):
            problems.malformed.append(f"line {number}: not an lmms-eval sample (a JSON object)")
            continue
        if not isinstance(row.get("id"), str):
            raise PredictionError("this lmms-eval sample has no item 'id': its task folder predates item ids in "
                                  "the logs; run lmms-eval again with the release's own exports/lmms_eval "
                                  "(cogforge release writes it), keeping --log_samples", path, number)
        response = _response(row)
        if response is None:
            problems.malformed.append(f"line {number}: id {row['id']}: 'filtered_resps' holds no one response")
            continue
        if row["id"] not in known:
            problems.unknown.append(f"line {number}: {row['id']}")
            continue
        if row["id"] in out:
            problems.duplicates.append(f"line {number}: {row['id']} (first kept)")
            continue
        out[row["id"]] = {"id": row["id"], "response": response, "doc_id": row.get("doc_id"),
                          "lmms_eval_accuracy": row.get("accuracy")}
    if not out and not problems.unknown and not problems.duplicates:
        raise PredictionError("no line is an lmms-eval sample with an item 'id' and a response; pass the "
                              "<run>_samples_<task>.jsonl files lmms-eval wrote with --log_samples", path)
    return out, problems


def release_tasks(release: Path) -> set[str] | None:
    """The lmms-eval task names of a release (``release.json``'s ``lmms_eval``: tasks by split group)."""
    try:
        groups = json.loads((release / "release.json").read_text(encoding="utf-8")).get("lmms_eval")
    except (OSError, ValueError, AttributeError):
        return None
    return {t for tasks in groups.values() for t in tasks} if isinstance(groups, dict) else None


def find_samples(folder: Path, release: Path) -> list[Path]:
    """A release's sample logs under a folder lmms-eval wrote (its ``--output_path``, or a model's folder).

    Logs of other releases' tasks (one lmms-eval run may cover several) are left out. Where
    a model ran a task several times, the newest run's log is taken (run names are date and
    time, so they sort in time order). No log under the folder gives an empty list.
    """
    tasks = release_tasks(release)
    newest: dict[tuple[Path, str], Path] = {}
    for path in sorted(folder.rglob("*_samples_*.jsonl")):
        match = NAME.match(path.name)
        if match is None or not path.is_file() or (tasks is not None and match["task"] not in tasks):
            continue
        key = (path.parent, match["task"])
        if key not in newest or NAME.match(newest[key].name)["run"] < match["run"]:
            newest[key] = path
    return sorted(newest.values())


def model_name(path: Path) -> str:
    """The model of a sample log: its run's ``results.json`` says it, else the folder lmms-eval named after it."""
    match = NAME.match(path.name)
    results = path.with_name(f"{match['run']}_results.json") if match else None
    if results is not None and results.is_file():
        try:
            name = json.loads(results.read_text(encoding="utf-8")).get("model_name")
        except (OSError, ValueError, AttributeError):
            name = None
        if isinstance(name, str) and name:
            return name
    return path.parent.name
