"""Builders: seed + config -> ``build/<benchmark>/``. One module per benchmark.

A builder module defines ``NAME``, ``DEFAULT_CONFIG`` and
``build(out_dir, seed=None, config_path=None, progress=True) -> manifest``.
Adding a benchmark means adding a module here; nothing else needs to change.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

from cogforge.core.errors import UserError


def available() -> list[str]:
    """Names of the benchmarks that have a builder."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def get(name: str) -> ModuleType:
    if name not in available():
        raise UserError(f"unknown benchmark {name!r}; available: {', '.join(available())}")
    return importlib.import_module(f"{__name__}.{name}")
