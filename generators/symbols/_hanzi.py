"""Handwriting-like pictures of Chinese sentences, drawn from per-character stroke data.

Every Hanzi is drawn from the npm package ``hanzi-writer-data`` (Make Me a Hanzi's stroke
outlines, extracted from Arphic's Kai fonts; Arphic Public License), fetched by
``make setup-hanzi`` into ``.cache/hanzi-writer-data``: one ``<char>.json`` per character with
``strokes`` (SVG paths with absolute M/L/Q/C/Z on a 1024 grid whose y axis points up: image
y = 900 - y), ``medians`` (each stroke's centre line, same grid) and ``radStrokes`` (the
radical's strokes). Real and faked characters (``_fakes``) go through this one pipeline, so a
fake is in the same hand as its neighbours; the Debian Kai font (UKai) draws only what has
no stroke data (punctuation, digits), because its glyph design differs from the stroke data's
(IoU .57-.76 at 128 px) and a font-drawn Hanzi beside stroke-drawn ones could be told apart.

The hand: each character gets its own jitter in position, size, rotation, slant and pen
width, and each stroke a small shift and turn of its own, all drawn from ``Random`` seeded by
the style's seed and the cell's index, so the same cells and style give the same bytes in
any process. Outlines are flattened here (no cairo), filled at twice the size with Pillow
and reduced (anti-aliasing), then inked onto ruled or squared paper.
"""

from __future__ import annotations

import io
import json
import math
import os
import random
import re
from dataclasses import asdict, dataclass, fields
from functools import lru_cache
from pathlib import Path
from typing import Literal

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from cogforge.core.errors import UserError
from cogforge.core.project import project_root

FONT = Path("/usr/share/fonts/truetype/arphic/ukai.ttc")  # Debian fonts-arphic-ukai; face 0 = AR PL UKai CN
FONT_INDEX = 0
EM = 1024  # the stroke data's grid: x 0..1024, y 900 (top) .. -124 (bottom)
TOP = 900
SUPER = 2  # drawn at twice the size, then reduced: smooth edges without a slow anti-aliased fill


class HanziDataError(UserError):
    """The stroke data are missing or unreadable."""


def stroke_folder() -> Path:
    """``.cache/hanzi-writer-data`` of the project; a :class:`UserError` naming ``make setup-hanzi``
    when it is not there."""
    folder = _folder(os.environ.get("COGFORGE_PROJECT"))
    if folder is None:  # not cached: set up later in the same process
        _folder.cache_clear()
        folder = _folder(os.environ.get("COGFORGE_PROJECT"))
    if folder is None:
        raise HanziDataError("no Chinese stroke data (hanzi-writer-data); run `make setup-hanzi` "
                             "(it installs the npm package into .cache/hanzi-writer-data)",
                             project_root() / ".cache" / "hanzi-writer-data")
    return folder


@lru_cache(maxsize=8)
def _folder(_project: str | None) -> Path | None:
    """The stroke folder of a project (keyed by ``$COGFORGE_PROJECT``: resolving the
    project root costs a millisecond, and glyphs are looked up thousands of times)."""
    folder = project_root() / ".cache" / "hanzi-writer-data"
    return folder if (folder / "ARPHICPL.TXT").is_file() and (folder / "一.json").is_file() else None


@dataclass(frozen=True)
class Glyph:
    """A character's strokes: SVG paths and centre lines on the data's 1024 grid (y up).
    A faked glyph keeps its source's ``char``."""

    char: str
    strokes: tuple[str, ...]
    medians: tuple[tuple[tuple[float, float], ...], ...]
    rad_strokes: tuple[int, ...] = ()


def glyph_from_record(ch: str, record: dict) -> Glyph:
    """A glyph from a character's JSON record in the data."""
    return Glyph(ch, tuple(record["strokes"]),
                 tuple(tuple((float(x), float(y)) for x, y in m) for m in record["medians"]),
                 tuple(record.get("radStrokes") or ()))


@lru_cache(maxsize=20000)
def _glyph(folder: Path, ch: str) -> Glyph | None:
    if len(ch) != 1 or ch in "/\\\0.":  # not a file name of the data
        return None
    path = folder / f"{ch}.json"
    if not path.is_file():
        return None
    return glyph_from_record(ch, json.loads(path.read_text(encoding="utf-8")))


