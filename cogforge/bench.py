"""``make bench``: measured performance figures for the toolkit's main jobs.

Prints what the issues' targets are checked against. Numbers are measured on this
machine each run; nothing here asserts a time.
"""

from __future__ import annotations

import os
import resource
import shutil
import tempfile
import time
from pathlib import Path


def _peak_mib() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return own, children


def bench_carv(work: Path) -> list[tuple[str, str]]:
    from builders import carv
    from exports.release import release

    started = time.perf_counter()
    manifest = carv.build(work / "carv", progress=False)
    wall = time.perf_counter() - started
    own, children = _peak_mib()
    started = time.perf_counter()
    release(work / "carv", "1.0.0", work / "releases", decisions=work / "no-decisions.jsonl")
    release_wall = time.perf_counter() - started
    t = manifest["timings"]
    items = manifest["counts"]["items"]
    release_peak, _ = _peak_mib()
    workers = min(os.cpu_count() or 1, 8)
    return [
        ("CARV build: wall seconds (target < 10 s)", f"{wall:.2f}"),
        ("CARV build: items", f"{items}"),
        ("CARV build: items/s", f"{items / wall:.0f}"),
        ("CARV build: sampling seconds", f"{t['sample_s']:.2f}"),
        ("CARV build: unique images rendered", f"{t['rendered']}"),
        ("CARV build: rendering seconds", f"{t['render_s']:.2f} ({workers} processes)"),
        ("CARV build: ms per image (wall / images)", f"{1000 * t['render_s'] / t['rendered']:.1f}"),
        ("CARV build: ms per image per process", f"{1000 * t['render_s'] * workers / t['rendered']:.1f}"),
        ("CARV build: writing seconds", f"{t['write_s']:.2f}"),
        ("CARV build: peak memory, main process (MiB)", f"{own:.0f}"),
        ("CARV build: peak memory, largest render worker (MiB)", f"{children:.0f}"),
        ("CARV release incl. QC: wall seconds (target < 20 s)", f"{release_wall:.2f}"),
        ("CARV release: peak memory, main process (MiB)", f"{release_peak:.0f}"),
    ]


def main() -> int:
    work = Path(tempfile.mkdtemp(prefix="cogforge-bench-"))
    try:
        rows = bench_carv(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    width = max(len(name) for name, _ in rows)
    print(f"cogforge bench on {os.cpu_count()} cores")
    for name, value in rows:
        print(f"  {name:<{width}}  {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
