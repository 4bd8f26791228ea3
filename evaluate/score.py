"""Scoring predictions on a release: every item counts, and unparsed answers are reported.

The release's hashes are verified first (a release that does not verify is refused
unless ``allow_unverified``, which the report records). Missing predictions count as
wrong and are listed. Each item records how its answer was obtained. A benchmark adds
its own judging and strata through its registered descriptor's scorer
(``Benchmark.scorer``: ``is_correct``, ``strata``, ``chance``, ``tables``, ``extra``).

The files of one model are scored together: VLMEvalKit writes one file per dataset (a
split's multiple-choice and free-text items are two datasets), found in its output
folder by ``find_vlmevalkit_files``; they give one score per split.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cogforge.core import registry
from cogforge.core.errors import UserError, read_json
from cogforge.core.releases import ReleaseError, load_release
from cogforge.evaluate import lmms_logs
from cogforge.evaluate.extract import ROTATION, extract, rotate
from cogforge.evaluate.predictions import TABLE_SUFFIXES, PredictionProblems, read_predictions
from cogforge.core.shortcuts import question_stem, wilson


def _plugin(benchmark: str) -> Any:
    """The registered benchmark's scoring hooks (``Benchmark.scorer``), or None: a benchmark
    that is not registered is scored by letter and exact answer only."""
    found = registry.find(benchmark)
    return found.scorer if found else None


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def _stat(hits: int, n: int, chance: float) -> dict:
    acc = hits / n if n else 0.0
    return {"n": n, "correct": hits, "accuracy": acc, "ci95": list(wilson(hits, n)), "chance": chance,
            "chance_normalised": (acc - chance) / (1 - chance) if chance < 1 else None}


@dataclass
class PredictionsFile:
    """One predictions file as read: its predictions by id, its problems, and what it answers."""

    path: Path
    preds: dict[str, dict]
    problems: PredictionProblems
    # VLMEvalKit files: the (split, task, multiple choice) of the items they answer; None: every item
    scope: set[tuple[str, str, bool]] | None


def _named(problems: PredictionProblems, name: str) -> PredictionProblems:
    """A file's problems with its name in front, for a model scored from several files."""
    return PredictionProblems(*([f"{name} {p}" for p in kind] for kind in
                                (problems.malformed, problems.duplicates, problems.unknown, problems.missing)))


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
            from cogforge.evaluate.judge import ask

            # the judge gets the options once, lettered as the model saw them (a rotation's own order)
            question = question_stem(row["question"], row["options"]) if options else row["question"]
            answer, record = ask(self.judges, question, options, prediction["response"])
            method = "judge" if answer is not None else "unparsed"
        ok = answer is not None and self.correct(answer, row, options)
        out = {"answer": answer, "method": method, "correct": ok}
        if record:
            out["judge"] = record
        return out

    def read(self, path: Path | str) -> PredictionsFile:
        """One predictions file, read and checked against the release's ids."""
        path = Path(path)
        by_id = {r["id"]: r for r in self.rows}
        rotated = {f"{r['id']}::rot{k}" for r in self.rows if r["options"] for k in range(1, len(r["options"]))}
        # VLMEvalKit's index: the row number across data/<split>.jsonl in name order (load order)
        by_index = {str(k): r["id"] for k, r in enumerate(self.rows)}
        preds, problems = read_predictions(path, set(by_id) | rotated, by_index)
        scope = None
        if path.suffix.lower() in TABLE_SUFFIXES or lmms_logs.is_samples_log(path):  # an lmms-eval log: one task
            # a VLMEvalKit file answers one of its datasets: one split, and of that split the
            # tasks and the answer type of that file (a task with both multiple-choice and
            # free items has them in two files)
            scope = {(by_id[i]["split"], by_id[i]["task"], bool(by_id[i]["options"])) for i in preds if i in by_id}
        elif _meta(path).get("split"):  # `cogforge eval run --split S` asked that split's items only
            asked = _meta(path)["split"]
            scope = {(r["split"], r["task"], bool(r["options"])) for r in self.rows if r["split"] == asked}
        return PredictionsFile(path, preds, problems, scope)

    def score(self, predictions_path: Path | str, circular: bool | None = None, split: str | None = None) -> dict:
        """Score one file; ``split`` limits the items (a VLMEvalKit file of one split picks it itself)."""
        results = self.score_files([self.read(predictions_path)], circular, split)
        return next(iter(results.values()))

    def score_files(self, files: list[PredictionsFile], circular: bool | None = None,
                    split: str | None = None) -> dict[str | None, dict]:
        """Score the files of one model together: one result per split.

        A JSON Lines file answers every item (``split`` limits them; one result). VLMEvalKit
        files each answer one split's tasks of one answer type; together they are scored on
        the union of what they answer, one result per split (``split`` picks one).
        """
        splits = {r["split"] for r in self.rows}
        if split is not None and split not in splits:
            raise ReleaseError(f"split {split!r} is not in the release; it has {sorted(splits)}")
        several = len(files) > 1
        preds: dict[str, dict] = {}
        origin: dict[str, Path] = {}
        file_problems = []
        for f in files:
            problems = f.problems if not several else _named(f.problems, f.path.name)
            for item_id, pred in f.preds.items():
                if item_id in preds:
                    problems.duplicates.append(f"{f.path.name}: {item_id} (first kept, from {origin[item_id].name})")
                    continue
                preds[item_id] = pred
                origin[item_id] = f.path
            file_problems.append((f, problems))
        if circular is None:
            circular = any(ROTATION.match(i) for i in preds)
        scope = set().union(*(f.scope for f in files if f.scope is not None))
        everything = not scope or any(f.scope is None for f in files)  # an empty table: every item missing
        if everything:
            groups = [split]
        else:
            groups = sorted({s for s, _, _ in scope}) if split is None else [split]
        out = {}
        for group in groups:
            problems = PredictionProblems()
            used = []
            for f, p in file_problems:
                if f.scope is None or group is None or any(s == group for s, _, _ in f.scope):
                    problems.malformed += p.malformed
                    problems.duplicates += p.duplicates
                    problems.unknown += p.unknown
                    used.append(str(f.path))
            rows = [r for r in self.rows if (group is None or r["split"] == group)
                    and (everything or (r["split"], r["task"], bool(r["options"])) in scope)]
            tasks = None if everything else sorted({r["task"] for r in rows}) or None
            out[group] = self._score_rows(rows, preds, problems, circular) | {"split": group, "tasks": tasks,
                                                                               "predictions": used}
        return out

    def _score_rows(self, rows: list[dict], preds: dict[str, dict], problems: PredictionProblems,
                    circular: bool) -> dict:
        records = []
        for row in rows:
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
        return self.summarise(records, problems, circular)

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
          circular: bool | None = None, split: str | None = None, model: str | None = None) -> dict:
    """Score predictions on a release: one result per model, and per split for VLMEvalKit files.

    Args:
        predictions: predictions files, or folders that VLMEvalKit wrote (its work dir, a
            model's folder or one run's folder), searched for the release's prediction files.
        model: the model of every file; by default a file's model is its ``.meta.json``'s
            ``model``, VLMEvalKit's ``<model>_<dataset>`` file name, or else the file name.
            Files of one model are scored together (VLMEvalKit writes one file per dataset);
            files of one model that answer the same items are kept apart, named by file.
    """
    rows, info = load_release(release, allow_unverified)
    scorer = Scorer(rows, info["benchmark"], judges)
    names = vlmevalkit_names(Path(release))
    paths = [p for given in predictions for p in
             ((lmms_logs.find_samples(Path(given), Path(release)) or find_vlmevalkit_files(Path(given), names))
              if Path(given).is_dir() else [Path(given)])]
    groups: dict[str, list[list[PredictionsFile]]] = {}
    for path in paths:
        loaded = scorer.read(path)
        name = model or _model_name(path, names)
        buckets = groups.setdefault(name, [])
        # files of one model join when they answer different items; with --model, always
        home = next((b for b in buckets if model or not any(loaded.preds.keys() & f.preds.keys() for f in b)), None)
        if home is None:
            buckets.append([loaded])
        else:
            home.append(loaded)
    models = {}
    for name, buckets in groups.items():
        for bucket in buckets:
            label = name if len(buckets) == 1 else f"{name} ({bucket[0].path.name})"
            results = scorer.score_files(bucket, circular, split)
            for group, result in results.items():
                key = label if len(results) == 1 else f"{label} [{group}]"
                models[key] = result | {"model": name}
    return {"release": info, "judge": None if judges is None else {
        "models": [e.model for e in judges.endpoints], "agree": judges.agree}, "models": models}


