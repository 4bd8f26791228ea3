"""Training-scale builds: items made in shards on an executor, written as they come,
resumable, byte-identical on any executor and any number of workers.

A sharded build plans its items as shards, each a run of one task's items
(:func:`plan`). A shard's items depend on (build seed, task, shard part) alone, so
any worker can make any shard in any order. The driver takes the results in plan
order (:meth:`cogforge.core.executor.Executor.imap`) and writes each shard as it
arrives, so memory holds a few shards at a time whatever the build's size::

    manifest.json              merged: counts, duplicates across shards, split overlap
    items/part-00000.jsonl     the shard's items, one record per line
    shards/part-00000.json     the shard's manifest: its files with their sha256, and per
                               item a content key, a unit key and the split
    shards/part-00000.done     written last: the sha256 of the shard's manifest
    images/<sha256>.png        content-addressed, as in every build

The build is made in ``.NAME.partial`` beside the final folder and swapped in
atomically when complete (:func:`cogforge.core.buildio.replace_dir`). A failed or
interrupted build leaves the final folder as it was and its complete shards in
``.NAME.partial``; ``resume=True`` keeps those (their ``.done`` marker and files
verified) and makes only the rest.

Keys: the *content key* of an item is a hash of what a model sees (question, image
bytes, options); its *unit key* a hash of what it is made from (CARV: the states
shown; CoreCognition: the pair's parameters), so the same unit seen in another
picture is still the same unit. Both are 64-bit: their collisions at 10^8 items
(about 3 in 10^4) would count one duplicate too many, never hide one.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from cogforge.core.buildio import dump_json, replace_dir, sha256_file
from cogforge.core.errors import UserError
from cogforge.core.executor import Executor, TaskFailed, make_executor
from cogforge.core.record import Item, read_items
from cogforge.core.stats import counts_table

SHARD_SIZE = 500  # items per shard unless a build says otherwise
LAYOUT = "sharded"


class ShardError(UserError, RuntimeError):
    """A shard could not be made (its task raised), or a build cannot resume."""


@dataclass(frozen=True)
class Shard:
    """A run of up to ``count`` items of one task, numbered from ``start`` (0-based). A
    builder may make fewer (CoreCognition drops pairs that repeat one already drawn);
    the manifest counts what was made."""

    index: int
    task: str
    part: int
    start: int
    count: int

    @property
    def name(self) -> str:
        return f"part-{self.index:05d}"

    @property
    def label(self) -> str:
        return f"shard {self.name} (task {self.task}, items {self.start + 1}-{self.start + self.count})"


@dataclass
class ShardOutput:
    """What a shard's task returns: its items, the images they show (relative path to
    bytes), per item the string its unit key is hashed from, and counts the manifest
    sums over shards (``{"by_type": {...}}``)."""

    items: list[Item]
    images: dict[str, bytes] = field(default_factory=dict)
    units: list[str] = field(default_factory=list)
    tallies: dict[str, dict[str, int]] = field(default_factory=dict)  # summed into manifest counts


@dataclass
class RunSettings:
    """Where a build runs and how big it is: the arguments, else the config's ``[run]``
    table (:class:`cogforge.core.config.RunConfig`). Use as a context manager: an
    executor made here is closed at the end."""

    scale: int
    executor: Executor
    shard_size: int
    sharded: bool
    owned: bool

    @classmethod
    def of(cls, run: dict | None, scale: int | None = None, executor: Executor | None = None,
           shard_size: int | None = None, default_size: int = SHARD_SIZE) -> "RunSettings":
        run = run or {}
        scale = scale if scale is not None else run.get("scale", 1)
        if scale < 1:
            raise ShardError(f"--scale {scale}: the scale multiplies every count; give a whole number of 1 or more")
        shard_size = shard_size or run.get("shard_size") or default_size
        sharded = (scale != 1 or executor is not None or run.get("executor", "local") != "local"
                   or bool(run.get("processes")) or shard_size != default_size)
        owned = executor is None
        if executor is None:
            executor = make_executor(run.get("executor", "local"), run.get("address"), run.get("processes"))
        return cls(scale, executor, shard_size, sharded, owned)

    def __enter__(self) -> "RunSettings":
        return self

    def __exit__(self, *exc) -> None:
        if self.owned:
            self.executor.close()

    def finish(self, manifest: dict, started: float) -> dict:
        """The returned manifest's run facts (never written: the bytes do not depend on them)."""
        manifest["elapsed_s"] = time.perf_counter() - started
        manifest["executor"] = {"name": self.executor.name, "workers": self.executor.workers}
        return manifest


