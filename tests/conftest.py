"""Shared fixtures: full builds and releases of each benchmark, made once per test session."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from filelock import FileLock

from cogforge.annotation import projects
from cogforge.annotation.server import Credentials, free_port, start
from cogforge.builders import carv

ROOT = Path(__file__).resolve().parent.parent


# --------------------------------------------------------------------------- one run, two workers
# `make test` runs the suite in two pytest-xdist workers. A session fixture is made once per
# worker, so the expensive ones (full builds, releases, the wheel) go through `once`: the first
# worker to ask makes it in a folder both share while the other waits, the recipe of the
# pytest-xdist docs. Tests never change what a session fixture made.
#
# Work goes to the workers a group at a time (`pytest_xdist_make_scheduler`): the tests of one
# module stay on one worker (module fixtures are made once), and the modules that use the
# session's Label Studio server, or its Ray cluster, form one group each, so each starts once.
# (xdist's own `--dist loadgroup` reads a node id pytest 9 no longer lets it change.)

LABEL_STUDIO_FIXTURES = {"server", "conn", "people", "root"}
LABEL_STUDIO_MODULES = {"test_annotation", "test_annotation_server", "test_cogevolve_annotation",
                        "test_corecognition_annotation", "test_example_benchmark", "test_refine_qc",
                        "test_symbols_guessability"}
RAY_MODULES = {"test_distributed", "test_shards", "test_refine"}
# The longest groups go first, so the two workers do not end on one long group and each
# starts with a different full build (measured with a per-test timeline; the rest keep their order).
LONG_FIRST = ["label-studio", "ray", "test_lmms_real", "test_correctness", "test_interop", "test_eval",
              "test_constructure", "test_corecognition", "test_build_folder", "test_release"]


def group_of(nodeid: str) -> str:
    """The group a test runs in: its module's, or "label-studio" or "ray"."""
    module = Path(nodeid.split("::")[0]).stem
    if module in LABEL_STUDIO_MODULES:
        return "label-studio"
    return "ray" if module in RAY_MODULES else module


def pytest_collection_modifyitems(config, items):
    strays = sorted({Path(item.nodeid.split("::")[0]).stem for item in items
                     if LABEL_STUDIO_FIXTURES & set(getattr(item, "fixturenames", ()))} - LABEL_STUDIO_MODULES)
    if strays:
        raise pytest.UsageError(f"tests/conftest.py: LABEL_STUDIO_MODULES misses {strays}, whose tests use the "
                                "Label Studio server; add them so one worker starts it")
    rank = {name: k for k, name in enumerate(LONG_FIRST)}
    items.sort(key=lambda item: rank.get(group_of(item.nodeid), len(rank)))  # stable: the rest keep their order


def pytest_xdist_make_scheduler(config, log):
    from xdist.scheduler import LoadScopeScheduling

    class GroupScheduling(LoadScopeScheduling):
        """xdist's scope scheduling, with :func:`group_of` as the scope."""

        def _split_scope(self, nodeid: str) -> str:
            return group_of(nodeid)

    config.option.loadscopereorder = False  # keep LONG_FIRST's order, not the most tests first
    return GroupScheduling(config, log)


