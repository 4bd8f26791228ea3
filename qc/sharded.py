"""QC of a sharded build (``items/part-*.jsonl``), one shard in memory at a time.

A training-scale build does not fit in memory, so its checks run in three ways:

* **per shard**: checks that judge one item at a time (``examples``, ``decisions``,
  ``offensive``, a benchmark's own checks) run on a :class:`Build` holding one shard's
  items and the merged manifest; findings are merged, statistics summed. A benchmark
  check's findings about a whole task (CARV: items per cell against the config) would
  judge a shard as if it were the task, so they are left out there: the ``schema``
  check counts every task's items across shards against the manifest instead.
  ``answers`` runs per shard for its per-item findings (a missing-value marker, an
  answer that is not an option).
* **on a sample**: statistics over many items (``balance``, ``shortcuts``, ``probe``,
  the answer-position test of ``answers``, near-duplicate images) run once on a
  bounded, deterministic sample: whole shards, evenly spaced within each task, about
  ``SAMPLE_ITEMS`` items in all and at least one shard per task, so tasks keep their
  proportions. Up to that size the sample is the whole build and these checks judge
  exactly as on a build in one file; beyond it their thresholds, set for paper-sized
  builds, keep their meaning instead of flagging every tiny bias a million items would
  make significant. ``media`` decodes every image of the folder once.
* **across shards, streamed**: ``shards`` (every planned shard has its ``.done``
  marker, its manifest hashes as the marker and ``manifest.json`` say, its files hash
  as it lists them, and every file on disk is listed), ``schema`` (item records, ids
  unique across shards, counts per task), ``duplicates`` (the shard manifests' content
  keys per task: the rate of repeats, against ``counts.duplicates``; above
  ``DUPLICATE_RATE_WARNING`` a warning: at training scale a repeat is a weight, not
  a leak) and ``splits`` (no content key, unit key or image of a test item in another
  split: an error). Keys are 64-bit integers in numpy arrays: 16 bytes per item.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from cogforge.core.buildio import sha256_file
from cogforge.core.errors import read_text
from cogforge.core.record import Item, ItemError
from cogforge.core.shards import content_key
from cogforge.qc.core import Build, Check, CheckResult, Finding, Report

SAMPLE_ITEMS = 5000
DUPLICATE_RATE_WARNING = 0.01
MAX_NAMED = 20
CONTENT_ADDRESSED = re.compile(r"^[^/]+/([0-9a-f]{64})\.[a-z]+$")  # findings that name items one by one, per kind; the rest are counted

# how each shared check of qc/checks.py runs on a sharded build (any other: per shard)
SAMPLED = ("balance", "shortcuts", "probe")
STREAMED = ("schema", "duplicates", "splits")  # replaced by the cross-shard checks below
ONCE = ("media",)
SHARED_NAMES = ("schema", "media", "duplicates", "answers", "balance", "shortcuts", "splits", "examples",
                "decisions", "offensive", "probe")
# statistics that every shard repeats (the decisions file): kept once, not summed
CONSTANT_STATS = {"decisions": ("decisions", "rejected_images"), "offensive": ("graphs_read",)}


def _hash64(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "big")


def _keys(hexes: list[str]) -> np.ndarray:
    return np.array([int(k, 16) for k in hexes], dtype=np.uint64)


def _shard_name(index: int) -> str:
    return f"part-{index:05d}"


def read_manifest(path: Path) -> tuple[dict, list[Finding]]:
    try:
        return json.loads((path / "manifest.json").read_text()), []
    except FileNotFoundError:
        return {}, [Finding("error", "schema", "manifest.json", "manifest.json is missing")]
    except (ValueError, RecursionError) as err:
        return {}, [Finding("error", "schema", "manifest.json", f"not valid JSON: {err}")]


def read_shard(path: Path, rel: str) -> tuple[list[Item], list[Finding]]:
    """A shard's items; records that fail the schema become findings (as ``load_build``)."""
    items, findings = [], []
    try:
        text = read_text(path / rel, "items file", error=ItemError)
    except ItemError as err:
        return [], [Finding("error", "schema", rel, str(err))]
    with io.StringIO(text) as handle:
        for number, line in enumerate(handle, 1):
            where = f"{rel}:{number}"
            try:
                items.append(Item.from_dict(json.loads(line), where))
            except json.JSONDecodeError as err:
                findings.append(Finding("error", "schema", where, f"not valid JSON: {err.msg}"))
            except ItemError as err:
                findings.append(Finding("error", "schema", where, str(err)))
            except (ValueError, RecursionError):
                findings.append(Finding("error", "schema", where, "not an item record"))
    return items, findings


