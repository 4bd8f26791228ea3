"""Every QC check passes a good build and fails a build made to violate it."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest
from PIL import Image

from cogforge.builders import carv
from cogforge.cli import main
from conftest import balanced_mcq, make_toy_build, toy_image, write_small_config
from cogforge.qc import run_qc, write_report
from cogforge.core import shortcuts as stats


def errors(report, check):
    return [f for f in report.findings if f.check == check and f.severity == "error"]


def warnings(report, check):
    return [f for f in report.findings if f.check == check and f.severity == "warning"]


@pytest.fixture(scope="module")
def small_carv(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("smallcarv")
    config = write_small_config(root / "c.toml", [
        ("single", "single", "single", 2, 30), ("ss-union-2", "shared", "union", 2, 30),
        ("ds-difference-2", "different", "difference", 2, 30)])
    carv.build(root / "build", config_path=config, progress=False)
    return root / "build"


@pytest.fixture
def carv_copy(small_carv, tmp_path) -> Path:
    out = tmp_path / "carv"
    shutil.copytree(small_carv, out)
    return out


def rewrite_items(build: Path, edit) -> None:
    lines = (build / "items.jsonl").read_text().splitlines()
    items = [json.loads(line) for line in lines]
    items = edit(items)
    (build / "items.jsonl").write_text("".join(json.dumps(i) + "\n" for i in items))


def test_full_carv_build_passes_clean(carv_build, tmp_path, capsys):
    report = run_qc(carv_build, decisions=tmp_path / "none.jsonl")
    assert report.passed and report.warnings == 0, report.findings[:5]
    assert report.stats["carv"]["items_checked"] == 5500
    assert report.stats["duplicates"]["closest_image_pair_levels"] > 16
    assert report.stats["balance"]["task"]["balance_index"] == 1.0
    json_path, md_path = write_report(report, tmp_path / "qc")
    assert json.loads(json_path.read_text())["summary"]["passed"] is True
    assert "| carv | 0 | 0 |" in md_path.read_text()


def test_schema_catches_bad_lines_ids_files_and_hashes(carv_copy):
    rewrite_items(carv_copy, lambda items: items[:2] + [{**items[2], "id": items[0]["id"]}] + items[3:])
    with open(carv_copy / "items.jsonl", "a") as handle:
        handle.write("{broken\n")
    image = next((carv_copy / "images").iterdir())
    image.write_bytes(image.read_bytes() + b"x")
    (carv_copy / "stray.txt").write_text("?")
    report = run_qc(carv_copy)
    messages = " / ".join(f"{f.target}: {f.message}" for f in errors(report, "schema"))
    assert "used by 2 items" in messages
    assert "items.jsonl:91: not valid JSON" in messages
    assert f"{image.relative_to(carv_copy).as_posix()}: sha256 differs" in messages
    assert "stray.txt: not listed" in messages
    assert not report.passed


def test_schema_catches_a_missing_image(carv_copy):
    victim = json.loads((carv_copy / "items.jsonl").read_text().splitlines()[0])["images"][0]
    (carv_copy / victim).unlink()
    report = run_qc(carv_copy)
    assert any("does not exist" in f.message for f in errors(report, "schema"))


def test_media_catches_blank_undecodable_and_wrong_size(carv_copy):
    images = sorted((carv_copy / "images").iterdir())
    blank = io.BytesIO()
    Image.new("RGB", (512, 512), "white").save(blank, format="PNG")
    images[0].write_bytes(blank.getvalue())
    images[1].write_bytes(b"not a png")
    small = io.BytesIO()
    Image.open(images[2]).resize((100, 100)).save(small, format="PNG")
    images[2].write_bytes(small.getvalue())
    found = {f.target: f.message for f in errors(run_qc(carv_copy), "media")}
    assert "blank" in found[f"images/{images[0].name}"]
    assert "does not decode" in found[f"images/{images[1].name}"]
    assert "size (100, 100)" in found[f"images/{images[2].name}"]


def test_duplicates_catch_identical_items(carv_copy):
    rewrite_items(carv_copy, lambda items: items + [{**items[0], "id": "carv-copy-0001"}])
    found = errors(run_qc(carv_copy), "duplicates")
    assert any("same question, images, options and answer as carv-copy-0001" in f.message for f in found)


def test_near_identical_renders_of_different_states_are_an_error(carv_copy):
    images = sorted((carv_copy / "images").iterdir())
    jpeg = io.BytesIO()
    Image.open(images[0]).save(jpeg, format="JPEG", quality=80)
    again = io.BytesIO()
    Image.open(jpeg).save(again, format="PNG")
    images[1].write_bytes(again.getvalue())
    found = errors(run_qc(carv_copy), "duplicates")
    assert any("near-duplicate" in f.message for f in found)


def test_answers_catch_missing_answer_repeated_options_and_position_giveaway(tmp_path):
    items = balanced_mcq(40)
    items[0] = {**items[0], "answer": "purple"}
    items[1] = {**items[1], "options": ["red", "red", "blue", "green"], "answer": "red"}
    good = make_toy_build(tmp_path / "a", items)
    found = errors(run_qc(good), "answers")
    assert any("not one of the options" in f.message for f in found)
    assert any("options repeat" in f.message for f in found)
    assert not any("position" in f.message for f in found)
    always_a = [{**i, "answer": i["options"][0]} for i in balanced_mcq(80)]
    report = run_qc(make_toy_build(tmp_path / "b", always_a))
    assert any("position gives the answer away" in f.message for f in errors(report, "answers"))
    assert report.stats["answers"]["positions"]["4 options"]["answer_position_counts"] == [80, 0, 0, 0]


def test_balance_flags_a_starved_stratum(tmp_path):
    items = [{"answer": f"a{i}", "task": "big"} for i in range(60)] + \
            [{"answer": f"b{i}", "task": "small"} for i in range(4)]
    report = run_qc(make_toy_build(tmp_path / "b", items))
    found = errors(report, "balance")
    assert found and "balance index 0.07" in found[0].message
    assert report.stats["balance"]["task"]["gini"] == pytest.approx(stats.gini([60, 4]))
    mild = [{"answer": f"a{i}", "task": "big"} for i in range(30)] + \
           [{"answer": f"b{i}", "task": "small"} for i in range(12)]
    assert warnings(run_qc(make_toy_build(tmp_path / "c", mild)), "balance")


def test_shortcut_audit_catches_a_raven_style_distractor_sampler(tmp_path):
    """Distractors made by changing one attribute of the answer make the answer the
    options' centre: a choices-only baseline solves it without the question."""
    colours, shapes, sizes = ["red", "blue", "green"], ["cube", "ball", "cone"], ["big", "small", "tiny"]
    items = []
    for i in range(90):
        c, s, z = colours[i % 3], shapes[(i // 3) % 3], sizes[(i // 9) % 3]
        answer = f"{z} {c} {s}"
        options = [answer, f"{z} {colours[(i + 1) % 3]} {s}", f"{z} {c} {shapes[(i // 3 + 1) % 3]}",
                   f"{sizes[(i // 9 + 1) % 3]} {c} {s}"]
        k = i % 4
        options = options[1:k + 1] + [answer] + options[k + 1:]
        items.append({"options": options, "answer": answer, "question": f"q{i}"})
    report = run_qc(make_toy_build(tmp_path / "raven", items))
    found = errors(report, "shortcuts")
    assert any("choices-only baseline" in f.message for f in found)
    fair = run_qc(make_toy_build(tmp_path / "fair", balanced_mcq(80)))
    assert not errors(fair, "shortcuts") and not warnings(fair, "shortcuts")


def test_shortcut_audit_catches_a_dominant_free_text_answer(tmp_path):
    items = [{"answer": "yes" if i % 5 else f"no {i}"} for i in range(100)]
    found = errors(run_qc(make_toy_build(tmp_path / "b", items)), "shortcuts")
    assert any("majority-answer baseline scores 80.0%" in f.message for f in found)


def test_rejected_images_and_items_are_flagged(carv_copy, tmp_path):
    first = json.loads((carv_copy / "items.jsonl").read_text().splitlines()[0])
    decisions = tmp_path / "decisions.jsonl"
    decisions.write_text("\n".join(json.dumps(d) for d in [
        {"unit": "image", "key": Path(first["images"][1]).stem, "decision": "reject", "reasons": ["wrong count"]},
        {"unit": "item", "key": first["id"], "decision": "reject", "reasons": ["text shortcut"]},
    ]) + "\n")
    report = run_qc(carv_copy, decisions)
    found = errors(report, "decisions")
    assert any(f.target == first["id"] and "wrong count" in f.message for f in found)
    assert any(f.target == first["id"] and "text shortcut" in f.message for f in found)
    assert report.stats["decisions"]["rejected_images"] == 1


def test_carv_check_recomputes_the_ground_truth(carv_copy):
    def corrupt(items):
        items[0]["meta"]["T"] = items[0]["meta"]["T1"][:1]
        items[1]["answer"] = "three cups on a green sofa"
        items[40]["meta"]["states"]["query"]["subject"] = "teapot" if \
            items[40]["meta"]["states"]["query"]["subject"] != "teapot" else "cup"
        return items
    rewrite_items(carv_copy, corrupt)
    found = {f.target: f.message for f in errors(run_qc(carv_copy), "carv")}
    ids = [json.loads(line)["id"] for line in (carv_copy / "items.jsonl").read_text().splitlines()]
    assert ids[0] in found and ids[1] in found and ids[40] in found
    assert "does not describe the answer state" in found[ids[1]]


def test_cli_qc_exit_status_and_reports(carv_copy, small_carv, capsys):
    assert main(["qc", str(small_carv), "--out", str(carv_copy.parent / "ok")]) == 0
    assert (carv_copy.parent / "ok" / "qc_report.md").is_file()
    rewrite_items(carv_copy, lambda items: items + [{**items[0], "id": "carv-dup"}])
    assert main(["qc", str(carv_copy), "--out", str(carv_copy.parent / "bad")]) == 1
    assert "FAILED" in capsys.readouterr().out


def test_statistics_against_hand_computed_values():
    assert stats.balance_index([16572, 14480, 11882]) == pytest.approx(0.717, abs=5e-4)
    assert stats.gini([1, 1, 1, 1]) == 0
    assert stats.gini([0, 0, 0, 10]) == pytest.approx(0.75)  # (n - 1) / n for one holder
    lo, hi = stats.wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-3) and hi == pytest.approx(0.5962, abs=1e-3)
    assert stats.binomial_sf(3, 3, 0.5) == pytest.approx(0.125)
