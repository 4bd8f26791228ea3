"""The build folder: layout, manifest hashes, reproducibility and atomic replacement."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from cogforge.builders import carv
from cogforge.core.record import read_items
from conftest import ROOT, write_small_config


def tree_bytes(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_manifest_lists_every_file_with_its_sha256(carv_build):
    manifest = json.loads((carv_build / "manifest.json").read_text())
    on_disk = {p.relative_to(carv_build).as_posix() for p in carv_build.rglob("*") if p.is_file()}
    assert set(manifest["files"]) == on_disk - {"manifest.json"}
    for rel, digest in manifest["files"].items():
        assert hashlib.sha256((carv_build / rel).read_bytes()).hexdigest() == digest, rel
    assert manifest["counts"]["items"] == 5500
    assert manifest["counts"]["by_task"] == {c: 500 for c in manifest["counts"]["by_task"]}
    assert manifest["seed"] == 0 and manifest["toolkit"]["name"] == "cogforge"


def test_images_are_content_addressed_and_stored_once(carv_build):
    images = sorted((carv_build / "images").iterdir())
    assert len(images) == 432
    for path in images:
        assert path.name == hashlib.sha256(path.read_bytes()).hexdigest() + ".png"


def test_items_validate_against_the_record(carv_build):
    items = read_items(carv_build / "items.jsonl")
    assert len(items) == 5500
    assert all(i.benchmark == "carv" and i.split == "test" and i.options is None for i in items)
    assert items[0].id == "carv-single-0001"


def test_same_seed_gives_identical_bytes(carv_build, tmp_path):
    again = tmp_path / "again"
    carv.build(again, progress=False)
    assert tree_bytes(again) == tree_bytes(carv_build)


def test_different_seeds_give_different_items(tmp_path):
    config = write_small_config(tmp_path / "small.toml", [("ss-union-2", "shared", "union", 2, 40)])
    carv.build(tmp_path / "a", seed=1, config_path=config, progress=False)
    carv.build(tmp_path / "b", seed=2, config_path=config, progress=False)
    a = (tmp_path / "a" / "items.jsonl").read_text()
    b = (tmp_path / "b" / "items.jsonl").read_text()
    assert a != b
    assert json.loads((tmp_path / "a" / "manifest.json").read_text())["seed"] == 1


KILL_MID_COMMIT = """
import os, signal, sys
import cogforge.core.buildio as buildio
from cogforge.builders import carv

def die(staged, final):
    # The new build is complete in its temporary folder; die before it is moved in.
    os.kill(os.getpid(), signal.SIGKILL)

buildio.replace_dir = die
carv.build(sys.argv[1], seed=7, config_path=sys.argv[2], progress=False)
"""


def test_a_killed_build_leaves_the_previous_build_untouched(tmp_path):
    config = write_small_config(tmp_path / "small.toml", [("single", "single", "single", 2, 20)])
    out = tmp_path / "build" / "carv"
    carv.build(out, seed=1, config_path=config, progress=False)
    before = tree_bytes(out)
    proc = subprocess.run([sys.executable, "-c", KILL_MID_COMMIT, str(out), str(config)],
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == -signal.SIGKILL
    assert tree_bytes(out) == before
    leftovers = [p.name for p in out.parent.iterdir() if p.name != "carv"]
    assert leftovers and all(name.startswith(".carv.tmp-") for name in leftovers)
    # The next build clears what the dead process left and replaces the old build.
    carv.build(out, seed=2, config_path=config, progress=False)
    assert [p.name for p in out.parent.iterdir()] == ["carv"]
    assert tree_bytes(out) != before


def test_a_failing_build_leaves_no_trace(tmp_path, monkeypatch):
    config = write_small_config(tmp_path / "small.toml", [("single", "single", "single", 2, 20)])
    out = tmp_path / "build" / "carv"
    carv.build(out, seed=1, config_path=config, progress=False)
    before = tree_bytes(out)

    def broken(self, items):
        raise OSError("disk full")

    monkeypatch.setattr("cogforge.core.buildio.BuildWriter.write_items", broken)
    with pytest.raises(OSError, match="disk full"):
        carv.build(out, seed=2, config_path=config, progress=False)
    assert tree_bytes(out) == before
    assert [p.name for p in out.parent.iterdir()] == ["carv"]


def test_excluded_states_never_appear_and_counts_still_hold(tmp_path):
    config = write_small_config(tmp_path / "small.toml", [
        ("single", "single", "single", 2, 60), ("ds-difference-2", "different", "difference", 2, 60)])
    excluded = [{"subject": "cup", "subject_number": n, "object": o, "object_color": c,
                 "spatial_relation": r} for n in ("one", "two") for o in ("table", "chair")
                for c in ("wood", "red", "blue") for r in ("on", "under", "left", "right")]
    manifest = carv.build(tmp_path / "b", config_path=config, excluded=excluded, progress=False)
    assert manifest["counts"]["by_task"] == {"single": 60, "ds-difference-2": 60}
    assert manifest["counts"]["images"] == 432 - 48
    for line in (tmp_path / "b" / "items.jsonl").read_text().splitlines():
        states = json.loads(line)["meta"]["states"].values()
        assert all(s["subject"] != "cup" for s in states)


def test_bad_config_names_the_problem(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[[cells]]\nid = "x"\nsetting = "shared"\noperation = "union"\natomic = 2\n'
                   'count = 5\ncolumn = "x"\ncolour = "red"\n')
    with pytest.raises(ValueError, match=r"bad.toml:8: key cells\[0\]\.colour: unknown key"):
        carv.build(tmp_path / "b", config_path=bad, progress=False)
