"""cogforge's own benchmarks as registered objects: one module per benchmark, each defining
``BENCHMARK``, a :class:`cogforge.core.registry.Benchmark` that gathers the benchmark's
parts from every layer (builder, QC, scorer, card, annotation stages).

They are registered in ``pyproject.toml`` under ``[project.entry-points."cogforge.benchmarks"]``,
as a benchmark from another package is; the layers find them through
:func:`cogforge.core.registry.find` and import nothing here. This package sits on top of
the layers, beside the command line.
"""
