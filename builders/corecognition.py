"""CoreCognition (Li et al., ICML 2025): the 12 core-knowledge concepts as procedural
stimuli, every item one half of a concept-hacking pair.

Each concept is a module of :mod:`generators.corecognition`; its families are
prototypes (pure functions from parameters to frames). For a concept with ``n`` items
the builder makes ``n / 2`` pairs, taking the concept's families in turn: pair ``k`` of
a family samples the control's parameters with its own RNG (``corecognition:<seed>:
<family>:<k>``, so one family's items do not move when another changes), the twin
changes only the causal parameter, and both answers are re-derived by the family's
independent check before anything is drawn (a pair whose check disagrees, or that sits
inside the family's margin, is counted in the manifest and replaced by the next ``k``).

Question and options are byte-identical across a pair. True/false items list Yes and
No in that order (the pairs balance the answers); a multiple-choice pair's option order
puts the control's answer at the least used position of its family, and the twin's
at the least used of the rest. Splits go by pair, so twins never straddle splits.
Multi-frame items list their frames in ``images`` and a strip of the frames with
"Frame i/N" captions in ``meta.combined_image`` (the public release's ``frame-combined``
layout).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import random
import time
from collections.abc import Callable, Iterator
from collections import Counter, defaultdict
from functools import partial
from pathlib import Path
from typing import Annotated

from pydantic import Field, model_validator

from cogforge import __version__
from cogforge.core import shards as sharding
from cogforge.core.buildio import BuildWriter
from cogforge.core.executor import Executor
from cogforge.core.config import ConfigError, RunConfig, Schema, check_splits, load
from cogforge.core.config import split_of as shared_split_of
from cogforge.core.parallel import draw_all
from cogforge.core.record import Item
from cogforge.core.stats import build_stats
from cogforge.generators import corecognition as cc

NAME = "corecognition"
DEFAULT_CONFIG = Path(__file__).with_suffix(".toml")
LETTERS = "ABCDE"
# Items per shard of a sharded build: a shard is a few seconds of drawing, so two
# workers stay busy to the end.
SHARD_SIZE = 100
# the public release's stage strings (lmms-eval filters on them)
STAGE_NAMES = {stage: f"Stage {stage}" for stage in cc.STAGES}


class Config(Schema):
    seed: Annotated[int, Field(ge=0)] = 0
    citation: str = ""
    splits: dict[str, Annotated[int, Field(ge=0)]] = {"train": 7, "validation": 1, "test": 2}
    run: RunConfig | None = None  # executor, scale, shard size (not in the manifest)
    counts: dict[str, Annotated[int, Field(ge=0)]] = {}

    @model_validator(mode="after")
    def _consistent(self):
        check_splits(self.splits)
        unknown = sorted(set(self.counts) - set(cc.CONCEPTS))
        if unknown:
            raise ValueError(f"unknown concepts {unknown}; known: {', '.join(cc.CONCEPTS)}")
        odd = sorted(c for c, n in self.counts.items() if n % 2)
        if odd:
            raise ValueError(f"counts of {odd} are odd: every item has a twin, so counts are even")
        return self


def prompt(question: str, options: list[str]) -> str:
    """The text a model is shown: the question, the lettered options and how to reply
    (true/false items too: "A. Yes B. No", as the other benchmarks list options)."""
    listed = "\n".join(f"{LETTERS[i]}. {o}" for i, o in enumerate(options))
    return f"{question}\n{listed}\nAnswer with the option's letter."


def order_options(options: list[str], control: str, twin: str, used: Counter, rng: random.Random) -> list[str]:
    """``options`` reordered: the control's answer at its family's least used position,
    the twin's at the least used of the others (ties by ``rng``), the rest shuffled."""
    n = len(options)
    low = min(used[p] for p in range(n))
    first = rng.choice([p for p in range(n) if used[p] == low])
    rest = [p for p in range(n) if p != first]
    low = min(used[p] for p in rest)
    second = rng.choice([p for p in rest if used[p] == low])
    used[first] += 1
    used[second] += 1
    others = [o for o in options if o not in (control, twin)]
    rng.shuffle(others)
    out: list[str | None] = [None] * n
    out[first], out[second] = control, twin
    fill = iter(others)
    return [o if o is not None else next(fill) for o in out]


def split_of(unit: str, weights: dict[str, int], seed: int) -> str:
    """A unit's split, from its own hash: stable when other units come and go."""
    return shared_split_of(unit, weights, f"corecognition:{seed}")


def draw_item(family_name: str, params: dict) -> list[bytes]:
    """The item's frames as PNG bytes, and (more than one frame) the combined strip last."""
    frames = cc.families()[family_name].render(params)
    out = [cc.png(f) for f in frames]
    return out + [cc.strip(frames)] if len(frames) > 1 else out


