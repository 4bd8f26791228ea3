"""What the mathematics generators share: the picture size, fonts, PNG bytes without
metadata, function plots on a readable grid, and the formats of exact free answers.

Plots are drawn by matplotlib. Axes, grid and tick labels are the slow part (about
60 ms a figure), and they depend only on the window, so each process draws them once
per window and keeps the raster; a plot then restores it and draws its curves and
marks over it (matplotlib's blitting). The bytes depend only on the arguments: the
cached background is itself a pure function of the window.
"""

from __future__ import annotations

import io
from functools import cache, lru_cache
from pathlib import Path

import matplotlib
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image, ImageFont

SIZE = 480  # pixels, square pictures
DPI = 96
CURVE_COLOURS = ("#1f5fbf", "#c0392b", "#1e8449", "#7d3c98")

# Free answers: what the question asks for, judged by sympy equivalence in
# evaluate/symbols/judge.py (meta.answer_format names the format).
FORMATS = {
    "exact": ("Give the exact value: an integer, a fraction such as 5/2, or a radical such as 3*sqrt(2) "
              "(pi for π)."),
    "interval": ("Give the set as an interval or a union of intervals, such as [-2, 3) or "
                 "(-oo, 1) U (2, oo) (oo for infinity)."),
    "set": "Give the numbers as a set in braces, such as {-1, 2}; write {} if there are none.",
}
# the examples above, and others for an item whose answer one of them is: a format
# example must never be the key (a model copying it would score); QC's `examples` check
FORMAT_EXAMPLES = {"exact": ("5/2", "3*sqrt(2)"), "interval": ("[-2, 3)", "(-oo, 1) U (2, oo)"), "set": ("{-1, 2}",)}
OTHER_FORMATS = {
    "exact": ("Give the exact value: an integer, a fraction such as 7/3, or a radical such as 2*sqrt(5) "
              "(pi for π)."),
    "interval": ("Give the set as an interval or a union of intervals, such as (-1, 4] or "
                 "(-oo, -3) U [0, oo) (oo for infinity)."),
    "set": "Give the numbers as a set in braces, such as {-3, 5}; write {} if there are none.",
}


@cache
def _same_text(fmt: str, a: str, b: str) -> bool:
    """Whether two answers of one format are the same: exact values by sympy, intervals
    and sets by their text without spaces (the generators write one canonical form)."""
    if fmt == "exact":
        import sympy

        try:
            difference = sympy.sympify(a) - sympy.sympify(b)
            value = difference.evalf(30)
            if value.is_number and value.is_comparable and abs(value) > 1e-20:
                return False  # numerically apart, so no simplification makes them equal
            return sympy.simplify(difference) == 0
        except (sympy.SympifyError, TypeError):
            return False
    if fmt == "set":
        return sorted(a.strip("{} ").replace(" ", "").split(",")) == sorted(b.strip("{} ").replace(" ", "").split(","))
    return a.replace(" ", "") == b.replace(" ", "")


def format_text(fmt: str, answer: str) -> str:
    """How to write a free answer, with examples that are not this item's answer."""
    if any(_same_text(fmt, example, answer) for example in FORMAT_EXAMPLES[fmt]):
        return OTHER_FORMATS[fmt]
    return FORMATS[fmt]


def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    """DejaVu Sans from matplotlib's own files (present wherever matplotlib is)."""
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    return ImageFont.truetype(str(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / name), size)


def png(picture) -> bytes:
    """PNG bytes of a Pillow image or an RGB(A) array, with no text chunks (nothing but pixels)."""
    image = picture if isinstance(picture, Image.Image) else Image.fromarray(np.asarray(picture)[..., :3])
    buf = io.BytesIO()
    image.convert("RGB").save(buf, format="PNG", compress_level=3)  # level 6 costs 4 ms more a picture
    return buf.getvalue()


Window = tuple[int, int, int, int]  # xmin, xmax, ymin, ymax (whole numbers; a tick and grid line at each)