def once(tmp_path_factory, name: str, make: Callable[[Path], Path]) -> Path:
    """``make(folder)``, made once per test run: alone in a temporary folder of this session, or
    under pytest-xdist in a folder every worker shares, the others waiting for the first."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return make(tmp_path_factory.mktemp(name))
    shared = tmp_path_factory.getbasetemp().parent / "shared"
    shared.mkdir(exist_ok=True)
    folder, done = shared / name, shared / f"{name}.done"
    with FileLock(shared / f"{name}.lock"):
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            done.write_text(str(make(folder)))
        return Path(done.read_text())


def default_build(benchmark: str, tmp_path_factory) -> Path:
    """A full build of a benchmark with its default config, made once per test run."""
    from cogforge.core import registry

    def make(folder: Path) -> Path:
        registry.get(benchmark).build(folder / "build", progress=False)
        return folder / "build"

    return once(tmp_path_factory, benchmark, make)


def default_release(benchmark: str, build: Path, tmp_path_factory) -> Path:
    """That build released as 1.0.0 (what `make release` does), made once per test run."""
    from cogforge.exports.release import release

    return once(tmp_path_factory, f"{benchmark}-release",
                lambda root: release(build, "1.0.0", root, decisions=root / "none.jsonl"))


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture(scope="session")
def carv_build(tmp_path_factory) -> Path:
    """A full CARV build with the default config (5,500 items)."""
    return default_build("carv", tmp_path_factory)


@pytest.fixture(scope="session")
def constructure_build(tmp_path_factory) -> Path:
    """A full CONSTRUCTURE build with the default config (built-in emoji images)."""
    return default_build("constructure", tmp_path_factory)


@pytest.fixture(scope="session")
def cogevolve_build(tmp_path_factory) -> Path:
    """A full CogEvolve build with the default config (WordNet graphs, Twemoji schemas)."""
    return default_build("cogevolve", tmp_path_factory)


@pytest.fixture(scope="session")
def wn():
    """WordNet 3.0 through nltk, read once for the session."""
    from cogforge.generators import wordnet

    return wordnet.reader()


@pytest.fixture(scope="session")
def items(cogevolve_build) -> list[dict]:
    """The CogEvolve build's items (test modules of other benchmarks define their own ``items``)."""
    return read_jsonl(cogevolve_build / "items.jsonl")


@pytest.fixture(scope="session")
def carv_release(carv_build, tmp_path_factory) -> Path:
    """The full CARV build released as 1.0.0 (what `make release` does)."""
    return default_release("carv", carv_build, tmp_path_factory)


@pytest.fixture(scope="session")
def constructure_release(constructure_build, tmp_path_factory) -> Path:
    """The full CONSTRUCTURE build released as 1.0.0."""
    return default_release("constructure", constructure_build, tmp_path_factory)


@pytest.fixture(scope="session")
def cogevolve_release(cogevolve_build, tmp_path_factory) -> Path:
    """The full CogEvolve build released as 1.0.0."""
    return default_release("cogevolve", cogevolve_build, tmp_path_factory)


@pytest.fixture(scope="session")
def symbols_build(tmp_path_factory) -> Path:
    """A full symbols build with the default config (every domain module)."""
    return default_build("symbols", tmp_path_factory)


@pytest.fixture(scope="session")
def symbols_release(symbols_build, tmp_path_factory) -> Path:
    """The full symbols build released as 1.0.0."""
    return default_release("symbols", symbols_build, tmp_path_factory)


@pytest.fixture(scope="session")
def corecognition_build(tmp_path_factory) -> Path:
    """A full CoreCognition build with the default config (every concept module)."""
    return default_build("corecognition", tmp_path_factory)


@pytest.fixture(scope="session")
def corecognition_release(corecognition_build, tmp_path_factory) -> Path:
    """The full CoreCognition build released as 1.0.0."""
    return default_release("corecognition", corecognition_build, tmp_path_factory)


# --------------------------------------------------------------------------- a benchmark from outside
# examples/shapecount is a package of its own. pip installs it into a folder of its own (the
# .venv is not changed), and the `cogforge` processes that use it have that folder on their
# PYTHONPATH: cogforge finds the benchmark through the package's entry point.

EXAMPLE = ROOT / "examples" / "shapecount"
COGFORGE = Path(sys.executable).with_name("cogforge")


def shapecount_cli(site: Path, *argv, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    """``cogforge ARGV...`` in a process where the example package is installed."""
    return subprocess.run([str(COGFORGE), *map(str, argv)], capture_output=True, text=True, cwd=cwd, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(site), **(env or {})})


