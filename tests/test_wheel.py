"""cogforge's wheel beside the field's tools.

The session's wheel (`python -m build` of the working tree, the `wheel` fixture) installed into
.venv-lmms, which holds lmms-eval 0.7.3 with its dependencies and Hugging Face's `evaluate` and
`datasets` (`field_python`), and run from a folder outside the repository: it installs one
top-level name, carries every module and data file, builds CARV as the working tree does, and
its `cogforge.evaluate` lives beside Hugging Face's `evaluate` in one process.
"""

from __future__ import annotations

import json
import re
import subprocess
import tomllib
import zipfile
from pathlib import Path

import datasets

from conftest import FIELD_VENV, ROOT, field_env, write_small_config
from cogforge.builders import carv


def _pins(path: Path) -> dict[str, tuple[str, str]]:
    """A lock's `name==version` lines: normalised name -> (version, the line's comment)."""
    out = {}
    for line in path.read_text().splitlines():
        pin, _, comment = line.partition("#")
        if "==" in pin:
            name, version = pin.split("==")
            out[re.sub(r"[-_.]+", "-", name.strip()).lower()] = (version.strip(), comment.strip())
    return out


def test_field_lock_holds_every_pin_of_requirements_lock_or_says_why_not():
    ours, field = _pins(ROOT / "requirements.lock"), _pins(ROOT / "exports" / "requirements-lmms-eval.lock")
    for name, (version, _) in ours.items():
        assert name in field, f"{name}=={version} of requirements.lock is not in the lmms-eval lock"
        got, comment = field[name]
        assert got == version or f"requirements.lock has {name}=={version}" in comment, (name, version, got)
    for name, (got, comment) in field.items():  # a note on every deviation, and only there
        assert ("requirements.lock has" in comment) == (name in ours and ours[name][0] != got), name


def _expected_files() -> set[str]:
    """Every module and package data file the build configuration maps into the wheel."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    folders = {"cogforge": ROOT / "cogforge", **{name: ROOT / d for name, d in config["package-dir"].items()}}
    expected = set()
    for package, folder in folders.items():
        prefix = package.replace(".", "/")
        expected |= {f"{prefix}/{p.relative_to(folder).as_posix()}" for p in folder.rglob("*.py")
                     if "__pycache__" not in p.parts}
    for package, patterns in config["package-data"].items():
        top = max((name for name in folders if package == name or package.startswith(name + ".")), key=len)
        folder = folders[top].joinpath(*package[len(top):].split(".")[1:])
        expected |= {f"{package.replace('.', '/')}/{p.relative_to(folder).as_posix()}"
                     for pattern in patterns for p in folder.glob(pattern) if p.is_file()}
    return expected


def test_wheel_installs_cogforge_alone_with_every_module_and_data_file(wheel):
    with zipfile.ZipFile(wheel) as zf:
        info = next(n.split("/")[0] for n in zf.namelist() if n.endswith(".dist-info/RECORD"))
        record = [row.split(",")[0] for row in zf.read(f"{info}/RECORD").decode().splitlines()]
        entry_points = zf.read(f"{info}/entry_points.txt").decode()
    assert {name.split("/")[0] for name in record} == {"cogforge", info}
    missing = _expected_files() - set(record)
    assert not missing, f"not in the wheel (add the package to [tool.setuptools] packages): {sorted(missing)[:10]}"
    for data in ("cogforge/builders/carv.toml", "cogforge/generators/data/carv_world.json",
                 "cogforge/annotation/templates/item-validation.xml"):
        assert data in record
    assert "cogforge = cogforge.cli:main" in entry_points and "[cogforge.benchmarks]" in entry_points


def test_wheel_builds_carv_outside_the_repository_as_the_working_tree_does(field_python, tmp_path):
    config = write_small_config(tmp_path / "carv.toml", [("single", "single", "single", 2, 12),
                                                         ("ss-union-2", "shared", "union", 2, 12)])
    run = tmp_path / "elsewhere"
    run.mkdir()
    proc = subprocess.run([str(FIELD_VENV / "bin" / "cogforge"), "build", "carv", "--quiet", "--config", str(config),
                           "--out", str(run / "build")], capture_output=True, text=True, cwd=run, env=field_env())
    assert proc.returncode == 0, proc.stderr[-3000:]
    carv.build(tmp_path / "here", config_path=config, progress=False)
    wheel_manifest = json.loads((run / "build" / "manifest.json").read_text())
    here_manifest = json.loads((tmp_path / "here" / "manifest.json").read_text())
    assert wheel_manifest["counts"]["items"] == 24
    assert wheel_manifest["files"] == here_manifest["files"]
    assert (run / "build" / "items.jsonl").read_bytes() == (tmp_path / "here" / "items.jsonl").read_bytes()


PROBE = """
import importlib.metadata as md, json, sys
import evaluate
import cogforge, cogforge.evaluate.score as score
import datasets, lmms_eval
print(json.dumps({"evaluate": evaluate.__file__, "load": callable(evaluate.load),
                  "still_hf": sys.modules["evaluate"] is evaluate, "cogforge": cogforge.__file__,
                  "score": score.__file__, "scorer": hasattr(score, "Scorer"), "datasets": datasets.__version__,
                  "lmms_eval": md.version("lmms_eval"), "evaluate_dist": md.version("evaluate"),
                  "top_level": md.distribution("cogforge").read_text("top_level.txt").split()}))
"""


def test_hugging_face_evaluate_and_cogforge_evaluate_in_one_process(field_python, tmp_path):
    proc = subprocess.run([str(field_python), "-c", PROBE], capture_output=True, text=True, cwd=tmp_path,
                          env=field_env(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    site = Path(got["cogforge"]).parent.parent
    assert site.is_relative_to(FIELD_VENV) and site.name == "site-packages"
    assert got["evaluate"] == str(site / "evaluate" / "__init__.py") and got["load"] and got["still_hf"]
    assert got["score"] == str(site / "cogforge" / "evaluate" / "score.py") and got["scorer"]
    assert got["top_level"] == ["cogforge"]
    assert got["datasets"] == datasets.__version__  # the version cogforge pins, here too
    assert got["lmms_eval"] == "0.7.3"


PLACES = """
import json
from cogforge.annotation import server
from cogforge.core.project import project_root
from cogforge.generators import wordnet
print(json.dumps({"root": str(project_root()), "cache": str(wordnet.CACHE), "credentials": str(server.CREDENTIALS)}))
"""


def test_an_installed_cogforge_writes_in_the_project_folder_never_in_the_package(field_python, tmp_path):
    def places(**env) -> dict:
        proc = subprocess.run([str(field_python), "-c", PLACES], capture_output=True, text=True, cwd=tmp_path,
                              env=field_env(**env))
        assert proc.returncode == 0, proc.stderr[-3000:]
        return json.loads(proc.stdout.strip().splitlines()[-1])

    here = places()  # a wheel: the current folder
    assert here == {"root": str(tmp_path.resolve()), "cache": str(tmp_path.resolve() / ".cache"),
                    "credentials": str(tmp_path.resolve() / "annotation" / ".credentials.env")}
    elsewhere = places(COGFORGE_PROJECT=str(tmp_path / "project"))
    assert elsewhere["root"] == str((tmp_path / "project").resolve())
    assert elsewhere["cache"] == str((tmp_path / "project").resolve() / ".cache")
