"""The shared item record and the command line."""

from __future__ import annotations

import json
import subprocess

import pytest

from cogforge.cli import main
from cogforge.core.record import Item, ItemError, read_items
from conftest import ROOT, write_small_config

GOOD = {"id": "x-1", "benchmark": "x", "task": "t", "split": "test", "question": "q?",
        "images": ["images/a.png"], "options": None, "answer": "a", "meta": {"k": 1}}


def test_record_round_trips_with_fixed_key_order():
    item = Item.from_dict(GOOD)
    line = item.to_json()
    assert list(json.loads(line)) == list(GOOD)
    assert Item.from_dict(json.loads(line)) == item


@pytest.mark.parametrize("change, message", [
    ({"id": ""}, "'id'"),
    ({"images": "a.png"}, "'images'"),
    ({"images": ["../etc/passwd"]}, "inside the build folder"),
    ({"options": [1, 2]}, "'options'"),
    ({"meta": []}, "'meta'"),
    ({"extra": 1}, "unknown fields \\['extra'\\]"),
])
def test_record_rejects_bad_fields(change, message):
    with pytest.raises(ItemError, match=message):
        Item.from_dict({**GOOD, **change}, where="items.jsonl:3")


def test_read_items_names_the_bad_line(tmp_path):
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps(GOOD) + "\n{not json\n")
    with pytest.raises(ItemError, match="items.jsonl:2: not valid JSON"):
        read_items(path)


def test_cli_build_prints_a_summary(tmp_path, capsys):
    config = write_small_config(tmp_path / "c.toml", [("ss-union-2", "shared", "union", 2, 30)])
    assert main(["build", "carv", "--config", str(config), "--out", str(tmp_path / "b"), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "ss-union-2" in out and "30" in out and str(tmp_path / "b") in out
    assert (tmp_path / "b" / "items.jsonl").read_text().count("\n") == 30


def test_installed_entry_point_knows_the_build_command():
    proc = subprocess.run([str(ROOT / ".venv" / "bin" / "cogforge"), "build", "--help"],
                          capture_output=True, text=True)
    assert proc.returncode == 0 and "carv" in proc.stdout


def test_unknown_benchmark_is_refused(capsys):
    with pytest.raises(SystemExit):
        main(["build", "nosuch"])
    assert "invalid choice" in capsys.readouterr().err