def glyph(ch: str) -> Glyph | None:
    """The stroke data of a character; None when the data have none (punctuation, rare
    characters)."""
    return _glyph(stroke_folder(), ch)


# --------------------------------------------------------------------------- outlines

_TOKEN = re.compile(r"[MLQCZ]|-?\d+(?:\.\d+)?")
_STEPS = 5  # points per curve segment: under a pixel off at the sizes drawn here
_T = np.linspace(0, 1, _STEPS + 1)[1:]
_CUBIC = np.stack([(1 - _T) ** 3, 3 * (1 - _T) ** 2 * _T, 3 * (1 - _T) * _T ** 2, _T ** 3], axis=1)  # (steps, 4)


def path_tokens(path: str) -> list[str]:
    """An SVG path's commands and numbers, in order."""
    return _TOKEN.findall(path)


@lru_cache(maxsize=200_000)
def outline(path: str) -> tuple[np.ndarray, ...]:
    """The closed polygons of one stroke's path, in image orientation (x right, y down,
    0..1024 from the top of the em box). Every segment is taken as a cubic Bézier (a
    quadratic raised exactly, a line as a straight cubic), all flattened in one product."""
    tokens = path_tokens(path)
    polys, segs, x, y, i, end = [], [], 0.0, 0.0, 0, len(tokens)
    start = (0.0, 0.0)
    while i < end:
        cmd = tokens[i]
        if cmd == "Q":
            a, b, c, d = float(tokens[i + 1]), float(tokens[i + 2]), float(tokens[i + 3]), float(tokens[i + 4])
            segs.append((x, y, x + (a - x) * 2 / 3, y + (b - y) * 2 / 3,  # a quadratic raised to a cubic
                         c + (a - c) * 2 / 3, d + (b - d) * 2 / 3, c, d))
            x, y, i = c, d, i + 5
        elif cmd == "L":
            a, b = float(tokens[i + 1]), float(tokens[i + 2])
            segs.append((x, y, x, y, a, b, a, b))
            x, y, i = a, b, i + 3
        elif cmd == "C":
            v = [float(t) for t in tokens[i + 1:i + 7]]
            segs.append((x, y, *v))
            x, y, i = v[4], v[5], i + 7
        elif cmd == "M":
            if segs:
                polys.append((start, segs))
                segs = []
            x, y = float(tokens[i + 1]), float(tokens[i + 2])
            start, i = (x, y), i + 3
        else:  # Z
            i += 1
    if segs:
        polys.append((start, segs))
    out = []
    for start, seg in polys:
        pts = np.empty((1 + len(seg) * _STEPS, 2))
        pts[0] = start
        pts[1:] = (np.array(seg).reshape(-1, 4, 2).transpose(0, 2, 1) @ _CUBIC.T).transpose(0, 2, 1).reshape(-1, 2)
        pts[:, 1] = TOP - pts[:, 1]
        out.append(pts)
    return tuple(out)


def transform_path(path: str, matrix: np.ndarray) -> str:
    """The path with every point (control points included: Béziers are affine-invariant)
    mapped by a 2x3 affine ``matrix`` on the data's grid (y up), rounded to whole units."""
    tokens = path_tokens(path)
    out, i = [], 0
    while i < len(tokens):
        cmd = tokens[i]
        out.append(cmd)
        i += 1
        n = {"M": 1, "L": 1, "Q": 2, "C": 3, "Z": 0}[cmd]
        for _ in range(n):
            x, y = float(tokens[i]), float(tokens[i + 1])
            i += 2
            nx = matrix[0, 0] * x + matrix[0, 1] * y + matrix[0, 2]
            ny = matrix[1, 0] * x + matrix[1, 1] * y + matrix[1, 2]
            out.append(f"{round(nx)} {round(ny)}")
    return " ".join(out)


def transform_median(median, matrix: np.ndarray) -> tuple[tuple[float, float], ...]:
    return tuple((float(round(matrix[0, 0] * x + matrix[0, 1] * y + matrix[0, 2])),
                  float(round(matrix[1, 0] * x + matrix[1, 1] * y + matrix[1, 2]))) for x, y in median)


