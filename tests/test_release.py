"""Releases: checked, immutable, verifiable, loadable by the tools people use."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from cogforge.builders import carv
from cogforge.cli import main
from conftest import ROOT, write_small_config
from cogforge.core.releases import verify
from cogforge.exports.release import ReleaseError, diff, release


@pytest.fixture
def small_build(tmp_path) -> Path:
    config = write_small_config(tmp_path / "c.toml", [("single", "single", "single", 2, 20),
                                                      ("ss-union-2", "shared", "union", 2, 20)])
    carv.build(tmp_path / "build", config_path=config, progress=False)
    return tmp_path / "build"


def test_release_layout(carv_release):
    names = {p.relative_to(carv_release).as_posix() for p in carv_release.rglob("*") if p.is_file()}
    for required in ("README.md", "croissant.json", "MANIFEST.sha256", "release.json", "qc_report.json",
                     "qc_report.md", "data/test.jsonl", "data/test.parquet",
                     "exports/vlmevalkit/carv_openended_test.tsv", "exports/lmms_eval/utils.py",
                     "exports/lmms_eval/carv_single_test.yaml",
                     "exports/carv_paper/data_path_all/mix/union/easy_500.json"):
        assert required in names
    assert len([n for n in names if n.startswith("data/images/")]) == 432
    info = json.loads((carv_release / "release.json").read_text())
    assert info["items"] == 5500 and info["qc"]["passed"] and info["version"] == "1.0.0"
    card = (carv_release / "README.md").read_text()
    assert card.startswith("---\nlicense: cc-by-4.0") and "size_categories:\n- 1K<n<10K" in card
    for section in ("## Summary", "## Structure and fields", "## How it was built", "## Quality checks",
                    "## Annotation and agreement", "## Limitations", "## Citation", "load_dataset(",
                    "## Evaluate with ...", "### VLMEvalKit", "### lmms-eval", "--include_path"):
        assert section in card


@pytest.mark.parametrize("benchmark", ["carv", "shapecount"])  # shapecount: a benchmark of another package
def test_croissant_passes_mlcroissant_validate(benchmark, request):
    released = request.getfixturevalue(f"{benchmark}_release")
    proc = subprocess.run([str(ROOT / ".venv" / "bin" / "mlcroissant"), "validate", "--jsonld",
                           str(released / "croissant.json")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    metadata = json.loads((released / "croissant.json").read_text())
    assert metadata["conformsTo"] == "http://mlcommons.org/croissant/1.1"
    files = {d["contentUrl"]: d["sha256"] for d in metadata["distribution"] if "sha256" in d}
    manifest = dict(reversed(line.split("  ")) for line in
                    (released / "MANIFEST.sha256").read_text().splitlines())
    assert files and all(manifest[path] == digest for path, digest in files.items())


def test_loads_with_hugging_face_datasets(carv_release, tmp_path):
    code = f"""
import json
from datasets import load_dataset
ds = load_dataset({str(carv_release)!r}, split="test", cache_dir={str(tmp_path / 'cache')!r})
row = ds[1234]
print(json.dumps({{"n": len(ds), "id": row["id"], "kinds": [type(i).__name__ for i in row["images"]],
                  "sizes": [list(i.size) for i in row["images"]], "answer": row["answer"]}}))
