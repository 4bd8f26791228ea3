"""The statistics tables of a build, as markdown: written to ``stats.md`` by every builder.

The same text goes into the release card and, between ``<!-- stats:NAME -->`` markers,
into the README, where a test compares it with a fresh build so the figures cannot go
stale. Items per task and split for every benchmark; a benchmark adds its own
per-split table (CONSTRUCTURE: concepts, chains, chain length, images).
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable

from cogforge.core.record import Item

SPLIT_ORDER = ("train", "validation", "test")


def _fmt(value) -> str:
    if isinstance(value, float):
        return f"{value:.2f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def markdown_table(header: list[str], rows: Iterable[list]) -> str:
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    lines += ["| " + " | ".join(_fmt(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def splits_of(items: list[Item]) -> list[str]:
    found = {i.split for i in items}
    return [s for s in SPLIT_ORDER if s in found] + sorted(found - set(SPLIT_ORDER))


def items_table(items: list[Item]) -> str:
    """Items per task (rows) and split (columns), with totals."""
    return counts_table(Counter((i.task, i.split) for i in items))


def counts_table(counts: Counter) -> str:
    """:func:`items_table` from counts of ``(task, split)`` (tasks in first-counted order),
    for builds that stream their items."""
    found = {s for _t, s in counts}
    splits = [s for s in SPLIT_ORDER if s in found] + sorted(found - set(SPLIT_ORDER))
    tasks = list(dict.fromkeys(t for t, _s in counts))
    rows = [[t] + [counts[t, s] for s in splits] + [sum(counts[t, s] for s in splits)] for t in tasks]
    rows.append(["total"] + [sum(counts[t, s] for t in tasks) for s in splits] + [sum(counts.values())])
    return markdown_table(["task", *splits, "total"], rows)


def build_stats(items: list[Item], per_split: dict[str, dict] | None = None) -> str:
    """The tables of ``stats.md``: items per task and split, images, and ``per_split`` if given.

    Args:
        items: the build's items.
        per_split: ``{split or "total": {column: value}}`` (a benchmark's own figures).
    """
    images = {p for i in items for p in i.images}
    out = [items_table(items), "", f"Distinct images: {len(images):,}."]
    if per_split:
        columns = list(next(iter(per_split.values())))
        out += ["", markdown_table(["split", *[c.replace("_", " ") for c in columns]],
                                   [[s] + [row[c] for c in columns] for s, row in per_split.items()])]
    return "\n".join(out) + "\n"
