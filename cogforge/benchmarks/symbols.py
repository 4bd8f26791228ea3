"""Discrete symbols: chemistry, physics, mathematics, culture and language at three cognitive levels
(``builders/symbols.py``). Its domains are its own business: the builder, QC and scorer
find them in ``generators/symbols/``, ``qc/symbols/`` and ``evaluate/symbols/``."""

from cogforge.annotation.stages import Stage, symbols_guessability_tasks
from cogforge.builders import symbols as builder
from cogforge.core.registry import Benchmark
from cogforge.evaluate import symbols as scorer
from cogforge.exports import symbols as card
from cogforge.qc import symbols as qc

BENCHMARK = Benchmark.of_modules(
    builder,
    qc=qc,
    # assembled from every domain module's Config, which imports them all: made when asked
    config_schema=builder.config_schema,
    scorer=scorer,
    card=card,
    stream=builder,
    stages=(
        # can a person read the emoji rebus? One task per picture; a rejected picture leaves the next build
        Stage("symbols-guessability", builder.NAME, "image", True, symbols_guessability_tasks,
              caption_question="guess", hidden=("answer", "reading")),
    ),
    inputs={"chembench": "a ChemBench4K task file, JSON (chemistry domain)",
            "scenes": "force scenes, one a line (physics domain)",
            "emoji2idiom": "an eWe-bench/Emoji2Idiom sheet, xlsx, its images beside it (culture domain)",
            "visualc3": "a Visual-C3 split folder with imgs/, label/ and char_label/ (language domain)"},
)
