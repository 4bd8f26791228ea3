"""A stream as an ``inspect_ai`` task: a dataset of ``Sample`` s, ``generate()`` and a scorer
that is ``cogforge.environments.score``.

Each sample's input is one user message, the question as ``ContentText`` and each image as
``ContentImage`` holding a ``data:image/png;base64,...`` URL of the stream's PNG bytes; its
target is the key, its id the item's, and its metadata the rest of the item (benchmark,
task, index, options, answer, meta), which the scorer reads. :class:`StreamDataset` makes a
sample when inspect asks for it (``dataset[i]``); slices and ``shuffle`` stay lazy, ``sort``
and ``filter`` make every sample. Run it with inspect's own ``eval``::

    from inspect_ai import eval
    eval(inspect_task(environments.open("carv", seed=1, size=100)), model="openai/gpt-4o-mini")
"""

from __future__ import annotations

import base64
import random
from collections.abc import Callable, Sequence
from typing import Any

from inspect_ai import Task
from inspect_ai.dataset import Dataset, MemoryDataset, Sample
from inspect_ai.model import ChatMessageUser, ContentImage, ContentText
from inspect_ai.scorer import Score, Target, accuracy, scorer, stderr
from inspect_ai.solver import TaskState, generate

from cogforge import environments


def sample(item: dict) -> Sample:
    """One stream item as an inspect ``Sample``."""
    content = [ContentText(text=item["question"])]
    content += [ContentImage(image="data:image/png;base64," + base64.b64encode(png).decode("ascii"))
                for png in item["images"]]
    return Sample(input=[ChatMessageUser(content=content)], target=item["answer"], id=item["id"],
                  choices=item["options"] or None,
                  metadata={key: item[key] for key in ("benchmark", "task", "index", "options", "answer", "meta")})


class StreamDataset(Dataset):
    """Items ``indices`` of a sized stream, each made into a ``Sample`` when asked for."""

    def __init__(self, stream: environments.Environment, indices: Sequence[int] | None = None,
                 shuffled: bool = False):
        self.stream = stream
        self.indices = range(len(stream)) if indices is None else indices
        self._shuffled = shuffled

    @property
    def name(self) -> str | None:
        return f"cogforge-{self.stream.benchmark}"

    @property
    def location(self) -> str | None:
        return f"cogforge.environments.open({self.stream.benchmark!r}, seed={self.stream.seed})"

    @property
    def shuffled(self) -> bool:
        return self._shuffled

    def __getitem__(self, index):
        if isinstance(index, slice):
            return StreamDataset(self.stream, self.indices[index], self._shuffled)
        return sample(self.stream[self.indices[index]])

    def __len__(self) -> int:
        return len(self.indices)

    def shuffle(self, seed: int | None = None) -> None:
        order = list(self.indices)
        random.Random(seed).shuffle(order)
        self.indices, self._shuffled = order, True

    def _samples(self) -> MemoryDataset:
        return MemoryDataset([self[i] for i in range(len(self))], name=self.name, location=self.location,
                             shuffled=self._shuffled)

    def sort(self, reverse: bool = False, key: Callable[[Sample], Any] | None = None) -> None:
        raise TypeError("a stream's samples come in index order; sort `list(dataset)` or use a MemoryDataset")

    def filter(self, predicate: Callable[[Sample], bool], name: str | None = None) -> MemoryDataset:
        return self._samples().filter(predicate, name)

    def shuffle_choices(self, seed: int | None = None) -> None:
        raise TypeError("a stream item's options are already in the order its answer position was drawn for")


@scorer(metrics=[accuracy(), stderr()])
def cogforge_score():
    """``cogforge.environments.score`` of the model's completion: 1.0 when the benchmark's
    judge accepts it, else 0.0."""

    async def score(state: TaskState, target: Target) -> Score:
        item = {"id": state.sample_id, "question": state.input_text, **state.metadata}
        reply = state.output.completion
        return Score(value=environments.score(item, reply), answer=reply)

    return score


def inspect_task(stream: environments.Environment, size: int | None = None) -> Task:
    """The first ``size`` items of ``stream`` (all of a sized one) as an inspect ``Task``:
    the samples, ``generate()``, and :func:`cogforge_score`."""
    if size is None and stream.size is None:
        raise environments.StreamError("an endless stream needs size=N to be an inspect task")
    count = stream.size if size is None else size if stream.size is None else min(size, stream.size)
    return Task(dataset=StreamDataset(stream, range(count)), solver=generate(), scorer=cogforge_score(),
                name=f"cogforge-{stream.benchmark}")
