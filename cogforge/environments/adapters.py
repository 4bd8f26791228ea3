"""A stream where people train: a ``datasets.IterableDataset``.

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
