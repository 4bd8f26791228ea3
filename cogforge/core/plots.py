"""Figures for reports: matplotlib without a display, saved the same way everywhere."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path


@contextmanager
def figure(path: Path, size: tuple[float, float]):
    """Yield (fig, ax); on leaving, lay the figure out, save it to ``path`` and close it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=size)
    try:
        yield fig, ax
        fig.tight_layout()
        fig.savefig(path, dpi=110)
    finally:
        plt.close(fig)
