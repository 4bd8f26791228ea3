"""Discrete symbols (Li et al., "Cognitive Mismatch in MLLMs for Discrete Symbol
Understanding", 2026): five symbol domains at three cognitive levels.

Each domain is a module of :mod:`generators.symbols` with its tasks; each task is a
cell with a count in ``builders/symbols.toml`` (``[domains.<domain>.counts]``;
defaults in the domain module). Task ids are ``<domain>-<name>``; every item's
``meta`` records ``domain``, ``level`` (1-3), ``paper_task`` (e.g. ``Chem T5``) and
what the answer is re-derived from (molecules: ``smiles``, error items also
``reference_smiles`` and ``error_type``; equations: ``reactants``, ``products``,
``coefficients``).

Splits go by unit (a molecule, a reaction, an imported question), 7:1:2 by default,
so that no molecule or reaction is in two splits. Answer positions are balanced by
construction, and multiple-choice tasks are filtered until no blind heuristic beats
chance (:func:`builders._filtering.filter_shortcuts`).
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
import math
import random
import time
from collections import Counter
from pathlib import Path
from typing import Annotated

from pydantic import Field, create_model, model_validator
from tqdm import tqdm

from cogforge.builders._filtering import filter_shortcuts
from cogforge import __version__
from cogforge.core.buildio import BuildWriter
from cogforge.core.config import Schema, check_splits, load
from cogforge.core.config import split_of as shared_split_of
from cogforge.core.decisions import decisions_path, load_decisions
from cogforge.core.errors import UserError
from cogforge.core.parallel import draw_all
from cogforge.core.positions import Positions
from cogforge.core.record import Item
from cogforge.core.stats import build_stats
from cogforge.generators import symbols

NAME = "symbols"
DEFAULT_CONFIG = Path(__file__).with_suffix(".toml")


class _Base(Schema):
    seed: Annotated[int, Field(ge=0)] = 0
    citation: str = ""
    splits: dict[str, Annotated[int, Field(ge=0)]] = {"train": 7, "validation": 1, "test": 2}

    @model_validator(mode="after")
    def _consistent(self):
        check_splits(self.splits)
        return self


def config_schema() -> type[Schema]:
    """The config's schema: the shared keys and one ``[domains.<name>]`` table per domain module."""
    modules = symbols.domains()
    tables = create_model("Domains", __base__=Schema,
                          **{name: (m.Config, m.Config()) for name, m in modules.items()})
    return create_model("SymbolsConfig", __base__=_Base, domains=(tables, tables()))


def load_config(path: Path | str | None = None, inputs: dict[str, list[str]] | None = None) -> dict:
    config = load(Path(path or DEFAULT_CONFIG), config_schema()).model_dump()
    known = {key: name for name, module in symbols.domains().items() for key in getattr(module, "INPUTS", ())}
    for key in inputs or {}:
        if key not in known:
            raise UserError(f"--input {key}=...: symbols takes {', '.join(f'{k}=FILE' for k in known)}")
    return config


def split_of(unit: str, weights: dict[str, int], seed: int) -> str:
    """A unit's split, from its own hash: stable when other units come and go."""
    return shared_split_of(unit, weights, f"symbols:{seed}")


def _stem(question: str) -> str:
    """The question without its listed options."""
    return question.split("\nA. ")[0]


