"""The layers import downward only: the import-linter contract in pyproject.toml holds for
the package as the wheel installs it, and it breaks when a layer imports upward.

import-linter (grimp) finds a package's modules by walking its folder, and the layers are
not under cogforge/ in the repository (setuptools' package-dir maps builders/ to
cogforge.builders, and so on). So the test lays the package out as the wheel does, from the
same package-dir table, and lints that copy.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINT = Path(sys.executable).with_name("lint-imports")


def lay_out(dest: Path) -> int:
    """Copy every module into ``dest`` where the wheel puts it (cogforge/ as it is, each
    package-dir folder under its package name); returns how many modules were copied."""
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    folders = {"cogforge": "cogforge", **setuptools.get("package-dir", {})}
    copied = 0
    for package, folder in folders.items():
        for source in sorted((ROOT / folder).rglob("*.py")):
            target = dest.joinpath(*package.split("."), source.relative_to(ROOT / folder))
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
            copied += 1
    return copied


def lint(tree: Path) -> subprocess.CompletedProcess:
    assert LINT.is_file(), f"{LINT} is missing: `make setup` installs import-linter from requirements.lock"
    return subprocess.run([str(LINT), "--config", str(ROOT / "pyproject.toml"), "--no-cache", "--no-logo"],
                          cwd=tree, env={**os.environ, "PYTHONPATH": str(tree)},
                          capture_output=True, text=True, timeout=300)


def test_the_layers_import_downward_only(tmp_path):
    modules = lay_out(tmp_path)
    result = lint(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"Contracts: 1 kept, 0 broken", result.stdout), result.stdout
    # every module laid out was read (the layers outside cogforge/ too), and only those
    analysed = int(re.search(r"Analyzed (\d+) files", result.stdout).group(1))
    assert analysed == modules, result.stdout


@pytest.mark.parametrize("module, line, crossing", [
    # the core imports nothing of the layers, not even lazily inside a function
    pytest.param("cogforge/core/errors.py", "def _late():\n    import cogforge.qc\n",
                 "cogforge.core.errors -> cogforge.qc", id="core-lazily-imports-qc"),
    # QC re-derives independently: it may not use the builder's code
    pytest.param("cogforge/qc/corecognition.py", "from cogforge.builders import corecognition\n",
                 "cogforge.qc.corecognition -> cogforge.builders.corecognition", id="qc-imports-a-builder"),
    # scoring a release needs no exporter (reading a release is in the core)
    pytest.param("cogforge/evaluate/score.py", "from cogforge.exports import release\n",
                 "cogforge.evaluate.score -> cogforge.exports.release", id="evaluate-imports-exports"),
    # a generator draws from a specification; it knows nothing of the builds made with it
    pytest.param("cogforge/generators/carv.py", "import cogforge.builders.carv\n",
                 "cogforge.generators.carv -> cogforge.builders.carv", id="generator-imports-a-builder"),
    # annotation and exports are independent siblings
    pytest.param("cogforge/annotation/agreement.py", "import cogforge.exports.card\n",
                 "cogforge.annotation.agreement -> cogforge.exports.card", id="annotation-imports-exports"),
])
def test_an_upward_import_breaks_the_contract(tmp_path, module, line, crossing):
    lay_out(tmp_path)
    with (tmp_path / module).open("a") as f:
        f.write("\n\n" + line)
    result = lint(tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "1 broken" in result.stdout and crossing in result.stdout, result.stdout


def test_a_module_beside_the_layers_must_be_placed_in_one(tmp_path):
    lay_out(tmp_path)
    (tmp_path / "cogforge" / "helpers.py").write_text("import cogforge.cli\n")
    result = lint(tmp_path)
    assert result.returncode == 1, result.stdout
    assert "not listed as layers" in result.stdout and "- cogforge.helpers" in result.stdout, result.stdout
