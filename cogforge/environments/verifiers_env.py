"""A stream as a ``verifiers`` taskset (PyPI ``verifiers`` 0.4, its ``verifiers.v1`` API).

verifiers 0.4 builds an environment from a *taskset* (``vf.Taskset``: config in, tasks out)
and the task's own rewards (``@vf.reward`` methods of a ``vf.Task``); the single-turn chat
environments of 0.3 (``SingleTurnEnv`` with a ``Rubric``) are gone. :class:`StreamTaskset`
yields one :class:`StreamTask` per stream item, made when the library reaches it: the prompt
is one user message, the question as text and each image as an ``image_url`` part holding a
``data:image/png;base64,...`` URL of the stream's PNG bytes, and the reward ``correct`` is
``cogforge.environments.score`` of the model's last reply. An endless stream is an endless
taskset (``INFINITE``), bounded by the library's own views (``take``, ``include``).

The module is a taskset plugin: verifiers finds it by id, ``TASKSET_ID`` (as
``vf.load_taskset(StreamTasksetConfig(id=TASKSET_ID, benchmark="carv"))`` and ``vf-eval``
do), and the config names the stream as ``environments.open`` takes it.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator

import verifiers.v1 as vf

from cogforge import environments

TASKSET_ID = "cogforge.environments.verifiers_env"


class StreamTaskData(vf.TaskData):
    """One stream item as the library records it on a trace: the prompt, the key and
    enough to make the item again (benchmark, task, seed, index, difficulty)."""

    benchmark: str
    task: str
    seed: int
    index: int
    answer: str
    options: list[str] | None = None
    meta: str = "{}"  # the item's meta as JSON, so every task has one schema on the wire


class StreamTask(vf.Task[StreamTaskData]):
    @vf.reward
    async def correct(self, task: StreamTaskData, trace: vf.Trace) -> float:
        """1.0 when cogforge's verifier accepts the model's last reply, else 0.0."""
        item = {"id": task.id, "benchmark": task.benchmark, "task": task.task, "question": task.prompt_text,
                "options": task.options, "answer": task.answer, "meta": task.meta}
        return environments.score(item, trace.last_reply)


class StreamTasksetConfig(vf.TasksetConfig):
    """The stream, as :func:`cogforge.environments.open` takes it."""

    benchmark: str = ""
    tasks: list[str] | None = None  # None: every task (``task`` is verifiers' own TaskConfig)
    seed: int = 0
    size: int | None = None
    difficulty: dict | None = None
    exclude: list[str] | None = None


def image_url(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def task_data(item: dict, seed: int) -> StreamTaskData:
    parts = [vf.TextContentPart(text=item["question"])]
    parts += [vf.ImageUrlContentPart(image_url=vf.ImageUrlSource(url=image_url(png))) for png in item["images"]]
    return StreamTaskData(id=item["id"], name=item["task"], prompt=[vf.UserMessage(content=parts)],
                          benchmark=item["benchmark"], task=item["task"], seed=seed, index=item["index"],
                          answer=item["answer"], options=item["options"],
                          meta=json.dumps(item["meta"], sort_keys=True, ensure_ascii=False))


class StreamTaskset(vf.Taskset[StreamTask, StreamTasksetConfig]):
    def __init__(self, config: StreamTasksetConfig) -> None:
        super().__init__(config)
        self.stream = environments.open(config.benchmark, task=config.tasks, seed=config.seed, size=config.size,
                                        difficulty=config.difficulty, exclude=config.exclude)
        self.INFINITE = self.stream.size is None

    def load(self) -> Iterator[StreamTask]:
        for item in self.stream:
            yield StreamTask(task_data(item, self.stream.seed), self.config.task)


def config_of(stream: environments.Environment) -> StreamTasksetConfig:
    """The taskset config that opens ``stream`` again (its exclusion by release folder)."""
    return StreamTasksetConfig(id=TASKSET_ID, benchmark=stream.benchmark, tasks=list(stream.tasks), seed=stream.seed,
                               size=stream.size, difficulty=stream.difficulty or None,
                               exclude=stream.exclusion.releases if stream.exclusion else None)


__all__ = ["StreamTaskset"]