def build(out_dir: Path | str, seed: int | None = None, config_path: Path | str | None = None,
          progress: bool = True, inputs: dict[str, list[str]] | None = None,
          domains: list[str] | None = None, decisions: list[dict] | None = None) -> dict:
    """Build the chosen domains (default: every domain module) into ``out_dir``.

    ``decisions`` (``annotation/decisions/symbols.jsonl``): an item whose picture people
    rejected (unit ``image``, keyed by the PNG's sha256, e.g. in ``symbols-guessability``)
    is left out, counted in the manifest's dropped questions.
    """
    started = time.perf_counter()
    inputs = inputs or {}
    config = load_config(config_path, inputs)
    seed = config["seed"] if seed is None else seed
    modules = symbols.domains()
    chosen = domains or list(modules)
    unknown = [d for d in chosen if d not in modules]
    if unknown:
        raise UserError(f"--domains: unknown {unknown}; available: {', '.join(modules)}")
    timings, dropped, sources, wanted_of = {}, Counter(), {}, {}
    rejected = {d["key"]: d.get("stage") or "annotation" for d in decisions or []
                if d["unit"] == "image" and d["decision"] == "reject"}
    # every domain reads its data and input files first: a bad file fails here, before any work
    prepared = {name: modules[name].prepare(config["domains"][name], inputs, progress) for name in chosen}
    with BuildWriter(out_dir) as writer:
        drafts = []  # (task id, Task, Draft)
        for name in chosen:
            module = modules[name]
            t0 = time.perf_counter()
            ctx = prepared[name]
            ctx.positions = Positions()
            wanted = module.counts(config["domains"][name])
            bar = tqdm(module.TASKS.items(), desc=name, unit="task", disable=not progress)
            for task_name, task in bar:
                bar.set_postfix_str(task_name)
                rng = random.Random(f"symbols:{seed}:{name}:{task_name}")
                # filtered tasks are made larger (task.overmake): the filter drops what blind heuristics solve
                made = task.make(ctx, math.ceil(wanted[task_name] * (task.overmake if task.filtered else 1)), rng)
                drafts += [(f"{name}-{task_name}", task, d) for d in made]
                wanted_of[f"{name}-{task_name}"] = wanted[task_name]
                if len(made) < wanted[task_name] and not task.filtered:
                    dropped[f"{name}-{task_name} (asked {wanted[task_name]}, the data give {len(made)})"] += \
                        wanted[task_name] - len(made)
            dropped.update(ctx.dropped)
            sources[name] = getattr(ctx, "sources", {})
            timings[f"{name}_s"] = time.perf_counter() - t0

        drafts = _filtered(drafts, wanted_of, seed, dropped)
        drawn = _draw_all([d for _tid, _task, d in drafts], progress)
        items, counters, shown = [], Counter(), set()
        for (tid, task, d), pictures in zip(drafts, drawn):
            meta = _meta(tid, task, d)
            digests = tuple(hashlib.sha256(p).hexdigest() for p in pictures)
            refused = next((rejected[h] for h in digests if h in rejected), None)
            if refused:  # drawn again as people saw it: the same bytes, the same hash
                dropped[f"{tid} (rejected in {refused})"] += 1
                continue
            key = (d.question, digests, tuple(d.options or ()))
            if key in shown:  # what a model is shown, twice (procedural scenes can repeat)
                dropped[f"{tid} (duplicate)"] += 1
                continue
            shown.add(key)
            counters[tid] += 1
            images = [writer.add_image(p) for p in pictures]
            items.append(Item(id=f"symbols-{tid}-{counters[tid]:05d}", benchmark=NAME, task=tid,
                              split=split_of(d.unit, config["splits"], seed), question=d.question,
                              images=images, options=d.options, answer=d.answer, meta=meta))
        writer.write_items(items)
        writer.write_text("stats.md", build_stats(items) + "\n" + stats_markdown(items))
        manifest = writer.commit({
            "toolkit": {"name": "cogforge", "version": __version__}, "benchmark": NAME, "seed": seed,
            "config": config, "domains": chosen, "media": {"mode": "RGB"}, "sources": sources,
            "counts": {"items": len(items), "images": len({p for i in items for p in i.images}),
                       "by_task": dict(sorted(counters.items())),
                       "dropped_questions": dict(sorted((k, v) for k, v in dropped.items() if v))},
        })
    manifest["elapsed_s"] = time.perf_counter() - started
    manifest["timings"] = timings
    return manifest


def _meta(tid: str, task, d) -> dict:
    """An item's meta: where it comes from, what splits it and its draft's own."""
    meta = {"domain": tid.split("-")[0], "level": task.level, "paper_task": task.paper, "split_unit": d.unit, **d.meta}
    if d.options:
        meta["answer_letter"] = chr(65 + d.options.index(d.answer))
    return meta