"""
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    rows = [json.loads(line) for line in (carv_release / "data" / "test.jsonl").read_text().splitlines()]
    assert got["n"] == 5500 and got["id"] == rows[1234]["id"] and got["answer"] == rows[1234]["answer"]
    assert len(got["kinds"]) == len(rows[1234]["file_names"]) and set(got["kinds"]) == {"PngImageFile"}
    assert got["sizes"][0] == [512, 512]


def test_verify_is_clean_and_names_an_edited_file(carv_release, capsys):
    assert verify(carv_release) == []
    target = sorted((carv_release / "data" / "images").iterdir())[3]
    original = target.read_bytes()
    try:
        target.write_bytes(original[:-1] + bytes([original[-1] ^ 1]))
        problems = verify(carv_release)
        assert problems == [f"data/images/{target.name}: changed (sha256 differs from MANIFEST.sha256)"]
        assert main(["release", "verify", str(carv_release)]) == 1
        assert target.name in capsys.readouterr().out
    finally:
        target.write_bytes(original)
    assert verify(carv_release) == []


def test_an_existing_version_is_never_overwritten(small_build, tmp_path):
    folder = release(small_build, "1.0.0", tmp_path / "rel", decisions=tmp_path / "none")
    before = (folder / "MANIFEST.sha256").read_text()
    with pytest.raises(ReleaseError, match="never overwritten"):
        release(small_build, "1.0.0", tmp_path / "rel", decisions=tmp_path / "none")
    assert (folder / "MANIFEST.sha256").read_text() == before
    with pytest.raises(ReleaseError, match="not semantic"):
        release(small_build, "1.0", tmp_path / "rel")


def test_a_build_that_fails_qc_is_not_released(small_build, tmp_path):
    lines = (small_build / "items.jsonl").read_text().splitlines()
    broken = json.loads(lines[0])
    broken["answer"] = "three cups on a green sofa"
    (small_build / "items.jsonl").write_text("\n".join([json.dumps(broken)] + lines[1:]) + "\n")
    with pytest.raises(ReleaseError, match="QC failed"):
        release(small_build, "1.0.0", tmp_path / "rel", decisions=tmp_path / "none")
    assert not (tmp_path / "rel" / "carv" / "1.0.0").exists()


KILL_MID_RELEASE = """
import os, signal, sys
import cogforge.exports.release as rel

def die(*args):
    os.kill(os.getpid(), signal.SIGKILL)  # half the release is written

rel._write_parquet = die
rel.release(sys.argv[1], "1.0.0", sys.argv[2], decisions=sys.argv[3])
"""


def test_an_interrupted_release_leaves_nothing_at_the_version(small_build, tmp_path):
    root = tmp_path / "rel"
    proc = subprocess.run([sys.executable, "-c", KILL_MID_RELEASE, str(small_build), str(root),
                           str(tmp_path / "none")], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == -signal.SIGKILL
    assert not (root / "carv" / "1.0.0").exists()
    assert any(p.name.startswith(".1.0.0.tmp-") for p in (root / "carv").iterdir())
    folder = release(small_build, "1.0.0", root, decisions=tmp_path / "none")
    assert verify(folder) == []
    assert sorted(p.name for p in (root / "carv").iterdir()) == ["1.0.0"]


def test_releases_are_reproducible(small_build, tmp_path):
    a = release(small_build, "1.0.0", tmp_path / "a", decisions=tmp_path / "none")
    b = release(small_build, "1.0.0", tmp_path / "b", decisions=tmp_path / "none")
    assert (a / "MANIFEST.sha256").read_text() == (b / "MANIFEST.sha256").read_text()


def test_diff_and_changelog_between_versions(tmp_path, capsys):
    c1 = write_small_config(tmp_path / "c1.toml", [("single", "single", "single", 2, 20)])
    c2 = write_small_config(tmp_path / "c2.toml", [("single", "single", "single", 2, 22)])
    carv.build(tmp_path / "b1", config_path=c1, progress=False)
    carv.build(tmp_path / "b2", config_path=c2, progress=False)
    root = tmp_path / "rel"
    v1 = release(tmp_path / "b1", "1.0.0", root, decisions=tmp_path / "none")
    v2 = release(tmp_path / "b2", "1.1.0", root, decisions=tmp_path / "none")
    changes = diff(v1, v2)
    old = {json.loads(l)["id"]: json.loads(l) for l in (v1 / "data/test.jsonl").read_text().splitlines()}
    new = {json.loads(l)["id"]: json.loads(l) for l in (v2 / "data/test.jsonl").read_text().splitlines()}
    assert changes["added"] == sorted(new.keys() - old.keys()) and len(changes["added"]) == 2
    assert changes["removed"] == []
    assert [c["id"] for c in changes["changed"]] == sorted(i for i in old if old[i] != new[i])
    assert "Since 1.0.0: 2 items added, 0 removed" in (v2 / "README.md").read_text()
    assert json.loads((v2 / "release.json").read_text())["changes"]["added"] == 2
    assert "carv-single-0021" in (v2 / "CHANGELOG.md").read_text()
    assert main(["release", "diff", str(v1), str(v2)]) == 0
    assert "2 added" in capsys.readouterr().out
