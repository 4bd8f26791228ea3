"""CoreCognition, procedural: twelve core-knowledge concepts as control and manipulated
pairs (``builders/corecognition.py``)."""

from cogforge.annotation.stages import Stage, corecognition_cross_validation_tasks
from cogforge.builders import corecognition as builder
from cogforge.core.registry import Benchmark
from cogforge.evaluate import corecognition as scorer
from cogforge.exports import corecognition as card
from cogforge.qc import corecognition as qc

BENCHMARK = Benchmark.of_modules(
    builder,
    qc=qc,
    scorer=scorer,
    card=card,
    stream=builder,
    # the paper's two rounds of cross-validation by separate groups (its section 3.2): the
    # same tasks in two projects; an item rejected in either round is flagged
    stages=tuple(Stage(f"corecognition-cross-validation-{n}", builder.NAME, "item", True,
                       corecognition_cross_validation_tasks, letter_question="answer",
                       template="corecognition-cross-validation") for n in (1, 2)),
)
