"""Drawing many pictures on every core, with the same bytes as one by one."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from tqdm import tqdm

from cogforge.core import executor as executors


CHUNK = 16


def _call(make: Callable[[], Any]) -> Any:
    return make()


def _call_many(makes: list[Callable[[], Any]]) -> list[Any]:
    return [make() for make in makes]


def draw_all(jobs: list[Callable[[], Any]], progress: bool = True, desc: str = "drawing") -> list[Any]:
    """``[job() for job in jobs]``, on the build's executor (:func:`cogforge.core.executor.use`:
    local processes or a Ray cluster) or, by default, on every core (forked workers, at most 8)
    when there are enough jobs to pay for the start. Each job must depend on its own
    arguments only (a ``functools.partial`` of a module-level function), so the bytes do not
    depend on the worker or the order."""
    chosen = executors.current()
    if chosen is not None:  # a task per 16 pictures: a Ray task costs about a millisecond to send
        chunks = [jobs[i:i + CHUNK] for i in range(0, len(jobs), CHUNK)]
        out: list[Any] = []
        with tqdm(total=len(jobs), desc=desc, unit="image", disable=not progress) as bar:
            for made in chosen.imap(_call_many, chunks, label=lambda c: f"{desc} of {len(c)} pictures"):
                out += made
                bar.update(len(made))
        return out
    workers = min(os.cpu_count() or 1, 8)
    if workers > 1 and len(jobs) > 50:
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            return list(tqdm(pool.map(_call, jobs, chunksize=8), total=len(jobs), desc=desc, unit="image",
                             disable=not progress))
    return [job() for job in tqdm(jobs, desc=desc, unit="image", disable=not progress)]
