"""CARV items: compositional analogies over property changes (paper sections 3 and 4).

A state assigns a value to each of five properties. An atomic change is a triple
``(property, from, to)``; ``T(I, I')`` is the set of atomic changes between two
states. An item shows one or two context pairs ``(I_k, I_k')`` with
``T_k = T(I_k, I_k')``, a query ``I_q``, and asks for a caption of
``I_a = Apply(O(T1, T2), I_q)`` where ``O`` is union, intersection or difference
(the single-step cell uses ``T = T1``).

Sampling follows Algorithm 1, with balance made exact. A cell's *types* are the
ordered pairs ``(P1, P2)`` of property sets that T1 and T2 change (just ``P1`` for
single-step). The feasible types of a cell are enumerated exactly, and the cell's
count is spread over them as evenly as it divides. For one type:

1. For each property both pairs change, choose a *pattern*: ``same`` (T1 and T2
   hold the identical atomic change) or ``diff`` (they hold different ones). The
   rules: union needs every shared property ``same`` (otherwise one property would
   be sent to two values) and T1 != T2; intersection needs at least one ``same``
   and T1 != T2; difference needs at least one ``same`` (so the operation removes
   something) and T1 \\ T2 non-empty. The valid patterns are enumerated; one is
   drawn uniformly.
2. Shared source: one source state, T1 and T2 applied to it; the query is the
   source. Different source: I2 agrees with I1 on every property T touches (and on
   every ``same`` property), the query agrees with both there, and the three
   states differ elsewhere, so T is defined on the query. Single-step: the query
   agrees with I1 on T's properties and differs elsewhere.
3. A candidate is rejected if the answer state equals an image already shown (a
   copy would then answer it), if it uses an excluded state, or if the same item
   was drawn before.

All randomness comes from ``random.Random`` seeded per cell from the build seed.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import os
import random
import time
import tomllib
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Annotated, Callable, Iterable, Literal

from pydantic import Field, model_validator

from tqdm import tqdm

from cogforge import __version__
from cogforge.core import shards as sharding
from cogforge.core.buildio import BuildWriter
from cogforge.core.executor import Executor, use
from cogforge.core.parallel import draw_all
from cogforge.core.config import ConfigError, RunConfig, Schema, line_of, load
from cogforge.core.stats import build_stats
from cogforge.core.record import Item
from cogforge.generators import refine as refining  # registers the "refine" renderer
from cogforge.generators.carv import (PROPERTIES, RENDERERS, SIZE, ProceduralRenderer, State, World, get_renderer,
                                      load_world)
from cogforge.generators.refine import Job, RefineRenderer, RefineSettings

NAME = "carv"
DEFAULT_CONFIG = Path(__file__).with_suffix(".toml")

Atom = tuple[str, str, str]
Setting = Literal["single", "shared", "different"]
Operation = Literal["single", "union", "intersection", "difference"]
_MAX_TRIES = 20_000


class SamplingError(RuntimeError):
    """A cell cannot be filled as configured."""


# --------------------------------------------------------------------------- set algebra


def transformation(a: State, b: State) -> frozenset[Atom]:
    """T(a, b): the atomic changes from state ``a`` to state ``b`` (paper eq. 1)."""
    return frozenset((p, x, y) for p, x, y in zip(PROPERTIES, a, b) if x != y)


def apply(t: Iterable[Atom], state: State) -> State:
    """Apply(T, state); raises if T is not defined on the state."""
    values = state._asdict()
    for prop, old, new in t:
        if values[prop] != old:
            raise ValueError(f"change ({prop}, {old}, {new}) does not apply: {prop} is {values[prop]}")
        values[prop] = new
    return State(**values)


def compose(operation: Operation, t1: frozenset[Atom], t2: frozenset[Atom]) -> frozenset[Atom]:
    if operation == "single":
        return t1
    if operation == "union":
        return t1 | t2
    if operation == "intersection":
        return t1 & t2
    if operation == "difference":
        return t1 - t2
    raise ValueError(f"unknown operation {operation!r}")


def atoms_list(t: Iterable[Atom]) -> list[list[str]]:
    """A transformation as JSON: ``[[property, from, to], ...]`` in property order."""
    return [list(a) for a in sorted(t, key=lambda a: (PROPERTIES.index(a[0]), a[1], a[2]))]


# --------------------------------------------------------------------------- cells and types


@dataclass(frozen=True)
class Cell:
    id: str
    setting: Setting
    operation: Operation
    atomic: int
    count: int
    column: str


@dataclass(frozen=True)
class Plan:
    """One feasible way to fill a type: the shared properties' patterns to draw from."""

    p1: tuple[str, ...]
    p2: tuple[str, ...]
    patterns: tuple[dict[str, str], ...]

    @property
    def key(self) -> str:
        return "+".join(self.p1) + ("" if not self.p2 else " | " + "+".join(self.p2))


def _target_props(operation: Operation, p1: set, p2: set, same: set) -> set:
    if operation in ("single",):
        return set(p1)
    if operation == "union":
        return p1 | p2
    if operation == "intersection":
        return set(same)
    return p1 - same  # difference


def _prod(world: World, props: Iterable[str]) -> int:
    out = 1
    for p in props:
        out *= len(world.values[p])
    return out


