"""`cogforge eval score` on what VLMEvalKit's run.py leaves behind: its output folder, one
prediction file per dataset, the multiple-choice and free-text files of one split scored
as one model, in either order.

The folder is laid out as run.py writes it (open-compass/VLMEvalKit, run.py: ``pred_root =
<work-dir>/<model>/T<date>_G<commit>``, the prediction file ``<model>_<dataset>.xlsx`` there;
after a successful evaluation, links to it in ``<work-dir>/<model>/``; the judge's
``_<judge>_result.xlsx`` and ``_acc.csv`` beside it), and each prediction file as
``infer_data_job`` dumps it: the TSV's columns but ``image``, plus ``prediction``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

from cogforge.cli import main
from cogforge.core.releases import read_rows
from cogforge.evaluate import report
from cogforge.evaluate.score import score


def _perfect(row: dict) -> str:
    """The reply VLMEvalKit's prompt asks for: the letter alone, or the answer for free text."""
    return chr(65 + row["options"].index(row["answer"])) if row["options"] else row["answer"]


def _dump(tsv: Path, path: Path, reply=_perfect, rows: dict | None = None) -> Path:
    """A prediction file as infer_data_job writes it."""
    data = pd.read_csv(tsv, sep="\t")
    data["index"] = [str(x) for x in data["index"]]
    data = data.drop(columns=["image"], errors="ignore")
    data["prediction"] = [reply(rows[i]) for i in data["id"]]
    path.parent.mkdir(parents=True, exist_ok=True)
    data.to_excel(path, index=False)
    return path


@pytest.fixture(scope="module")
def outputs(symbols_release, tmp_path_factory) -> Path:
    """``outputs/`` after `run.py --model MyModel --data <the test and validation datasets>`, run
    twice: an older run answered the test split wrongly, the newer one answers every item right."""
    rows = {r["id"]: r for r in read_rows(symbols_release)}
    root = tmp_path_factory.mktemp("vlmevalkit") / "outputs"
    tsvs = [p for p in sorted((symbols_release / "exports" / "vlmevalkit").glob("*.tsv"))
            if p.stem.endswith(("_test", "_validation"))]
    old = root / "MyModel" / "T20250101_G1a2b3c4d"
    for tsv in tsvs:
        if tsv.stem.endswith("_test"):
            stale = _dump(tsv, old / f"MyModel_{tsv.stem}.xlsx", lambda r: "I cannot tell.", rows)
            os.utime(stale, (1_700_000_000, 1_700_000_000))
    new = root / "MyModel" / "T20250302_G1a2b3c4d"
    for tsv in tsvs:
        path = _dump(tsv, new / f"MyModel_{tsv.stem}.xlsx", rows=rows)
        if "openended" not in tsv.stem:  # what an evaluation of a multiple-choice dataset adds
            pd.DataFrame({"prediction": ["A"], "hit": [1]}).to_excel(
                new / f"MyModel_{tsv.stem}_exact_matching_result.xlsx", index=False)
            pd.DataFrame({"split": ["test"], "Overall": [1.0]}).to_csv(
                new / f"MyModel_{tsv.stem}_acc.csv", index=False)
            (root / "MyModel" / path.name).symlink_to(path)
    (new / "status.json").write_text("{}")
    return root


def test_score_takes_vlmevalkit_output_folder(symbols_release, outputs, tmp_path, capsys):
    rows = read_rows(symbols_release)
    splits = ["test", "validation"]
    assert main(["eval", "score", "--release", str(symbols_release), "--predictions", str(outputs),
                 "--out", str(tmp_path / "r")]) == 0
    printed = capsys.readouterr().out
    results = json.loads((tmp_path / "r" / "scores.json").read_text())["models"]
    assert sorted(results) == [f"MyModel [{s}]" for s in splits]  # one model, one score per split
    for split in splits:
        result = results[f"MyModel [{split}]"]
        n = sum(r["split"] == split for r in rows)
        assert result["split"] == split and result["model"] == "MyModel"
        assert result["overall"]["n"] == n and result["overall"]["accuracy"] == 1.0, split
        assert not any(result["problems"].values())
        # the newest run's files, one per dataset of the split, every one a prediction file
        used = [Path(p) for p in result["predictions"]]
        assert all(p.parent.name == "T20250302_G1a2b3c4d" and p.stem.endswith("_" + split) for p in used)
        assert len(used) == len({p.name for p in used}) >= 2
    assert "from " in printed and "_exact_matching_result" not in printed
    # a model's folder or one run's folder works the same
    one_run = score(symbols_release, [outputs / "MyModel" / "T20250302_G1a2b3c4d"], split="test")["models"]
    assert list(one_run) == ["MyModel"] and one_run["MyModel"]["overall"]["accuracy"] == 1.0


def test_a_folder_without_prediction_files_is_one_line(symbols_release, tmp_path, capsys):
    (tmp_path / "empty" / "MyModel").mkdir(parents=True)
    assert main(["eval", "score", "--release", str(symbols_release), "--predictions",
                 str(tmp_path / "empty")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"cogforge: {tmp_path / 'empty'}: no VLMEvalKit prediction file")


def _test_files(outputs: Path) -> tuple[Path, Path]:
    run = outputs / "MyModel" / "T20250302_G1a2b3c4d"
    return run / "MyModel_symbols_test.xlsx", run / "MyModel_symbols_openended_test.xlsx"


@pytest.mark.parametrize("order", ["multiple choice first", "free text first"])
def test_the_two_files_of_one_split_are_one_model(symbols_release, outputs, tmp_path, order):
    mcq, free = _test_files(outputs)
    files = [mcq, free] if order == "multiple choice first" else [free, mcq]
    rows = [r for r in read_rows(symbols_release) if r["split"] == "test"]
    results = score(symbols_release, files)
    assert list(results["models"]) == ["MyModel"]
    result = results["models"]["MyModel"]
    assert result["overall"]["n"] == len(rows) and result["overall"]["accuracy"] == 1.0
    assert {"error_type", "domain", "level"} <= set(result["breakdown"])
    paths = report.write(results, tmp_path / "report")  # error_type exists for multiple choice only
    assert f"| MyModel | {len(rows)} | 100.0" in paths["markdown"].read_text()


def test_files_of_two_models_stay_apart_unless_named_one(symbols_release, outputs, tmp_path):
    a, b = tmp_path / "a.xlsx", tmp_path / "b.xlsx"  # names that say nothing of the model
    for copy, original in zip((a, b), _test_files(outputs)):
        copy.write_bytes(original.read_bytes())
    apart = score(symbols_release, [a, b])
    assert list(apart["models"]) == ["a", "b"]
    text = report.write(apart, tmp_path / "report")["markdown"].read_text()  # strata of one model only
    assert "| a | " in text and "| b | " in text and "## By error_type" in text
    together = score(symbols_release, [a, b], model="MyModel")["models"]  # --model says they are one
    assert list(together) == ["MyModel"] and together["MyModel"]["overall"]["accuracy"] == 1.0
