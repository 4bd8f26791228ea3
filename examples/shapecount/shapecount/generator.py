"""Pictures of coloured shapes: a scene -> PNG bytes.

A scene is what the builder samples and records in ``meta.scene``: a list of shapes, each
``{"shape", "colour", "x", "y", "r"}`` with its centre and radius in pixels of the final
picture. A shape fits inside the circle of radius ``r`` around its centre: a circle of
radius 0.8 r, an axis-aligned square of half-side 0.7 r, an upright equilateral triangle
inscribed in the circle. Each is filled with its colour from ``vocabulary.toml`` and has a
thin dark outline (yellow on the light background stays visible).

Pictures are drawn at four times their size and box-filtered down, so edges are smooth.
Nothing here is random and nothing is written: the same scene gives the same bytes.
"""

from __future__ import annotations

import io
import math
import tomllib
from functools import cache
from pathlib import Path

from PIL import Image, ImageDraw

VOCABULARY = Path(__file__).with_name("vocabulary.toml")
BACKGROUND = (244, 244, 240)
OUTLINE = (45, 45, 45)
OUTLINE_PX = 2  # in the final picture
SUPERSAMPLE = 4


@cache
def vocabulary() -> dict:
    """``{"colours": {name: [r, g, b]}, "shapes": {name: plural}}``, read from the data file."""
    return tomllib.loads(VOCABULARY.read_text(encoding="utf-8"))


def outline(shape: str, x: float, y: float, r: float, inset: float = 0) -> list[tuple[float, float]]:
    """The shape's corners (a circle: its bounding box's), moved ``inset`` pixels inwards."""
    if shape == "circle":
        k = 0.8 * r - inset
        return [(x - k, y - k), (x + k, y + k)]
    if shape == "square":
        k = 0.7 * r - inset
        return [(x - k, y - k), (x + k, y - k), (x + k, y + k), (x - k, y + k)]
    if shape == "triangle":  # apex up, centroid at the centre; the sides lie at half the radius
        k = r - 2 * inset
        return [(x + k * math.cos(a), y + k * math.sin(a)) for a in (-math.pi / 2, math.pi / 6, 5 * math.pi / 6)]
    raise ValueError(f"unknown shape {shape!r}; shapes: {', '.join(vocabulary()['shapes'])}")


def _paint(pen: ImageDraw.ImageDraw, shape: dict, scale: int, inset: float, fill) -> None:
    corners = outline(shape["shape"], shape["x"] * scale, shape["y"] * scale, shape["r"] * scale, inset)
    if shape["shape"] == "circle":
        pen.ellipse(corners, fill=fill)
    else:
        pen.polygon(corners, fill=fill)


def draw(scene: list[dict], size: int) -> bytes:
    """The scene as a ``size`` x ``size`` RGB PNG (no metadata chunks)."""
    colours = vocabulary()["colours"]
    s = SUPERSAMPLE
    image = Image.new("RGB", (size * s, size * s), BACKGROUND)
    pen = ImageDraw.Draw(image)
    for shape in scene:
        _paint(pen, shape, s, 0, OUTLINE)
        _paint(pen, shape, s, OUTLINE_PX * s, tuple(colours[shape["colour"]]))
    out = io.BytesIO()
    image.reduce(s).save(out, format="PNG")  # box filter: each pixel the mean of s x s
    return out.getvalue()