@pytest.fixture(scope="session")
def shapecount_site(tmp_path_factory) -> Path:
    """examples/shapecount installed by pip (from a copy: setuptools writes build/ beside the sources)."""
    def make(tmp: Path) -> Path:
        shutil.copytree(EXAMPLE, tmp / "src", ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                        "--no-deps", "--no-build-isolation", "--target", str(tmp / "site"), str(tmp / "src")],
                       check=True, capture_output=True)
        return tmp / "site"

    return once(tmp_path_factory, "shapecount", make)


@pytest.fixture(scope="session")
def shapecount_build(shapecount_site, tmp_path_factory) -> Path:
    """`cogforge build shapecount` with the package's default config (144 items)."""
    def make(tmp: Path) -> Path:
        result = shapecount_cli(shapecount_site, "build", "shapecount", "--out", tmp / "build", "--quiet", cwd=tmp)
        assert result.returncode == 0, result.stderr
        return tmp / "build"

    return once(tmp_path_factory, "shapecount-build", make)


@pytest.fixture(scope="session")
def shapecount_release_folder(shapecount_site, shapecount_build, tmp_path_factory) -> Path:
    """`cogforge release` of that build as 1.0.0."""
    def make(tmp: Path) -> Path:
        result = shapecount_cli(shapecount_site, "release", shapecount_build, "--version", "1.0.0",
                                "--releases", tmp, cwd=tmp)
        assert result.returncode == 0, result.stderr
        return tmp / "shapecount" / "1.0.0"

    return once(tmp_path_factory, "shapecount-releases", make)


@pytest.fixture
def shapecount_release(shapecount_release_folder, shapecount_site, monkeypatch) -> Path:
    """The ShapeCount release, with the package importable in this process for one test (the
    shared export tests score releases in process)."""
    monkeypatch.syspath_prepend(str(shapecount_site))
    return shapecount_release_folder


# --------------------------------------------------------------------------- the wheel beside lmms-eval
# .venv-lmms holds cogforge's pins, lmms-eval 0.7.3 with its dependencies and Hugging Face's
# evaluate and datasets (exports/requirements-lmms-eval.lock), but not cogforge: the session
# builds cogforge's wheel from the working tree and installs it there, so lmms-eval's own code
# and the code under test run in one environment.

FIELD_VENV = ROOT / ".venv-lmms"
# all that `pip check` may name there: the lock leaves out torchvision (no CPU build), so timm too
FIELD_UNMET = {"lmms-eval 0.7.3 requires timm, which is not installed.",
               "lmms-eval 0.7.3 requires torchvision, which is not installed."}


def field_env(**extra: str) -> dict:
    """The environment of a process in .venv-lmms: nothing of the repository on its path."""
    return {**{k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, **extra}


@pytest.fixture(scope="session")
def wheel(tmp_path_factory) -> Path:
    """cogforge's wheel from the working tree, built as `make wheel` builds it: `python -m build`
    (an sdist, then the wheel from the sdist) with the setuptools that requirements.lock pins."""
    def make(out: Path) -> Path:
        proc = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)],
                              capture_output=True, text=True)
        assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
        (found,) = out.glob("cogforge-*.whl")
        return found

    return once(tmp_path_factory, "dist", make)


@pytest.fixture(scope="session")
def field_python(wheel, tmp_path_factory) -> Path:
    """.venv-lmms's python with the session's wheel installed; `pip check` names nothing but FIELD_UNMET."""
    python = FIELD_VENV / "bin" / "python"
    assert python.is_file(), "run `make test` (it installs .venv-lmms)"

    return once(tmp_path_factory, "field-python", lambda _: install_wheel(python, wheel, FIELD_UNMET))


