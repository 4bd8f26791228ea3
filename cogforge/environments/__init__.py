"""Every task as an endless, verifiable training environment (``README.md``, "Train with
cogforge").

``open(benchmark)`` gives a random-access stream of fresh items: item ``i`` is computed
from (seed, task, i) alone, so it is the same bytes in any order, on any worker and in any
process, and reaching item 10^9 costs what item 0 does. ``score(item, reply)`` is the
benchmark's own verifier, the judge ``cogforge eval`` scores with, as a reward in [0, 1].

A benchmark streams when its descriptor names stream hooks
(:attr:`cogforge.core.registry.Benchmark.stream`), a module with:

* ``load_stream_config() -> config``: the benchmark's default config, as its build reads it;
* ``stream_tasks(config) -> [task, ...]``;
* ``stream_knobs(config) -> {task: {knob: (allowed value, ...)}}``, the difficulty knobs;
* ``stream_item(config, seed, task, index, attempt, difficulty) -> (Item, {path: bytes})``:
  the item and its files, a function of its arguments alone (``attempt`` > 0 re-draws an
  item the exclusion refused);
* ``stream_unit(item) -> str``: what the item is made from (CARV: the states it shows;
  CoreCognition: the pair's scene), for :class:`Exclusion`;
* optionally ``stream_excluding = True``: ``stream_item`` takes ``excluded``, the unit
  keys (sha256 of ``stream_unit``) of the releases the stream is kept from, and draws only
  from what is left (CONSTRUCTURE's question banks leave them out before they balance the
  rest); every item is still checked against the exclusion.

Tasks interleave: item ``i`` of a stream over ``T`` tasks is item ``i // T`` of task
``tasks[i % T]``.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cogforge.core import registry
from cogforge.core.errors import UserError
from cogforge.core.record import Item
from cogforge.core.releases import ReleaseError, iter_rows

MAX_ATTEMPTS = 64  # re-draws of one item the exclusion refused before the stream gives up


class StreamError(UserError):
    """A benchmark that does not stream, an unknown task or knob, a bad index."""


def _key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def content_key(question: str, images: list[str], options: list[str] | None) -> str:
    """What a model sees: the prompt, the images (content-addressed names, so their bytes)
    and the options."""
    names = [p.rsplit("/", 1)[-1] for p in images]
    return _key(json.dumps([question, names, options], ensure_ascii=False))


@dataclass
class Exclusion:
    """What a stream must never yield: the content keys and unit keys of released items,
    with the release folders they come from."""

    content: set[str] = field(default_factory=set)
    units: set[str] = field(default_factory=set)
    releases: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, releases, hooks: Any, splits=None) -> "Exclusion":
        """From release folders (one, or a list), read a row at a time: every row, or the rows
        of ``splits`` (e.g. ``["test"]``)."""
        out = cls()
        for folder in [releases] if isinstance(releases, (str, Path)) else releases:
            folder = Path(folder)
            if not (folder / "release.json").is_file():
                raise ReleaseError(f"{folder} is not a release folder (no release.json); give the folder "
                                   "`cogforge release` wrote, e.g. releases/carv/1.0.0")
            for row in iter_rows(folder):
                if splits is not None and row["split"] not in splits:
                    continue
                meta = json.loads(row["meta"]) if isinstance(row["meta"], str) else row["meta"]
                out.content.add(content_key(row["question"], row["file_names"], row["options"]))
                out.units.add(_key(hooks.stream_unit({**row, "meta": meta})))
            out.releases.append(str(folder) + (f" ({', '.join(splits)})" if splits is not None else ""))
        return out

    def refuses(self, item: Item, hooks: Any) -> bool:
        return (content_key(item.question, item.images, item.options) in self.content
                or _key(hooks.stream_unit(item)) in self.units)


def _record(item: Item, files: dict[str, bytes], index: int) -> dict:
    """The build's record with the images as PNG bytes, and the stream index."""
    return {"id": item.id, "benchmark": item.benchmark, "task": item.task, "split": item.split,
            "question": item.question, "images": [files[p] for p in item.images], "options": item.options,
            "answer": item.answer, "meta": item.meta, "index": index}