def _pattern_ok(cell: Cell, world: World, p1: set, p2: set, pattern: dict[str, str]) -> bool:
    same = {p for p, kind in pattern.items() if kind == "same"}
    diff = set(pattern) - same
    op, setting = cell.operation, cell.setting
    if op == "union" and (diff or p1 == p2):
        return False
    if op in ("intersection", "difference") and not same:
        return False
    if op in ("intersection", "difference") and p1 == p2 and not diff:
        return False
    target = _target_props(op, p1, p2, same)
    for p in diff:
        # Two different changes of p from the same value need two other values; a
        # different source may instead start p elsewhere, unless p is in T (then
        # every source must agree on it).
        from_may_differ = setting == "different" and p not in target
        if not from_may_differ and len(world.values[p]) < 3:
            return False
    if setting == "different":
        forced = target | same | (diff & target)
        if forced == set(PROPERTIES):
            return False  # I2 could not differ from I1
        if _prod(world, set(PROPERTIES) - target) < 3:
            return False  # I1, I2, Iq could not be pairwise different
    return True


def plans(cell: Cell, world: World) -> list[Plan]:
    """Every feasible type of a cell, in a fixed order."""
    combos = list(itertools.combinations(PROPERTIES, cell.atomic))
    if cell.setting == "single":
        return [Plan(c, (), ({},)) for c in combos]
    out = []
    for c1, c2 in itertools.product(combos, combos):
        p1, p2 = set(c1), set(c2)
        shared = [p for p in PROPERTIES if p in p1 & p2]
        patterns = []
        for kinds in itertools.product(("same", "diff"), repeat=len(shared)):
            pattern = dict(zip(shared, kinds))
            if _pattern_ok(cell, world, p1, p2, pattern):
                patterns.append(pattern)
        if patterns:
            out.append(Plan(c1, c2, tuple(patterns)))
    return out


