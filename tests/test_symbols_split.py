"""The mathematics generators keep their bytes: a small mathematics build
(``tests/data/mathematics_small.toml``, every task at least one full turn of its question
kinds) gives, file for file, the sha256 recorded in ``tests/data/mathematics_small.sha256``
(recorded before ``_functions`` and ``_geometry`` became packages); and no module of those
packages grows back into a long one.

After a change that is meant to change the mathematics items, record the new hashes:
``.venv/bin/python tests/test_symbols_split.py --record``.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "tests" / "data" / "mathematics_small.toml"
HASHES = ROOT / "tests" / "data" / "mathematics_small.sha256"
PACKAGES = [ROOT / "generators" / "symbols" / "_functions", ROOT / "generators" / "symbols" / "_geometry"]
MAX_LINES = 800


def build_small(out: Path) -> dict[str, str]:
    """Build the small mathematics domain with the command line; {relative path: sha256}."""
    run = subprocess.run([sys.executable, "-m", "cogforge.cli", "build", "symbols", "--domains", "mathematics",
                          "--config", str(CONFIG), "--out", str(out), "--quiet"],
                         cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return {p.relative_to(out).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(out.rglob("*")) if p.is_file()}


def recorded() -> dict[str, str]:
    """The recorded list, in ``sha256sum`` format (``sha256sum -c`` checks a build folder)."""
    return {path: digest for digest, path in (line.split("  ", 1) for line in HASHES.read_text().splitlines())}


def test_small_mathematics_build_has_the_recorded_bytes(tmp_path):
    got, want = build_small(tmp_path / "build"), recorded()
    changed = sorted(p for p in got.keys() & want.keys() if got[p] != want[p])
    missing, new = sorted(want.keys() - got.keys()), sorted(got.keys() - want.keys())
    # pictures are named by their hash: a changed picture is one missing and one new file
    assert not (changed or missing or new), (
        f"the mathematics build differs from {HASHES.name}: changed {changed}, missing {missing[:5]} "
        f"({len(missing)} in all), new {new[:5]} ({len(new)} in all); if the change is meant, run "
        f"python tests/test_symbols_split.py --record")
    assert len(want) > 100 and "items.jsonl" in want


def test_no_math_generator_module_is_long():
    lengths = {p.relative_to(ROOT).as_posix(): len(p.read_text().splitlines())
               for package in PACKAGES for p in sorted(package.glob("*.py"))}
    assert len(lengths) >= 10
    assert not {p: n for p, n in lengths.items() if n > MAX_LINES}, f"modules over {MAX_LINES} lines"


if __name__ == "__main__":
    if sys.argv[1:] != ["--record"]:
        sys.exit("usage: python tests/test_symbols_split.py --record  (writes tests/data/mathematics_small.sha256)")
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        hashes = build_small(Path(tmp) / "build")
    HASHES.write_text("".join(f"{digest}  {path}\n" for path, digest in sorted(hashes.items())))
    print(f"{HASHES.relative_to(ROOT)}: {len(hashes)} files")