# --------------------------------------------------------------------------- integrity


def _records(path: Path, manifest: dict, out: CheckResult) -> list[dict]:
    """The planned shards, each manifest verified against its marker and manifest.json; only
    their place and size are kept."""
    count = (manifest.get("shards") or {}).get("count")
    if not isinstance(count, int):
        out.findings.append(Finding("error", "shards", "manifest.json", "no shards.count: not a sharded "
                                    "build's manifest; build again"))
        return []
    listed = manifest.get("files", {})
    records = []
    for index in range(count):
        name = _shard_name(index)
        rel, done = f"shards/{name}.json", path / "shards" / f"{name}.done"
        if not (path / rel).is_file():
            out.findings.append(Finding("error", "shards", rel, "planned shard has no manifest; build again "
                                        "with --resume"))
            continue
        data = (path / rel).read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        if not done.is_file():
            out.findings.append(Finding("error", "shards", f"shards/{name}.done",
                                        "missing: the shard never completed; build again with --resume"))
        elif done.read_text().strip() != digest:
            out.findings.append(Finding("error", "shards", f"shards/{name}.done",
                                        "does not hold the sha256 of the shard's manifest"))
        if listed.get(rel) != digest:
            out.findings.append(Finding("error", "shards", rel, "sha256 differs from manifest.json"))
        try:
            record = json.loads(data)
            n = record["items"]
            if not all(len(record[k]) == n for k in ("keys", "units", "splits")):
                raise ValueError("keys, units and splits must have one entry per item")
            if record["shard"]["index"] != index:
                raise ValueError(f"shard index {record['shard']['index']}, file is {name}")
        except (ValueError, KeyError, TypeError) as err:
            out.findings.append(Finding("error", "shards", rel, f"not a shard manifest: {err}"))
            continue
        records.append({"shard": record["shard"], "items": n})  # keys are read again shard by shard
    return records


def _full(path: Path, slim: dict) -> dict:
    """A shard's whole manifest (files, keys, units, splits), read when its turn comes."""
    return json.loads((path / "shards" / f"{_shard_name(slim['shard']['index'])}.json").read_text())


def check_shards(path: Path, manifest: dict, records: list[dict], out: CheckResult) -> None:
    """Every file hashes as its shard (or manifest.json) lists it; nothing unlisted on disk."""
    hashed: dict[str, str] = {}  # an image shared by many shards is hashed once
    listed_anywhere = set(manifest.get("files", {})) | {"manifest.json"}
    for slim in records:
        record = _full(path, slim)
        for rel, digest in record["files"].items():
            listed_anywhere.add(rel)
            if rel not in hashed:
                hashed[rel] = sha256_file(path / rel) if (path / rel).is_file() else "missing"
            if hashed[rel] == "missing":
                out.findings.append(Finding("error", "shards", rel, f"listed by shard {_shard_name(record['shard']['index'])} "
                                            "but missing"))
            elif hashed[rel] != digest:
                out.findings.append(Finding("error", "shards", rel, "sha256 differs from the shard's manifest"))
    for rel, digest in manifest.get("files", {}).items():
        if rel.startswith("shards/"):
            continue  # verified with the shards above
        if not (path / rel).is_file():
            out.findings.append(Finding("error", "shards", rel, "listed in manifest.json but missing"))
        elif sha256_file(path / rel) != digest:
            out.findings.append(Finding("error", "shards", rel, "sha256 differs from manifest.json"))
    markers = {f"shards/{_shard_name(r['shard']['index'])}.done" for r in records}
    on_disk = 0
    for p in sorted(path.rglob("*")):
        if not p.is_file():
            continue
        on_disk += 1
        rel = p.relative_to(path).as_posix()
        if rel in listed_anywhere or rel in markers:
            continue
        if CONTENT_ADDRESSED.match(rel):  # a shared file (an image no item shows yet): its name is its hash
            if sha256_file(p) != CONTENT_ADDRESSED.match(rel).group(1):
                out.findings.append(Finding("error", "shards", rel, "sha256 differs from the file's name"))
            continue
        out.findings.append(Finding("error", "shards", rel, "not listed in manifest.json or any shard manifest"))
    out.stats = {"shards": len(records), "planned": (manifest.get("shards") or {}).get("count"),
                 "files": on_disk, "files_hashed": len(hashed)}


