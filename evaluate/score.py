"""Scoring predictions on a release: every item counts, and unparsed answers are reported.

The release's hashes are verified first (a release that does not verify is refused
unless ``allow_unverified``, which the report records). Missing predictions count as
wrong and are listed. Each item records how its answer was obtained. Benchmarks add
their own judging and strata in ``evaluate/<benchmark>.py`` (``is_correct``,
``strata``, ``chance``, ``tables``, ``extra``).
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import re
from collections import Counter, defaultdict
from pathlib import Path
from types import ModuleType

from cogforge.errors import read_json
from evaluate.extract import ROTATION, extract, rotate
from evaluate.predictions import TABLE_SUFFIXES, read_predictions
from exports.release import ReleaseError, read_rows, verify
from qc.stats import wilson


def _plugin(benchmark: str) -> ModuleType | None:
    if importlib.util.find_spec(f"evaluate.{benchmark}") is None:
        return None
    return importlib.import_module(f"evaluate.{benchmark}")


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def load_release(folder: Path | str, allow_unverified: bool = False) -> tuple[list[dict], dict]:
    folder = Path(folder)
    if not (folder / "release.json").is_file():
        raise ReleaseError(f"{folder} is not a release folder (no release.json); make one with `make release`")
    problems = verify(folder)
    if problems and not allow_unverified:
        raise ReleaseError(f"{folder} does not verify ({len(problems)} problems, e.g. {problems[0]}); "
                           "scores on a changed release prove nothing. Pass --allow-unverified to score anyway")
    info = read_json(folder / "release.json", "release.json")
    if not isinstance(info, dict) or not {"benchmark", "version"} <= set(info):
        raise ReleaseError(f"{folder / 'release.json'}: not a release's release.json (an object with benchmark "
                           "and version); make the release again with `cogforge release`")
    rows = read_rows(folder)
    for row in rows:
        row["meta"] = json.loads(row["meta"]) if isinstance(row["meta"], str) else row["meta"]
    return rows, {"release": str(folder), "benchmark": info["benchmark"], "version": info["version"],
                  "verified": not problems, "verification_problems": problems,
                  "allow_unverified": allow_unverified}


def _stat(hits: int, n: int, chance: float) -> dict:
    acc = hits / n if n else 0.0
    return {"n": n, "correct": hits, "accuracy": acc, "ci95": list(wilson(hits, n)), "chance": chance,
            "chance_normalised": (acc - chance) / (1 - chance) if chance < 1 else None}


class Scorer:
    """Scores one predictions file against a loaded release."""

    def __init__(self, rows: list[dict], benchmark: str, judges=None):
        self.rows = rows
        self.plugin = _plugin(benchmark)
        self.judges = judges
        self.vocabulary = len({_norm(r["answer"]) for r in rows if not r["options"]}) or 1

    def chance(self, row: dict) -> float:
        if row["options"]:
            return 1 / len(row["options"])
        if self.plugin and hasattr(self.plugin, "chance"):
            return self.plugin.chance(row)
        return 1 / self.vocabulary

    def correct(self, answer: str, row: dict, options: list[str] | None) -> bool:
        if options:
            return answer == row["answer"]
        if self.plugin and hasattr(self.plugin, "is_correct"):
            return self.plugin.is_correct(answer, row)
        return _norm(answer) == _norm(row["answer"])

    def strata(self, row: dict) -> dict[str, str]:
        out = {"task": row["task"]}
        if self.plugin and hasattr(self.plugin, "strata"):
            out.update({k: v for k, v in self.plugin.strata(row).items() if v is not None})
        return out

    def one(self, row: dict, prediction: dict | None, options: list[str] | None) -> dict:
        if prediction is None:
            return {"answer": None, "method": "missing", "correct": False}
        answer, method = extract(prediction["response"], options)
        record = {}
        if answer is None and self.judges is not None:
            from evaluate.judge import ask

            answer, record = ask(self.judges, row["question"], options, prediction["response"])
            method = "judge" if answer is not None else "unparsed"
        ok = answer is not None and self.correct(answer, row, options)
        out = {"answer": answer, "method": method, "correct": ok}
        if record:
            out["judge"] = record
        return out

    def score(self, predictions_path: Path | str, circular: bool | None = None, split: str | None = None) -> dict:
        """Score one file; ``split`` limits the items (a VLMEvalKit file of one split picks it itself)."""
        by_id = {r["id"]: r for r in self.rows}
        mcq = [r for r in self.rows if r["options"]]
        rotated = {f"{r['id']}::rot{k}" for r in mcq for k in range(1, len(r["options"]))}
        # VLMEvalKit's index: the row number across data/<split>.jsonl in name order (load order)
        by_index = {str(k): r["id"] for k, r in enumerate(self.rows)}
        preds, problems = read_predictions(predictions_path, set(by_id) | rotated, by_index)
        if circular is None:
            circular = any(ROTATION.match(i) for i in preds)
        tasks = None
        if Path(predictions_path).suffix.lower() in TABLE_SUFFIXES:
            # a VLMEvalKit file answers one of its datasets: one split, and the tasks of that
            # file (a split's items are spread over files by answer type and images)
            seen = {by_id[i]["split"] for i in preds if i in by_id}
            if split is None:
                split = seen.pop() if len(seen) == 1 else None
            tasks = {by_id[i]["task"] for i in preds if i in by_id} or None
            # a task with both multiple-choice and free items has them in two files
            kinds = {(by_id[i]["task"], bool(by_id[i]["options"])) for i in preds if i in by_id}
        splits = {r["split"] for r in self.rows}
        if split is not None and split not in splits:
            raise ReleaseError(f"split {split!r} is not in the release; it has {sorted(splits)}")
        records = []
        for row in (r for r in self.rows if (split is None or r["split"] == split)
                    and (tasks is None or (r["task"], bool(r["options"])) in kinds)):
            pred = preds.get(row["id"])
            if pred is None:
                problems.missing.append(row["id"])
            result = self.one(row, pred, row["options"])
            record = {"id": row["id"], "strata": self.strata(row), "truth": row["answer"],
                      "response": None if pred is None else pred["response"], **result}
            if self.plugin and hasattr(self.plugin, "extra"):  # a benchmark's per-item measures
                record["extra"] = self.plugin.extra(row, record["response"])
            if circular and row["options"]:
                turns = [result["correct"]]
                for k in range(1, len(row["options"])):
                    rid = f"{row['id']}::rot{k}"
                    rp = preds.get(rid)
                    if rp is None:
                        problems.missing.append(rid)
                    turns.append(self.one(row, rp, rotate(row["options"], k))["correct"])
                record["rotations_correct"] = turns
            records.append(record)
        return self.summarise(records, problems, circular) | {"split": split,
                                                               "tasks": sorted(tasks) if tasks else None}

    def summarise(self, records: list[dict], problems, circular: bool) -> dict:
        by_id = {r["id"]: r for r in self.rows}
        n = len(records)
        hits = sum(r["correct"] for r in records)
        chance = sum(self.chance(by_id[r["id"]]) for r in records) / n if n else 0.0
        methods = Counter(r["method"] for r in records)
        failed = sum(methods.get(k, 0) for k in ("unparsed", "empty", "missing"))
        strata: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
        for r in records:
            for family, value in r["strata"].items():
                strata[family][value].append(r)
        breakdown = {}
        for family, groups in strata.items():
            breakdown[family] = {}
            for value, group in sorted(groups.items()):
                c = sum(self.chance(by_id[r["id"]]) for r in group) / len(group)
                breakdown[family][value] = _stat(sum(r["correct"] for r in group), len(group), c)
        out = {"overall": _stat(hits, n, chance),
               "answer_extraction": {"methods": dict(sorted(methods.items())), "failed": failed,
                                     "fail_rate": failed / n if n else 0.0},
               "problems": problems.as_dict(), "breakdown": breakdown, "records": records}
        if circular:
            turns = [r["rotations_correct"] for r in records if "rotations_correct" in r]
            if turns:
                out["circular"] = {
                    "items": len(turns),
                    "proportion_correct": sum(sum(t) / len(t) for t in turns) / len(turns),
                    "strict_all_rotations": sum(all(t) for t in turns) / len(turns)}
        if self.plugin and hasattr(self.plugin, "tables"):
            out["tables"] = self.plugin.tables(records)
        return out


def score(release: Path | str, predictions: list[Path | str], judges=None, allow_unverified: bool = False,
          circular: bool | None = None, split: str | None = None) -> dict:
    """Score one or more predictions files (one per model) on a release."""
    rows, info = load_release(release, allow_unverified)
    scorer = Scorer(rows, info["benchmark"], judges)
    models = {}
    for path in predictions:
        name = _model_name(Path(path))
        if name in models:
            name = f"{name} ({Path(path).name})"
        models[name] = scorer.score(path, circular, split)
        models[name]["predictions"] = str(path)
    return {"release": info, "judge": None if judges is None else {
        "models": [e.model for e in judges.endpoints], "agree": judges.agree}, "models": models}


def _model_name(path: Path) -> str:
    meta = path.with_name(path.name + ".meta.json")
    if meta.is_file():
        return json.loads(meta.read_text()).get("model", path.stem)
    return path.stem