def rasterise(g: Glyph, size: int) -> np.ndarray:
    """The glyph's em box as a ``size`` x ``size`` boolean bitmap (no jitter, no pen): what
    the fake checker compares."""
    image = Image.new("L", (size, size), 0)
    draw = ImageDraw.Draw(image)
    scale = size / EM
    for path in g.strokes:
        for poly in outline(path):
            draw.polygon((poly * scale).ravel().tolist(), fill=255)
    return np.asarray(image) > 127


# --------------------------------------------------------------------------- style

Paper = Literal["ruled", "squared"]

_PAPERS = [(252, 251, 246), (255, 255, 255), (250, 246, 232), (246, 248, 250), (253, 250, 240)]
_RULES = [(160, 190, 225), (200, 170, 160), (150, 200, 170), (190, 190, 200)]
_INKS = [(20, 20, 25), (25, 35, 110), (15, 40, 90), (45, 45, 50), (70, 30, 30)]


@dataclass(frozen=True)
class Style:
    """How a sentence is drawn: the paper, the pen and how much the hand wavers. Sizes are
    pixels of the picture; ``pen`` and ``jitter_pen`` are units of the 1024 em grid added
    to the outline's thickness (a Kai stroke is about 60-90 units wide)."""

    seed: int = 0  # per-character and per-stroke jitter
    paper: Paper = "squared"
    paper_rgb: tuple[int, int, int] = (252, 251, 246)
    rule_rgb: tuple[int, int, int] = (160, 190, 225)
    ink_rgb: tuple[int, int, int] = (20, 20, 25)
    cell: int = 48  # the square of one character (the advance on ruled paper)
    per_line: int = 12  # characters a line
    em: float = 0.84  # the em box as a fraction of the cell
    slant: float = 0.0  # the whole hand's shear (x += slant * height above the baseline)
    pen: float = 12.0
    jitter_pos: float = 0.05  # fraction of the cell, each axis
    jitter_size: float = 0.06  # relative
    jitter_turn: float = 2.5  # degrees
    jitter_slant: float = 0.04
    jitter_pen: float = 6.0
    jitter_stroke: float = 10.0  # em units each stroke wanders by itself
    drift: float = 0.0  # how far a line's baseline wanders up and down (fraction of the cell)

    @classmethod
    def draw(cls, rng: random.Random) -> Style:
        """A style sampled from ``rng``: one writer's hand on one sheet."""
        return cls(
            seed=rng.randrange(2 ** 31),
            paper=rng.choice(["ruled", "squared"]),
            paper_rgb=rng.choice(_PAPERS),
            rule_rgb=rng.choice(_RULES),
            ink_rgb=rng.choice(_INKS),
            # big enough that a fake shows when a model sees the picture (downscaled to about
            # 700-1000 px on its long side): 8-12 cells of 56-72 px a line
            cell=rng.choice([56, 60, 64, 68, 72]),
            per_line=rng.randint(8, 12),
            em=round(rng.uniform(0.78, 0.9), 3),
            slant=round(rng.uniform(-0.05, 0.15), 3),
            pen=round(rng.uniform(0.0, 24.0), 1),
            jitter_pos=round(rng.uniform(0.02, 0.07), 3),
            jitter_size=round(rng.uniform(0.03, 0.08), 3),
            jitter_turn=round(rng.uniform(1.0, 4.0), 2),
            jitter_slant=round(rng.uniform(0.02, 0.06), 3),
            jitter_pen=round(rng.uniform(2.0, 8.0), 1),
            # a stroke wandering more than this reads as a stroke moved or lengthened on purpose
            jitter_stroke=round(rng.uniform(3.0, 8.0), 1),
            drift=round(rng.uniform(0.0, 0.06), 3),
        )

    def to_dict(self) -> dict:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}

    @classmethod
    def from_dict(cls, d: dict) -> Style:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(d) - known)
        if unknown:
            raise ValueError(f"unknown style keys {unknown}; known: {', '.join(sorted(known))}")
        return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in d.items()})


# --------------------------------------------------------------------------- drawing


def font_file() -> Path:
    """The Kai font; a :class:`UserError` naming ``make setup`` when it is not installed."""
    if not FONT.is_file():
        raise HanziDataError("no Kai font (Debian's fonts-arphic-ukai); run `make setup`", FONT)
    return FONT


@lru_cache(maxsize=16)
def _font(size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(font_file()), size, index=FONT_INDEX)


