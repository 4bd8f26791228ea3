"""Drawing many pictures on every core, with the same bytes as one by one."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from tqdm import tqdm

from cogforge.core import executor as executors


def _call(make: Callable[[], Any]) -> Any:
    return make()


def draw_all(jobs: list[Callable[[], Any]], progress: bool = True, desc: str = "drawing") -> list[Any]:
    """``[job() for job in jobs]``, on the build's executor (:func:`cogforge.core.executor.use`:
    local processes or a Ray cluster) or, by default, on every core (forked workers, at most 8)
    when there are enough jobs to pay for the start. Each job must depend on its own
    arguments only (a ``functools.partial`` of a module-level function), so the bytes do not
    depend on the worker or the order."""
    chosen = executors.current()
    if chosen is not None:
        return list(tqdm(chosen.imap(_call, jobs), total=len(jobs), desc=desc, unit="image",
                         disable=not progress))
    workers = min(os.cpu_count() or 1, 8)
    if workers > 1 and len(jobs) > 50:
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            return list(tqdm(pool.map(_call, jobs, chunksize=8), total=len(jobs), desc=desc, unit="image",
                             disable=not progress))
    return [job() for job in tqdm(jobs, desc=desc, unit="image", disable=not progress)]
