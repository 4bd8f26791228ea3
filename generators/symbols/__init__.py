"""The symbol domains of the ``symbols`` benchmark (language, culture, mathematics,
physics, chemistry), each at three cognitive levels.

A domain is one module of this package whose name has no leading underscore
(helpers such as ``_molecules`` have one). It defines:

* ``DOMAIN``: its name, the prefix of its task ids (``chemistry-elements``);
* ``Config``: a :class:`cogforge.config.Schema` for its ``[domains.<name>]`` table
  in ``builders/symbols.toml`` (defaults included, so a domain builds with no table);
* ``TASKS``: ``{name: Task}``; a task's ``make(ctx, count, rng)`` returns
  :class:`Draft` items;
* ``prepare(config, inputs, progress) -> ctx``: loads the domain's data once;
  ``ctx.positions`` is added by the builder (:class:`cogforge.positions.Positions`);
* ``CREDITS``: lines for the release card (sources and licences).

Adding a domain is adding a module here (and its QC and scoring modules under
``qc/symbols/`` and ``evaluate/symbols/``); nothing else changes.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Annotated, Callable, ClassVar

from pydantic import Field, model_validator

from cogforge.core.config import Schema

ROOT = Path(__file__).resolve().parent.parent.parent


def resolve(path: str) -> Path:
    """A data path from a config or the command line: as given when it exists, else
    relative to the project root (configs name files from there)."""
    p = Path(path)
    return p if p.is_absolute() or p.exists() else ROOT / p


class DomainConfig(Schema):
    """A domain's ``[domains.<name>]`` table: items per task, checked against the
    domain's tasks (a subclass names them in ``DEFAULT_COUNTS``) and its own keys."""

    DOMAIN: ClassVar[str] = ""
    DEFAULT_COUNTS: ClassVar[dict[str, int]] = {}
    counts: dict[str, Annotated[int, Field(ge=0)]] = {}

    @model_validator(mode="after")
    def _known_tasks(self):
        unknown = sorted(set(self.counts) - set(self.DEFAULT_COUNTS))
        if unknown:
            raise ValueError(f"unknown {self.DOMAIN} tasks {unknown}; known: {', '.join(self.DEFAULT_COUNTS)}")
        return self


LEVELS = {1: "L1 perception and recognition", 2: "L2 combination and reasoning",
          3: "L3 association and critical thinking"}


@dataclass(frozen=True)
class Task:
    level: int
    paper: str  # the paper's task id, e.g. "Chem T5"
    make: Callable
    mcq: bool = True  # multiple choice (else a free answer scored by evaluate/symbols/<domain>.py)
    # filter with the blind heuristics (tasks whose options the generator writes, such as
    # numbers around the answer; not imported questions, whose options are the source's)
    filtered: bool = False
    overmake: float = 1.35  # a filtered task is made this much larger, then cut to its count
    # under 100 questions, the filter's margin in standard errors of chance's hit rate
    # (builders._filtering.filter_shortcuts): a small task is not emptied by sampling noise
    filter_noise: float = 1.5
    # how a stream makes one item (``make(ctx, 1, rng)`` when None): for a task whose
    # ``make`` does whole-task work (every molecule tried, answers spread over the task)
    stream: Callable | None = None


@dataclass
class Draft:
    """One item before the builder numbers, splits and stores it."""
    question: str
    images: list  # PNG bytes, or functions returning them (drawn only if the item is kept)
    options: list[str] | None
    answer: str
    unit: str  # what must not cross splits: a molecule, a reaction, a source question
    meta: dict = field(default_factory=dict)


def domains() -> dict[str, ModuleType]:
    """Every domain module, by name."""
    out = {}
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("_"):
            module = importlib.import_module(f"{__name__}.{info.name}")
            out[module.DOMAIN] = module
    return dict(sorted(out.items()))


def count_options(positions, task: str, n: int, rng) -> list[str]:
    """Four consecutive counts around ``n`` (its rank among them balanced over the task),
    shown in an order that balances the answer's position."""
    rank = positions.choose(task + " (rank)", 4, rng, [p for p in range(4) if n - p >= 0])
    values = [str(n - rank + k) for k in range(4)]
    return positions.place(task, str(n), [v for v in values if v != str(n)], rng)


def nth(ctx, made: int, every: int = 1) -> int:
    """An item's place in its task's turns (question kinds, answers, error types taken in
    turn): ``made``, the items made before it, in a build. A stream item
    (``builders/symbols.py``, ``stream_item``) is made alone, with its own random
    ``ctx.turn``: its place is then that turn (over ``every`` kinds taken in turn, the turn
    within its kind), so that every turn comes up evenly in expectation."""
    return made + getattr(ctx, "turn", 0) // every


def rotation(ctx, kinds) -> list:
    """The kinds a task makes ``count // len(kinds)`` items of each: all of them in a build;
    for a stream item, the one its turn picks (:func:`nth`)."""
    kinds = list(kinds)
    return kinds if getattr(ctx, "turn", None) is None else [kinds[ctx.turn % len(kinds)]]


def letters(n: int) -> list[str]:
    return [chr(65 + k) for k in range(n)]


def mcq_prompt(question: str, options: list[str]) -> str:
    return question + "\n" + "\n".join(f"{chr(65 + k)}. {o}" for k, o in enumerate(options)) + \
        "\nAnswer with the option's letter."