def _draw_all(drafts: list, progress: bool) -> list[list[bytes]]:
    """Every draft's pictures: the drawings its generator left to be made (callables)
    are made on every core (:func:`cogforge.parallel.draw_all`)."""
    made = iter(draw_all([png for d in drafts for png in d.images if callable(png)], progress))
    return [[next(made) if callable(png) else png for png in d.images] for d in drafts]


def _filtered(drafts: list, wanted_of: dict[str, int], seed: int, dropped: Counter) -> list:
    """Adversarial filtering of the tasks that ask for it: blind heuristics, then the
    task cut to its count (the extra items made for the filter), then the filter again
    on what is left, as the cut moves the rates a little. Each task and pass has its
    own random stream, so one domain's tasks never move another's."""
    def run(kept: list, rounds: str) -> list:
        survivors = set()
        for tid in sorted({tid for tid, t, d in kept if d.options and t.filtered}):
            pending = [{"task": tid, "options": d.options, "answer": d.answer, "question": _stem(d.question),
                        "draft": d} for task_id, t, d in kept if task_id == tid and d.options and t.filtered]
            noise = {tid: next(t.filter_noise for task_id, t, _d in kept if task_id == tid)}
            rng = random.Random(f"symbols:{seed}:filter:{rounds}:{tid}")
            survivors |= {id(p["draft"]) for p in filter_shortcuts(pending, rng, dropped, [tid], noise)}
        return [(tid, t, d) for tid, t, d in kept if not (t.filtered and d.options) or id(d) in survivors]

    kept, seen = [], Counter()
    for tid, task, d in run(drafts, "first"):
        if task.filtered and seen[tid] == wanted_of[tid]:
            dropped[f"{tid} (made extra for the filter)"] += 1
            continue
        seen[tid] += 1
        kept.append((tid, task, d))
    return run(kept, "second")


def stats_markdown(items: list[Item]) -> str:
    """Items per domain, level and task, with the paper's task ids."""
    rows = Counter((i.meta["domain"], i.meta["level"], i.task, i.meta["paper_task"]) for i in items)
    lines = ["Items per domain, level and task:", "", "| domain | level | task | paper | items |",
             "| --- | --- | --- | --- | --- |"]
    lines += [f"| {d} | L{lv} | {t} | {p} | {n} |" for (d, lv, t, p), n in sorted(rows.items())]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- streams
# The hooks of `cogforge.environments`. Item ``index`` of task ``<domain>-<name>`` is one
# draft of the task's own generator (``Task.stream``, else ``make(ctx, 1, rng)``) on the
# domain's prepared data (read once per process), with its random generator keyed by
# (seed, task, index, attempt) and a fresh answer-position ledger, so the option order is
# drawn per item. What a build balances over a whole task is drawn per item instead, so
# that it balances in expectation: the item's turn (``ctx.turn``: which question kind,
# error type or answer the task's rotation asks for, :func:`generators.symbols.nth`) and
# its entries of the curated lists (molecules, reactions, idioms, sentences: drawn with
# replacement). The build's adversarial filter judges a whole task's options at once;
# a stream item has none (its options are made as the build makes them, before the filter).

STREAM_TURNS = 720_720  # a multiple of every number of turns up to 16: each turn equally likely
STREAM_TRIES = 64  # drafts of one item (a generator that found no fitting figure in its tries)
TURN_TRIES = 8  # drafts at the item's own turn, before the turn is drawn again (a knob can rule it out)


def load_stream_config() -> dict:
    """The default config (``builders/symbols.toml``)."""
    return load_config()


def _not_streamed(module, config: dict) -> dict[str, str]:
    """The domain's tasks that cannot stream with this config, and why."""
    return getattr(module, "not_streamed", lambda _config: {})(config["domains"][module.DOMAIN])


def stream_tasks(config: dict) -> list[str]:
    """Every task the build makes, by domain, in the domain's order."""
    return [f"{name}-{task}" for name, module in symbols.domains().items() for task in module.TASKS
            if task not in _not_streamed(module, config)]


