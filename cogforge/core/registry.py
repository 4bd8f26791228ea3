"""Benchmarks as registered objects: a :class:`Benchmark` descriptor per benchmark, found
through the package entry points of group ``cogforge.benchmarks``.

cogforge's own five register exactly as an outside package does, in its ``pyproject.toml``::

    [project.entry-points."cogforge.benchmarks"]
    carv = "cogforge.benchmarks.carv:BENCHMARK"

The entry point's name is the benchmark's name (the ``benchmark`` of its items, builds and
releases). Listing reads only the installed packages' metadata; a descriptor, and with it
the benchmark's code, is imported when a layer asks for it by name. Two packages that
register one name are an error that names both.

Every layer asks the same way: ``find(name)`` gives the descriptor or None, and a build or
release whose benchmark is not registered gets the shared behaviour only (the shared QC
checks, letter and exact-answer scoring, a card from the release's own numbers).
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.metadata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from pydantic import BaseModel

from cogforge.core.errors import UserError

GROUP = "cogforge.benchmarks"


class RegistryError(UserError):
    """An unknown benchmark, one name registered twice, or an entry point that is no descriptor."""


@dataclass(frozen=True)
class Benchmark:
    """Everything the layers need to know about one benchmark.

    Only ``name``, ``build``, ``default_config`` and ``config_schema`` are required; a part
    left out falls back to the shared behaviour. The hook objects (``qc``, ``scorer``,
    ``card``) are usually modules; each hook is looked up on them by attribute and is
    optional.

    Args:
        name: the benchmark's name, equal to its entry point's name and to the
            ``benchmark`` field its builder writes into every item.
        build: ``build(out_dir, seed=None, config_path=None, progress=True, **options) ->
            manifest``. ``cogforge build`` passes an option only when the function has a
            parameter of that name: ``excluded`` (states of images rejected in
            annotation), ``decisions`` (every decision of the benchmark), ``inputs``
            (``{key: [path, ...]}`` from ``--input KEY=PATH``), ``domains`` (``--domains``).
        default_config: the TOML file built from when no ``--config`` is given.
        config_schema: the pydantic model a config must satisfy, or a function without
            arguments that returns it (for a schema that is costly to assemble); read it
            with :meth:`schema`.
        checks: QC checks run after the shared ones, ``[(name, check), ...]`` with
            ``check(build: cogforge.qc.core.Build) -> cogforge.qc.core.CheckResult``.
        qc: QC hooks: ``strata(item) -> {family: value}``, ``chance(item) -> float`` (for
            free answers not drawn from one vocabulary), ``problem_key(item) -> str | None``
            (what makes two items the same problem), ``example_matches(item, example) ->
            bool``, and the constants ``NEAR_DUPLICATE_SEVERITY`` ("error", "warning",
            "info"), ``UNBALANCED_BY_DESIGN`` and ``QUESTION_IS_EVIDENCE`` (sets of
            stratum families or tasks).
        scorer: scoring hooks: ``is_correct(answer, row) -> bool`` (free answers),
            ``chance(row) -> float``, ``strata(row) -> {family: value}``,
            ``extra(row, response) -> dict`` (per-item measures), ``tables(records) ->
            dict`` and ``tables_markdown(results) -> [line, ...]``, ``random_answer(rng,
            row) -> str`` (the random baseline), ``JUDGE`` (a module holding
            ``is_correct`` that an lmms-eval task's utils.py embeds verbatim: standard
            library only; default: the scorer itself when it has ``is_correct``).
        card: release hooks: ``PRETTY_NAME``, ``SUMMARY``, ``LICENSE``,
            ``TASK_CATEGORIES``, ``META_FIELDS`` ({field: meaning}), ``LIMITATIONS``,
            ``EVALUATE_WITH`` (card lines), ``VLMEVALKIT_DROP`` (prompt text the VLMEvalKit
            TSV leaves out), ``extra_exports(rows, build_dir) -> {path: bytes | str}``.
        stages: the benchmark's own annotation stages
            (:class:`cogforge.annotation.stages.Stage`, ``benchmark`` set to this name);
            the shared stages (``item-validation``, ...) serve every benchmark.
        inputs: what ``--input KEY=PATH`` accepts, ``{key: what the file is}``.
        stream: the hooks that make the benchmark a training environment
            (:mod:`cogforge.environments`): ``load_stream_config()``,
            ``stream_tasks(config)``, ``stream_knobs(config)``, ``stream_item(config, seed,
            task, index, attempt, difficulty) -> (Item, {path: bytes})`` and
            ``stream_unit(item) -> str``; usually the builder module. None: it does not stream.
        origin: set by the registry: the package that registered the benchmark and its
            entry point.
    """

    name: str
    build: Callable[..., dict]
    default_config: Path
    config_schema: type[BaseModel] | Callable[[], type[BaseModel]]
    checks: Sequence[tuple[str, Callable]] = ()
    qc: Any = None
    scorer: Any = None
    card: Any = None
    stages: Sequence[Any] = ()
    inputs: dict[str, str] = field(default_factory=dict)
    stream: Any = None
    origin: str = ""

    def schema(self) -> type[BaseModel]:
        """The config's pydantic model."""
        schema = self.config_schema
        if isinstance(schema, type) and issubclass(schema, BaseModel):
            return schema
        return schema()

    @classmethod
    def of_modules(cls, builder: Any, *, qc: Any = None, config_schema: Any = None, **parts: Any) -> "Benchmark":
        """A descriptor from a builder module laid out as cogforge's own are: ``NAME``,
        ``build``, ``DEFAULT_CONFIG`` and ``Config`` (or ``config_schema``), and a QC module
        whose ``CHECKS`` are the benchmark's checks and whose functions are its QC hooks.
        ``parts`` are the other fields (scorer, card, stages, inputs)."""
        return cls(name=builder.NAME, build=builder.build, default_config=builder.DEFAULT_CONFIG,
                   config_schema=config_schema or builder.Config,
                   checks=tuple(getattr(qc, "CHECKS", ())), qc=qc, **parts)