def spread(total: int, n: int, rng: random.Random) -> list[int]:
    """Split ``total`` into ``n`` counts differing by at most one; extras go at random."""
    counts = [total // n] * n
    for i in rng.sample(range(n), total % n):
        counts[i] += 1
    return counts


# --------------------------------------------------------------------------- sampling


def _other(rng: random.Random, world: World, prop: str, *avoid: str) -> str:
    return rng.choice([v for v in world.values[prop] if v not in avoid])


def _draw(cell: Cell, plan: Plan, world: World, rng: random.Random) -> dict[str, State]:
    """One candidate for a type; the caller checks the global rejection rules."""
    pattern = rng.choice(plan.patterns)
    p1, p2 = set(plan.p1), set(plan.p2)
    same = {p for p, kind in pattern.items() if kind == "same"}
    target = _target_props(cell.operation, p1, p2, same)
    i1 = State(*(rng.choice(world.values[p]) for p in PROPERTIES))
    t1 = {p: _other(rng, world, p, getattr(i1, p)) for p in plan.p1}

    if cell.setting == "single":
        query = _vary(i1, target, world, rng, avoid=[i1])
        return {"source_1": i1, "target_1": _set(i1, t1), "query": query}

    if cell.setting == "shared":
        t2 = {}
        for p in plan.p2:
            if pattern.get(p) == "same":
                t2[p] = t1[p]
            elif p in pattern:  # diff
                t2[p] = _other(rng, world, p, getattr(i1, p), t1[p])
            else:
                t2[p] = _other(rng, world, p, getattr(i1, p))
        return {"source_1": i1, "target_1": _set(i1, t1), "source_2": i1,
                "target_2": _set(i1, t2), "query": i1}

    # Different source.
    fixed = target | same
    for _ in range(_MAX_TRIES):
        i2 = {p: (getattr(i1, p) if p in fixed else rng.choice(world.values[p])) for p in PROPERTIES}
        for p, kind in pattern.items():
            if kind == "diff" and p not in fixed and len(world.values[p]) < 3:
                i2[p] = _other(rng, world, p, getattr(i1, p))  # only a new start can differ
        t2 = {}
        for p in plan.p2:
            if pattern.get(p) == "same":
                t2[p] = t1[p]
            elif p in pattern:  # diff: the atoms must not coincide
                avoid = (t1[p],) if i2[p] == getattr(i1, p) else ()
                t2[p] = _other(rng, world, p, i2[p], *avoid)
            else:
                t2[p] = _other(rng, world, p, i2[p])
        source_2 = State(**i2)
        if source_2 != i1:
            break
    else:
        raise SamplingError(f"{cell.id}, type {plan.key}: no second source differs from the first")
    query = _vary(i1, target, world, rng, avoid=[i1, source_2])
    return {"source_1": i1, "target_1": _set(i1, t1), "source_2": source_2,
            "target_2": _set(source_2, t2), "query": query}


def _set(state: State, values: dict[str, str]) -> State:
    return state._replace(**values)


def _vary(base: State, keep: set, world: World, rng: random.Random, avoid: list[State]) -> State:
    """A state equal to ``base`` on ``keep`` and different from every state in ``avoid``."""
    for _ in range(_MAX_TRIES):
        candidate = State(*(getattr(base, p) if p in keep else rng.choice(world.values[p])
                            for p in PROPERTIES))
        if candidate not in avoid:
            return candidate
    raise SamplingError(f"no query state keeps {sorted(keep)} and differs from {avoid}")


def sample_cell(cell: Cell, world: World, seed: int, allowed: set[State], part: int | str = 0,
                cell_plans: list[Plan] | None = None) -> list[dict[str, State]]:
    """Draw ``cell.count`` distinct items for one cell, balanced over its types. ``part``
    numbers a sharded build's runs of the cell's items (part 0 is the whole cell of a
    default build; each part has its own generator). ``cell_plans``: ``plans(cell, world)``
    when the caller has them."""
    rng = random.Random(f"carv:{seed}:{cell.id}" + (f":{part}" if part else ""))
    cell_plans = plans(cell, world) if cell_plans is None else cell_plans
    if not cell_plans:
        raise SamplingError(f"cell {cell.id}: no feasible combination of changed properties")
    counts = spread(cell.count, len(cell_plans), rng)
    seen: set[tuple] = set()
    drawn: list[dict[str, State]] = []
    for plan, count in zip(cell_plans, counts):
        made, tries = 0, 0
        while made < count:
            tries += 1
            if tries > _MAX_TRIES:
                raise SamplingError(
                    f"cell {cell.id}, type {plan.key}: only {made} of {count} distinct items "
                    f"after {_MAX_TRIES} draws; the allowed states are too few for this count")
            states = _draw(cell, plan, world, rng)
            t1 = transformation(states["source_1"], states["target_1"])
            t2 = (transformation(states["source_2"], states["target_2"])
                  if "source_2" in states else frozenset())
            answer = apply(compose(cell.operation, t1, t2), states["query"])
            key = tuple(states.values())
            if answer in key or key in seen or not allowed.issuperset(key + (answer,)):
                continue
            seen.add(key)
            drawn.append({**states, "answer": answer})
            made += 1
    rng.shuffle(drawn)
    return drawn


# --------------------------------------------------------------------------- prompts


_CHANGE = ("A change alters one property of the scene: which item is shown, how many "
           "items there are (one or two), the piece of furniture (table or chair), the "
           "furniture's colour (wooden, red or blue), or where the items are relative to "
           "the furniture (on, under, to the left of, to the right of).")
# The format example's item is none the world draws, so the example is never an answer
# (QC's `examples` check): "one bowl on a red chair" was the key of 12 items.
_EXAMPLE_ITEMS = ("vase", "lamp", "clock", "kettle")


@functools.cache
def _reply() -> str:
    drawn = {word for forms in load_world().words["subject"].values() for word in forms}
    noun = next(n for n in _EXAMPLE_ITEMS if n not in drawn)
    return (f'Describe the resulting image in one short caption, such as "one {noun} on a red '
            'chair". Answer in JSON only: {"caption": "<your caption>"}')


_OPERATION = {
    "union": "Combine them: take every change that is in T1 or in T2 (the union of T1 and T2)",
    "intersection": "Take only the changes that are in both T1 and T2 (the intersection of T1 and T2)",
    "difference": "Take the changes that are in T1 but not in T2 (the difference T1 minus T2)",
}


def prompt(cell: Cell) -> str:
    if cell.operation == "single":
        return ("You will see 3 images. Images 1 and 2 form a pair: image 2 is image 1 after "
                f"a set of changes. {_CHANGE} Apply the same changes to image 3, the query "
                f"image. {_reply()}")
    return ("You will see 5 images. Images 1 and 2 form the first pair: image 2 is image 1 "
            "after a set of changes, T1. Images 3 and 4 form the second pair: image 4 is "
            f"image 3 after a set of changes, T2. {_CHANGE} {_OPERATION[cell.operation]}, "
            f"and apply those changes to image 5, the query image. {_reply()}")


# --------------------------------------------------------------------------- build


class CellConfig(Schema):
    """One Table 1 cell."""

    id: Annotated[str, Field(min_length=1)]
    setting: Setting
    operation: Operation
    atomic: Annotated[int, Field(ge=1, le=len(PROPERTIES))]
    count: Annotated[int, Field(ge=1)]
    column: str

    @model_validator(mode="after")
    def _single(self):
        if (self.setting == "single") != (self.operation == "single"):
            raise ValueError(f"cell {self.id!r}: a single-step cell has setting and operation 'single', "
                             "and only such a cell has")
        return self


class RefineQC(Schema):
    """``[refine.qc]``: thresholds of the property check (``qc/refine.py``); a key left out
    keeps the check's default (README, "The property check")."""

    edge_iou: Annotated[float, Field(ge=0, le=1)] | None = None
    object_edge_iou: Annotated[float, Field(ge=0, le=1)] | None = None
    hue: Annotated[float, Field(ge=0, le=180)] | None = None
    count_tolerance: Annotated[int, Field(ge=0)] | None = None


class RefineConfig(Schema):
    """``[refine]``: the diffusers refinement backend (``renderer = "refine"``;
    :mod:`cogforge.generators.refine`)."""

    model: Annotated[str, Field(min_length=1)]  # a local model folder, or a model id in the local HF cache
    revision: str | None = None  # of a cached id (branch, tag or commit); a folder is hashed
    pipeline: Literal["img2img", "controlnet", "edit"] = "img2img"
    controlnet: str | None = None  # the ControlNet's folder or cached id (pipeline = "controlnet")
    controlnet_revision: str | None = None
    strength: Annotated[float, Field(gt=0, le=1)] = 0.5
    steps: Annotated[int, Field(ge=1, le=1000)] = 30
    guidance: Annotated[float, Field(ge=0, le=100)] = 7.5
    image_guidance: Annotated[float, Field(ge=0, le=100)] = 1.5
    size: Annotated[int, Field(ge=32, le=2048, multiple_of=8)] = 512
    batch: Annotated[int, Field(ge=1, le=256)] = 4
    device: Annotated[str, Field(pattern=r"^(cpu|cuda(:\d+)?|mps)$")] = "cpu"
    dtype: Literal["float32", "float16", "bfloat16"] = "float32"
    threads: Annotated[int, Field(ge=1, le=1024)] | None = None  # CPU threads of torch
    max_attempts: Annotated[int, Field(ge=1, le=20)] = 3
    cache: str = ".cache/refine"  # refined images by key, relative to the working folder
    qc: RefineQC | None = None


class Config(Schema):
    """``builders/carv.toml``."""

    seed: Annotated[int, Field(ge=0)] = 0
    renderer: str = "procedural"
    refine: RefineConfig | None = None  # read when the renderer is "refine" (config or --renderer)
    citation: str = ""  # BibTeX of the paper; releases put it in the card and Croissant `citeAs`
    run: RunConfig | None = None  # executor, scale, shard size (not in the manifest)
    cells: Annotated[list[CellConfig], Field(min_length=1)]

    @model_validator(mode="after")
    def _cells(self):
        ids = [c.id for c in self.cells]
        repeated = sorted({i for i in ids if ids.count(i) > 1})
        if repeated:
            raise ValueError(f"cell ids must be unique; repeated: {repeated}")
        if self.renderer not in RENDERERS:
            raise ValueError(f"renderer {self.renderer!r} is unknown; available: {sorted(RENDERERS)}")
        if self.renderer == "refine" and self.refine is None:
            raise ValueError('renderer = "refine" needs a [refine] table (model = FOLDER_OR_ID, ...)')
        return self


def load_config(path: Path | str | None = None) -> dict:
    """The config as a dict, validated (:class:`Config`), with every cell feasible."""
    path = Path(path or DEFAULT_CONFIG)
    config = load(path, Config)
    world = load_world()
    for k, cell in enumerate(config.cells):
        if not plans(Cell(**cell.model_dump()), world):
            raise ConfigError(f"{path}: key cells[{k}] ({cell.id}): no combination of {cell.atomic} changed "
                              f"properties fits setting {cell.setting!r} with operation {cell.operation!r}; "
                              "lower 'atomic' or change the operation")
    return config.model_dump()


def _cells(config: dict) -> list[Cell]:
    return [Cell(**raw) for raw in config["cells"]]


def make_item(cell: Cell, number: int, states: dict[str, State], image_of: dict[State, str],
              world: World) -> Item:
    """Item ``number`` (1-based) of a cell, from its drawn states."""
    t1 = transformation(states["source_1"], states["target_1"])
    t2 = (transformation(states["source_2"], states["target_2"])
          if "source_2" in states else None)
    t = compose(cell.operation, t1, t2 or frozenset())
    shown = [k for k in ("source_1", "target_1", "source_2", "target_2", "query") if k in states]
    meta = {
        "cell": cell.id,
        "setting": cell.setting,
        "operation": cell.operation,
        "atomic": cell.atomic,
        "table2_column": cell.column,
        "states": {k: v._asdict() for k, v in states.items()},
        "T1": atoms_list(t1),
        "T2": atoms_list(t2) if t2 is not None else None,
        "T": atoms_list(t),
        "answer_image": image_of[states["answer"]],
    }
    return Item(id=f"carv-{cell.id}-{number:04d}", benchmark=NAME, task=cell.id, split="test",
                question=prompt(cell), images=[image_of[states[k]] for k in shown], options=None,
                answer=world.caption(states["answer"]), meta=meta)


def make_items(cells: list[Cell], drawn: dict[str, list[dict[str, State]]],
               image_of: dict[State, str], world: World) -> list[Item]:
    return [make_item(cell, number, states, image_of, world)
            for cell in cells for number, states in enumerate(drawn[cell.id], 1)]


def _render_all(renderer, states: list[State], progress: bool) -> list[bytes]:
    return draw_all([partial(renderer.render, s) for s in states], progress, desc="render")


# --------------------------------------------------------------------------- refinement


def _config_error(config_path: Path, key: str, message: str) -> ConfigError:
    text = Path(config_path).read_text(encoding="utf-8")
    line = line_of(text, ("refine", key)) or line_of(text, ("refine",))
    return ConfigError(f"{config_path}{f':{line}' if line else ''}: key refine.{key}: {message}")


def _model_folder(name: str, revision: str | None, config_path: Path, key: str) -> tuple[Path, str]:
    """A model's folder and revision: a local folder (its revision: a hash of its files), or
    the snapshot of a model id in the local Hugging Face cache (its commit). Nothing is
    downloaded."""
    folder = Path(name).expanduser()
    if folder.is_dir():
        marker = "model_index.json" if key == "model" else "config.json"
        if not (folder / marker).is_file():
            raise _config_error(config_path, key, f"{name} has no {marker}, so it is no diffusers "
                                "model folder; give the folder that save_pretrained wrote")
        return folder, revision or refining.folder_revision(folder)
    looks_like_id = name.count("/") == 1 and not name.startswith((".", "/", "~"))
    if looks_like_id:
        try:
            from huggingface_hub import snapshot_download

            snapshot = Path(snapshot_download(name, revision=revision, local_files_only=True))
            return snapshot, snapshot.name
        except Exception as err:  # LocalEntryNotFoundError and kin: not in the cache
            raise _config_error(config_path, key, f"{name!r} is no folder and not in the local Hugging Face "
                                f"cache ({type(err).__name__}); download it once where there is a network "
                                "(`hf download ID`) or give its folder") from None
    raise _config_error(config_path, key, f"no model folder {name}; give the folder that save_pretrained "
                        "wrote (with model_index.json) or the id of a model in the local Hugging Face cache")


def refine_settings(config: dict, seed: int, config_path: Path | str | None = None) -> RefineSettings:
    """The refinement settings of a config with ``renderer = "refine"``, its models resolved;
    a missing model is a :class:`ConfigError` at the line of its key."""
    config_path = Path(config_path or DEFAULT_CONFIG)
    raw = config["refine"]
    if (raw["pipeline"] == "controlnet") != (raw["controlnet"] is not None):
        raise _config_error(config_path, "pipeline", 'pipeline = "controlnet" needs controlnet = FOLDER_OR_ID '
                            "(the ControlNet model), and only it takes one")
    model, revision = _model_folder(raw["model"], raw["revision"], config_path, "model")
    controlnet = controlnet_revision = None
    if raw["pipeline"] == "controlnet":
        folder, controlnet_revision = _model_folder(raw["controlnet"], raw["controlnet_revision"], config_path,
                                                    "controlnet")
        controlnet = str(folder)
    return RefineSettings(
        model=str(model), model_name=raw["model"], revision=revision, pipeline=raw["pipeline"],
        controlnet=controlnet, controlnet_revision=controlnet_revision, strength=raw["strength"],
        steps=raw["steps"], guidance=raw["guidance"], image_guidance=raw["image_guidance"], size=raw["size"],
        batch=raw["batch"], device=raw["device"], dtype=raw["dtype"], threads=raw["threads"], seed=seed)


class RefineCache:
    """Refined images on disk by :func:`cogforge.generators.refine.cache_key`
    (``ROOT/ab/abcd....png``), so a rebuild refines nothing it refined before. Written
    atomically (a temporary file renamed into place): a killed build leaves no half image."""

    def __init__(self, root: Path | str):
        self.root = Path(root)

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.png"

    def get(self, key: str) -> bytes | None:
        path = self._path(key)
        return path.read_bytes() if path.is_file() else None

    def put(self, key: str, data: bytes, suffix: str = ".png") -> None:
        path = self._path(key).with_suffix(suffix)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}")
        tmp.write_bytes(data)
        os.replace(tmp, path)

    def pipeline_class(self, renderer: RefineRenderer, versions: dict[str, str]) -> str:
        """The class name the settings' pipeline loads as: kept beside the images, so that a
        build whose images all come from the cache does not import diffusers (and torch)."""
        s = renderer.settings
        key = hashlib.sha256(json.dumps(["pipeline-class", s.revision, s.pipeline, s.controlnet_revision,
                                         versions]).encode()).hexdigest()
        path = self._path(key).with_suffix(".txt")
        if path.is_file():
            return path.read_text()
        name = renderer.pipeline_class()
        self.put(key, name.encode(), suffix=".txt")
        return name