def _pairs(family: cc.Family, n_pairs: int, seed: int, dropped: Counter,
           level: int | None = None) -> list[tuple[int, dict, dict]]:
    """``n_pairs`` valid (k, control, twin) of one family (at difficulty ``level``: only
    pairs whose :meth:`Family.level` is that, a stream's knob)."""
    out, k = [], 0
    while len(out) < n_pairs:
        if k > 20 * n_pairs + 20:
            dropped[f"{family.name} (no valid pair in {k} tries)"] += n_pairs - len(out)
            break
        rng = random.Random(f"corecognition:{seed}:{family.name}:{k}")
        control = family.sample(rng, k)
        twin = family.twin(control)
        k += 1
        reason = _invalid(family, control, twin)
        if reason:
            dropped[f"{family.name} ({reason})"] += 1
            continue
        if level is not None and family.level(control, twin) != level:
            continue
        out.append((k - 1, control, twin))
    return out


def _invalid(family: cc.Family, control: dict, twin: dict) -> str | None:
    if family.answer(control) == family.answer(twin):
        return "twin keeps the answer"
    for params in (control, twin):
        if family.check(params) != family.answer(params):
            return "independent check disagrees"
        margin = family.margin(params)
        if margin is not None and margin < family.min_margin:
            return "inside the margin"
    return None


