"""CARV: compose the changes between context images and caption their result on a query
(``builders/carv.py``)."""

import dataclasses
import functools

from cogforge.annotation.stages import (Stage, carv_image_audit_predictions, carv_image_audit_tasks,
                                        human_baseline_tasks)
from cogforge.builders import carv as builder
from cogforge.core.registry import Benchmark
from cogforge.evaluate import carv as scorer
from cogforge.exports import carv as card
from cogforge.qc import carv as qc


def refine_checker(thresholds: dict | None):
    """The property check of refined images (``qc/refine.py``) for a build with renderer
    "refine", with the config's ``[refine.qc]`` thresholds over the check's defaults. The
    builder gets it from here: builders do not import QC."""
    from cogforge.qc import refine

    chosen = refine.Thresholds(**{k: v for k, v in (thresholds or {}).items() if v is not None})
    return functools.partial(refine.check_refined_with, thresholds=chosen)


BENCHMARK = Benchmark.of_modules(
    builder,
    qc=qc,
    scorer=scorer,
    card=card,
    stream=builder,
    stages=(
        Stage("carv-image-audit", builder.NAME, "image", True, carv_image_audit_tasks,
              carv_image_audit_predictions),
        Stage("carv-human-baseline", builder.NAME, "item", False, human_baseline_tasks,
              caption_question="caption"),
    ),
)
# the builder gets the property check of refined images from here (builders do not import QC)
BENCHMARK = dataclasses.replace(BENCHMARK, build=functools.partial(builder.build, refine_checker=refine_checker))
