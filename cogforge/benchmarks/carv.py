"""CARV: compose the changes between context images and caption their result on a query
(``builders/carv.py``)."""

from cogforge.annotation.stages import (Stage, carv_image_audit_predictions, carv_image_audit_tasks,
                                        human_baseline_tasks)
from cogforge.builders import carv as builder
from cogforge.core.registry import Benchmark
from cogforge.evaluate import carv as scorer
from cogforge.exports import carv as card
from cogforge.qc import carv as qc

BENCHMARK = Benchmark.of_modules(
    builder,
    qc=qc,
    scorer=scorer,
    card=card,
    stages=(
        Stage("carv-image-audit", builder.NAME, "image", True, carv_image_audit_tasks,
              carv_image_audit_predictions),
        Stage("carv-human-baseline", builder.NAME, "item", False, human_baseline_tasks,
              caption_question="caption"),
    ),
)
