"""ShapeCount registered with cogforge: one :class:`~cogforge.core.registry.Benchmark`.

``pyproject.toml`` names this object under the entry-point group ``cogforge.benchmarks``;
cogforge finds it there when it is asked for the benchmark ``shapecount`` (``cogforge list``
shows it). The first four fields are what every benchmark must give; the others are hooks
(a hook left out falls back to cogforge's shared behaviour).
"""

from cogforge.core.registry import Benchmark

from shapecount import builder, card, qc, scoring

BENCHMARK = Benchmark(
    name=builder.NAME,
    build=builder.build,
    default_config=builder.DEFAULT_CONFIG,
    config_schema=builder.Config,
    checks=qc.CHECKS,  # run by `cogforge qc` after the shared checks
    qc=qc,  # strata and chance for the shared balance and shortcut checks
    scorer=scoring,  # is_correct, chance, strata, random_answer for `cogforge eval`
    card=card,  # PRETTY_NAME, SUMMARY, LICENSE, ... for the release card and Croissant
    stream=builder,  # load_stream_config, stream_tasks, ...: a training stream (cogforge.environments)
)