def _hand(style: Style, index: int) -> tuple[float, float, float, float, float, float, int]:
    """One character's jitter: dx, dy (pixels), scale, turn (radians), shear, pen (em
    units) and ink (0-255: how hard the pen pressed)."""
    r = random.Random(f"{style.seed}:{index}")
    j = style.jitter_pos * style.cell
    line, column = divmod(index, style.per_line)
    phase = random.Random(f"{style.seed}:line {line}").uniform(0, 2 * math.pi)
    wander = style.drift * style.cell * math.sin(phase + column * 0.45)  # the line rises and sinks slowly
    return (r.uniform(-j, j), wander + r.uniform(-j, j), 1 + r.uniform(-style.jitter_size, style.jitter_size),
            math.radians(r.uniform(-style.jitter_turn, style.jitter_turn)),
            style.slant + r.uniform(-style.jitter_slant, style.jitter_slant),
            max(0.0, style.pen + r.uniform(-style.jitter_pen, style.jitter_pen)), round(255 * r.uniform(0.8, 1.0)))


def _layout(n: int, style: Style) -> tuple[int, int, list[tuple[float, float]]]:
    """Picture size and each cell's top-left corner."""
    margin = style.cell * 0.6
    row = style.cell * (1.0 if style.paper == "squared" else 1.25)
    lines = max(1, math.ceil(n / style.per_line))
    width = round(2 * margin + _columns(n, style) * style.cell)
    height = round(2 * margin + lines * row - (row - style.cell))
    corners = [(margin + (i % style.per_line) * style.cell, margin + (i // style.per_line) * row) for i in range(n)]
    return width, height, corners


def _columns(n: int, style: Style) -> int:
    return max(1, min(n, style.per_line))  # a short sentence leaves no blank paper beside it


def _paper(width: int, height: int, n: int, style: Style) -> Image.Image:
    image = Image.new("RGB", (width, height), style.paper_rgb)
    draw = ImageDraw.Draw(image)
    _, _, corners = _layout(n, style)
    lines = sorted({y for _, y in corners})
    c = style.cell
    columns = _columns(n, style)
    x0, x1 = round(c * 0.6), round(c * 0.6 + columns * c)
    for y in lines:
        if style.paper == "squared":
            draw.rectangle([x0, round(y), x1, round(y + c)], outline=style.rule_rgb, width=1)
            for k in range(1, columns):
                draw.line([(x0 + k * c, round(y)), (x0 + k * c, round(y + c))], fill=style.rule_rgb, width=1)
        else:
            yb = round(y + c * 0.98)
            draw.line([(0, yb), (width, yb)], fill=style.rule_rgb, width=1)
    return image


def _draw_glyph(draw: ImageDraw.ImageDraw, g: Glyph, corner: tuple[float, float], style: Style,
                index: int) -> list[float]:
    """Fills one glyph into the (super-sampled) mask; returns its ink box [x0, y0, x1, y1]
    in picture pixels."""
    dx, dy, scale, turn, shear, pen, ink = _hand(style, index)
    s = style.cell * style.em / EM * scale * SUPER
    cx = (corner[0] + style.cell / 2 + dx) * SUPER
    cy = (corner[1] + style.cell / 2 + dy) * SUPER
    cos, sin = math.cos(turn), math.sin(turn)
    # em units, centred on the em box's middle -> picture: turn, then shear (slant), then scale
    a = np.array([[cos - shear * sin, -sin - shear * cos], [sin, cos]]) * s
    per_stroke = random.Random(f"{style.seed}:{index}:strokes")
    width = max(1, round(pen * s))
    drawn = []
    for path in g.strokes:
        sdx, sdy = (per_stroke.uniform(-style.jitter_stroke, style.jitter_stroke) for _ in range(2))
        sturn = math.radians(per_stroke.uniform(-1.0, 1.0))
        c2, s2 = math.cos(sturn), math.sin(sturn)
        # each stroke turns a little about its own middle and wanders: local @ m + offset
        m = np.array([[c2, s2], [-s2, c2]]) @ a.T
        for local, (mx, my) in _centred(path):
            ox, oy = mx + sdx - EM / 2, my + sdy - EM / 2
            pts = local @ m + (a[0, 0] * ox + a[0, 1] * oy + cx, a[1, 0] * ox + a[1, 1] * oy + cy)
            draw.polygon(pts.ravel().tolist(), fill=ink, outline=ink, width=width)
            drawn.append(pts)
    if not drawn:
        return [cx / SUPER, cy / SUPER, cx / SUPER, cy / SUPER]
    every = np.concatenate(drawn)
    (x0, y0), (x1, y1) = every.min(axis=0), every.max(axis=0)
    half = width / 2
    return [(x0 - half) / SUPER, (y0 - half) / SUPER, (x1 + half) / SUPER, (y1 + half) / SUPER]


@lru_cache(maxsize=200_000)
def _centred(path: str) -> tuple[tuple[np.ndarray, tuple[float, float]], ...]:
    """The stroke's polygons about their own middle, and the middle."""
    out = []
    for poly in outline(path):
        mx, my = poly.mean(axis=0)
        out.append((poly - (mx, my), (float(mx), float(my))))
    return tuple(out)


@lru_cache(maxsize=4096)
def font_bitmap(ch: str, size: int) -> np.ndarray:
    """The Kai font's glyph of ``ch`` in the stroke data's em box, ``size`` x ``size``
    (what the fake checker compares with characters the stroke data lack)."""
    image = Image.new("L", (size, size), 0)
    ImageDraw.Draw(image).text((0, size * TOP / EM), ch, fill=255, font=_font(size), anchor="ls")
    return np.asarray(image) > 127


def _draw_text(mask: Image.Image, ch: str, corner: tuple[float, float], style: Style,
               index: int) -> list[float]:
    """A character without stroke data (punctuation, digits) from the Kai font, in the
    same em box; returns its ink box in picture pixels."""
    dx, dy, scale, _, _, pen, ink = _hand(style, index)
    size = max(4, round(style.cell * style.em * scale * SUPER))
    font = _font(size)
    left = (corner[0] + style.cell / 2 + dx) * SUPER - size / 2
    top = (corner[1] + style.cell / 2 + dy) * SUPER - size / 2
    x, y = round(left), round(top + size * TOP / EM)  # the stroke data's baseline: 900 of 1024 from the top
    stroke = max(0, round(pen * size / EM / 2))
    draw = ImageDraw.Draw(mask)
    draw.text((x, y), ch, fill=ink, font=font, anchor="ls", stroke_width=stroke, stroke_fill=ink)
    bbox = draw.textbbox((x, y), ch, font=font, anchor="ls", stroke_width=stroke)
    if bbox[2] <= bbox[0]:
        bbox = (left, top, left + size, top + size)
    return [b / SUPER for b in bbox]


def render_sentence(cells: list, style: Style) -> tuple[bytes, list[list[int]]]:
    """A sentence written by hand on paper.

    Args:
        cells: one entry a character cell: a ``str`` (a Hanzi with stroke data is drawn from
            them; anything else, such as punctuation, from the Kai font) or a :class:`Glyph`
            (a faked character).
        style: the hand, pen and paper (:meth:`Style.draw`).

    Returns:
        RGB PNG bytes (no text chunks) and one ``[x, y, w, h]`` ink box per cell (the
        Visual-C3 convention), in pixels of the picture.
    """
    width, height, corners = _layout(len(cells), style)
    mask = Image.new("L", (width * SUPER, height * SUPER), 0)
    draw = ImageDraw.Draw(mask)
    boxes = []
    for i, (cell, corner) in enumerate(zip(cells, corners)):
        g = cell if isinstance(cell, Glyph) else glyph(cell) if cell.strip() else None
        if isinstance(cell, str) and not cell.strip():
            box = [corner[0], corner[1], corner[0] + style.cell, corner[1] + style.cell]
        elif g is not None:
            box = _draw_glyph(draw, g, corner, style, i)
        else:
            box = _draw_text(mask, cell, corner, style, i)
        x0, y0 = max(0, math.floor(box[0])), max(0, math.floor(box[1]))
        x1, y1 = min(width, math.ceil(box[2])), min(height, math.ceil(box[3]))
        boxes.append([x0, y0, max(1, x1 - x0), max(1, y1 - y0)])
    alpha = mask.reduce(SUPER)
    picture = _paper(width, height, len(cells), style)
    picture.paste(Image.new("RGB", picture.size, style.ink_rgb), (0, 0), alpha)
    out = io.BytesIO()
    picture.save(out, format="PNG", compress_level=3)  # level 6 costs twice the time for 12% less
    return out.getvalue(), boxes