class Environment:
    """A stream of items of one benchmark's tasks; ``size=None`` is endless.

    ``env[i]`` computes item ``i``; iterating goes from 0 up. Items are dicts: ``id``,
    ``benchmark``, ``task``, ``split`` ("train"), ``question``, ``images`` (PNG bytes),
    ``options``, ``answer``, ``meta`` and ``index``.
    """

    def __init__(self, benchmark: str, tasks: list[str], seed: int, size: int | None, difficulty: dict,
                 config: dict, hooks: Any, exclusion: Exclusion | None):
        self.benchmark, self.tasks, self.seed, self.size = benchmark, tasks, seed, size
        self.difficulty, self.config, self.hooks, self.exclusion = difficulty, config, hooks, exclusion
        self.refused = 0  # items the exclusion re-drew, in this process
        self._frozen: tuple = (None, frozenset())

    def __repr__(self) -> str:
        size = "endless" if self.size is None else f"{self.size} items"
        return f"<Environment {self.benchmark} {len(self.tasks)} tasks seed={self.seed} {size}>"

    def __len__(self) -> int:
        if self.size is None:
            raise TypeError("an endless stream has no length; open it with size=N, or index it")
        return self.size

    def __getitem__(self, index: int) -> dict:
        if not isinstance(index, int) or isinstance(index, bool):
            raise TypeError(f"stream indices are integers, not {type(index).__name__}")
        if index < 0 or (self.size is not None and index >= self.size):
            raise IndexError(f"item {index} is outside the stream (0 to {'endless' if self.size is None else self.size - 1})")
        task = self.tasks[index % len(self.tasks)]
        within = index // len(self.tasks)
        excluding = {"excluded": self._excluded()} if getattr(self.hooks, "stream_excluding", False) else {}
        for attempt in range(MAX_ATTEMPTS):
            item, files = self.hooks.stream_item(self.config, self.seed, task, within, attempt,
                                                 self.difficulty.get(task, {}), **excluding)
            if self.exclusion is None or not self.exclusion.refuses(item, self.hooks):
                return _record(item, files, index)
            self.refused += 1
        raise RuntimeError(f"{self.benchmark} {task} item {within}: {MAX_ATTEMPTS} draws were all in "
                           f"{', '.join(self.exclusion.releases)}; the task has too few distinct items to stream "
                           "beside that release")

    def _excluded(self) -> frozenset:
        """The exclusion's unit keys, frozen once (a hook caches what it draws from by them)."""
        if self._frozen[0] is not self.exclusion:
            self._frozen = (self.exclusion, frozenset(self.exclusion.units if self.exclusion else ()))
        return self._frozen[1]

    def __iter__(self) -> Iterator[dict]:
        for index in (range(self.size) if self.size is not None else itertools.count()):
            yield self[index]

    def to_iterable_dataset(self):
        """A ``datasets.IterableDataset`` of the stream (images as PNG bytes), for training
        loops and streaming pipelines: see :func:`cogforge.environments.adapters.iterable_dataset`."""
        from cogforge.environments.adapters import iterable_dataset

        return iterable_dataset(self)


def _hooks(benchmark: str) -> Any:
    descriptor = registry.get(benchmark)
    if descriptor.stream is None:
        raise StreamError(f"benchmark {benchmark!r} has no stream hooks (Benchmark.stream); streaming "
                                f"benchmarks: {', '.join(streaming()) or 'none'}")
    return descriptor.stream


def streaming() -> list[str]:
    """The registered benchmarks that stream."""
    return [name for name in registry.available() if registry.get(name).stream is not None]


def knobs(benchmark: str) -> dict[str, dict[str, tuple]]:
    """Each task's difficulty knobs with their allowed values."""
    hooks = _hooks(benchmark)
    return hooks.stream_knobs(hooks.load_stream_config())


