"""Releases: a build that passes QC becomes ``releases/<benchmark>/<X.Y.Z>/``, immutable.

A release is written into a temporary sibling folder and renamed into place at the
end, so an interrupted release leaves nothing at the version's path. A version that
exists is never overwritten. ``MANIFEST.sha256`` lists every file; ``verify`` (in
:mod:`cogforge.core.releases`, with reading a release) re-checks it. ``diff`` compares
two releases item by item, and each new release records its changes since the previous
version in its card and ``release.json``.

A sharded build (``items/part-*.jsonl``, a training-scale build) is released one shard at
a time: its rows go to ``data/<split>/part-NNNNN.parquet`` (and ``.jsonl``), one part per
build shard and split, in build order, with the row schema of ``data/<split>.parquet``.
The evaluation suites' formats (VLMEvalKit TSVs, the lmms-eval task folder, a
benchmark's own layouts) read a whole split at once and are not written for it; the
card says so.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

from cogforge import __version__
from cogforge.core import registry
from cogforge.core.buildio import clean_stale, dump_json, sha256_file
from cogforge.core.record import read_items
from cogforge.core.releases import ReleaseError, iter_rows, read_rows
from cogforge.core.shards import is_sharded, iter_shards

SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$")


def parse_version(version: str) -> tuple[int, int, int]:
    match = SEMVER.match(version)
    if not match:
        raise ReleaseError(f"version {version!r} is not semantic (X.Y.Z, e.g. 1.0.0)")
    return tuple(int(x) for x in match.groups())  # type: ignore[return-value]


def _plugin(benchmark: str) -> Any:
    """The registered benchmark's release hooks (``Benchmark.card``), or None: the shared card."""
    found = registry.find(benchmark)
    return found.card if found else None


def to_row(item) -> dict:
    """An item as a release row: ``images`` becomes ``file_names``, ``meta`` a JSON string."""
    return {"id": item.id, "benchmark": item.benchmark, "task": item.task, "split": item.split,
            "question": item.question, "file_names": list(item.images), "options": item.options,
            "answer": item.answer, "meta": json.dumps(item.meta, sort_keys=True, ensure_ascii=False)}


# The Hugging Face features of a parquet row, in the form every `datasets` version reads
# (`Sequence`, which 4.x and later load as `List`); stored in the file's schema metadata.
HF_FEATURES = {
    "id": {"dtype": "string", "_type": "Value"}, "benchmark": {"dtype": "string", "_type": "Value"},
    "task": {"dtype": "string", "_type": "Value"}, "split": {"dtype": "string", "_type": "Value"},
    "question": {"dtype": "string", "_type": "Value"},
    "images": {"feature": {"_type": "Image"}, "_type": "Sequence"},
    "options": {"feature": {"dtype": "string", "_type": "Value"}, "_type": "Sequence"},
    "answer": {"dtype": "string", "_type": "Value"}, "meta": {"dtype": "string", "_type": "Value"},
}