@lru_cache(maxsize=16)
def _canvas(window: Window, size: int):
    """A figure with axes, grid, axis names and tick labels for ``window`` (no "O" at the
    origin: it reads like an open dot, which marks an excluded point), drawn
    once; returns the figure, its axes and the saved background raster."""
    xmin, xmax, ymin, ymax = window
    fig = Figure(figsize=(size / DPI, size / DPI), dpi=DPI)
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0.08, 0.07, 0.88, 0.89))
    ax.set_xlim(xmin, xmax)
    ax.set_ylim(ymin, ymax)
    step_x = 1 if xmax - xmin <= 12 else 2
    step_y = 1 if ymax - ymin <= 12 else 2
    ax.set_xticks(range(xmin, xmax + 1))
    ax.set_yticks(range(ymin, ymax + 1))
    ax.set_xticklabels([str(v) if v % step_x == 0 and v != 0 else "" for v in range(xmin, xmax + 1)])
    ax.set_yticklabels([str(v) if v % step_y == 0 and v != 0 else "" for v in range(ymin, ymax + 1)])
    ax.tick_params(labelsize=9, length=0)
    ax.grid(True, color="#d5d8dc", linewidth=0.8)
    for side in ("top", "right", "bottom", "left"):
        ax.spines[side].set_visible(False)
    if ymin <= 0 <= ymax:
        ax.axhline(0, color="black", linewidth=1.1)
        ax.annotate("x", (xmax, 0), xytext=(-10, 6), textcoords="offset points", fontsize=11, style="italic")
    if xmin <= 0 <= xmax:
        ax.axvline(0, color="black", linewidth=1.1)
        ax.annotate("y", (0, ymax), xytext=(6, -14), textcoords="offset points", fontsize=11, style="italic")
    fig.canvas.draw()
    return fig, ax, fig.canvas.copy_from_bbox(fig.bbox)


def plot(window: Window, curves: list[dict], points: list[dict] = (), texts: list[dict] = (),
         size: int = SIZE) -> bytes:
    """A function plot on a grid with a tick at every whole number.

    Args:
        window: ``(xmin, xmax, ymin, ymax)``, whole numbers.
        curves: ``{"x": [...], "y": [...]}`` polylines (NaN breaks a line, e.g. at an
            asymptote), optional ``"colour"`` (index into :data:`CURVE_COLOURS`),
            ``"dashed"`` (asymptotes, guides), ``"width"``.
        points: ``{"x", "y", "open": bool}`` dots: filled (included) or open (excluded).
        texts: ``{"x", "y", "text"}`` labels in data coordinates (mathtext allowed).
    """
    fig, ax, background = _canvas(tuple(window), size)
    fig.canvas.restore_region(background)
    artists = []
    for c in curves:
        colour = "#555555" if c.get("dashed") else CURVE_COLOURS[c.get("colour", 0)]
        artists += ax.plot(c["x"], c["y"], color=colour, linewidth=c.get("width", 2.2),
                           linestyle="--" if c.get("dashed") else "-", animated=True, clip_on=True)
    for p in points:
        artists += ax.plot([p["x"]], [p["y"]], marker="o", markersize=7, animated=True,
                           color=CURVE_COLOURS[p.get("colour", 0)],
                           markerfacecolor="white" if p.get("open") else CURVE_COLOURS[p.get("colour", 0)])
    for t in texts:
        artists.append(ax.text(t["x"], t["y"], t["text"], fontsize=t.get("size", 12), animated=True,
                               ha=t.get("ha", "left"), va=t.get("va", "bottom"),
                               bbox={"facecolor": "white", "edgecolor": "none", "pad": 1, "alpha": 0.85}))
    for a in artists:
        ax.draw_artist(a)
    out = png(fig.canvas.buffer_rgba())
    for a in artists:
        a.remove()
    return out


def sample_curve(f, xmin: float, xmax: float, ymin: float, ymax: float, n: int = 600) -> dict:
    """``{"x", "y"}`` of a numpy-callable ``f`` over the window, broken (NaN) where it
    leaves the window far or is undefined, so asymptotes are not joined up."""
    x = np.linspace(xmin, xmax, n)
    with np.errstate(all="ignore"):
        y = np.asarray(f(x), dtype=float) * np.ones_like(x)
    span = ymax - ymin
    y[~np.isfinite(y) | (y > ymax + span) | (y < ymin - span)] = np.nan
    return {"x": x.tolist(), "y": y.tolist()}