def stream_knobs(config: dict) -> dict[str, dict[str, tuple]]:
    """Per task, the knobs its generator has (each domain's ``STREAM_KNOBS``)."""
    return {task: dict(getattr(symbols.domains()[task.split("-")[0]], "STREAM_KNOBS", {}).get(
        task.split("-", 1)[1], {})) for task in stream_tasks(config)}


@functools.lru_cache(maxsize=None)
def _prepared(domain: str, table: str):
    """A domain's data, read once per process (``table``: its config table, as JSON)."""
    return symbols.domains()[domain].prepare(json.loads(table), {}, False)


@functools.lru_cache(maxsize=1)
def _rejected() -> frozenset[str]:
    """The pictures people rejected (``annotation/decisions/symbols.jsonl``), as the build leaves them out."""
    return frozenset(d["key"] for d in load_decisions(decisions_path(NAME))
                     if d["unit"] == "image" and d["decision"] == "reject")


def stream_item(config: dict, seed: int, task: str, index: int, attempt: int,
                difficulty: dict) -> tuple[Item, dict[str, bytes]]:
    """Item ``index`` of ``task``: one draft from (seed, task, index, attempt) alone, its
    pictures drawn as the build draws them; a draft whose picture people rejected, or that
    the generator could not make, is drawn again from the next key."""
    return _stream_draft(config, seed, task, index, attempt, difficulty, draw=True)


def stream_key(config: dict, seed: int, task: str, index: int, attempt: int, difficulty: dict) -> Item:
    """:func:`stream_item`'s item without drawing its pictures (``images`` empty): the same
    question, options, answer and meta, at about half the cost, for checking keys and
    verifiers over many items. (With pictures people rejected on record the pictures are
    drawn anyway, as they decide which draft is the item.)"""
    return _stream_draft(config, seed, task, index, attempt, difficulty, draw=bool(_rejected()))[0]


def _stream_draft(config: dict, seed: int, task: str, index: int, attempt: int, difficulty: dict,
                  draw: bool) -> tuple[Item, dict[str, bytes]]:
    domain, name = task.split("-", 1)
    module = symbols.domains()[domain]
    spec = module.TASKS[name]
    base = _prepared(domain, json.dumps(config["domains"][domain], sort_keys=True))
    key = f"symbols:stream:{seed}:{task}:{index}:{attempt}"
    turn = random.Random(f"{key}:turn").randrange(STREAM_TURNS)
    for tries in range(STREAM_TRIES):
        rng = random.Random(f"{key}:{tries}")
        ctx = copy.copy(base)
        ctx.positions, ctx.dropped, ctx.knobs = Positions(), Counter(), dict(difficulty)
        ctx.turn = turn if tries < TURN_TRIES else rng.randrange(STREAM_TURNS)
        ctx = getattr(module, "for_stream", lambda c: c)(ctx)  # the data the knobs allow
        drafts = (spec.stream or spec.make)(ctx, 1, rng)
        if not drafts:
            continue
        d = drafts[0]
        pictures = [png() if callable(png) else png for png in d.images] if draw else []
        digests = [hashlib.sha256(png).hexdigest() for png in pictures]
        if any(h in _rejected() for h in digests):
            continue
        names = [f"images/{h}.png" for h in digests]
        item = Item(id=f"{NAME}-{task}-stream-{index}", benchmark=NAME, task=task, split="train",
                    question=d.question, images=names, options=d.options, answer=d.answer,
                    meta=_meta(task, spec, d))
        return item, dict(zip(names, pictures))
    raise RuntimeError(f"symbols {task} item {index}: the generator made no item in {STREAM_TRIES} draws "
                       f"with knobs {difficulty or 'none'}")


def stream_unit(item: Item | dict) -> str:
    """What the build splits by (``meta.split_unit``: a molecule, a reaction, a circuit, an
    idiom, a sentence), within its domain."""
    meta = item.meta if isinstance(item, Item) else item["meta"]
    return f"{meta['domain']}:{meta['split_unit']}"
