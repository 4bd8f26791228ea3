"""Benchmarks are registered objects, found through package metadata like any plugin.

Each outside package here is a real installed distribution (a ``NAME-1.0.dist-info`` folder
with ``METADATA`` and ``entry_points.txt``, beside its module) on the ``PYTHONPATH`` of a
real ``cogforge`` process: the registry reads it as it reads cogforge's own entry points.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from cogforge.core import registry
from cogforge.core.config import load

BUILT_IN = ["carv", "cogevolve", "constructure", "corecognition", "symbols"]
COGFORGE = Path(sys.executable).with_name("cogforge")

# A small benchmark of another package: how many words a line holds.
TALLY = '''
from pathlib import Path

from cogforge.annotation.stages import Stage, item_validation_tasks
from cogforge.core.buildio import BuildWriter
from cogforge.core.config import Schema, load
from cogforge.core.record import Item
from cogforge.core.registry import Benchmark
from cogforge.qc.core import CheckResult, Finding

DEFAULT_CONFIG = Path(__file__).with_name("tally.toml")


class Config(Schema):
    seed: int = 0
    lines: list[str] = []


def build(out_dir, seed=None, config_path=None, progress=True, inputs=None):
    config = load(Path(config_path or DEFAULT_CONFIG), Config)
    lines = list(config.lines) + [line for path in (inputs or {}).get("words", [])
                                  for line in Path(path).read_text().splitlines()]
    items = [Item(f"tally-{n:03d}", "tally", "count", "test", f"How many words: {line}?", [], None,
                  str(len(line.split())), {}) for n, line in enumerate(lines, 1)]
    with BuildWriter(out_dir) as writer:
        writer.write_items(items)
        return writer.commit({"benchmark": "tally", "seed": config.seed if seed is None else seed,
                              "elapsed_s": 0.0, "counts": {"items": len(items), "images": 0,
                                                           "by_task": {"count": len(items)}}})


def check_tally(build):
    return CheckResult([Finding("warning", "tally", i.id, "seen by tally's own check") for i in build.items])


BENCHMARK = Benchmark(name="tally", build=build, default_config=DEFAULT_CONFIG, config_schema=Config,
                      checks=[("tally", check_tally)],
                      stages=[Stage("tally-review", "tally", "item", True, item_validation_tasks)],
                      inputs={"words": "more lines to count, one a line"})
'''

BAD = '''
from pathlib import Path

from cogforge.core.config import Schema
from cogforge.core.registry import Benchmark

NOT_A_BENCHMARK = "a string"
MISNAMED = Benchmark(name="other", build=lambda out_dir, **options: {}, default_config=Path("x.toml"),
                     config_schema=Schema)
'''


def distribution(site: Path, name: str, entry_points: dict[str, str], module: str) -> None:
    """An installed distribution as pip leaves one: its metadata folder beside its module."""
    info = site / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        f"[{registry.GROUP}]\n" + "".join(f"{k} = {v}\n" for k, v in entry_points.items()))
    (site / f"{name}.py").write_text(textwrap.dedent(module))


def cogforge(*argv, site: Path | None = None, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(site) if site else ""}
    return subprocess.run([str(COGFORGE), *map(str, argv)], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=300)


def listed(stdout: str) -> list[tuple[str, str, str]]:
    """``cogforge list``'s rows below its header: (benchmark, package, entry point)."""
    rows = [line.split() for line in stdout.splitlines()[1:]]
    return [(name, package, value) for name, package, _version, value in rows]