def _difficulty(benchmark: str, tasks: list[str], all_knobs: dict, difficulty: dict | None) -> dict:
    """``{knob: value}`` for every chosen task, or ``{task: {knob: value}}``; checked."""
    if not difficulty:
        return {}
    per_task = difficulty if set(difficulty) <= set(all_knobs) else {task: difficulty for task in tasks}
    for task, chosen in per_task.items():
        if task not in tasks:
            raise StreamError(f"difficulty names task {task!r}, which this stream does not draw from "
                                    f"({', '.join(tasks)})")
        for knob, value in chosen.items():
            allowed = all_knobs[task].get(knob)
            if allowed is None:
                raise StreamError(f"{benchmark} task {task!r} has no difficulty knob {knob!r}; its knobs: "
                                        f"{', '.join(all_knobs[task]) or 'none'}")
            if value not in allowed:
                raise StreamError(f"{benchmark} task {task!r}: {knob}={value!r} is not one of "
                                        f"{list(allowed)}")
    return per_task


def open(benchmark: str, task: str | list[str] | None = None, seed: int = 0, size: int | None = None,
         difficulty: dict | None = None, exclude=None, exclude_splits=None) -> Environment:
    """A stream of ``benchmark``'s items (every task, or ``task``: a name or a list).

    Args:
        seed: item ``i`` is a function of (seed, task, i) alone.
        size: the number of items; None is endless.
        difficulty: ``{knob: value}`` for every task, or ``{task: {knob: value}}``
            (:func:`knobs` lists them); a curriculum sets it level by level.
        exclude: a release folder, or a list of them: no item the stream yields is one a
            model would see as one of theirs (same prompt, image bytes and options) or is
            made from the same unit (``stream_unit``); such draws are re-drawn.
        exclude_splits: only these splits of ``exclude`` (e.g. ``["test"]``; None: every
            split), for a benchmark whose units a whole release uses up (CogEvolve's words).
    """
    hooks = _hooks(benchmark)
    config = hooks.load_stream_config()
    available = hooks.stream_tasks(config)
    tasks = available if task is None else [task] if isinstance(task, str) else list(task)
    unknown = [t for t in tasks if t not in available]
    if unknown or not tasks:
        raise StreamError(f"{benchmark} has no task {', '.join(map(repr, unknown)) or '(none given)'}; "
                                f"its tasks: {', '.join(available)}")
    if size is not None and (not isinstance(size, int) or size < 0):
        raise StreamError(f"size must be a whole number of items or None (endless), not {size!r}")
    chosen = _difficulty(benchmark, tasks, hooks.stream_knobs(config), difficulty)
    if exclude_splits is not None and (isinstance(exclude_splits, str) or exclude is None):
        raise StreamError("exclude_splits is a list of split names (e.g. ['test']) and needs exclude=RELEASE")
    exclusion = Exclusion.of(exclude, hooks, exclude_splits) if exclude is not None else None
    return Environment(benchmark, tasks, int(seed), size, chosen, config, hooks, exclusion)