# --------------------------------------------------------------------------- the sample


def sample_shards(records: list[dict], budget: int = SAMPLE_ITEMS) -> list[int]:
    """Indices of whole shards, evenly spaced within each task, about ``budget`` items in
    all (every shard when the build is no larger), at least one per task."""
    total = sum(r["items"] for r in records)
    if total <= budget:
        return [r["shard"]["index"] for r in records]
    by_task: dict[str, list[dict]] = defaultdict(list)
    for r in records:
        by_task[r["shard"]["task"]].append(r)
    chosen = []
    for task, shards in by_task.items():
        items = sum(r["items"] for r in shards)
        mean = items / len(shards)
        want = max(1, min(len(shards), math.ceil(items * budget / total / mean)))
        picks = np.unique(np.linspace(0, len(shards) - 1, want).round().astype(int))
        chosen += [shards[k]["shard"]["index"] for k in picks]
    return sorted(chosen)


# --------------------------------------------------------------------------- merging


def _merged(a: Any, b: Any) -> Any:
    """Statistics of two shards: numbers summed, dictionaries merged, anything else the first."""
    if isinstance(a, dict) and isinstance(b, dict):
        return {k: _merged(a[k], b[k]) if k in a and k in b else a.get(k, b.get(k)) for k in {**a, **b}}
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return a + b
    return a


# --------------------------------------------------------------------------- the run