def refused_in_one_line(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("cogforge: "), result.stderr
    return lines[0]


@pytest.fixture
def tally(tmp_path) -> Path:
    site = tmp_path / "site"
    distribution(site, "tallybench", {"tally": "tallybench:BENCHMARK"}, TALLY)
    (site / "tally.toml").write_text('seed = 0\nlines = ["one two", "three"]\n')
    return site


def test_list_shows_every_benchmark_with_the_package_that_registers_it(tally, tmp_path):
    result = cogforge("list", site=tally, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    rows = listed(result.stdout)
    assert rows == sorted(rows)
    assert [r for r in rows if r[1] == "cogforge"] == [
        (name, "cogforge", f"cogforge.benchmarks.{name}:BENCHMARK") for name in BUILT_IN]
    assert ("tally", "tallybench", "tallybench:BENCHMARK") in rows


def test_a_benchmark_of_another_package_is_built_and_checked_through_the_registry(tally, tmp_path):
    words = tmp_path / "words.txt"
    words.write_text("a b c\n")
    out = tmp_path / "build" / "tally"
    result = cogforge("build", "tally", "--input", f"words={words}", "--out", out, "--quiet", site=tally, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    items = [json.loads(line) for line in (out / "items.jsonl").read_text().splitlines()]
    assert [i["answer"] for i in items] == ["2", "1", "3"]  # two from its config, one from --input
    # what --input accepts is in the descriptor, and the command line holds to it
    line = refused_in_one_line(cogforge("build", "tally", "--input", "nosuch=x.txt", "--out", tmp_path / "x",
                                        site=tally, cwd=tmp_path))
    assert "tally takes words=FILE" in line
    helped = cogforge("build", "--help", site=tally, cwd=tmp_path).stdout
    assert "tally words=FILE" in " ".join(helped.split())
    # QC runs the shared checks, then the benchmark's own
    qc = cogforge("qc", out, site=tally, cwd=tmp_path)
    assert qc.returncode in (0, 1), qc.stderr
    by_check = json.loads((tmp_path / "build" / "tally.qc" / "qc_report.json").read_text())["summary"]["by_check"]
    assert by_check["tally"]["warning"] == 3 and "schema" in by_check
    # its annotation stages are those `annotate push` offers for its builds
    line = refused_in_one_line(cogforge("annotate", "push", out, "--stage", "nosuch", site=tally, cwd=tmp_path))
    assert line.endswith("unknown stage 'nosuch'; stages for tally: item-validation, tally-review")


def test_a_name_two_packages_register_is_refused_naming_both(tmp_path):
    site = tmp_path / "site"
    # importing it would fail: neither listing nor refusing imports a registered module
    distribution(site, "shadowbench", {"carv": "shadowbench:BENCHMARK"}, 'raise RuntimeError("imported")\n')
    both = "by cogforge (cogforge.benchmarks.carv:BENCHMARK) and shadowbench (shadowbench:BENCHMARK)"

    result = cogforge("list", site=site, cwd=tmp_path)
    assert ("carv", "cogforge", "cogforge.benchmarks.carv:BENCHMARK") in listed(result.stdout)
    assert ("carv", "shadowbench", "shadowbench:BENCHMARK") in listed(result.stdout)
    assert both in refused_in_one_line(result)

    out = tmp_path / "build" / "carv"
    line = refused_in_one_line(cogforge("build", "carv", "--out", out, site=site, cwd=tmp_path))
    assert line.startswith(f"cogforge: benchmark 'carv' is registered twice, {both}; ")
    assert not out.parent.exists()
    # a layer that looks the benchmark up says the same: QC of a carv build folder
    build = tmp_path / "carv-build"
    build.mkdir()
    (build / "manifest.json").write_text('{"benchmark": "carv"}')
    (build / "items.jsonl").write_text(json.dumps({
        "id": "carv-1", "benchmark": "carv", "task": "t", "split": "test", "question": "q", "images": [],
        "options": None, "answer": "a", "meta": {}}) + "\n")
    assert both in refused_in_one_line(cogforge("qc", build, site=site, cwd=tmp_path))


def test_an_entry_point_that_holds_no_benchmark_of_its_name_is_refused(tmp_path):
    site = tmp_path / "site"
    distribution(site, "badbench", {"notone": "badbench:NOT_A_BENCHMARK", "misnamed": "badbench:MISNAMED",
                                    "ghost": "nosuchmodule:BENCHMARK"}, BAD)
    result = cogforge("list", site=site, cwd=tmp_path)  # metadata only: listed all the same
    assert result.returncode == 0, result.stderr
    assert {r[0] for r in listed(result.stdout) if r[1] == "badbench"} == {"notone", "misnamed", "ghost"}
    expected = {"notone": "entry point 'notone' of badbench (badbench:NOT_A_BENCHMARK) is a str, "
                          "not a cogforge.core.registry.Benchmark",
                "misnamed": "entry point 'misnamed' of badbench (badbench:MISNAMED) holds the benchmark 'other'",
                "ghost": "entry point 'ghost' of badbench (nosuchmodule:BENCHMARK) cannot be loaded"}
    for name, message in expected.items():
        line = refused_in_one_line(cogforge("build", name, "--out", tmp_path / "out", site=site, cwd=tmp_path))
        assert line.startswith(f"cogforge: {message}"), line
    assert not (tmp_path / "out").exists()


def test_each_built_in_benchmark_is_complete():
    """Every descriptor's default config satisfies its schema; stages are its own and named once."""
    stage_names = []
    for name in BUILT_IN:
        benchmark = registry.get(name)
        assert benchmark.name == name and benchmark.origin == f"cogforge (cogforge.benchmarks.{name}:BENCHMARK)"
        load(benchmark.default_config, benchmark.schema())
        assert benchmark.checks and benchmark.qc and benchmark.scorer
        assert all(stage.benchmark == name for stage in benchmark.stages)
        stage_names += [stage.name for stage in benchmark.stages]
    assert len(stage_names) == len(set(stage_names)) == 7  # carv 2, cogevolve 2, corecognition 2, symbols 1


def test_a_build_of_an_unregistered_benchmark_gets_the_shared_checks(tmp_path):
    from cogforge.qc import run_qc
    from cogforge.qc.checks import CHECKS

    (tmp_path / "manifest.json").write_text('{"benchmark": "nobody"}')
    (tmp_path / "items.jsonl").write_text(json.dumps({
        "id": "nobody-1", "benchmark": "nobody", "task": "t", "split": "test", "question": "q", "images": [],
        "options": None, "answer": "a", "meta": {}}) + "\n")
    assert registry.find("nobody") is None
    assert run_qc(tmp_path).checks == [name for name, _ in CHECKS]


def test_a_benchmark_without_stream_hooks_is_refused_by_the_environments_in_one_line(tally, tmp_path):
    script = ("from cogforge import environments\ntry:\n    environments.open('tally')\n"
              "except environments.StreamError as err:\n    print(err)\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path,
                            env={**os.environ, "PYTHONPATH": str(tally)}, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("benchmark 'tally' has no stream hooks (Benchmark.stream)")
    assert "tally" not in result.stdout.split("streaming benchmarks:")[1]