def install_wheel(python: Path, wheel: Path, unmet: set[str] = frozenset()) -> Path:
    """The session's wheel installed into a field tool's environment; `pip check` names nothing but ``unmet``."""
    pip = [str(python), "-m", "pip", "--disable-pip-version-check"]
    proc = subprocess.run([*pip, "install", "--quiet", "--no-deps", "--force-reinstall", str(wheel)],
                          capture_output=True, text=True, env=field_env())
    assert proc.returncode == 0, proc.stderr[-3000:]
    check = subprocess.run([*pip, "check"], capture_output=True, text=True, env=field_env())
    assert set(check.stdout.splitlines()) - {"No broken requirements found."} <= unmet, check.stdout
    return python


@pytest.fixture(scope="session")
def carv_items(carv_build) -> list[dict]:
    return read_jsonl(carv_build / "items.jsonl")


@pytest.fixture(scope="session")
def carv_world() -> dict:
    """The vocabulary file, read directly (not through the generator's code)."""
    return json.loads((ROOT / "generators" / "data" / "carv_world.json").read_text())


def write_small_config(path: Path, cells: list[tuple[str, str, str, int, int]], seed: int = 0) -> Path:
    """A CARV config with a few small cells: (id, setting, operation, atomic, count)."""
    lines = [f"seed = {seed}", 'renderer = "procedural"']
    for cid, setting, op, atomic, count in cells:
        lines += ["[[cells]]", f'id = "{cid}"', f'setting = "{setting}"', f'operation = "{op}"',
                  f"atomic = {atomic}", f"count = {count}", 'column = "x"']
    path.write_text("\n".join(lines) + "\n")
    return path


def toy_image(seed: int, size=(64, 64)) -> bytes:
    """A distinct, non-blank PNG: coloured stripes whose layout depends on ``seed``."""
    import io
    import random

    from PIL import Image, ImageDraw

    rng = random.Random(seed)
    image = Image.new("RGB", size, (rng.randrange(256), rng.randrange(256), rng.randrange(256)))
    draw = ImageDraw.Draw(image)
    for _ in range(6):
        x0, y0 = rng.randrange(size[0]), rng.randrange(size[1])
        draw.rectangle([x0, y0, x0 + rng.randrange(8, 30), y0 + rng.randrange(8, 30)],
                       fill=(rng.randrange(256), rng.randrange(256), rng.randrange(256)))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def make_toy_build(out: Path, items: list[dict], benchmark: str = "toy") -> Path:
    """A build folder of hand-written items; ``images`` holds seeds for :func:`toy_image`."""
    from cogforge.core.buildio import BuildWriter
    from cogforge.core.record import Item

    with BuildWriter(out) as writer:
        records = []
        for n, spec in enumerate(items):
            paths = [writer.add_image(toy_image(s)) for s in spec.get("images", [n])]
            records.append(Item(id=spec.get("id", f"{benchmark}-{n:04d}"), benchmark=benchmark,
                                task=spec.get("task", "t"), split=spec.get("split", "test"),
                                question=spec.get("question", f"question {n}?"), images=paths,
                                options=spec.get("options"), answer=spec["answer"],
                                meta=spec.get("meta", {})))
        writer.write_items(records)
        writer.commit({"benchmark": benchmark, "seed": 0, "media": {"size": [64, 64], "mode": "RGB"},
                       "counts": {"items": len(records)}})
    return out