@dataclass(frozen=True)
class Registration:
    """One entry point of the group, as the installed package's metadata declares it."""

    name: str
    package: str  # the distribution that declares the entry point
    version: str
    value: str  # module:attribute

    def __str__(self) -> str:
        return f"{self.package} ({self.value})"


def registrations() -> list[Registration]:
    """Every entry point of the group, from the installed packages' metadata; nothing imported."""
    found = set()
    for ep in importlib.metadata.entry_points(group=GROUP):
        dist = ep.dist
        found.add(Registration(ep.name, dist.name if dist else "(unknown package)",
                               dist.version if dist else "", ep.value))
    return sorted(found, key=lambda r: (r.name, r.package, r.value))


def _by_name() -> dict[str, list[Registration]]:
    names: dict[str, list[Registration]] = {}
    for reg in registrations():
        names.setdefault(reg.name, []).append(reg)
    return names


def duplicates() -> dict[str, list[Registration]]:
    """Names that more than one package registers, with their registrations."""
    return {name: regs for name, regs in _by_name().items() if len({r.package for r in regs}) > 1}


def duplicate_error(name: str, regs: list[Registration]) -> RegistryError:
    times = "twice" if len(regs) == 2 else f"{len(regs)} times"
    where = ", ".join(map(str, regs[:-1])) + f" and {regs[-1]}"
    return RegistryError(f"benchmark {name!r} is registered {times}, by {where}; uninstall all but one "
                         f"of these packages, or rename the entry point in group {GROUP!r}")


def available() -> list[str]:
    """Names of the registered benchmarks (a name registered twice included)."""
    return sorted(_by_name())


_LOADED: dict[str, Benchmark] = {}


def _load(reg: Registration) -> Benchmark:
    where = f"entry point {reg.name!r} of {reg}"
    module, _, attr = reg.value.partition(":")
    try:
        target: Any = importlib.import_module(module.strip())
        for part in filter(None, attr.strip().split(".")):
            target = getattr(target, part)
    except (ImportError, AttributeError) as err:
        raise RegistryError(f"{where} cannot be loaded ({type(err).__name__}: {err}); "
                            f"reinstall {reg.package}, or fix the entry point") from None
    if not isinstance(target, Benchmark):
        raise RegistryError(f"{where} is a {type(target).__name__}, not a cogforge.core.registry.Benchmark; "
                            f"point the entry point at the package's Benchmark(...) object")
    if target.name != reg.name:
        raise RegistryError(f"{where} holds the benchmark {target.name!r}; the entry point's name must be "
                            f"the benchmark's name ({target.name} = \"{reg.value}\")")
    return dataclasses.replace(target, origin=str(reg))


def find(name: str) -> Benchmark | None:
    """The descriptor registered as ``name``, or None when nothing registers it.

    A name that two packages register, or an entry point that holds no descriptor of
    that name, is a :class:`RegistryError`.
    """
    if not isinstance(name, str):  # a damaged manifest's benchmark
        return None
    if name not in _LOADED:
        regs = _by_name().get(name)
        if not regs:
            return None
        if len({r.package for r in regs}) > 1:
            raise duplicate_error(name, regs)
        _LOADED[name] = _load(regs[0])
    return _LOADED[name]


def get(name: str) -> Benchmark:
    """The descriptor registered as ``name``; an unknown name is a :class:`RegistryError`."""
    benchmark = find(name)
    if benchmark is None:
        raise RegistryError(f"unknown benchmark {name!r}; registered: {', '.join(available()) or 'none'} "
                            f"(`cogforge list` shows where each comes from)")
    return benchmark