class Curriculum:
    """Difficulty that follows a reward signal (reasoning-gym's coaching idea): the levels
    are a knob's allowed values in order; after every ``window`` rewards the level goes up
    when their mean reaches ``promote``, down when it falls to ``demote``, and the window
    starts again. ``next_item()`` gives the next item of the stream at the current level;
    the same rewards give the same levels and items.

    Example::

        curriculum = Curriculum("carv", task="ss-union-2", knob="atomic")
        item = curriculum.next_item()
        curriculum.record(score(item, model_reply))
    """

    def __init__(self, benchmark: str, task: str | list[str] | None = None, knob: str | None = None,
                 seed: int = 0, window: int = 32, promote: float = 0.8, demote: float = 0.3, level: int = 0,
                 exclude=None, exclude_splits=None):
        base = open(benchmark, task=task, seed=seed, exclude=exclude, exclude_splits=exclude_splits)
        all_knobs = knobs(benchmark)
        shared = set.intersection(*(set(all_knobs[t]) for t in base.tasks))
        if not shared or (knob is not None and knob not in shared):
            raise StreamError(f"{benchmark} tasks {', '.join(base.tasks)} share no difficulty knob "
                              f"{knob!r}" if knob else f"{benchmark} tasks {', '.join(base.tasks)} share no "
                              "difficulty knob; `environments.knobs` lists each task's")
        self.knob = knob or sorted(shared)[0]
        self.levels = sorted(set.intersection(*(set(all_knobs[t][self.knob]) for t in base.tasks)))
        if not 0 <= level < len(self.levels) or not 0 <= demote < promote <= 1 or window < 1:
            raise StreamError(f"curriculum: level must be 0 to {len(self.levels) - 1}, 0 <= demote < promote "
                              "<= 1 and window >= 1")
        self.benchmark, self.tasks, self.seed, self.exclude = benchmark, base.tasks, seed, base.exclusion
        self.window, self.promote, self.demote, self.level = window, promote, demote, level
        self.rewards: list[float] = []
        self.history: list[int] = [level]  # the level after each change
        self._streams: dict[int, Environment] = {}
        self._next: dict[int, int] = {}  # the next index at each level

    @property
    def difficulty(self) -> dict:
        return {self.knob: self.levels[self.level]}

    def stream(self) -> Environment:
        """The stream at the current level."""
        if self.level not in self._streams:
            stream = open(self.benchmark, task=self.tasks, seed=self.seed, difficulty=self.difficulty)
            stream.exclusion = self.exclude
            self._streams[self.level] = stream
        return self._streams[self.level]

    def next_item(self) -> dict:
        index = self._next.get(self.level, 0)
        self._next[self.level] = index + 1
        return self.stream()[index]

    def record(self, reward: float) -> int:
        """One reward in [0, 1]; returns the level after it."""
        self.rewards.append(float(reward))
        if len(self.rewards) >= self.window:
            mean = sum(self.rewards) / len(self.rewards)
            self.rewards = []
            step = 1 if mean >= self.promote else -1 if mean <= self.demote else 0
            if 0 <= self.level + step < len(self.levels) and step:
                self.level += step
                self.history.append(self.level)
        return self.level


def score(item: dict, reply: str) -> float:
    """The reward of ``reply`` to a stream item (or a release row): 1.0 when the
    benchmark's judge accepts it, else 0.0, or the item's partial credit where the task's
    metric gives it (F1: the scorer's ``partial_credit(row, reply)``, e.g. symbols' emoji
    rebuses and handwriting). The answer is read from the reply as ``cogforge eval`` reads
    it (a letter, the option's text, ``{"answer": ...}``, a JSON caption), and a reply it
    refuses (empty, several answers, hostile) scores 0."""
    from cogforge.evaluate.score import Scorer

    if not isinstance(reply, str):
        return 0.0
    row = {k: item[k] for k in ("id", "task", "question", "options", "answer")}
    row["meta"] = json.loads(item["meta"]) if isinstance(item["meta"], str) else item["meta"]
    row["split"] = item.get("split", "train")
    scorer = Scorer([row], item["benchmark"])
    if scorer.one(row, {"response": reply}, row["options"])["correct"]:
        return 1.0
    partial = getattr(scorer.plugin, "partial_credit", None)
    credit = partial(row, reply) if partial and not row["options"] else None
    return 0.0 if credit is None else min(1.0, max(0.0, float(credit)))


from cogforge.environments.adapters import (  # noqa: E402  (each imports its library when called)
    inspect_task,
    iterable_dataset,
    verifiers_environment,
)

__all__ = ["Curriculum", "Environment", "Exclusion", "StreamError", "content_key", "inspect_task", "iterable_dataset",
           "knobs", "open", "score", "streaming", "verifiers_environment"]