def run_sharded(path: Path, decisions: list[dict], checks: list[tuple[str, Check]]) -> Report:
    """Every check on a sharded build, streamed (see the module docstring)."""
    path = Path(path)
    manifest, findings = read_manifest(path)
    benchmark = manifest.get("benchmark", path.name)
    names = [name for name, _ in checks]
    per_shard = [(n, c) for n, c in checks if n not in SAMPLED + STREAMED + ONCE]
    shared = {n: c for n, c in checks}
    stats: dict[str, Any] = {}
    by_check: dict[str, list[Finding]] = defaultdict(list)

    integrity = CheckResult()
    records = _records(path, manifest, integrity)
    check_shards(path, manifest, records, integrity)
    by_check["shards"] += integrity.findings
    stats["shards"] = integrity.stats

    sampled = set(sample_shards(records))
    sample: list[Item] = []
    tasks = set((manifest.get("counts") or {}).get("by_task", {})) | {r["shard"]["task"] for r in records}
    # streamed state: 8-byte keys per item, a few counters
    id_hashes, counted, key_parts = [], Counter(), defaultdict(list)
    split_keys: dict[str, list[np.ndarray]] = defaultdict(list)
    images_exist: dict[str, bool] = {}
    merged_stats: dict[str, Any] = {}
    schema: list[Finding] = []
    seen_findings: set[Finding] = set()
    for slim in records:
        record = _full(path, slim)
        name = _shard_name(record["shard"]["index"])
        rel = f"items/{name}.jsonl"
        items, load = read_shard(path, rel)
        schema += load
        if len(items) != record["items"] or (load and not items):
            schema.append(Finding("error", "schema", rel, f"{len(items)} items read, the shard manifest "
                                  f"lists {record['items']}"))
        build = Build(path, manifest, items, [], decisions)
        id_hashes.append(np.array([_hash64(i.id) for i in items], dtype=np.uint64))
        for item in items:
            counted[item.task] += 1
            if item.benchmark != benchmark:
                schema.append(Finding("error", "schema", item.id, f"benchmark {item.benchmark!r}, build is {benchmark!r}"))
            for image in item.images:
                if image not in images_exist:
                    images_exist[image] = (path / image).is_file()
                if not images_exist[image]:
                    schema.append(Finding("error", "schema", item.id, f"image {image} does not exist"))
        if len(items) == record["items"]:
            recomputed = [content_key(i) for i in items]
            wrong = sum(a != b for a, b in zip(recomputed, record["keys"]))
            if wrong:
                schema.append(Finding("error", "schema", f"shards/{name}.json",
                                      f"{wrong} content keys are not the items' (question, images, options)"))
            if [i.split for i in items] != record["splits"]:
                schema.append(Finding("error", "schema", f"shards/{name}.json", "splits differ from the items'"))
        keys, units = _keys(record["keys"]), _keys(record["units"])
        key_parts[record["shard"]["task"]].append(keys)
        splits = np.array(record["splits"])
        for split in sorted(set(record["splits"])):
            mask = splits == split
            images = [_hash64(p) for i, s in zip(items, record["splits"]) if s == split for p in i.images] \
                if len(items) == record["items"] else []
            split_keys[split].append(np.concatenate([keys[mask], units[mask], np.array(images, np.uint64)]))
        for check_name, check in per_shard + ([("answers", shared["answers"])] if "answers" in shared else []):
            result = check(build)
            for f in result.findings:
                if check_name == "answers" and f.target == "build":
                    continue  # judged on the sample
                if f.target in tasks and check_name not in SHARED_NAMES:
                    continue  # a benchmark check's task totals: the schema check counts tasks across shards
                if f not in seen_findings:  # a file-level finding repeats in every shard
                    seen_findings.add(f)
                    by_check[check_name].append(f)
            if check_name != "answers":
                merged_stats[check_name] = (_merged(merged_stats[check_name], result.stats)
                                            if check_name in merged_stats else result.stats)
                for key in CONSTANT_STATS.get(check_name, ()):
                    if key in result.stats:
                        merged_stats[check_name][key] = result.stats[key]
        if record["shard"]["index"] in sampled:
            sample += items
    stats.update(merged_stats)

    # ---- schema: ids across shards, counts per task
    ids = np.concatenate(id_hashes) if id_hashes else np.array([], np.uint64)
    unique, repeats = np.unique(ids, return_counts=True)
    repeated = set(unique[repeats > 1].tolist())
    if repeated:
        named = Counter()
        for record in records:
            items, _ = read_shard(path, f"items/{_shard_name(record['shard']['index'])}.jsonl")
            named.update(i.id for i in items if _hash64(i.id) in repeated)
        for item_id, n in sorted(named.items())[:MAX_NAMED]:
            schema.append(Finding("error", "schema", item_id, f"id used by {n} items"))
    expected = (manifest.get("counts") or {}).get("by_task", {})
    for task in sorted(set(expected) | set(counted)):
        if expected.get(task) != counted.get(task, 0):
            schema.append(Finding("error", "schema", task, f"{counted.get(task, 0)} items in the shards, "
                                  f"manifest.json counts {expected.get(task)}"))
    total = (manifest.get("counts") or {}).get("items")
    if total != sum(counted.values()):
        schema.append(Finding("error", "schema", "manifest.json", f"counts.items is {total}, the shards hold "
                              f"{sum(counted.values())}"))
    by_check["schema"] += schema
    stats["schema"] = {"items": len(ids), "unique_ids": len(unique), "shards": len(records),
                       "by_task": dict(sorted(counted.items()))}

    # ---- duplicates across shards, and near-duplicate images of the sample
    sample_build = Build(path, manifest, sample, [], decisions)
    dup = _duplicates(key_parts, (manifest.get("counts") or {}).get("duplicates", {}))
    if "duplicates" in shared:
        from cogforge.qc.checks import _benchmark_option, near_duplicate_pairs

        severity = _benchmark_option(sample_build, "NEAR_DUPLICATE_SEVERITY", "warning")
        shown = sorted({path / rel for item in sample for rel in item.images if images_exist.get(rel)})
        pairs, closest = near_duplicate_pairs(shown)
        for a, b, dist in pairs:
            dup.findings.append(Finding(severity, "duplicates", a.relative_to(path).as_posix(),
                                        f"near-duplicate of {b.name} (fingerprints within {dist} levels)"))
        dup.stats |= {"near_duplicate_image_pairs": len(pairs), "closest_image_pair_levels": closest,
                      "images_compared": len(shown)}
    by_check["duplicates"] += dup.findings
    stats["duplicates"] = dup.stats

    # ---- splits, from the keys
    sp = _splits(split_keys, (manifest.get("counts") or {}).get("split_overlap", {}), path, records)
    by_check["splits"] += sp.findings
    stats["splits"] = sp.stats

    # ---- once on the folder, and the statistics on the sample
    for check_name in ONCE + SAMPLED + ("answers",):
        if check_name not in shared:
            continue
        result = shared[check_name](Build(path, manifest, [] if check_name in ONCE else sample, [], decisions))
        kept = [f for f in result.findings if check_name != "answers" or f.target == "build"]
        by_check[check_name] += kept
        stats[check_name] = result.stats
    stats["sharded"] = {"shards": len(records), "sample": {
        "items": len(sample), "shards": len(sampled), "checks": [n for n in SAMPLED + ("answers", "duplicates")
                                                                 if n in shared]}}

    findings += [f for fs in by_check.values() for f in fs]
    order = {"error": 0, "warning": 1, "info": 2}
    findings.sort(key=lambda f: (order[f.severity], f.check, f.target))
    checks_run = names[:1] + ["shards"] + names[1:]
    return Report(str(path), benchmark, findings, stats, checks_run)


