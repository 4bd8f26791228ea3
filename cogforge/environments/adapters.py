"""A stream where people train and evaluate: a ``datasets.IterableDataset``
(:func:`iterable_dataset`), a ``verifiers`` taskset (:func:`verifiers_environment`) and an
``inspect_ai`` task (:func:`inspect_task`). Each library is imported when its adapter is
called, so cogforge needs none of them.

The dataset yields the stream's items in index order, the images as ``datasets.Image``
features (PNG bytes), ``options`` as a list of strings (empty for a free answer) and
``meta`` as a JSON string, so every task has one schema. ``datasets``' own shuffling,
``take``, ``skip``, ``map`` and splitting by node (``split_dataset_by_node``) work on it; a
shard of the stream is a range of indices, so each worker makes only its own items.
"""

from __future__ import annotations

import json
from typing import Any


def _features():
    from datasets import Features, Image, List, Value

    return Features({"id": Value("string"), "benchmark": Value("string"), "task": Value("string"),
                     "index": Value("int64"), "question": Value("string"), "images": List(Image()),
                     "options": List(Value("string")), "answer": Value("string"), "meta": Value("string")})


def _rows(env: Any, starts: list[int], step: int, stop: int | None):
    for start in starts:
        index = start
        while stop is None or index < stop:
            item = env[index]
            yield {"id": item["id"], "benchmark": item["benchmark"], "task": item["task"], "index": index,
                   "question": item["question"], "images": [{"bytes": png, "path": None} for png in item["images"]],
                   "options": item["options"] or [], "answer": item["answer"],
                   "meta": json.dumps(item["meta"], sort_keys=True, ensure_ascii=False)}
            index += step


def iterable_dataset(env: Any, shards: int = 1):
    """``env`` as a ``datasets.IterableDataset`` in ``shards`` interleaved index ranges (shard
    ``k`` makes items ``k, k + shards, ...``), so ``datasets`` hands each dataloader worker
    its own shard; one shard reads in index order. An endless stream stays endless."""
    from datasets import IterableDataset

    return IterableDataset.from_generator(_rows, features=_features(),
                                          gen_kwargs={"env": env, "starts": list(range(shards)), "step": shards,
                                                      "stop": env.size})


def verifiers_environment(env: Any):
    """``env`` as a ``verifiers`` 0.4 taskset (``verifiers.v1.Taskset``): one task per item,
    the prompt a user message with the question and the images as ``data:`` URLs, and the
    reward ``correct``, :func:`cogforge.environments.score` of the model's last reply. See
    :mod:`cogforge.environments.verifiers_env`; needs ``verifiers`` (``make setup-verifiers``)."""
    from cogforge.environments.verifiers_env import StreamTaskset, config_of

    return StreamTaskset(config_of(env))


def inspect_task(env: Any, size: int | None = None):
    """The first ``size`` items of ``env`` (every item of a sized stream) as an ``inspect_ai``
    ``Task`` (samples, ``generate()``, a scorer that is :func:`cogforge.environments.score`),
    for inspect's own ``eval``. See :mod:`cogforge.environments.inspect_env`; needs
    ``inspect_ai`` (``make setup-inspect``: .venv-inspect)."""
    from cogforge.environments.inspect_env import inspect_task as make

    return make(env, size)
