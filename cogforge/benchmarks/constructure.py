"""CONSTRUCTURE: WordNet isA chains and four multiple-choice tasks about the concept in an
image (``builders/constructure.py``).

No card hooks of its own: its release card is the shared one.
"""

from cogforge.builders import constructure as builder
from cogforge.core.registry import Benchmark
from cogforge.evaluate import constructure as scorer
from cogforge.qc import constructure as qc

BENCHMARK = Benchmark.of_modules(
    builder,
    qc=qc,
    scorer=scorer,
    stream=builder,
)
