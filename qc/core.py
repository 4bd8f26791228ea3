"""The QC framework: a build is read once, checks return findings, nothing is modified.

A check is a function ``(build) -> CheckResult``: a list of findings (severity,
check name, item id or file, message) and a dict of statistics for the report.
Checks for every benchmark live in ``qc/checks.py``; a benchmark adds its own through
its registered descriptor (``Benchmark.checks``, and its hooks in ``Benchmark.qc``).
"""

from __future__ import annotations

import io
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Literal

from cogforge.core import registry
from cogforge.core.errors import read_text
from cogforge.core.record import Item, ItemError

Severity = Literal["error", "warning", "info"]


@dataclass(frozen=True)
class Finding:
    severity: Severity
    check: str
    target: str  # an item id, a file path relative to the build, or "build"
    message: str


@dataclass
class CheckResult:
    findings: list[Finding] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)


@dataclass
class Build:
    """A build folder, read once. Items that fail the schema are kept out of ``items``."""

    path: Path
    manifest: dict
    items: list[Item]
    load_findings: list[Finding]
    decisions: list[dict]

    @property
    def benchmark(self) -> str:
        return self.manifest.get("benchmark", self.path.name)


Check = Callable[[Build], CheckResult]


def load_build(path: Path | str, decisions: list[dict] | None = None) -> Build:
    """Read a build folder; problems become findings, a missing folder an error."""
    path = Path(path)
    if not (path / "items.jsonl").is_file():
        raise FileNotFoundError(f"{path}: not a build folder (no items.jsonl); run `cogforge build` first")
    findings: list[Finding] = []
    try:
        manifest = json.loads((path / "manifest.json").read_text())
    except FileNotFoundError:
        manifest = {}
        findings.append(Finding("error", "schema", "manifest.json", "manifest.json is missing"))
    except (ValueError, RecursionError) as err:  # not JSON, not UTF-8, nested without end
        manifest = {}
        findings.append(Finding("error", "schema", "manifest.json", f"not valid JSON: {err}"))
    items = []
    with io.StringIO(read_text(path / "items.jsonl", "items file", error=ItemError)) as handle:
        for number, line in enumerate(handle, 1):
            try:
                items.append(Item.from_dict(json.loads(line), f"items.jsonl:{number}"))
            except json.JSONDecodeError as err:
                findings.append(Finding("error", "schema", f"items.jsonl:{number}", f"not valid JSON: {err.msg}"))
            except ItemError as err:
                findings.append(Finding("error", "schema", f"items.jsonl:{number}", str(err)))
            except (ValueError, RecursionError):  # a number of 4300+ digits, nesting without end
                findings.append(Finding("error", "schema", f"items.jsonl:{number}", "not an item record"))
    return Build(path, manifest, items, findings, decisions or [])


def plugin(benchmark: str) -> Any:
    """The registered benchmark's QC hooks (``Benchmark.qc``: ``strata``, ``chance`` and
    options), or None: a benchmark that is not registered gets the shared checks only."""
    found = registry.find(benchmark)
    return found.qc if found else None


def benchmark_checks(benchmark: str) -> list[tuple[str, Check]]:
    """The registered benchmark's own checks, run after the shared ones."""
    found = registry.find(benchmark)
    return list(found.checks) if found else []


@dataclass
class Report:
    build: str
    benchmark: str
    findings: list[Finding]
    stats: dict[str, Any]
    checks: list[str] = field(default_factory=list)

    @property
    def errors(self) -> int:
        return sum(f.severity == "error" for f in self.findings)

    @property
    def warnings(self) -> int:
        return sum(f.severity == "warning" for f in self.findings)

    @property
    def passed(self) -> bool:
        return self.errors == 0

    def summary(self) -> dict[str, Any]:
        by_check: dict[str, dict[str, int]] = {
            name: {"error": 0, "warning": 0, "info": 0} for name in self.checks}
        for f in self.findings:
            by_check.setdefault(f.check, {"error": 0, "warning": 0, "info": 0})[f.severity] += 1
        return {"passed": self.passed, "errors": self.errors, "warnings": self.warnings,
                "by_check": dict(sorted(by_check.items()))}

    def to_dict(self) -> dict[str, Any]:
        return {"build": self.build, "benchmark": self.benchmark, "summary": self.summary(),
                "stats": self.stats, "findings": [asdict(f) for f in self.findings]}


def run_checks(build: Build, checks: list[tuple[str, Check]]) -> Report:
    findings = list(build.load_findings)
    stats: dict[str, Any] = {}
    for name, check in checks:
        result = check(build)
        findings.extend(result.findings)
        if result.stats:
            stats[name] = result.stats
    order = {"error": 0, "warning": 1, "info": 2}
    findings.sort(key=lambda f: (order[f.severity], f.check, f.target))
    return Report(str(build.path), build.benchmark, findings, stats, [name for name, _ in checks])