def _plan_concept(module, n_pairs: int, seed: int, dropped: Counter, part: int = 0) -> list[tuple]:
    """``(family, k, control, twin)`` for ``n_pairs`` pairs of a concept, its families in turn.
    ``part`` numbers a sharded build's runs of the concept (0: the default build's)."""
    families = module.FAMILIES
    share = [n_pairs // len(families) + (i < n_pairs % len(families)) for i in range(len(families))]
    key = seed if not part else f"{seed}:{part}"
    return [(family, k, c, t) for family, n in zip(families, share) for k, c, t in _pairs(family, n, key, dropped)]


def _make_items(concept: str, planned: list[tuple], pictures: Iterator[list[bytes]], store: Callable,
                split_of_pair: Callable[[str, dict], str], seed: int, part: int, first: int,
                dropped: Counter) -> tuple[list[Item], list[str]]:
    """A concept's items from its planned pairs and their drawn pictures (two per pair, in
    order), numbered from ``first``; ``store(png, folder)`` keeps an image and returns its
    path. Returns the items and, per item, its pair's unit (the scene: the control's parameters
    but the causal one)."""
    used: dict[str, Counter] = defaultdict(Counter)
    shown, items, units = set(), [], []
    name, stage, _paper = cc.CONCEPTS[concept]
    for family, k, control, twin in planned:
        pictures_of = {"control": next(pictures), "manipulated": next(pictures)}
        keys = [(family.question(control), tuple(p)) for p in pictures_of.values()]
        if any(key in shown for key in keys):  # a pair a model has seen already (few parameters)
            dropped[f"{family.name} (repeats a pair already drawn)"] += 1
            continue
        shown.update(keys)
        options = family.options(control)
        order_key = f"corecognition:{seed}:{family.name}:{k}:order" + (f":{part}" if part else "")
        if family.type == "MC":
            options = order_options(options, family.answer(control), family.answer(twin), used[family.name],
                                    random.Random(order_key))
        pair_id = f"{family.name}-{k:04d}" if not part else f"{family.name}-{part}-{k:04d}"
        # The pair's scene: every parameter but the causal one, which control and twin share,
        # so a pair whose control is another pair's twin is the same unit (and split).
        unit = json.dumps([family.name, {k: v for k, v in control.items() if k != family.causal_param}],
                          sort_keys=True)
        split = split_of_pair(pair_id, unit)
        for role, params in (("control", control), ("manipulated", twin)):
            pics = pictures_of[role]
            frames = [store(p, "images") for p in pics[:family.frames]]
            answer = family.answer(params)
            meta = {"concept": concept, "concept_name": name, "stage": stage, "type": family.type,
                    "family": family.name, "paradigm": family.paradigm, "params": params, "pair_id": pair_id,
                    "role": role, "causal_param": family.causal_param,
                    "answer_letter": LETTERS[options.index(answer)], "margin": family.margin(params)}
            if family.frames > 1:
                meta["combined_image"] = store(pics[-1], "combined")
            items.append(Item(id=f"{NAME}-{concept}-{first + len(items):05d}", benchmark=NAME, task=concept,
                              split=split, question=prompt(family.question(params), options),
                              images=frames, options=options, answer=answer, meta=meta))
            units.append(unit)
    return items, units


def build(out_dir: Path | str, seed: int | None = None, config_path: Path | str | None = None,
          progress: bool = True, *, scale: int | None = None, executor: Executor | None = None, resume: bool = False,
          shard_size: int | None = None, sharded: bool = False) -> dict:
    """Build every concept's pairs into ``out_dir``.

    ``scale``, ``executor``, ``resume``, ``shard_size`` and ``sharded`` make a sharded build
    (:mod:`cogforge.core.shards`; see ``builders.carv.build``). Its splits go by the pair's
    scene (every parameter but the causal one), so a pair drawn twice, or one whose control is
    another's twin, is in one split.
    """
    started = time.perf_counter()
    config, seed, modules = _config(config_path, seed)
    run = sharding.RunSettings.of(config.pop("run"), scale, executor, shard_size, SHARD_SIZE)
    if sharded or run.sharded or resume:
        with run:
            return _build_sharded(out_dir, config, seed, modules, progress, run, resume, started)
    dropped, planned = Counter(), {}
    for concept, module in modules.items():
        planned[concept] = _plan_concept(module, config["counts"].get(concept, 0) // 2, seed, dropped)
    jobs = [partial(draw_item, f.name, params) for pairs in planned.values() for f, _k, c, t in pairs
            for params in (c, t)]
    drawn = iter(draw_all(jobs, progress))
    with BuildWriter(out_dir) as writer:
        items = []
        for concept, pairs in planned.items():
            made, _units = _make_items(concept, pairs, drawn, lambda png, folder: writer.add_image(png, folder=folder),
                                       lambda pair_id, _unit: split_of(pair_id, config["splits"], seed),
                                       seed, 0, 1, dropped)
            items += made
        counters = Counter(i.task for i in items)
        writer.write_items(items)
        writer.write_text("stats.md", build_stats(items) + "\n" + stats_markdown(items))
        manifest = writer.commit({
            "benchmark": NAME, "toolkit": __version__, "seed": seed, "config": config,
            "media": {"mode": "RGB", "size": list(cc.SIZE)},
            "counts": {"items": len(items), "pairs": len(items) // 2,
                       "images": len({p for i in items for p in i.images}),
                       "by_task": {c: counters[c] for c in cc.CONCEPTS if counters[c]},
                       "dropped_pairs": dict(sorted((k, v) for k, v in dropped.items() if v))},
        })
    manifest["elapsed_s"] = time.perf_counter() - started
    return manifest


def _config(config_path, seed) -> tuple[dict, int, dict]:
    config = load(Path(config_path or DEFAULT_CONFIG), Config).model_dump()
    seed = config["seed"] if seed is None else seed
    modules = cc.concepts()
    missing = [c for c, n in config["counts"].items() if n and c not in modules]
    if missing:
        raise ConfigError(f"{config_path or DEFAULT_CONFIG}: counts name concepts with no module in "
                          f"generators/corecognition/: {missing}; use {', '.join(modules)}")
    return config, seed, modules


def make_shard(shard: sharding.Shard, seed: int, splits: dict[str, int]) -> sharding.ShardOutput:
    """A sharded build's shard: up to ``shard.count`` items (whole pairs) of one concept, from
    (seed, concept, part) alone. Pairs that repeat one drawn before in the shard are dropped
    and counted, so a shard of a concept with few distinct pairs may hold fewer items."""
    dropped: Counter = Counter()
    planned = _plan_concept(cc.concepts()[shard.task], shard.count // 2, seed, dropped, shard.part)
    items, units, images = _drawn_items(shard.task, planned, lambda _pair_id, unit: split_of(unit, splits, seed),
                                        seed, shard.part, shard.start + 1, dropped)
    return sharding.ShardOutput(items, images, units, {"dropped_pairs": dict(dropped)})


def _drawn_items(concept: str, planned: list[tuple], split_of_pair: Callable[[str, str], str], seed: int,
                 part, first: int, dropped: Counter) -> tuple[list[Item], list[str], dict[str, bytes]]:
    """:func:`_make_items` with the pairs drawn here and their images kept in memory,
    ``{"images/<sha256>.png": png}``."""
    pictures = iter([draw_item(f.name, params) for f, _k, c, t in planned for params in (c, t)])
    images: dict[str, bytes] = {}

    def store(png: bytes, folder: str) -> str:
        rel = f"{folder}/{hashlib.sha256(png).hexdigest()}.png"
        images[rel] = png
        return rel

    items, units = _make_items(concept, planned, pictures, store, split_of_pair, seed, part, first, dropped)
    return items, units, images


def _build_sharded(out_dir, config, seed, modules, progress, run: sharding.RunSettings, resume, started) -> dict:
    if run.shard_size % 2:
        raise ConfigError(f"--shard-size {run.shard_size}: CoreCognition's items come in pairs; give an even size")
    counts = {c: config["counts"][c] for c in cc.CONCEPTS if config["counts"].get(c) and c in modules}
    plan = sharding.plan(sharding.scaled(counts, run.scale), run.shard_size)
    header = {"benchmark": NAME, "toolkit": __version__, "seed": seed, "config": config, "scale": run.scale,
              "media": {"mode": "RGB", "size": list(cc.SIZE)}}
    manifest = sharding.build_sharded(out_dir, header, plan, partial(make_shard, seed=seed, splits=config["splits"]),
                                      run.executor, resume=resume, progress=progress)
    return run.finish(manifest, started)


def stats_markdown(items: list[Item]) -> str:
    """Items per stage, concept and family (control and manipulated halves)."""
    rows = Counter((i.meta["stage"], i.task, i.meta["family"], i.meta["type"]) for i in items)
    lines = ["Items per stage, concept and family (half control, half manipulated):", "",
             "| stage | concept | family | type | items |", "| --- | --- | --- | --- | --- |"]
    order = {c: n for n, c in enumerate(cc.CONCEPTS)}
    for (stage, concept, family, kind), n in sorted(rows.items(), key=lambda kv: (order[kv[0][1]], kv[0][2])):
        lines.append(f"| {stage} | {concept} | {family} | {kind} | {n} |")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- streams
# The hooks of `cogforge.environments`: items two by two from pairs, pair ``index // 2`` of
# a concept drawn from (seed, concept, pair, attempt) alone, its family the concept's
# families in turn, which of the two items comes first drawn from the same key. The knob
# ``level`` (1 easiest to 3) keeps the family's valid pairs whose hardness falls in that
# level's band (``Family.level``); without it, pairs come from the whole range.

_STREAM_TRIES = 20


def stream_tasks(config: dict) -> list[str]:
    """The concepts with a module, in the paper's order."""
    return [c for c in cc.CONCEPTS if c in cc.concepts()]


def stream_knobs(config: dict) -> dict[str, dict]:
    """One knob for every concept, ``level``: its families' thirds by hardness
    (``Family.hardness_doc`` says what each measures)."""
    return {concept: {"level": cc.LEVELS} for concept in stream_tasks(config)}


@functools.lru_cache(maxsize=256)
def _stream_pair(seed: int, concept: str, pair: int, attempt: int,
                 level: int | None = None) -> tuple[tuple[Item, dict[str, bytes]], ...]:
    families = cc.concepts()[concept].FAMILIES
    family = families[pair % len(families)]
    for retry in range(_STREAM_TRIES):
        key = f"{seed}:stream:{pair}:{attempt}:{retry}" + (f":level{level}" if level is not None else "")
        dropped: Counter = Counter()
        planned = [(family, k, c, t) for k, c, t in _pairs(family, 1, key, dropped, level)]
        items, _units, images = _drawn_items(concept, planned, lambda _pair_id, _unit: "train", seed,
                                             f"stream{pair}", 1, dropped)
        if items:  # none: the family found no valid pair in its tries, or the twin looks the same
            if random.Random(f"corecognition:{key}:first").random() < 0.5:
                items.reverse()
            if level is not None:
                items = [dataclasses.replace(item, meta={**item.meta, "level": level}) for item in items]
            return tuple((item, {rel: images[rel] for rel in (*item.images, *_combined(item))}) for item in items)
    raise RuntimeError(f"corecognition {concept}, family {family.name}: no valid pair for stream pair {pair} "
                       f"in {_STREAM_TRIES} keys")


def _combined(item: Item) -> tuple[str, ...]:
    return (item.meta["combined_image"],) if "combined_image" in item.meta else ()


def stream_item(config: dict, seed: int, task: str, index: int, attempt: int,
                difficulty: dict) -> tuple[Item, dict[str, bytes]]:
    """Item ``index`` of concept ``task``: one half of stream pair ``index // 2``."""
    item, files = _stream_pair(seed, task, index // 2, attempt, difficulty.get("level"))[index % 2]
    return dataclasses.replace(item, id=f"{NAME}-{task}-stream-{index}"), files


def stream_unit(item: Item | dict) -> str:
    """The pair's scene, every parameter but the causal one (what splits go by)."""
    meta = item.meta if isinstance(item, Item) else item["meta"]
    return json.dumps([meta["family"], {k: v for k, v in meta["params"].items() if k != meta["causal_param"]}],
                      sort_keys=True)


def load_stream_config() -> dict:
    """The default config (``builders/corecognition.toml``)."""
    return _config(None, None)[0]