def _write_parquet(rows: list[dict], data_dir: Path, path: Path) -> None:
    """Rows with their images embedded (bytes and path), loadable from the file alone.

    Image bytes are dictionary-encoded, so an image shown by many items is stored once.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    image = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    schema = pa.schema([("id", pa.string()), ("benchmark", pa.string()), ("task", pa.string()),
                        ("split", pa.string()), ("question", pa.string()), ("images", pa.list_(image)),
                        ("options", pa.list_(pa.string())), ("answer", pa.string()), ("meta", pa.string())],
                       metadata={"huggingface": json.dumps({"info": {"features": HF_FEATURES}})})
    blobs: dict[str, bytes] = {}
    records = []
    for row in rows:
        for name in row["file_names"]:
            if name not in blobs:
                blobs[name] = (data_dir / name).read_bytes()
        records.append({**{k: v for k, v in row.items() if k != "file_names"},
                        "images": [{"bytes": blobs[n], "path": n} for n in row["file_names"]]})
    table = pa.Table.from_pylist(records, schema=schema)
    pq.write_table(table, path, compression="zstd", use_dictionary=True,
                   dictionary_pagesize_limit=1 << 30, data_page_size=1 << 20)


def _write_sharded_data(build_dir: Path, data: Path) -> dict[str, int]:
    """A sharded build's rows as ``data/<split>/part-NNNNN.parquet`` (and ``.jsonl``), one build
    shard in memory at a time; returns the items per split. Parts are numbered per split in
    build order, so a split's parts read in order give its rows in build order."""
    counts: Counter = Counter()
    parts: Counter = Counter()
    copied: set[str] = set()
    for _record, items_path in iter_shards(build_dir):
        splits: dict[str, list[dict]] = {}
        for item in read_items(items_path):
            for rel in item.images:
                if rel not in copied:
                    (data / rel).parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(build_dir / rel, data / rel)
                    copied.add(rel)
            splits.setdefault(item.split, []).append(to_row(item))
        for split, rows in splits.items():
            folder = data / split
            folder.mkdir(exist_ok=True)
            name = f"part-{parts[split]:05d}"
            parts[split] += 1
            (folder / f"{name}.jsonl").write_text(
                "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
            _write_parquet(rows, data, folder / f"{name}.parquet")
            counts[split] += len(rows)
    return dict(sorted(counts.items()))


def _manifest_text(folder: Path) -> tuple[str, dict[str, str]]:
    files = {p.relative_to(folder).as_posix(): sha256_file(p)
             for p in sorted(folder.rglob("*")) if p.is_file() and p.name != "MANIFEST.sha256"}
    return "".join(f"{digest}  {rel}\n" for rel, digest in files.items()), files


def previous_version(root: Path, version: str) -> str | None:
    """The highest released version below ``version`` in ``root``, if any."""
    target = parse_version(version)
    found = [p.name for p in root.iterdir() if p.is_dir() and SEMVER.match(p.name)] if root.is_dir() else []
    lower = [v for v in found if parse_version(v) < target]
    return max(lower, key=parse_version) if lower else None


def release(build_dir: Path | str, version: str, releases_root: Path | str = "releases",
            decisions: Path | str | None = None, progress: bool = True) -> Path:
    """Check a build and publish it as an immutable release; returns the release folder."""
    from cogforge.qc import run_qc, write_report

    parse_version(version)
    build_dir = Path(build_dir)
    report = run_qc(build_dir, decisions)
    benchmark = report.benchmark
    root = Path(releases_root) / benchmark
    final = root / version
    if final.exists():
        raise ReleaseError(f"{final} already exists: a released version is never overwritten; "
                           "choose a new version number")
    if not report.passed:
        raise ReleaseError(f"QC failed for {build_dir}: {report.errors} errors, {report.warnings} warnings; "
                           f"run `cogforge qc {build_dir}` for the findings")
    plugin = _plugin(benchmark)
    manifest_bytes = (build_dir / "manifest.json").read_bytes()
    manifest = json.loads(manifest_bytes)
    sharded = is_sharded(build_dir)

    root.mkdir(parents=True, exist_ok=True)
    final_tmp = root / f".{version}.tmp-{os.getpid()}"
    clean_stale(final)
    if final_tmp.exists():
        shutil.rmtree(final_tmp)
    try:
        data = final_tmp / "data"
        (data / "images").mkdir(parents=True)
        if sharded:
            # training scale: rows stream shard by shard into parquet parts; the evaluation
            # suites' formats (VLMEvalKit TSVs, lmms-eval tasks, a benchmark's own layouts)
            # read a whole split at once and are not written (the card says so)
            rows = None
            split_counts = _write_sharded_data(build_dir, data)
            vlmevalkit, extra, lmms_names = [], {}, {}
        else:
            items = read_items(build_dir / "items.jsonl")
            rows = [to_row(i) for i in items]
            splits: dict[str, list[dict]] = {}
            for row in rows:
                splits.setdefault(row["split"], []).append(row)
            split_counts = {s: len(r) for s, r in splits.items()}
            for rel in sorted({p for i in items for p in i.images}):
                shutil.copyfile(build_dir / rel, data / rel)
            for split, split_rows in splits.items():
                (data / f"{split}.jsonl").write_text(
                    "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in split_rows), encoding="utf-8")
                _write_parquet(split_rows, data, data / f"{split}.parquet")
            from cogforge.exports import lmms_eval
            from cogforge.exports.interop import ExportError, write_vlmevalkit

            try:
                vlmevalkit = write_vlmevalkit(rows, benchmark, data, final_tmp / "exports" / "vlmevalkit",
                                              getattr(plugin, "VLMEVALKIT_DROP", ()))
            except ExportError as err:
                raise ReleaseError(f"{build_dir}: {err}") from None
            extra: dict[str, str | bytes] = lmms_eval.files(benchmark, version, rows)
            if plugin and hasattr(plugin, "extra_exports"):
                extra |= plugin.extra_exports(rows, build_dir)
            lmms_names = lmms_eval.readme_names(benchmark, rows)
        for rel, content in extra.items():
            (final_tmp / rel).parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                (final_tmp / rel).write_bytes(content)
            else:
                (final_tmp / rel).write_text(content, encoding="utf-8")
        qc_dict = report.to_dict()
        qc_dict["build"] = build_dir.name  # no machine-specific path in a release
        (final_tmp / "qc_report.json").write_text(dump_json(qc_dict))
        from cogforge.qc.report import markdown

        report.build = build_dir.name
        (final_tmp / "qc_report.md").write_text(markdown(report))

        prev = previous_version(root, version)
        if prev and sharded:
            changes = diff_streams(root / prev, final_tmp) | {"from": prev}
        else:
            changes = diff_rows(read_rows(root / prev), rows) | {"from": prev} if prev else None
        info = {
            "benchmark": benchmark, "version": version, "toolkit_version": __version__,
            "seed": manifest.get("seed"), "renderer": manifest.get("renderer"),
            "build_manifest_sha256": hashlib.sha256(manifest_bytes).hexdigest(),
            "items": sum(split_counts.values()), "splits": split_counts,
            "tasks": dict(sorted(manifest.get("counts", {}).get("by_task", {}).items())),
            "citation": (manifest.get("config") or {}).get("citation") or None,
            "vlmevalkit": vlmevalkit, "lmms_eval": lmms_names,
            "extra_exports": sorted({rel.split("/")[1] for rel in extra if rel.count("/") > 1}
                                    - {"lmms_eval"}),
            "split_bytes": {s: (sum(p.stat().st_size for p in (data / s).glob("part-*.parquet")) if sharded
                                else (data / f"{s}.parquet").stat().st_size) for s in split_counts},
            # a sharded build's rows are in parts: data/<split>/part-NNNNN.{parquet,jsonl}
            **({"layout": "sharded", "data_files": {s: f"data/{s}/*.parquet" for s in split_counts},
                "parts": {s: len(list((data / s).glob("part-*.parquet"))) for s in split_counts}}
               if sharded else {}),
            "stats_md": (build_dir / "stats.md").read_text(encoding="utf-8") if (build_dir / "stats.md").is_file() else None,
        }
        from cogforge.exports.card import card, croissant

        annotation = report.stats.get("decisions")
        (final_tmp / "README.md").write_text(card(info, report.summary(), plugin, changes, annotation))
        _, files = _manifest_text(final_tmp)
        (final_tmp / "croissant.json").write_text(dump_json(croissant(info, files, plugin)))
        release_info = {**{k: v for k, v in info.items() if k != "stats_md"}, "qc": report.summary(),
                        "changes": None if not changes else {
                            "from": changes["from"], "added": len(changes["added"]),
                            "removed": len(changes["removed"]), "changed": len(changes["changed"])}}
        (final_tmp / "release.json").write_text(dump_json(release_info))
        if changes:
            (final_tmp / "CHANGELOG.md").write_text(changelog(changes, version))
        text, _ = _manifest_text(final_tmp)
        (final_tmp / "MANIFEST.sha256").write_text(text)
        if final.exists():  # someone released the same version meanwhile
            raise ReleaseError(f"{final} appeared while releasing; nothing was overwritten")
        final_tmp.rename(final)
    finally:
        if final_tmp.exists():
            shutil.rmtree(final_tmp, ignore_errors=True)
    return final


# --------------------------------------------------------------------------- diff


def diff_rows(old: list[dict], new: list[dict]) -> dict:
    """Items added, removed and changed (with the fields that changed), by id."""
    a = {r["id"]: r for r in old}
    b = {r["id"]: r for r in new}
    changed = []
    for item_id in sorted(a.keys() & b.keys()):
        fields = [k for k in b[item_id] if a[item_id].get(k) != b[item_id].get(k)]
        if fields:
            changed.append({"id": item_id, "fields": fields})
    return {"added": sorted(b.keys() - a.keys()), "removed": sorted(a.keys() - b.keys()),
            "changed": changed}


def _row_digest(row: dict) -> bytes:
    return hashlib.blake2b(json.dumps(row, sort_keys=True, ensure_ascii=False).encode("utf-8"), digest_size=8).digest()


def diff_streams(release_a: Path, release_b: Path) -> dict:
    """:func:`diff_rows` of two releases read row by row: an id and an 8-byte digest per row
    in memory, and the rows that changed."""
    old = {r["id"]: _row_digest(r) for r in iter_rows(release_a)}
    new_ids, changed_ids = set(), set()
    for row in iter_rows(release_b):
        new_ids.add(row["id"])
        if row["id"] in old and old[row["id"]] != _row_digest(row):
            changed_ids.add(row["id"])
    before = {r["id"]: r for r in iter_rows(release_a) if r["id"] in changed_ids}
    changed = {r["id"]: [k for k in r if before[r["id"]].get(k) != r.get(k)]
               for r in iter_rows(release_b) if r["id"] in changed_ids}
    return {"added": sorted(new_ids - old.keys()), "removed": sorted(old.keys() - new_ids),
            "changed": [{"id": i, "fields": changed[i]} for i in sorted(changed)]}


def diff(release_a: Path | str, release_b: Path | str) -> dict:
    for folder in (release_a, release_b):
        if not (Path(folder) / "release.json").is_file():
            raise ReleaseError(f"{folder} is not a release folder (no release.json)")
    return diff_rows(read_rows(release_a), read_rows(release_b)) | {
        "from": Path(release_a).name, "to": Path(release_b).name}


def changelog(changes: dict, version: str) -> str:
    lines = [f"# Changes in {version} since {changes['from']}", "",
             f"- {len(changes['added'])} items added", f"- {len(changes['removed'])} items removed",
             f"- {len(changes['changed'])} items changed", ""]
    for title, ids in (("Added", changes["added"]), ("Removed", changes["removed"])):
        if ids:
            lines += [f"## {title}", ""] + [f"- `{i}`" for i in ids] + [""]
    if changes["changed"]:
        lines += ["## Changed", ""] + [f"- `{c['id']}`: {', '.join(c['fields'])}" for c in changes["changed"]]
    return "\n".join(lines) + "\n"