def plan(counts: dict[str, int], size: int = SHARD_SIZE) -> list[Shard]:
    """Shards of at most ``size`` items for ``{task: items}``, task by task."""
    shards = []
    for task, total in counts.items():
        for part, start in enumerate(range(0, total, size)):
            shards.append(Shard(len(shards), task, part, start, min(size, total - start)))
    return shards


def scaled(counts: dict[str, int], scale: int) -> dict[str, int]:
    return {task: n * scale for task, n in counts.items()}


def _key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def content_key(item: Item) -> str:
    """What a model sees: the question, the images (content-addressed paths) and the options."""
    return _key(json.dumps([item.question, item.images, item.options], ensure_ascii=False))


# --------------------------------------------------------------------------- writing


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _write_shard(root: Path, shard: Shard, out: ShardOutput) -> None:
    if len(out.items) > shard.count:
        raise ShardError(f"{shard.label}: made {len(out.items)} items, the plan has room for {shard.count}")
    if len(out.units) != len(out.items):
        raise ShardError(f"{shard.label}: {len(out.units)} unit keys for {len(out.items)} items")
    files = {}
    for rel, data in sorted(out.images.items()):
        path = root / rel
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            _write_atomic(path, data)
        files[rel] = hashlib.sha256(data).hexdigest()
    items_rel = f"items/{shard.name}.jsonl"
    text = "".join(item.to_json() + "\n" for item in out.items).encode("utf-8")
    _write_atomic(root / items_rel, text)
    files[items_rel] = hashlib.sha256(text).hexdigest()
    record = dump_json({"shard": asdict(shard), "items": len(out.items), "files": dict(sorted(files.items())),
                        "keys": [content_key(i) for i in out.items], "units": [_key(u) for u in out.units],
                        "shown": sorted({_key(p) for i in out.items for p in i.images}),
                        "splits": [i.split for i in out.items], "tallies": out.tallies}).encode("utf-8")
    _write_atomic(root / "shards" / f"{shard.name}.json", record)
    _write_atomic(root / "shards" / f"{shard.name}.done", hashlib.sha256(record).hexdigest().encode() + b"\n")


def _complete(root: Path, shard: Shard) -> bool:
    """The shard's marker is there and everything it vouches for is intact."""
    marker, record_path = root / "shards" / f"{shard.name}.done", root / "shards" / f"{shard.name}.json"
    if not marker.is_file() or not record_path.is_file():
        return False
    record_bytes = record_path.read_bytes()
    if marker.read_text().strip() != hashlib.sha256(record_bytes).hexdigest():
        return False
    record = json.loads(record_bytes)
    if record["shard"] != asdict(shard):
        return False
    for rel, digest in record["files"].items():
        path = root / rel
        if not path.is_file() or (rel.startswith("items/") and sha256_file(path) != digest):
            return False
    return True


