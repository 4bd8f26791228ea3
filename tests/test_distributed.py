"""Sharded builds on a real Ray cluster (a head and a second worker node on this machine, the
session's ``ray_cluster``): the same bytes as a local build with any number of processes and on
one or two nodes; a worker killed mid-build is retried by Ray; a shard that keeps failing stops
the build, names the shard and leaves the previous build as it was; an interrupted build resumes
with only its missing shards; and the command line reaches the cluster by ``--address``.

Faults are injected through the executor interface, not by patching Ray or a builder: a
:class:`Watched` executor hands the real executor each shard's function wrapped in
:func:`_watched`, which leaves a file per call (which shard, on which node) and, for one shard,
raises or kills its own worker process. The wrapper is shipped to Ray's workers by value
(``ray.cloudpickle.register_pickle_by_value``): this module is not importable there.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
from functools import partial
from pathlib import Path

import pytest
import ray
import ray.cloudpickle

from cogforge.builders import carv, corecognition
from cogforge.core.executor import Executor, make_executor
from cogforge.core.shards import Shard, ShardError
from cogforge.generators.carv import load_world
from conftest import write_small_config

ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])

COGFORGE = Path(sys.executable).with_name("cogforge")
SHARDS = 9  # each build below: 3 tasks x 3 shards
# CARV renders every allowed state before it draws; three of the nine subjects (144 states, not
# 432) keep each build to a few seconds, and the CLI leaves out the same states by --decisions.
SUBJECTS = ("cup", "bowl", "bottle")


# --------------------------------------------------------------------------- fault injection


def _node() -> str:
    """The Ray node this process runs on, or "local"."""
    return ray.get_runtime_context().get_node_id() if ray.is_initialized() else "local"


def _watched(fn, arg, *, calls: str, fault: str | None, at: int | None, driver: int):
    """``fn(arg)``; a shard's call leaves ``calls/<shard>.<pid>.<n>`` holding the node it ran on.
    For shard ``at``: fault "raise" raises every time, "raise-once" the first time only, "kill"
    kills this worker process with SIGKILL the first time (a marker file remembers)."""
    if not isinstance(arg, Shard):  # a picture drawn for the build (CARV renders every state)
        return fn(arg)
    record = Path(calls) / f"{arg.name}.{os.getpid()}.{os.urandom(4).hex()}"
    record.write_text(_node())
    if fault and arg.index == at:
        try:
            (Path(calls) / f"{arg.name}.fault").open("x").close()
            first = True
        except FileExistsError:
            first = False
        if fault == "kill" and first:
            assert os.getpid() != driver, "the kill fault is for Ray workers, not the test process"
            os.kill(os.getpid(), signal.SIGKILL)
        if fault == "raise" or (fault == "raise-once" and first):
            raise RuntimeError(f"injected failure in {arg.name}")
    return fn(arg)


class Watched(Executor):
    """A real executor whose every task goes through :func:`_watched`."""

    def __init__(self, inner: Executor, calls: Path, fault: str | None = None, at: int | None = None):
        self.inner, self.name, self.workers = inner, inner.name, inner.workers
        self.calls = calls
        calls.mkdir(parents=True, exist_ok=True)
        self.wrap = partial(_watched, calls=str(calls), fault=fault, at=at, driver=os.getpid())

    def imap(self, fn, args, label=repr):
        return self.inner.imap(partial(self.wrap, fn), args, label)

    def close(self) -> None:
        self.inner.close()

    def made(self) -> list[str]:
        """The shards a task ran for, in name order (a retried shard twice)."""
        return sorted(p.name.split(".")[0] for p in self.calls.iterdir() if not p.name.endswith(".fault"))

    def nodes(self) -> set[str]:
        return {p.read_text() for p in self.calls.iterdir() if not p.name.endswith(".fault")}


# --------------------------------------------------------------------------- small builds


@pytest.fixture(scope="module")
def configs(tmp_path_factory) -> dict:
    """Small configs: CARV 3 cells x 30 items, CoreCognition 3 concepts x 12 items (x2 at scale 2),
    and the CARV states left out, as a list and as a decisions file for the CLI."""
    tmp = tmp_path_factory.mktemp("distributed-configs")
    excluded = [s._asdict() for s in load_world().states() if s.subject not in SUBJECTS]
    (tmp / "decisions.jsonl").write_text("".join(
        json.dumps({"unit": "image", "key": hashlib.sha256(json.dumps(s).encode()).hexdigest(),
                    "decision": "reject", "state": s}) + "\n" for s in excluded))
    (tmp / "corecognition.toml").write_text(
        "seed = 0\nsplits = { train = 7, validation = 1, test = 2 }\n"
        "counts = { boundary = 12, permanence = 12, hierarchy = 12 }\n")
    return {"carv": write_small_config(tmp / "carv.toml", [("single", "single", "single", 2, 30),
                                                          ("ss-union-2", "shared", "union", 2, 30),
                                                          ("ds-difference-2", "different", "difference", 2, 30)]),
            "corecognition": tmp / "corecognition.toml", "excluded": excluded,
            "decisions": tmp / "decisions.jsonl"}


def build(benchmark: str, out: Path, executor: Executor, configs: dict, **kwargs) -> dict:
    """A scale-2 sharded build of the small config: 9 shards (CARV 25 items, CoreCognition 8)."""
    if benchmark == "carv":
        return carv.build(out, config_path=configs["carv"], excluded=configs["excluded"], scale=2, shard_size=25,
                          executor=executor, progress=False, **kwargs)
    return corecognition.build(out, config_path=configs["corecognition"], scale=2, shard_size=8,
                               executor=executor, progress=False, **kwargs)


def tree(root: Path) -> dict[str, str]:
    """Every file under a folder: relative path -> sha256 of its bytes."""
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def driver(ray_cluster):
    """This process connected to the cluster by its address for the module's in-process builds,
    then disconnected. A Ray job starts its own worker processes (each imports the toolkit), so
    one connection for all the builds saves seconds a build; the command-line tests below
    connect by the address afresh, from a process of their own."""
    sigterm = signal.getsignal(signal.SIGTERM)
    ray.init(address=ray_cluster.address, log_to_driver=False, logging_level="ERROR")
    signal.signal(signal.SIGTERM, sigterm)  # ray.init's own would outlive the connection
    yield ray_cluster
    ray.shutdown()


def ray_executor(cluster) -> Executor:
    executor = make_executor("ray", address=cluster.address)
    assert ray.get_runtime_context().gcs_address == cluster.address
    return executor


@pytest.fixture(scope="module")
def references(configs, tmp_path_factory) -> dict[str, Path]:
    """Each benchmark built in this process alone (the local executor, one process)."""
    out = {}
    for benchmark in ("carv", "corecognition"):
        folder = tmp_path_factory.mktemp(f"reference-{benchmark}") / "build"
        manifest = build(benchmark, folder, make_executor("local", processes=1), configs)
        assert manifest["layout"] == "sharded" and manifest["shards"]["count"] == SHARDS
        assert manifest["made_shards"] == SHARDS
        out[benchmark] = folder
    assert json.loads((out["carv"] / "manifest.json").read_text())["counts"]["items"] == 180
    return out


@pytest.fixture(autouse=True)
def same_driver():
    """An executor that did not connect leaves the connection it found alone, and one that did closes it."""
    connected = ray.is_initialized()
    yield
    assert ray.is_initialized() == connected


def staging(out: Path) -> Path:
    return out.with_name(f".{out.name}.partial")


# --------------------------------------------------------------------------- tests


def test_same_bytes_with_local_processes_and_ray_on_one_or_two_nodes(references, driver, configs, tmp_path):
    for benchmark, reference in references.items():
        expected = tree(reference)
        assert any(name.startswith("items/part-") for name in expected)

        local = build(benchmark, tmp_path / f"{benchmark}-local2", make_executor("local", processes=2), configs)
        assert local["executor"] == {"name": "local", "workers": 2}
        assert tree(tmp_path / f"{benchmark}-local2") == expected

        with Watched(ray_executor(driver), tmp_path / f"{benchmark}-calls2") as watched:
            on_ray = build(benchmark, tmp_path / f"{benchmark}-ray2", watched, configs)
        assert on_ray["executor"] == {"name": "ray", "workers": 2}
        assert len(watched.nodes()) == 2, "both nodes made shards"
        assert watched.made() == [f"part-{i:05d}" for i in range(SHARDS)]
        assert tree(tmp_path / f"{benchmark}-ray2") == expected
        assert not staging(tmp_path / f"{benchmark}-ray2").exists()

    (worker,) = driver.worker_nodes
    driver.remove_node(worker)
    try:
        for benchmark, reference in references.items():
            with Watched(ray_executor(driver), tmp_path / f"{benchmark}-calls1") as watched:
                one_node = build(benchmark, tmp_path / f"{benchmark}-ray1", watched, configs)
            assert one_node["executor"] == {"name": "ray", "workers": 1}
            assert len(watched.nodes()) == 1
            assert tree(tmp_path / f"{benchmark}-ray1") == tree(reference)
    finally:
        driver.add_node(num_cpus=1)
        driver.wait_for_nodes()


def test_a_worker_killed_mid_build_is_retried_by_ray_and_the_bytes_stay_the_same(references, driver, configs,
                                                                                 tmp_path):
    with Watched(ray_executor(driver), tmp_path / "calls", fault="kill", at=4) as watched:
        manifest = build("carv", tmp_path / "build", watched, configs)
    made = watched.made()
    assert made.count("part-00004") == 2, "the killed task ran again"
    assert sorted(set(made)) == [f"part-{i:05d}" for i in range(SHARDS)]
    assert manifest["made_shards"] == SHARDS
    assert tree(tmp_path / "build") == tree(references["carv"])


def test_a_shard_that_keeps_failing_stops_the_build_and_leaves_the_previous_build(references, driver, configs,
                                                                                  tmp_path):
    out = tmp_path / "build"
    shutil.copytree(references["carv"], out)
    before = tree(out)
    with Watched(ray_executor(driver), tmp_path / "calls", fault="raise", at=3) as watched:
        with pytest.raises(ShardError) as failed:
            build("carv", out, watched, configs)
    message = str(failed.value)
    assert "shard part-00003 (task ss-union-2, items 1-25)" in message
    assert "RuntimeError: injected failure in part-00003" in message
    assert "\n" not in message
    assert watched.made().count("part-00003") == 1, "Ray does not retry a task that raised"
    assert tree(out) == before
    done = sorted(p.name for p in (staging(out) / "shards").glob("*.done"))
    assert done == [f"part-{i:05d}.done" for i in range(3)], "the shards before it are kept for --resume"


@pytest.mark.parametrize("benchmark", ["carv", "corecognition"])
def test_an_interrupted_build_resumes_with_only_its_missing_shards(benchmark, references, driver, configs,
                                                                   tmp_path):
    out = tmp_path / "build"
    with Watched(ray_executor(driver), tmp_path / "first", fault="raise-once", at=5) as watched:
        with pytest.raises(ShardError, match="part-00005"):
            build(benchmark, out, watched, configs)
    assert not out.exists()
    with Watched(ray_executor(driver), tmp_path / "resumed") as watched:
        manifest = build(benchmark, out, watched, configs, resume=True)
    assert watched.made() == [f"part-{i:05d}" for i in range(5, SHARDS)]
    assert manifest["made_shards"] == SHARDS - 5
    assert tree(out) == tree(references[benchmark])
    assert not staging(out).exists()


def _cogforge(*argv, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([str(COGFORGE), *map(str, argv)], capture_output=True, text=True, cwd=cwd,
                          timeout=timeout)


def test_the_command_line_builds_on_the_cluster_by_its_address(ray_cluster, configs, references, tmp_path):
    result = _cogforge("build", "carv", "--executor", "ray", "--address", ray_cluster.address, "--scale", 2,
                       "--shard-size", 25, "--config", configs["carv"], "--decisions", configs["decisions"],
                       "--out", tmp_path / "build", "--quiet", cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "executor ray (2 workers)" in result.stdout
    assert tree(tmp_path / "build") == tree(references["carv"])


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("host", ["127.0.0.1", "no-such-host.invalid"])
def test_an_address_with_no_cluster_is_one_line_and_exit_2(host, configs, tmp_path):
    address = f"{host}:{_closed_port()}"
    result = _cogforge("build", "corecognition", "--executor", "ray", "--address", address, "--config",
                       configs["corecognition"], "--out", tmp_path / "build", "--quiet", cwd=tmp_path, timeout=60)
    assert result.returncode == 2, result.stderr[-3000:]
    (line,) = result.stderr.splitlines()
    assert line.startswith("cogforge: ") and address in line
    assert not (tmp_path / "build").exists()