def _duplicates(key_parts: dict[str, list[np.ndarray]], recorded: dict) -> CheckResult:
    out = CheckResult()
    by_task = {}
    for task, parts in sorted(key_parts.items()):
        keys = np.concatenate(parts)
        repeats = int(len(keys) - len(np.unique(keys)))
        rate = repeats / len(keys) if len(keys) else 0.0
        by_task[task] = {"items": int(len(keys)), "repeats": repeats, "rate": round(rate, 6)}
        said = (recorded.get(task) or {}).get("repeats")
        if said != repeats:
            out.findings.append(Finding("error", "duplicates", task, f"{repeats} repeated items across shards, "
                                        f"manifest.json counts.duplicates says {said}"))
        if rate > DUPLICATE_RATE_WARNING:
            out.findings.append(Finding("warning", "duplicates", task,
                                        f"{repeats} of {len(keys)} items ({rate:.2%}) show a model the same question, "
                                        f"images and options as an earlier item of the task (above "
                                        f"{DUPLICATE_RATE_WARNING:.0%}); a smaller scale or more variation removes them"))
    out.stats = {"by_task": by_task}
    return out


def _splits(split_keys: dict[str, list[np.ndarray]], recorded: dict, path: Path, records: list[dict]) -> CheckResult:
    """No content key, unit key or image of a test item in another split."""
    out = CheckResult()
    splits = sorted(split_keys)
    if "test" not in split_keys or len(splits) < 2:
        out.stats = {"splits": splits}
        return out
    test = np.unique(np.concatenate(split_keys["test"]))
    overlap = {}
    for split in splits:
        if split == "test":
            continue
        shared = np.isin(np.concatenate(split_keys[split]), test)
        overlap[f"test_in_{split}"] = int(shared.sum())
    if any(overlap.values()):
        named = 0
        for slim in records:
            record = _full(path, slim)
            keys, units = _keys(record["keys"]), _keys(record["units"])
            hit = (np.isin(keys, test) | np.isin(units, test)) & (np.array(record["splits"]) != "test")
            if not hit.any():
                continue
            items, _ = read_shard(path, f"items/{_shard_name(record['shard']['index'])}.jsonl")
            for k in np.flatnonzero(hit):
                if named < MAX_NAMED and k < len(items):
                    named += 1
                    out.findings.append(Finding("error", "splits", items[k].id,
                                                f"in split {items[k].split}, shows the content or the unit of a test item"))
        total = sum(overlap.values())
        out.findings.append(Finding("error", "splits", "build",
                                    f"{total} keys of test items (content, unit or image) also occur in other "
                                    f"splits ({', '.join(f'{k} {v}' for k, v in overlap.items())})"))
    for key, n in overlap.items():
        if key in recorded and recorded[key] > n:
            out.findings.append(Finding("error", "splits", "manifest.json",
                                        f"counts.split_overlap.{key} is {recorded[key]}, the shards' keys give {n}"))
    out.stats = {"splits": splits, "test_keys": int(len(test)), "overlap": overlap}
    return out
