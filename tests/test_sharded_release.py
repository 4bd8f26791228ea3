"""A sharded (training-scale) build is checked, released and scored one shard at a time,
and its release loads with Hugging Face `datasets`, streamed and not."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from cogforge.builders import carv
from cogforge.core.releases import iter_rows, verify
from cogforge.core.shards import content_key, iter_items
from cogforge.qc import run_qc
from conftest import write_small_config


@pytest.fixture(scope="module")
def sharded_build(tmp_path_factory) -> Path:
    """Three CARV cells of 60 items at scale 2, in shards of 50: 360 items, 9 shards."""
    tmp = tmp_path_factory.mktemp("sharded")
    config = write_small_config(tmp / "small.toml", [("single", "single", "single", 2, 60),
                                                     ("ss-union-2", "shared", "union", 2, 60),
                                                     ("ds-intersection-2", "different", "intersection", 2, 60)])
    carv.build(tmp / "build", config_path=config, scale=2, shard_size=50, progress=False)
    return tmp / "build"


@pytest.fixture(scope="module")
def sharded_release(sharded_build, tmp_path_factory) -> Path:
    from cogforge.exports.release import release

    root = tmp_path_factory.mktemp("sharded-releases")
    return release(sharded_build, "1.0.0", root, decisions=root / "none.jsonl")


def _qc(build: Path):
    return run_qc(build, build.parent / "no-decisions.jsonl")


def test_qc_of_a_sharded_build_passes_and_counts_every_shard(sharded_build):
    report = _qc(sharded_build)
    assert report.passed, [f for f in report.findings if f.severity == "error"][:5]
    manifest = json.loads((sharded_build / "manifest.json").read_text())
    assert report.stats["schema"]["items"] == report.stats["schema"]["unique_ids"] == 360
    assert report.stats["shards"]["shards"] == manifest["shards"]["count"] == 9
    assert report.stats["duplicates"]["by_task"] == manifest["counts"]["duplicates"]
    assert report.stats["sharded"]["sample"]["items"] == 360  # below the sample size: the whole build
    assert {"shards", "schema", "duplicates", "splits", "carv", "probe"} <= set(report.checks)


def _rewrite_shard(build: Path, index: int, items: list, units_from: dict) -> None:
    """Replace shard ``index``'s items, with its manifest, marker and manifest.json entry made anew."""
    name = f"part-{index:05d}"
    text = "".join(i.to_json() + "\n" for i in items).encode()
    (build / "items" / f"{name}.jsonl").write_bytes(text)
    record_path = build / "shards" / f"{name}.json"
    record = json.loads(record_path.read_text())
    record["files"][f"items/{name}.jsonl"] = hashlib.sha256(text).hexdigest()
    record["keys"] = [content_key(i) for i in items]
    record["units"] = [units_from[i.id.rsplit("-copy", 1)[0]] for i in items]
    record["splits"] = [i.split for i in items]
    data = json.dumps(record, indent=2).encode()
    record_path.write_bytes(data)
    (build / "shards" / f"{name}.done").write_text(hashlib.sha256(data).hexdigest() + "\n")
    manifest = json.loads((build / "manifest.json").read_text())
    manifest["files"][f"shards/{name}.json"] = hashlib.sha256(data).hexdigest()
    (build / "manifest.json").write_text(json.dumps(manifest, indent=2))


def test_qc_finds_missing_markers_changed_files_and_test_items_in_train(sharded_build, tmp_path):
    import dataclasses

    build = tmp_path / "build"
    shutil.copytree(sharded_build, build)
    records = {i: json.loads((build / "shards" / f"part-{i:05d}.json").read_text()) for i in range(9)}
    units = {}
    for record, path in ((records[i], build / "items" / f"part-{i:05d}.jsonl") for i in range(9)):
        for line, unit in zip(path.read_text().splitlines(), record["units"]):
            units[json.loads(line)["id"]] = unit
    # shard 1 (same task as shard 0) now holds shard 0's items again, as train items
    first = [i for i in iter_items(build) if i.id in {json.loads(x)["id"] for x in
                                                      (build / "items/part-00000.jsonl").read_text().splitlines()}]
    copies = [dataclasses.replace(i, id=i.id + "-copy", split="train") for i in first]
    _rewrite_shard(build, 1, copies, units)
    (build / "shards" / "part-00004.done").unlink()
    shown = json.loads((build / "items" / "part-00007.jsonl").read_text().splitlines()[0])["images"][0]
    (build / shown).write_bytes((build / shown).read_bytes() + b"\0")

    report = _qc(build)
    errors = {(f.check, f.target) for f in report.findings if f.severity == "error"}
    assert not report.passed
    assert ("shards", "shards/part-00004.done") in errors
    assert ("shards", shown) in errors
    assert ("splits", copies[0].id) in errors and ("splits", "build") in errors
    task = records[0]["shard"]["task"]
    # 50 repeats across shards that manifest.json does not count: an error, and a rate above 1%
    assert ("duplicates", task) in errors
    assert any(f.check == "duplicates" and f.severity == "warning" and f.target == task for f in report.findings)
    assert report.stats["duplicates"]["by_task"][task]["repeats"] == 50


def test_release_of_a_sharded_build_loads_with_datasets(sharded_build, sharded_release, tmp_path):
    from datasets import load_dataset

    ids = [i.id for i in iter_items(sharded_build)]
    parts = sorted((sharded_release / "data" / "test").glob("part-*.parquet"))
    assert len(parts) == 9 and len(ids) == 360
    assert verify(sharded_release) == []
    info = json.loads((sharded_release / "release.json").read_text())
    assert info["items"] == 360 and info["splits"] == {"test": 360} and info["layout"] == "sharded"
    assert not (sharded_release / "exports").exists()
    assert "evaluation suites' formats are not written" in (sharded_release / "README.md").read_text()

    files = {"test": [str(p) for p in parts]}
    table = load_dataset("parquet", data_files=files, split="test", cache_dir=str(tmp_path))
    assert table["id"] == ids
    first = next(iter_items(sharded_build))
    assert table[0]["answer"] == first.answer and len(table[0]["images"]) == len(first.images)
    assert table[0]["images"][0].size == (512, 512)
    streamed = load_dataset("parquet", data_files=files, split="test", streaming=True)
    assert next(iter(streamed))["images"][0].size == (512, 512)
    assert [row["id"] for row in streamed.select_columns(["id"])] == ids  # part by part, no image decoded
    # the card's configs name data/test/*.parquet
    card = load_dataset(str(sharded_release), split="test", cache_dir=str(tmp_path / "card"))
    assert card["id"] == ids


def test_rows_of_a_sharded_release_stream_and_score(sharded_build, sharded_release, tmp_path):
    from cogforge.evaluate.score import score

    rows = iter_rows(sharded_release)
    assert not isinstance(rows, list)
    rows = list(rows)
    assert [r["id"] for r in rows] == [i.id for i in iter_items(sharded_build)]
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text("".join(json.dumps({"id": r["id"], "response": r["answer"] if k % 3 else "xyzzy"})
                                   + "\n" for k, r in enumerate(rows)))
    result = next(iter(score(sharded_release, [predictions])["models"].values()))
    assert result["overall"]["n"] == 360
    wrong = sum(1 for k, r in enumerate(rows) if k % 3 == 0)
    assert result["overall"]["correct"] == 360 - wrong