def _batches(jobs: list[Job], size: int) -> list[list[Job]]:
    return [jobs[i:i + size] for i in range(0, len(jobs), size)]


def _refine_jobs(renderer: RefineRenderer, jobs: list[Job], executor: Executor | None, progress: bool) -> list[bytes]:
    """Refined PNGs of ``jobs`` in order: in this process (one model), or on a Ray cluster
    with one model per actor, an actor per GPU (``device = "cuda"``) or per CPU, fed batches
    through Ray's ``ActorPool``."""
    batches = _batches(jobs, renderer.settings.batch)
    out: list[bytes] = []
    with tqdm(total=len(jobs), desc="refine", unit="image", disable=not progress) as bar:
        if executor is None or executor.name != "ray" or not batches:
            for batch in batches:
                out += renderer.refine(batch)
                bar.update(len(batch))
            return out
        import ray
        from ray.util import ActorPool

        if renderer.settings.device.startswith("cuda"):
            count, resources = int(ray.cluster_resources().get("GPU", 0)), {"num_gpus": 1}
            if not count:
                raise ConfigError('key refine.device: "cuda" but the Ray cluster has no GPU; start its nodes '
                                  'with GPUs, or refine on the CPU (device = "cpu")')
        else:
            count, resources = executor.workers, {"num_cpus": 1}
        worker = ray.remote(RefineRenderer).options(**resources)
        actors = [worker.remote(renderer.settings) for _ in range(min(count, len(batches)))]
        try:
            for made in ActorPool(actors).map(lambda actor, batch: actor.refine.remote(batch), batches):
                out += made
                bar.update(len(made))
        finally:
            for actor in actors:
                ray.kill(actor)
    return out


