"""Builders: seed + config -> ``build/<benchmark>/``. One module per benchmark.

A builder module defines ``NAME``, ``DEFAULT_CONFIG``, its config schema and
``build(out_dir, seed=None, config_path=None, progress=True, **options) -> manifest``.
The command line finds a builder through the benchmark's registered descriptor
(``cogforge/benchmarks/<name>.py``, see :mod:`cogforge.core.registry`), not by module name.
"""