def vlmevalkit_names(release: Path) -> list[str]:
    """The release's VLMEvalKit dataset names (its TSV file stems)."""
    info = read_json(release / "release.json", "release.json")
    return list(info.get("vlmevalkit") or []) if isinstance(info, dict) else []


def _vlmevalkit_split(path: Path, names: list[str]) -> tuple[str, str] | None:
    """(model, dataset) of a VLMEvalKit prediction file ``<model>_<dataset>.xlsx``, if it is one."""
    if path.suffix.lower() not in TABLE_SUFFIXES:
        return None
    matches = [n for n in names if path.stem.endswith("_" + n) and len(path.stem) > len(n) + 1]
    if not matches:
        return None
    dataset = max(matches, key=len)
    return path.stem[:-len(dataset) - 1], dataset


def find_vlmevalkit_files(folder: Path, names: list[str]) -> list[Path]:
    """The release's prediction files under a folder VLMEvalKit wrote, one per model and dataset.

    VLMEvalKit's run.py writes ``<work-dir>/<model>/T<date>_G<commit>/<model>_<dataset>.xlsx``
    (and, after a successful evaluation, links it from ``<work-dir>/<model>/``); its judge's
    files (``..._<dataset>_<judge>_result.xlsx``, ``_acc.csv``) are not prediction files. Where
    several runs answered the same dataset, the newest file is taken.
    """
    newest: dict[tuple[str, str], Path] = {}
    for path in sorted(folder.rglob("*")):
        found = _vlmevalkit_split(path, names)
        if found is None or not path.is_file():
            continue
        real = path.resolve()
        if found not in newest or real.stat().st_mtime > newest[found].stat().st_mtime:
            newest[found] = real
    if not newest:
        raise UserError(f"no VLMEvalKit prediction file of this release under it (<model>_<dataset>.xlsx, "
                        f"dataset one of {', '.join(names) or 'none'}); VLMEvalKit writes them to "
                        "<work-dir>/<model>/T<date>_G<commit>/", folder)
    return sorted(newest.values(), key=lambda p: (_vlmevalkit_split(p, names), str(p)))


def _meta(path: Path) -> dict:
    """What ``cogforge eval run`` recorded beside its predictions file (model, split, ...)."""
    meta = path.with_name(path.name + ".meta.json")
    if not meta.is_file():
        return {}
    data = read_json(meta, "predictions metadata (.meta.json)")
    return data if isinstance(data, dict) else {}


def _model_name(path: Path, names: list[str] | None = None) -> str:
    if lmms_logs.is_samples_log(path):
        return lmms_logs.model_name(path)
    if _meta(path).get("model"):
        return str(_meta(path)["model"])
    found = _vlmevalkit_split(path, names or [])
    return found[0] if found else path.stem
