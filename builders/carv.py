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
import random
import time
import tomllib
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Annotated, Iterable, Literal

from pydantic import Field, model_validator

from tqdm import tqdm

from cogforge import __version__
from cogforge.core import shards as sharding
from cogforge.core.buildio import BuildWriter
from cogforge.core.executor import Executor, use
from cogforge.core.parallel import draw_all
from cogforge.core.config import ConfigError, RunConfig, Schema, load
from cogforge.core.stats import build_stats
from cogforge.core.record import Item
from cogforge.generators.carv import PROPERTIES, RENDERERS, SIZE, State, World, get_renderer, load_world

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


def sample_cell(cell: Cell, world: World, seed: int, allowed: set[State], part: int = 0) -> list[dict[str, State]]:
    """Draw ``cell.count`` distinct items for one cell, balanced over its types. ``part``
    numbers a sharded build's runs of the cell's items (part 0 is the whole cell of a
    default build; each part has its own generator)."""
    rng = random.Random(f"carv:{seed}:{cell.id}" + (f":{part}" if part else ""))
    cell_plans = plans(cell, world)
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


class Config(Schema):
    """``builders/carv.toml``."""

    seed: Annotated[int, Field(ge=0)] = 0
    renderer: str = "procedural"
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


def build(out_dir: Path | str, seed: int | None = None, config_path: Path | str | None = None,
          excluded: Iterable[dict] = (), progress: bool = True, *, scale: int | None = None,
          executor: Executor | None = None, resume: bool = False, shard_size: int | None = None,
          sharded: bool = False) -> dict:
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
    """
    started = time.perf_counter()
    config = load_config(config_path)
    run = sharding.RunSettings.of(config.pop("run"), scale, executor, shard_size)
    if sharded or run.sharded or resume:
        with run:
            return _build_sharded(out_dir, config, seed, excluded, progress, run, resume, started)
    seed = config.get("seed", 0) if seed is None else seed
    world = load_world()
    cells = _cells(config)
    excluded_states = {State(**s) for s in excluded}
    allowed = set(world.states()) - excluded_states
    drawn = {c.id: sample_cell(c, world, seed, allowed) for c in
             tqdm(cells, desc="sample", unit="cell", disable=not progress)}
    sampled = time.perf_counter()

    renderer = get_renderer(config.get("renderer", "procedural"))
    states = sorted(allowed)
    pngs = _render_all(renderer, states, progress)
    rendered = time.perf_counter()
    with BuildWriter(out_dir) as writer:
        image_of = {s: writer.add_image(png) for s, png in zip(states, pngs)}
        items = make_items(cells, drawn, image_of, world)
        writer.write_items(items)
        writer.write_text("stats.md", build_stats(items))
        writer.write_text("states.jsonl", _states_jsonl(states, image_of, world))
        by_cell = {c.id: len(drawn[c.id]) for c in cells}
        manifest = writer.commit({
            **_header(config, seed, renderer, excluded_states),
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
    manifest["timings"] = {"sample_s": sampled - started, "render_s": rendered - sampled,
                           "write_s": done - rendered, "rendered": len(states)}
    return manifest


def _header(config: dict, seed: int, renderer, excluded_states: set[State]) -> dict:
    return {
        "toolkit": {"name": "cogforge", "version": __version__},
        "benchmark": NAME,
        "seed": seed,
        "config": config,
        "renderer": {"name": renderer.name, "version": renderer.version},
        "media": {"size": [SIZE, SIZE], "mode": "RGB"},
        "excluded_states": sorted([s._asdict() for s in excluded_states], key=lambda d: tuple(d.values())),
    }


def _states_jsonl(states: list[State], image_of: dict[State, str], world: World) -> str:
    return "".join(json.dumps({"state": s._asdict(), "caption": world.caption(s), "image": image_of[s]})
                   + "\n" for s in states)


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


def _build_sharded(out_dir, config, seed, excluded, progress, run: sharding.RunSettings, resume, started) -> dict:
    seed = config.get("seed", 0) if seed is None else seed
    world = load_world()
    cells = _cells(config)
    excluded_states = frozenset(State(**s) for s in excluded)
    states = sorted(set(world.states()) - excluded_states)
    renderer = get_renderer(config.get("renderer", "procedural"))
    with use(run.executor):
        pngs = _render_all(renderer, states, progress)
    image_of = {s: f"images/{hashlib.sha256(png).hexdigest()}.png" for s, png in zip(states, pngs)}
    files = {image_of[s]: png for s, png in zip(states, pngs)}
    files["states.jsonl"] = _states_jsonl(states, image_of, world).encode("utf-8")
    header = {**_header(config, seed, renderer, set(excluded_states)), "scale": run.scale,
              "counts": {"states": len(states)}}
    plan = sharding.plan(sharding.scaled({c.id: c.count for c in cells}, run.scale), run.shard_size)
    make = partial(make_shard, cells={c.id: c for c in cells}, seed=seed, excluded=excluded_states,
                   image_of=image_of)
    manifest = sharding.build_sharded(out_dir, header, plan, make, run.executor, files=files, resume=resume,
                                      progress=progress)
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