def _plain(data):
    """Measures as plain JSON values (numpy numbers become floats)."""
    return json.loads(json.dumps(data, default=float))


def refine_all(renderer: RefineRenderer, renders: dict[State, bytes], check: Callable, max_attempts: int,
               cache: RefineCache, executor: Executor | None = None, progress: bool = True) -> dict:
    """Refine every state, check each image against its render, and re-draw a rejected state
    with the next attempt (a new seed) up to ``max_attempts``; then it is dropped.

    Returns ``{"images": {state: png}, "rows": {state: states.jsonl "refine" entry},
    "dropped": [...], "stats": {...}}``; ``stats`` counts images refined now, taken from the
    cache and pipeline calls (it depends on the cache, so the build returns it, never writes it).
    """
    versions = refining.library_versions()
    batch = renderer.settings.batch
    images: dict[State, bytes] = {}
    rows: dict[State, dict] = {}
    last: dict[State, tuple[int, object]] = {}
    stats = {"refined": 0, "from_cache": 0, "pipeline_calls": 0, "rejected": 0}
    pending = sorted(renders)
    for attempt in range(max_attempts):
        if not pending:
            break
        keys = {s: refining.cache_key(renderer.settings, s, attempt, versions) for s in pending}
        found = {s: cache.get(keys[s]) for s in pending}
        todo = [Job(s, renders[s], attempt) for s in pending if found[s] is None]
        for job, png in zip(todo, _refine_jobs(renderer, todo, executor, progress)):
            cache.put(keys[job.state], png)
            found[job.state] = png
        stats["refined"] += len(todo)
        stats["from_cache"] += len(pending) - len(todo)
        stats["pipeline_calls"] += -(-len(todo) // batch)
        rejected = []
        # the check is numpy work of about half a second an image: on every core, or the cluster
        verdicts = draw_all([partial(check, renders[s], found[s], s) for s in pending], progress, desc="check")
        for state, verdict in zip(pending, verdicts):
            if verdict.ok:
                images[state] = found[state]
                rows[state] = {"seed": refining.seed_for(renderer.settings.seed, state, attempt),
                               "attempt": attempt, "measures": _plain(verdict.measures)}
            else:
                rejected.append(state)
                last[state] = (attempt, verdict)
        stats["rejected"] += len(rejected)
        pending = rejected
    dropped = [{"state": s._asdict(), "attempts": max_attempts, "reasons": list(last[s][1].reasons),
                "measures": _plain(last[s][1].measures)} for s in pending]
    return {"images": images, "rows": rows, "dropped": dropped, "stats": stats}


def _images(renderer, states: list[State], progress: bool, config: dict, refine_checker: Callable | None,
            executor: Executor | None) -> dict:
    """Every state's image. Procedural: ``{"images": {state: png}}``. Refined: also the
    renders, the states.jsonl entries, the dropped states and the cache stats."""
    base = ProceduralRenderer() if isinstance(renderer, RefineRenderer) else renderer
    renders = dict(zip(states, _render_all(base, states, progress)))
    if not isinstance(renderer, RefineRenderer):
        return {"images": renders, "renders": None, "rows": {}, "dropped": [], "stats": None}
    if refine_checker is None:
        raise ValueError('renderer "refine" needs the property check: build through the registry '
                         '(cogforge.core.registry.get("carv").build), which gives it')
    raw = config["refine"]
    check = refine_checker(raw["qc"])
    cache = RefineCache(raw["cache"])
    out = refine_all(renderer, renders, check, raw["max_attempts"], cache, executor, progress)
    return {**out, "renders": renders, "pipeline": cache.pipeline_class(renderer, refining.library_versions())}


def _chosen_renderer(name: str, config: dict, config_path) -> str:
    if name not in RENDERERS:
        raise ConfigError(f"--renderer {name}: unknown; available: {', '.join(sorted(RENDERERS))}")
    if name == "refine" and config.get("refine") is None:
        raise ConfigError(f"{config_path or DEFAULT_CONFIG}: --renderer refine needs a [refine] table in the "
                          "config (model = FOLDER_OR_ID, ...; README, \"Photo-like refinement\")")
    return name


def _dropped_too_many(dropped: list[dict], err: SamplingError) -> ConfigError:
    first = dropped[0]
    state = "/".join(first["state"].values())
    return ConfigError(f"the property check dropped {len(dropped)} refined states after {first['attempts']} "
                       f"attempts each (e.g. {state}: {first['reasons'][0]}), and the items cannot be drawn "
                       f"without them ({err}); raise [refine] max_attempts, lower strength, loosen [refine.qc] "
                       "or use another model")


def _renderer(config: dict, seed: int, config_path):
    name = config.get("renderer", "procedural")
    if name == "refine":
        return RefineRenderer(refine_settings(config, seed, config_path))
    return get_renderer(name)


def build(out_dir: Path | str, seed: int | None = None, config_path: Path | str | None = None,
          excluded: Iterable[dict] = (), progress: bool = True, *, scale: int | None = None,
          executor: Executor | None = None, resume: bool = False, shard_size: int | None = None,
          sharded: bool = False, renderer: str | None = None, refine_checker: Callable | None = None) -> dict:
    """Build CARV into ``out_dir``; returns the manifest.

    Args:
        out_dir: the build folder (replaced atomically at the end).
        seed: overrides the config's seed.
        config_path: a TOML file like ``builders/carv.toml``.
        excluded: states (property dicts) that must not appear, e.g. images people rejected.
        progress: show progress bars.
        scale: N times every cell's count (a sharded build). This and the executor and
            shard size default to the config's ``[run]`` table.
        executor: where rendering and shards run (:mod:`cogforge.core.executor`); giving
            one makes a sharded build.
        resume: keep the complete shards of an interrupted sharded build.
        shard_size: items per shard (default :data:`cogforge.core.shards.SHARD_SIZE`).
        sharded: write shards (``items/part-*.jsonl``) even at scale 1 on local processes.
        renderer: overrides the config's ``renderer`` (``--renderer``).
        refine_checker: for ``renderer = "refine"``: ``refine_checker(thresholds: dict | None)``
            gives ``check(render_png, refined_png, state) -> Verdict`` (``qc/refine.py``; the
            benchmark's descriptor passes it, as builders do not import QC).
    """
    started = time.perf_counter()
    config = load_config(config_path)
    if renderer is not None:
        config["renderer"] = _chosen_renderer(renderer, config, config_path)
    run = sharding.RunSettings.of(config.pop("run"), scale, executor, shard_size)
    if sharded or run.sharded or resume:
        with run:
            return _build_sharded(out_dir, config, seed, excluded, progress, run, resume, started, config_path,
                                  refine_checker)
    seed = config.get("seed", 0) if seed is None else seed
    world = load_world()
    cells = _cells(config)
    excluded_states = {State(**s) for s in excluded}
    allowed = set(world.states()) - excluded_states
    renderer = _renderer(config, seed, config_path)

    # Images first: a refined state the property check drops can then not be sampled.
    states = sorted(allowed)
    made = _images(renderer, states, progress, config, refine_checker, None)
    rendered = time.perf_counter()
    states = [s for s in states if s in made["images"]]
    allowed = set(states)
    try:
        drawn = {c.id: sample_cell(c, world, seed, allowed) for c in
                 tqdm(cells, desc="sample", unit="cell", disable=not progress)}
    except SamplingError as err:
        if not made["dropped"]:
            raise
        raise _dropped_too_many(made["dropped"], err) from None
    sampled = time.perf_counter()
    with BuildWriter(out_dir) as writer:
        image_of = {s: writer.add_image(made["images"][s]) for s in states}
        for rel, data in _render_files(made, image_of).items():
            (writer.tmp / rel).parent.mkdir(parents=True, exist_ok=True)
            (writer.tmp / rel).write_bytes(data)
        items = make_items(cells, drawn, image_of, world)
        writer.write_items(items)
        writer.write_text("stats.md", build_stats(items))
        writer.write_text("states.jsonl", _states_jsonl(states, image_of, world, made["rows"]))
        by_cell = {c.id: len(drawn[c.id]) for c in cells}
        manifest = writer.commit({
            **_header(config, seed, renderer, excluded_states, made),
            "counts": {
                "items": len(items),
                "images": len(set(image_of.values())),
                "states": len(states),
                "by_task": by_cell,
                "by_type": {c.id: type_counts(drawn[c.id]) for c in cells},
            },
        })
    done = time.perf_counter()
    # Timings are returned for the summary and the benchmark, never written: the
    # build folder must not depend on how fast the machine is.
    manifest["elapsed_s"] = done - started
    manifest["timings"] = {"render_s": rendered - started, "sample_s": sampled - rendered,
                           "write_s": done - sampled, "rendered": len(states)}
    if made["stats"] is not None:
        manifest["refine_stats"] = made["stats"]
    return manifest


def _render_files(made: dict, image_of: dict[State, str]) -> dict[str, bytes]:
    """A refined build's procedural renders, ``renders/<key>.png`` beside ``images/<key>.png``."""
    if made["renders"] is None:
        return {}
    return {"renders/" + image_of[s].split("/", 1)[1]: made["renders"][s] for s in image_of}


def _header(config: dict, seed: int, renderer, excluded_states: set[State], made: dict) -> dict:
    header = {
        "toolkit": {"name": "cogforge", "version": __version__},
        "benchmark": NAME,
        "seed": seed,
        "config": _recorded(config),
        "renderer": {"name": renderer.name, "version": renderer.version},
        "media": {"size": [SIZE, SIZE], "mode": "RGB"},
        "excluded_states": sorted([s._asdict() for s in excluded_states], key=lambda d: tuple(d.values())),
    }
    if isinstance(renderer, RefineRenderer):
        header["renderer"] = renderer.record(refining.library_versions(), made["pipeline"])
        header["refine"] = {"dropped": made["dropped"], "max_attempts": config["refine"]["max_attempts"],
                            "qc": config["refine"]["qc"], "renders": "renders/<key>.png beside images/<key>.png"}
    return header


def _recorded(config: dict) -> dict:
    """The config as the manifest records it: without the refine cache's folder, which
    changes no image (the cache key says which images are reusable)."""
    if config.get("refine") is None:
        return {k: v for k, v in config.items() if k != "refine"}
    return {**config, "refine": {k: v for k, v in config["refine"].items() if k != "cache"}}


def _states_jsonl(states: list[State], image_of: dict[State, str], world: World, refined: dict | None = None) -> str:
    refined = refined or {}
    rows = []
    for s in states:
        row = {"state": s._asdict(), "caption": world.caption(s), "image": image_of[s]}
        if s in refined:
            row.update(render="renders/" + image_of[s].split("/", 1)[1], refine=refined[s])
        rows.append(json.dumps(row) + "\n")
    return "".join(rows)


def make_shard(shard: sharding.Shard, cells: dict[str, Cell], seed: int, excluded: frozenset[State],
               image_of: dict[State, str]) -> sharding.ShardOutput:
    """A sharded build's shard: ``shard.count`` items of one cell, drawn from (seed, cell,
    part) alone and numbered from ``shard.start + 1``."""
    world = load_world()
    cell = replace(cells[shard.task], count=shard.count)
    drawn = sample_cell(cell, world, seed, set(world.states()) - excluded, part=shard.part)
    items = [make_item(cell, shard.start + n, states, image_of, world) for n, states in enumerate(drawn, 1)]
    units = [json.dumps([list(s) for s in states.values()]) for states in drawn]
    by_type = {f"{cell.id}: {k}": v for k, v in type_counts(drawn).items()}
    return sharding.ShardOutput(items, {}, units, {"by_type": by_type})


def _build_sharded(out_dir, config, seed, excluded, progress, run: sharding.RunSettings, resume, started,
                   config_path=None, refine_checker=None) -> dict:
    seed = config.get("seed", 0) if seed is None else seed
    world = load_world()
    cells = _cells(config)
    excluded_states = frozenset(State(**s) for s in excluded)
    states = sorted(set(world.states()) - excluded_states)
    renderer = _renderer(config, seed, config_path)
    with use(run.executor):
        made = _images(renderer, states, progress, config, refine_checker, run.executor)
    states = [s for s in states if s in made["images"]]
    image_of = {s: f"images/{hashlib.sha256(made['images'][s]).hexdigest()}.png" for s in states}
    files = {image_of[s]: made["images"][s] for s in states}
    files.update(_render_files(made, image_of))
    files["states.jsonl"] = _states_jsonl(states, image_of, world, made["rows"]).encode("utf-8")
    header = {**_header(config, seed, renderer, set(excluded_states), made), "scale": run.scale,
              "counts": {"states": len(states)}}
    plan = sharding.plan(sharding.scaled({c.id: c.count for c in cells}, run.scale), run.shard_size)
    # a state the property check dropped is left out of sampling like an excluded one
    unusable = excluded_states | (set(world.states()) - set(states))
    make = partial(make_shard, cells={c.id: c for c in cells}, seed=seed, excluded=frozenset(unusable),
                   image_of=image_of)
    manifest = sharding.build_sharded(out_dir, header, plan, make, run.executor, files=files, resume=resume,
                                      progress=progress)
    if made["stats"] is not None:
        manifest["refine_stats"] = made["stats"]
    return run.finish(manifest, started)


def change_type(states: dict[str, State]) -> str:
    """The balance stratum of an item: which properties T1 (and T2) change."""
    p1 = [p for p, _, _ in atoms_list(transformation(states["source_1"], states["target_1"]))]
    if "source_2" not in states:
        return "+".join(p1)
    p2 = [p for p, _, _ in atoms_list(transformation(states["source_2"], states["target_2"]))]
    return "+".join(p1) + " | " + "+".join(p2)


def type_counts(drawn: list[dict[str, State]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for states in drawn:
        key = change_type(states)
        counts[key] = counts.get(key, 0) + 1
    return dict(sorted(counts.items()))


# --------------------------------------------------------------------------- streams
# The hooks of `cogforge.environments`: item ``index`` of a cell drawn from (seed, cell,
# index, attempt) alone, one item per draw, with the procedural renders as PNG bytes.


def stream_tasks(config: dict) -> list[str]:
    """The cells, in the config's order."""
    return [cell["id"] for cell in config["cells"]]


@functools.cache
def _feasible_atomic(setting: str, operation: str) -> tuple[int, ...]:
    world = load_world()
    probe = Cell("probe", setting, operation, 1, 1, "")
    return tuple(a for a in range(1, len(PROPERTIES) + 1) if plans(replace(probe, atomic=a), world))


def stream_knobs(config: dict) -> dict[str, dict[str, tuple[int, ...]]]:
    """Per cell, ``atomic``: the atomic changes in each context pair (the paper's |T|),
    every value for which the cell's setting and operation have a feasible type."""
    return {cell.id: {"atomic": _feasible_atomic(cell.setting, cell.operation)} for cell in _cells(config)}


@functools.cache
def _stream_image(state: State) -> tuple[str, bytes]:
    """A state's procedural render and its content-addressed name, made once per process."""
    png = ProceduralRenderer().render(state)
    return f"images/{hashlib.sha256(png).hexdigest()}.png", png


@functools.cache
def _stream_cell(cell: Cell) -> tuple[list[Plan], frozenset[State]]:
    world = load_world()
    return plans(cell, world), frozenset(world.states())


def stream_item(config: dict, seed: int, task: str, index: int, attempt: int,
                difficulty: dict) -> tuple[Item, dict[str, bytes]]:
    """Item ``index`` of cell ``task``: one draw of :func:`sample_cell` with its own
    generator (``part`` names the stream, the index and the attempt), its images rendered."""
    cell = replace(next(c for c in _cells(config) if c.id == task), count=1, **difficulty)
    cell_plans, every_state = _stream_cell(cell)
    (states,) = sample_cell(cell, load_world(), seed, every_state, part=f"stream:{index}:{attempt}",
                            cell_plans=cell_plans)
    files = dict(map(_stream_image, states.values()))
    image_of = {s: _stream_image(s)[0] for s in states.values()}
    item = make_item(cell, 1, states, image_of, load_world())
    return replace(item, id=f"{NAME}-{task}-stream-{index}", split="train"), files


def stream_unit(item: Item | dict) -> str:
    """The states an item shows, in their roles: the same pictures asked another way are one unit."""
    meta = item.meta if isinstance(item, Item) else item["meta"]
    return json.dumps({role: state for role, state in meta["states"].items() if role != "answer"}, sort_keys=True)


def load_stream_config() -> dict:
    """The default config (``builders/carv.toml``): its cells are the stream's tasks."""
    return load_config()
