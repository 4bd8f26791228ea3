"""Mathematics answers re-derived from ``meta``, each by its generator module's own
independent check (sympy for functions and exact values, shapely and exact arithmetic
for figures, the voxel model for solids and views); every picture drawn again from
``meta`` on every core and compared byte for byte; every free answer parsed back by the
scorer's judge (an answer the judge cannot read could never be scored right)."""

from __future__ import annotations

from collections import Counter
from functools import partial

from cogforge.core.parallel import draw_all
from cogforge.qc.core import Build, CheckResult, Finding

PREFIX = "mathematics-"


def _problem(item) -> str | None:
    from cogforge.evaluate.symbols import judge
    from cogforge.generators.symbols.mathematics import GENERATOR_OF

    name = item.task.removeprefix(PREFIX)
    if name not in GENERATOR_OF:
        return f"unknown mathematics task {item.task!r}"
    if item.options is None:
        fmt = item.meta.get("answer_format")
        if fmt not in ("exact", "interval", "set"):
            return f"a free answer needs meta.answer_format exact, interval or set (has {fmt!r})"
        if not judge.is_correct(item.answer, {"answer": item.answer, "meta": item.meta}):
            return f"the judge cannot read the answer {item.answer!r} as {fmt}"
    elif item.answer not in item.options or len(set(item.options)) != len(item.options):
        return "the answer is not exactly one of distinct options"
    return GENERATOR_OF[name].check(name, item.question, item.options, item.answer, item.meta)


def _redraw(task: str, meta: dict) -> list[bytes]:
    from cogforge.generators.symbols.mathematics import GENERATOR_OF

    return GENERATOR_OF[task].pictures(task, meta)


def check(build: Build, items: list) -> CheckResult:
    out = CheckResult()
    wrong = 0
    for item in items:
        try:
            problem = _problem(item)
        except (ValueError, KeyError, TypeError, IndexError) as err:
            problem = f"cannot be re-derived: {type(err).__name__}: {err}"
        if problem:
            wrong += 1
            out.findings.append(Finding("error", "mathematics", item.id, problem))
    known = [i for i in items if i.task.removeprefix(PREFIX) in _tasks()]
    drawn = draw_all([partial(_redraw, i.task.removeprefix(PREFIX), i.meta) for i in known], progress=False,
                     desc="redrawing")
    redrawn = 0
    for item, pictures in zip(known, drawn):
        if pictures != [(build.path / rel).read_bytes() for rel in item.images]:
            redrawn += 1
            out.findings.append(Finding("error", "mathematics-images", item.id,
                                        "drawing meta again does not give the item's image bytes"))
    out.stats = {"items": len(items), "answers_not_rederived": wrong, "images_not_reproduced": redrawn,
                 "by_paper_task": dict(sorted(Counter(i.meta["paper_task"] for i in items).items(),
                                              key=lambda kv: int(kv[0].split("T")[-1]))),
                 "free_answers": sum(i.options is None for i in items)}
    return out


def _tasks() -> set[str]:
    from cogforge.generators.symbols.mathematics import GENERATOR_OF

    return set(GENERATOR_OF)
