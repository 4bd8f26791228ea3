"""Sharded builds on the local executor: the same items as a default build, the same
bytes for any number of processes, shards that stream, duplicates counted across
shards, and the command line's flags and refusals. The Ray cluster's tests are in
tests/test_distributed.py."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections import Counter

import pytest

from cogforge.builders import carv, corecognition
from cogforge.core import shards
from cogforge.core.executor import LocalExecutor
from cogforge.core.record import Item
from conftest import write_small_config

CELLS = [("single", "single", "single", 2, 40), ("ss-union-2", "shared", "union", 2, 40)]


def tree(folder) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def config(tmp_path_factory):
    return write_small_config(tmp_path_factory.mktemp("shards") / "carv.toml", CELLS)


def test_scale_one_has_the_default_builds_items(config, tmp_path):
    carv.build(tmp_path / "default", config_path=config, progress=False)
    manifest = carv.build(tmp_path / "sharded", config_path=config, progress=False, sharded=True)
    default = (tmp_path / "default" / "items.jsonl").read_bytes()
    assert b"".join(p.read_bytes() for p in sorted((tmp_path / "sharded" / "items").glob("part-*.jsonl"))) == default
    assert (tmp_path / "sharded" / "stats.md").read_bytes() == (tmp_path / "default" / "stats.md").read_bytes()
    assert manifest["layout"] == "sharded" and manifest["shards"]["count"] == 2
    assert shards.is_sharded(tmp_path / "sharded") and not shards.is_sharded(tmp_path / "default")
    assert [i.id for i in shards.iter_items(tmp_path / "sharded")] == [
        i.id for i in shards.iter_items(tmp_path / "default")]


def test_same_bytes_for_one_and_two_processes(config, tmp_path):
    """One process, set by the config's ``[run]`` table, and two, set by the caller."""
    by_table = tmp_path / "run.toml"
    by_table.write_text(config.read_text().replace(
        'renderer = "procedural"', 'renderer = "procedural"\n[run]\nscale = 3\nprocesses = 1\nshard_size = 30\n'))
    one = carv.build(tmp_path / "p1", config_path=by_table, progress=False)
    with LocalExecutor(2) as executor:
        two = carv.build(tmp_path / "p2", config_path=config, progress=False, scale=3, shard_size=30,
                         executor=executor)
    assert one["executor"] == {"name": "local", "workers": 1} and two["executor"]["workers"] == 2
    made = tree(tmp_path / "p1")
    assert made == tree(tmp_path / "p2")
    assert two["counts"]["items"] == 240 and two["shards"]["count"] == 8 and two["made_shards"] == 8
    written = json.loads(made["manifest.json"])
    assert "executor" not in written and "elapsed_s" not in written
    assert "run" not in written["config"]  # where it ran is not what it is
    # every shard's files are hashed in its own manifest; the merged one lists the shards
    for name in (f"shards/part-{i:05d}.json" for i in range(8)):
        assert name in written["files"] and name.replace(".json", ".done") in made
    ids = [i.id for i in shards.iter_items(tmp_path / "p1")]
    assert len(ids) == len(set(ids)) == 240
    assert ids[:2] == ["carv-single-0001", "carv-single-0002"] and "carv-single-0120" in ids


def toy_shard(shard: shards.Shard) -> shards.ShardOutput:
    """Items whose question cycles through 7 texts: shard 0's 5 items are new, and every
    later item repeats one before it; splits alternate, so the same text is in test and train."""
    items = [Item(id=f"toy-{shard.task}-{n}", benchmark="toy", task=shard.task,
                  split=("test", "train")[n % 2], question=f"q{n % 7}", images=[], options=None,
                  answer="a", meta={}) for n in range(shard.start, shard.start + shard.count)]
    return shards.ShardOutput(items, {}, [i.question for i in items], {"made": {shard.task: len(items)}})


def test_repeats_and_leaks_across_shards_are_counted(tmp_path):
    """A shard's items are distinct, yet shards repeat each other: the merge drops every
    item of another split that shows a test item's content (with its unit), and counts the
    repeats that remain against the items before them, whichever shard they came from."""
    plan = shards.plan({"t": 20}, 5)
    manifest = shards.build_sharded(tmp_path / "b", {"benchmark": "toy"}, plan, toy_shard, LocalExecutor(1),
                                    progress=False)
    # q0..q6 each occur in test (an even n): all 10 train items (odd n) repeat a test item
    assert manifest["counts"]["split_overlap_dropped"] == {"test_in_train": 10}
    items = list(shards.iter_items(tmp_path / "b"))
    assert [i.split for i in items] == ["test"] * 10 and manifest["counts"]["items"] == 10
    # the 10 test items hold 7 texts: 3 repeats
    assert manifest["counts"]["duplicates"]["t"] == {"items": 10, "repeats": 3, "rate": 0.3}
    assert manifest["counts"]["made"] == {"t": 20}
    for record, path in shards.iter_shards(tmp_path / "b"):  # rewritten shards stay consistent
        assert record["items"] == len(path.read_text().splitlines()) == len(record["keys"])
        assert (tmp_path / "b" / "shards" / f"{path.stem}.done").read_text().strip() == hashlib.sha256(
            (tmp_path / "b" / "shards" / f"{path.stem}.json").read_bytes()).hexdigest()


def test_corecognition_splits_by_content(tmp_path):
    """Twins share a split, and the same pair drawn in two shards lands in one split."""
    config = tmp_path / "cc.toml"
    config.write_text("seed = 0\ncounts = { boundary = 20, conservation = 20 }\n")
    manifest = corecognition.build(tmp_path / "b", config_path=config, progress=False, scale=3, shard_size=20,
                                   executor=LocalExecutor(1))
    assert manifest["counts"]["split_overlap_dropped"]["test_in_train"] == 0
    items = list(shards.iter_items(tmp_path / "b"))
    by_pair = Counter((i.meta["pair_id"], i.split) for i in items)
    assert all(n == 2 for n in by_pair.values())
    split_of_unit: dict[str, set] = {}
    for record, _ in shards.iter_shards(tmp_path / "b"):
        for unit, split in zip(record["units"], record["splits"]):
            split_of_unit.setdefault(unit, set()).add(split)
    assert all(len(s) == 1 for s in split_of_unit.values())


def cli(*args):
    return subprocess.run([sys.executable, "-m", "cogforge.cli", *args], capture_output=True, text=True)


def test_cli_flags_and_refusals(config, tmp_path):
    done = cli("build", "carv", "--config", str(config), "--out", str(tmp_path / "b"), "--scale", "2",
               "--shard-size", "40", "--processes", "1", "--quiet")
    assert done.returncode == 0, done.stderr
    assert "shards: 4 of up to 40 items (4 made now), scale 2, executor local (1 workers)" in done.stdout
    for args, message in [
        (("build", "constructure", "--scale", "2"), "the constructure builder builds in memory"),
        (("build", "carv", "--scale", "0"), "--scale 0: the scale multiplies every count"),
        (("build", "carv", "--address", "127.0.0.1:6379"), "--address is for --executor ray"),
        (("build", "carv", "--executor", "ray", "--address", "127.0.0.1:1"), "no Ray cluster answers there"),
        (("build", "carv", "--processes", "0"), "give 1 or more worker processes"),
    ]:
        refused = cli(*args, "--out", str(tmp_path / "never"), "--quiet")
        assert refused.returncode == 2 and message in refused.stderr, (args, refused.stderr)
        assert refused.stderr.count("\n") == 1 and "Traceback" not in refused.stderr
    assert not (tmp_path / "never").exists()
