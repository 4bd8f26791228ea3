"""Reading a release: its rows, its hashes and its ``release.json``.

A release (``releases/<benchmark>/<X.Y.Z>/``, written by ``cogforge release``) is read by
whoever scores it, runs a model on it, compares two versions or checks that it has not
changed; none of them needs the code that wrote it, so reading lives in the core.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from cogforge.core.buildio import sha256_file
from cogforge.core.errors import UserError, parse_json, read_json, read_text


class ReleaseError(UserError, RuntimeError):
    """A release that must not be written (QC failed, version exists, bad input), or one
    that cannot be read."""


def row_files(release: Path | str) -> list[Path]:
    """A release's JSON lines files in read order: ``data/<split>.jsonl`` by split name, or
    for a release of a sharded build ``data/<split>/part-NNNNN.jsonl``, by split, then part."""
    data = Path(release) / "data"
    return sorted(data.glob("*.jsonl")) or sorted(data.glob("*/part-*.jsonl"))


def iter_rows(release: Path | str) -> Iterator[dict]:
    """Every row of a release, all splits, in file order, one file in memory at a time."""
    for path in row_files(release):
        for number, line in enumerate(read_text(path, "release data file").splitlines(), 1):
            if line.strip():
                row = parse_json(line, path, "release row", number)
                if not isinstance(row, dict) or not {"id", "task", "split", "answer", "options", "meta"} <= set(row):
                    raise ReleaseError(f"{path}:{number}: not a release row; make the release again")
                yield row


def read_rows(release: Path | str) -> list[dict]:
    """Every row of a release, all splits, in file order."""
    return list(iter_rows(release))


def verify(folder: Path | str) -> list[str]:
    """Problems found re-hashing a release against its MANIFEST.sha256 (empty: clean)."""
    folder = Path(folder)
    manifest = folder / "MANIFEST.sha256"
    if not manifest.is_file():
        raise ReleaseError(f"{folder}: no MANIFEST.sha256; not a release folder")
    expected = {}
    for number, line in enumerate(read_text(manifest, "MANIFEST.sha256").splitlines(), 1):
        digest, sep, rel = line.partition("  ")
        if not sep or len(digest) != 64:
            return [f"MANIFEST.sha256:{number}: malformed line"]
        expected[rel] = digest
    problems = []
    present = {p.relative_to(folder).as_posix() for p in folder.rglob("*")
               if p.is_file() and p.name != "MANIFEST.sha256"}
    for rel in sorted(expected):
        if rel not in present:
            problems.append(f"{rel}: missing")
        elif sha256_file(folder / rel) != expected[rel]:
            problems.append(f"{rel}: changed (sha256 differs from MANIFEST.sha256)")
    for rel in sorted(present - set(expected)):
        problems.append(f"{rel}: not in MANIFEST.sha256")
    return problems


def load_release(folder: Path | str, allow_unverified: bool = False) -> tuple[list[dict], dict]:
    """A release's rows (``meta`` parsed) and what the scores must say about it: its
    benchmark, version and whether it verified. One that does not verify is refused unless
    ``allow_unverified``: scores on a changed release prove nothing."""
    folder = Path(folder)
    if not (folder / "release.json").is_file():
        raise ReleaseError(f"{folder} is not a release folder (no release.json); make one with `make release`")
    problems = verify(folder)
    if problems and not allow_unverified:
        raise ReleaseError(f"{folder} does not verify ({len(problems)} problems, e.g. {problems[0]}); "
                           "scores on a changed release prove nothing. Pass --allow-unverified to score anyway")
    info = read_json(folder / "release.json", "release.json")
    if not isinstance(info, dict) or not {"benchmark", "version"} <= set(info):
        raise ReleaseError(f"{folder / 'release.json'}: not a release's release.json (an object with benchmark "
                           "and version); make the release again with `cogforge release`")
    rows = read_rows(folder)
    for row in rows:
        row["meta"] = json.loads(row["meta"]) if isinstance(row["meta"], str) else row["meta"]
    return rows, {"release": str(folder), "benchmark": info["benchmark"], "version": info["version"],
                  "verified": not problems, "verification_problems": problems,
                  "allow_unverified": allow_unverified}