class _Lock:
    """One build of a folder at a time (an advisory lock beside it)."""

    def __init__(self, path: Path):
        self.path = path

    def __enter__(self):
        self.handle = open(self.path, "w")
        try:
            fcntl.flock(self.handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self.handle.close()
            raise ShardError(f"{self.path.with_suffix('')}: another build is writing this folder; "
                             "wait for it to finish") from None
        return self

    def __exit__(self, *exc):
        self.handle.close()


def build_sharded(out_dir: Path | str, header: dict[str, Any], shards: list[Shard],
                  make: Callable[[Shard], ShardOutput], executor: Executor,
                  files: dict[str, bytes] | None = None, resume: bool = False,
                  progress: bool = True) -> dict[str, Any]:
    """Make every shard on ``executor``, write them, merge their manifests and move the
    build into ``out_dir``; returns the manifest.

    Args:
        header: the manifest's own keys (benchmark, seed, config, ...); the build records
            it and refuses to resume a staged build made from another header.
        make: a picklable function from a :class:`Shard` to its :class:`ShardOutput`.
        files: files every shard shares, written before the shards (relative path to bytes).
        resume: keep the complete shards of a staged build of the same header and plan.
    """
    out_dir = Path(out_dir)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = out_dir.with_name(f".{out_dir.name}.partial")
    with _Lock(out_dir.with_name(f".{out_dir.name}.lock")):
        fingerprint = dump_json({"header": header, "shards": [asdict(s) for s in shards]})
        planned = staging / "plan.json"
        if staging.exists() and resume:
            if not planned.is_file() or planned.read_text() != fingerprint:
                raise ShardError(f"{staging}: the staged build was made with another config, seed or scale, "
                                 "so it cannot be resumed; run the build without --resume")
        elif staging.exists():
            shutil.rmtree(staging)
        for folder in ("items", "shards", "images"):
            (staging / folder).mkdir(parents=True, exist_ok=True)
        planned.write_text(fingerprint)
        for rel, data in (files or {}).items():
            (staging / rel).parent.mkdir(parents=True, exist_ok=True)
            _write_atomic(staging / rel, data)
        todo = [s for s in shards if not (resume and _complete(staging, s))]
        bar = tqdm(total=sum(s.count for s in shards), initial=sum(s.count for s in shards) - sum(s.count for s in todo),
                   desc="shards", unit="item", disable=not progress)
        try:
            for shard, out in zip(todo, executor.imap(make, todo, label=lambda s: s.label)):
                _write_shard(staging, shard, out)
                bar.update(shard.count)
        except TaskFailed as err:
            raise ShardError(f"{err}; the shards made so far are kept in {staging}: fix the cause and "
                             "run again with --resume") from None
        finally:
            bar.close()
        manifest = _merge(staging, header, shards, sorted(files or {}))
        os.remove(planned)
        replace_dir(staging, out_dir)
    manifest["made_shards"] = len(todo)  # returned, never written: resumed or not, same bytes
    return manifest


def _merge(root: Path, header: dict[str, Any], shards: list[Shard], shared: list[str]) -> dict[str, Any]:
    """The merged manifest (written), from the shard manifests, streamed in two passes:
    the first gathers the test split's content and unit keys, the second keeps test content
    out of the other splits (:func:`_drop_leaks`) and counts. 8 bytes an item (its content
    key) and 16 a test item stay in memory."""

    def hashes(values) -> np.ndarray:
        return np.array([int(k, 16) for k in values], dtype=np.uint64)

    test_keys: list[np.ndarray] = []
    test_units: list[np.ndarray] = []
    test_images: list[np.ndarray] = []
    mixed = len({s for shard in shards for s in _splits_of(root, shard)} - {"test"}) > 0
    for shard in shards:
        record = json.loads((root / "shards" / f"{shard.name}.json").read_text())
        is_test = np.array(record["splits"]) == "test"
        test_keys.append(hashes(record["keys"])[is_test])
        test_units.append(hashes(record["units"])[is_test])
        if mixed and is_test.any():
            test_images.append(hashes(_key(p) for item in _item_dicts(root, shard)
                                      if item["split"] == "test" for p in item["images"]))
    seen = [np.unique(np.concatenate(parts)) if parts else np.array([], np.uint64)
            for parts in (test_keys, test_units, test_images)]
    if not mixed or not len(seen[0]):
        seen = []  # nothing to keep apart
    del test_keys, test_units, test_images

    by_task_split: Counter = Counter()
    tallies: dict[str, Counter] = {}
    keys: dict[str, list[np.ndarray]] = {}
    shown: list[np.ndarray] = []
    dropped: Counter = Counter()
    for shard in shards:
        record = _drop_leaks(root, shard, seen, dropped) if seen else json.loads(
            (root / "shards" / f"{shard.name}.json").read_text())
        keys.setdefault(shard.task, []).append(hashes(record["keys"]))
        shown.append(hashes(record["shown"]))
        if len(shown) > 64:  # images shared across shards (CARV's states) are held once
            shown = [np.unique(np.concatenate(shown))]
        by_task_split.update((shard.task, s) for s in record["splits"])
        for name, counts in record.get("tallies", {}).items():
            tallies.setdefault(name, Counter()).update(counts)
    duplicates = {}
    for task in list(keys):
        joined = np.concatenate(keys.pop(task))
        repeats = len(joined) - len(np.unique(joined))
        duplicates[task] = {"items": len(joined), "repeats": int(repeats),
                            "rate": round(repeats / len(joined), 6) if len(joined) else 0.0}
    overlap = {f"test_in_{s}": dropped[s] for s in sorted({s for _t, s in by_task_split} | set(dropped))
               if s != "test" and seen}
    images = len(np.unique(np.concatenate(shown)))  # the images items show, as a default build counts them
    stats = counts_table(by_task_split) + "\n\n" + f"Distinct images: {images:,}.\n"
    (root / "stats.md").write_text(stats, encoding="utf-8")
    by_task: Counter = Counter()
    for (task, _split), n in by_task_split.items():
        by_task[task] += n
    counts = {**header.get("counts", {}), "items": sum(by_task.values()), "by_task": dict(by_task), "images": images,
              **{name: dict(sorted(c.items())) for name, c in sorted(tallies.items())},
              "duplicates": duplicates, "split_overlap_dropped": overlap}
    top = sorted(p for p in root.iterdir() if p.is_file() and p.name != "plan.json")
    listed = {p.name: sha256_file(p) for p in top}
    listed |= {f"shards/{s.name}.json": sha256_file(root / "shards" / f"{s.name}.json") for s in shards}
    listed |= {rel: sha256_file(root / rel) for rel in shared}  # files every shard shares (CARV's states)
    manifest = {**header, "layout": LAYOUT, "shards": {"count": len(shards), "size": max(s.count for s in shards)},
                "counts": counts, "files": dict(sorted(listed.items()))}
    (root / "manifest.json").write_text(dump_json(manifest), encoding="utf-8")
    return manifest


def _splits_of(root: Path, shard: Shard) -> set[str]:
    return set(json.loads((root / "shards" / f"{shard.name}.json").read_text())["splits"])


def _item_dicts(root: Path, shard: Shard) -> Iterator[dict]:
    for line in (root / "items" / f"{shard.name}.jsonl").read_text(encoding="utf-8").splitlines():
        yield json.loads(line)


def _drop_leaks(root: Path, shard: Shard, seen: list[np.ndarray], dropped: Counter) -> dict:
    """Keep test content out of the other splits. An item of another split leaks the test
    set when a test item has its content key, its unit key or one of its images; every item
    of its unit (CoreCognition: the pair) then leaves the shard, which is written anew
    (items, manifest, marker). Every shard is clean on its own, but items made in two shards
    can meet; only the merge sees all of them. ``seen``: the test items' content keys, unit
    keys and image keys. Returns the shard's manifest as it is now."""
    seen_keys, seen_units, seen_images = seen
    path = root / "shards" / f"{shard.name}.json"
    record = json.loads(path.read_text())
    lines = (root / "items" / f"{shard.name}.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    items = [json.loads(line) for line in lines]
    keys = np.array([int(k, 16) for k in record["keys"]], dtype=np.uint64)
    units = np.array([int(k, 16) for k in record["units"]], dtype=np.uint64)
    other = np.array(record["splits"]) != "test"
    shows_test = np.array([bool(np.isin(np.array([int(_key(p), 16) for p in item["images"]], dtype=np.uint64),
                                        seen_images).any()) for item in items], dtype=bool)
    leaking = other & (np.isin(keys, seen_keys) | np.isin(units, seen_units) | shows_test)
    if not leaking.any():
        return record
    drop = other & np.isin(units, units[leaking])
    dropped.update(s for s, d in zip(record["splits"], drop) if d)
    kept = [item for item, d in zip(items, drop) if not d]
    items_rel = f"items/{shard.name}.jsonl"
    text = "".join(line for line, d in zip(lines, drop) if not d).encode("utf-8")
    _write_atomic(root / items_rel, text)
    keep = [not d for d in drop]
    record |= {"items": len(kept), "files": {**record["files"], items_rel: hashlib.sha256(text).hexdigest()},
               **{name: [v for v, k in zip(record[name], keep) if k] for name in ("keys", "units", "splits")},
               "shown": sorted({_key(p) for item in kept for p in item["images"]})}
    data = dump_json(record).encode("utf-8")
    _write_atomic(path, data)
    _write_atomic(root / "shards" / f"{shard.name}.done", hashlib.sha256(data).hexdigest().encode() + b"\n")
    return record


# --------------------------------------------------------------------------- reading


def is_sharded(build_dir: Path | str) -> bool:
    """A build written in shards (``items/part-*.jsonl``) rather than one ``items.jsonl``."""
    build_dir = Path(build_dir)
    return (build_dir / "items").is_dir() and not (build_dir / "items.jsonl").is_file()


def iter_shards(build_dir: Path | str) -> Iterator[tuple[dict, Path]]:
    """Each shard's manifest and items file, in plan order."""
    build_dir = Path(build_dir)
    for record_path in sorted((build_dir / "shards").glob("part-*.json")):
        record = json.loads(record_path.read_text())
        yield record, build_dir / "items" / f"{record_path.stem}.jsonl"


def read_shard_items(build_dir: Path | str, record: dict) -> list[Item]:
    name = f"part-{record['shard']['index']:05d}"
    return read_items(Path(build_dir) / "items" / f"{name}.jsonl")


def iter_items(build_dir: Path | str) -> Iterator[Item]:
    """Every item of a build, one shard in memory at a time (either layout)."""
    build_dir = Path(build_dir)
    if not is_sharded(build_dir):
        yield from read_items(build_dir / "items.jsonl")
        return
    for _record, path in iter_shards(build_dir):
        yield from read_items(path)
