"""CoreCognition builds: every answer re-derived by the family's independent check on a
full build, every twin pair valid as a model sees it, QC clean, reproducible bytes,
multi-frame items with their strips, config errors named."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from cogforge.builders import corecognition as builder
from cogforge.core.config import ConfigError
from conftest import ROOT, field_env, read_jsonl
from cogforge.generators.corecognition import CONCEPTS, concepts, families


@pytest.fixture(scope="module")
def items(corecognition_build) -> list[dict]:
    return read_jsonl(corecognition_build / "items.jsonl")


def test_every_concept_module_builds_its_configured_count(corecognition_build, items):
    manifest = json.loads((corecognition_build / "manifest.json").read_text())
    config = builder.load(builder.DEFAULT_CONFIG, builder.Config).model_dump()
    counts = Counter(i["task"] for i in items)
    assert set(counts) == set(concepts())
    for concept in concepts():
        assert counts[concept] == config["counts"][concept], manifest["counts"]["dropped_pairs"]
    assert all(i["meta"]["stage"] == CONCEPTS[i["task"]][1] for i in items)


def test_every_answer_is_re_derived_independently_on_the_full_build(items):
    known = families()
    for i in items:
        family = known[i["meta"]["family"]]
        assert family.check(i["meta"]["params"]) == i["answer"], i["id"]
        assert i["options"][ord(i["meta"]["answer_letter"]) - 65] == i["answer"]
        assert f"\n{i['meta']['answer_letter']}. {i['answer']}\n" in i["question"]


def test_every_pair_is_a_valid_twin_pair(items):
    known = families()
    pairs = defaultdict(list)
    for i in items:
        pairs[i["meta"]["pair_id"]].append(i)
    for pair_id, members in pairs.items():
        control, twin = sorted(members, key=lambda i: i["meta"]["role"])
        assert (control["meta"]["role"], twin["meta"]["role"]) == ("control", "manipulated"), pair_id
        assert control["question"] == twin["question"] and control["options"] == twin["options"]
        assert control["answer"] != twin["answer"] and control["split"] == twin["split"]
        a, b = control["meta"]["params"], twin["meta"]["params"]
        assert {k for k in a if a[k] != b[k]} == {known[control["meta"]["family"]].causal_param}


def test_answers_are_balanced_per_family(items):
    by_family = defaultdict(Counter)
    for i in items:
        by_family[i["meta"]["family"]][i["meta"]["answer_letter"]] += 1
    for family, letters in by_family.items():
        n = sum(letters.values())
        options = len(next(i["options"] for i in items if i["meta"]["family"] == family))
        assert max(letters.values()) - min(letters.get(chr(65 + k), 0) for k in range(options)) <= max(2, n // 5), \
            (family, letters)


def test_multi_frame_items_list_frames_and_a_strip(corecognition_build, items):
    from PIL import Image

    multi = [i for i in items if families()[i["meta"]["family"]].frames > 1]
    for i in multi[:20]:
        frames = families()[i["meta"]["family"]].frames
        assert len(i["images"]) == frames and i["meta"]["combined_image"].startswith("combined/")
        with Image.open(corecognition_build / i["meta"]["combined_image"]) as strip:
            assert strip.width > frames * 600


def test_qc_is_clean_on_the_full_release(corecognition_release):
    report = json.loads((corecognition_release / "qc_report.json").read_text())
    assert report["summary"]["errors"] == 0 and report["summary"]["warnings"] == 0, report["summary"]
    stats = report["stats"]["corecognition"]
    assert stats["answers_not_rederived"] == 0 and stats["images_not_reproduced"] == 0
    assert stats["pairs_with_problems"] == 0 and stats["pairs"] > 0


def small_config(tmp_path: Path, counts: dict) -> Path:
    path = tmp_path / "corecognition.toml"
    path.write_text("seed = 0\ncounts = { " + ", ".join(f"{k} = {v}" for k, v in counts.items()) + " }\n")
    return path


def _touch_pixel(path: Path) -> None:
    from PIL import Image

    with Image.open(path) as image:
        changed = image.convert("RGB")
    changed.putpixel((5, 5), tuple(255 - v for v in changed.getpixel((5, 5))))
    changed.save(path)


def test_small_builds_are_byte_identical_and_qc_catches_a_broken_twin(tmp_path):
    from cogforge.qc import run_qc

    config = small_config(tmp_path, {c: 4 for c in concepts()})
    a = builder.build(tmp_path / "a", config_path=config, progress=False)
    b = builder.build(tmp_path / "b", config_path=config, progress=False)
    assert a["files"] == b["files"]
    rows = read_jsonl(tmp_path / "a" / "items.jsonl")
    rows[1]["question"] += " "  # the twin's question no longer byte-identical
    rows[2]["answer"], rows[2]["meta"]["answer_letter"] = rows[3]["answer"], rows[3]["meta"]["answer_letter"]
    rows[4]["meta"]["answer_letter"] = "B" if rows[4]["meta"]["answer_letter"] == "A" else "A"  # a wrong letter
    (tmp_path / "a" / "items.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    # QC draws every picture again with the generator: a changed frame, or a changed strip of
    # frames that are all right, is found
    single = next(r for r in rows[6:] if len(r["images"]) == 1)
    multi = next(r for r in rows[6:] if "combined_image" in r["meta"])
    _touch_pixel(tmp_path / "a" / single["images"][0])
    _touch_pixel(tmp_path / "a" / multi["meta"]["combined_image"])
    found = {(f.check, f.target): f.message for f in run_qc(tmp_path / "a").findings if f.severity == "error"}
    assert ("twins", rows[0]["meta"]["pair_id"]) in found
    assert ("corecognition", rows[2]["id"]) in found and ("twins", rows[2]["meta"]["pair_id"]) in found
    assert ("corecognition", rows[4]["id"]) in found
    assert "frame 1" in found[("corecognition-images", single["id"])]
    assert "strip" in found[("corecognition-images", multi["id"])]


def test_config_errors_name_the_key(tmp_path):
    with pytest.raises(ConfigError, match="odd"):
        builder.load(small_config(tmp_path, {"continuity": 5}), builder.Config)
    with pytest.raises(ConfigError, match=r"unknown concepts \['telepathy'\]"):
        builder.load(small_config(tmp_path, {"telepathy": 4}), builder.Config)


def test_cli_builds_corecognition(tmp_path):
    config = small_config(tmp_path, {"continuity": 4})
    run = subprocess.run([sys.executable, "-m", "cogforge.cli", "build", "corecognition", "--quiet", "--config",
                          str(config), "--out", str(tmp_path / "o")], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert json.loads((tmp_path / "o" / "manifest.json").read_text())["counts"]["items"] == 4


def test_public_layout_runs_under_lmms_eval_corecognition_task(corecognition_release, field_python, tmp_path):
    """The release's rows in the public release's field layout, scored by lmms-eval's own
    corecognition functions: gold replies all right, wrong replies all wrong."""
    from cogforge.exports.corecognition import PUBLIC_PATH

    env = field_env(HF_DATASETS_CACHE=str(tmp_path / "hf"), HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1")
    proc = subprocess.run([str(field_python), str(ROOT / "tests" / "corecognition_lmms_check.py"),
                           str(corecognition_release / PUBLIC_PATH)], capture_output=True, text=True, env=env,
                          cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    rows = read_jsonl_release(corecognition_release)
    assert got["rows"] == len(rows) and got["gold"] == 1.0 and got["wrong"] == 0.0
    assert got["stages"] == sorted(f"Stage {s}" for s in {json.loads(r["meta"])["stage"] for r in rows})
    assert max(got["widths"]) > min(got["widths"]) or all(json.loads(r["meta"]).get("combined_image") is None
                                                           for r in rows)


def read_jsonl_release(folder: Path) -> list[dict]:
    from cogforge.core.releases import read_rows

    return read_rows(folder)


def test_scoring_gives_per_concept_stage_and_concept_hacking_tables(corecognition_release, tmp_path):
    from cogforge.core.releases import read_rows
    from cogforge.evaluate.report import write
    from cogforge.evaluate.score import score

    rows = read_rows(corecognition_release)
    control_of = {}
    for r in rows:
        meta = json.loads(r["meta"])
        if meta["role"] == "control":
            control_of[meta["pair_id"]] = r["answer"]

    def letter(r: dict, answer: str) -> str:
        return chr(65 + r["options"].index(answer))

    oracle, shortcut = tmp_path / "oracle.jsonl", tmp_path / "shortcut.jsonl"
    oracle.write_text("".join(json.dumps({"id": r["id"], "response": letter(r, r["answer"])}) + "\n" for r in rows))
    # a model that answers every pair as its control: right on controls, wrong on every twin
    shortcut.write_text("".join(json.dumps({"id": r["id"], "response": letter(r, control_of[json.loads(r["meta"])[
        "pair_id"]])}) + "\n" for r in rows))
    results = score(corecognition_release, [oracle, shortcut])
    a, b = results["models"]["oracle"], results["models"]["shortcut"]
    assert a["overall"]["accuracy"] == 1.0 and b["overall"]["accuracy"] == 0.5
    pairs = len(rows) // 2
    assert a["tables"]["concept_hacking"]["all"] == {"core knowledge": pairs, "shortcut": 0, "core deficit": 0}
    assert b["tables"]["concept_hacking"]["all"] == {"core knowledge": 0, "shortcut": pairs, "core deficit": 0}
    for concept, cell in a["tables"]["by_concept"].items():
        assert cell["accuracy"] == 1.0 and cell["normalised"] == pytest.approx(1 / cell["chance"])
    assert set(a["tables"]["by_stage"]) <= {"Sensorimotor", "Concrete Operational", "Formal Operational"}
    assert b["breakdown"]["role"]["control"]["accuracy"] == 1.0 and b["breakdown"]["role"]["manipulated"]["accuracy"] == 0
    paths = write(results, tmp_path / "report")
    text = paths["markdown"].read_text()
    assert "## Concept hacking" in text and "## Accuracy per stage" in text
