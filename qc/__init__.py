"""Quality checks: read a build folder, return findings; never modify it.

``run_qc(build)`` runs the checks every benchmark gets (``qc/checks.py``) and the
benchmark's own (its registered descriptor's ``checks``), and returns a :class:`qc.core.Report`.
A sharded build (``items/part-*.jsonl``) is checked shard by shard (``qc/sharded.py``).
``write_report`` writes ``qc_report.json`` and ``qc_report.md`` to a folder of its own.
"""

from __future__ import annotations

from pathlib import Path

from cogforge.core.decisions import decisions_path, load_decisions
from cogforge.qc.core import Build, Finding, Report, benchmark_checks, load_build, run_checks

__all__ = ["run_qc", "write_report", "Report", "Finding", "Build"]


def run_qc(build_dir: Path | str, decisions: Path | str | None = None) -> Report:
    """Run every check on a build.

    Args:
        build_dir: the build folder.
        decisions: a decisions file; default ``annotation/decisions/<benchmark>.jsonl``.
    """
    from cogforge.core.shards import is_sharded
    from cogforge.qc.checks import CHECKS

    if is_sharded(build_dir):
        from cogforge.qc.sharded import read_manifest, run_sharded

        manifest, _ = read_manifest(Path(build_dir))
        benchmark = manifest.get("benchmark", Path(build_dir).name)
        return run_sharded(Path(build_dir), load_decisions(decisions or decisions_path(benchmark)),
                           CHECKS + benchmark_checks(benchmark))
    build = load_build(build_dir)
    build.decisions = load_decisions(decisions or decisions_path(build.benchmark))
    return run_checks(build, CHECKS + benchmark_checks(build.benchmark))


def write_report(report: Report, out_dir: Path | str) -> tuple[Path, Path]:
    from cogforge.core.buildio import dump_json
    from cogforge.qc.report import markdown

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path, md_path = out_dir / "qc_report.json", out_dir / "qc_report.md"
    json_path.write_text(dump_json(report.to_dict()))
    md_path.write_text(markdown(report))
    return json_path, md_path