def balanced_mcq(n: int, task: str = "t") -> list[dict]:
    """Multiple-choice items with answers spread evenly over positions and texts."""
    words = ["red", "green", "blue", "yellow"]
    out = []
    for i in range(n):
        options = words[i % 4:] + words[:i % 4]
        out.append({"options": options, "answer": options[(i // 4) % 4], "task": task,
                    "question": f"which colour is {i}?"})
    return out


# --------------------------------------------------------------------------- Label Studio
# One real server on loopback for the whole session: annotation tests of every
# benchmark share it (starting one takes most of a minute on two cores).


@pytest.fixture(scope="session")
def root(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("ls-root")


LS_DB_TEMPLATE = ROOT / ".cache" / "label-studio-db" / "label_studio.sqlite3"  # Makefile: migrated once


@pytest.fixture(scope="session")
def server(root):
    creds = Credentials("admin@cogforge.test", secrets.token_urlsafe(12), secrets.token_hex(20))
    data = root / "ls-data"
    data.mkdir()
    if LS_DB_TEMPLATE.is_file():  # a copy of the migrated database: the start skips the migrations
        shutil.copyfile(LS_DB_TEMPLATE, data / LS_DB_TEMPLATE.name)
    srv = start(free_port(), data_dir=data, document_root=root, creds=creds)
    yield srv
    srv.stop()


@pytest.fixture(scope="session")
def conn(server):
    return projects.connect(server.url, server.creds.token)


@pytest.fixture(scope="session")
def people(conn) -> dict[str, int]:
    ids = {}
    for name in ("ann1", "ann2", "ann3"):
        user = conn.client.users.create(username=name, email=f"{name}@cogforge.test",
                                        password=secrets.token_urlsafe(12))
        ids[user.email] = user.id
    return ids


# --------------------------------------------------------------------------- a Ray cluster
# A real Ray cluster on this machine for the distributed builds (tests/test_distributed.py): a
# head and a second worker node, one CPU each, no dashboard UI, started once and stopped at the
# end of the session. Builds reach it by its address, as they would reach a cluster of several
# machines. The nodes take Ray's default node address (this machine's own interface): Ray
# rewrites 127.0.0.1 in the address a driver is given to that address, so a cluster bound to
# 127.0.0.1 cannot be reached by `--address 127.0.0.1:PORT`.


@pytest.fixture(scope="session")
def ray_cluster():
    """``ray.cluster_utils.Cluster``: ``.address`` is the head's HOST:PORT, ``.worker_nodes``
    the second node (a test may remove it for a one-node build and add one back)."""
    import signal

    import ray
    from ray.cluster_utils import Cluster

    # Ray's node sets a SIGTERM handler that kills the node's processes; the forked workers of
    # later tests would inherit it. The nodes die with this process anyway (Linux fate-sharing).
    sigterm = signal.getsignal(signal.SIGTERM)
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    signal.signal(signal.SIGTERM, sigterm)
    _RAY_CLUSTERS.append(cluster)
    try:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        yield cluster
    finally:
        _stop_ray_clusters()


_RAY_CLUSTERS: list = []  # the session's cluster while it runs


def _stop_ray_clusters() -> None:
    import ray

    ray.shutdown()  # a driver a failed test left connected
    while _RAY_CLUSTERS:
        _RAY_CLUSTERS.pop().shutdown()


def pytest_runtest_teardown(item, nextitem):
    """The cluster's nodes (raylets, GCS, agents) stop with the "ray" group, the one group
    that uses them, rather than idling beside the rest of the run on the same two cores."""
    if _RAY_CLUSTERS and group_of(item.nodeid) == "ray" and (nextitem is None or group_of(nextitem.nodeid) != "ray"):
        _stop_ray_clusters()


# --------------------------------------------------------------------------- a tiny diffusers model
# The refinement backend (generators/refine.py) with a real pipeline and no download: a Stable
# Diffusion img2img pipeline of the real classes with tiny configs and random weights (UNet 8/16
# channels, a 2-block VAE, a 2-layer CLIP text model, a byte-level CLIP tokenizer from a vocab.json
# and merges.txt it writes), saved with save_pretrained; `make bench` measures the backend on the
# same model. Tests load it as a user's model folder.


@pytest.fixture(scope="session")
def tiny_pipeline(tmp_path_factory) -> Path:
    """A folder holding a tiny StableDiffusionImg2ImgPipeline (random weights, 32 px), as
    save_pretrained writes it (:func:`cogforge.bench.make_tiny_pipeline`)."""
    from cogforge.bench import make_tiny_pipeline

    return once(tmp_path_factory, "tiny-pipeline", make_tiny_pipeline)
