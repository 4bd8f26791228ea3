"""Solids built from unit cubes, their orthographic views, and the nets of a cube
(mathematics T11 "solid geometry structure reasoning" and T16 "orthographic projection
identification").

Ground truth
------------
A solid is a *height map* on a small base (3x3, 4x3 or 3x4 cells, heights 0-3): every
column stands on the floor, so no cube floats and the support rule "every cube stands on
the floor or on another cube", stated in each question, tells the reader that a column
is full below its visible top. Meta stores the cubes as a JSON list of ``[x, y, z]``
(x to the right as seen from the front, y from the front row backwards, z up) and the
base ``[W, D]``; every picture and answer is re-derived from that list.

Sampling and rejection rules (:func:`sample_heights`):

* every row and every column of the base holds a cube (the base is the solid's
  bounding box, so the views are W, D cells wide and nothing in the picture is empty
  floor at the edge), and the footprint is one 4-connected piece;
* every column's top face, and the floor cell of every empty column, shows at least
  :data:`MIN_VISIBLE` of its area in the drawing: a column-id buffer is drawn in the
  same projection and the pixels of each top face counted (:func:`top_visibility`).
  Then no column is hidden and every height can be read. ``check`` confirms it by a
  different method: rays from points on each top face towards the viewer, tested
  against every cube (:func:`_ray_visibility`).

Pictures are drawn with Pillow at twice the size and shrunk by averaging each 2x2 block
(``Image.reduce``: as smooth as LANCZOS for line art at an exact factor 2, and 1 ms
where LANCZOS took 13 of the 25 ms a picture may cost): an isometric
view from the front-left and above (three shades for the top, front and left faces, dark
edges, painter's algorithm by depth ``z - x - y``) over a grey floor grid of the base.

Tasks
-----
``solid-structure`` (L2, T11, filtered), its question kinds in turn:

* ``count``: how many cubes (options: four consecutive counts, rank balanced);
* ``surface-area``: total surface area with the bottom, unit edges (even steps: the
  area of a cube solid is always even, so odd distractors would be given away);
* ``volume``: the volume for cubes of edge 2 or 3 cm (steps of one cube);
* ``opposite-face``: a net of the cube (one of the 11, turned or flipped at random)
  with lettered faces; which face is opposite the marked one. The generator folds by
  rolling a cube over the net and tracking which face touches each square
  (:func:`roll_faces`); ``check`` folds with rotation matrices. Distractors are faces
  adjacent on the cube, those not touching the marked square in the net first (the
  plausible ones);
* ``which-net``: four hexominoes, one a net of the cube, three not (drawn from the
  hexominoes with no 2x2 block and no five squares in a row, which fail for a less
  obvious reason).

``projection`` (L3, T16, options exactly "View 1".."View 4"): the solid with an arrow
marking the front, and four candidate views of one direction (front, top or left, in
turn). A view is a set of grid cells (column from the left, row from the bottom). The
right view's panel is balanced with ``ctx.positions``. The panel set is symmetric:
``{V, M, V1, M1}`` with V the right view, M its mirror image (the view from the opposite
side), V1 a one-cell change of V (the recomputed view of the height map with one cube put
on or taken off; added and removed in turn over the task) and M1 the mirror of V1. Every
panel then has exactly one mirror partner and one one-cell partner (V-V1, M-M1), and the
mirror swaps V<->M, V1<->M1 while the change swaps V<->V1, M<->M1: the relations between
the panels look the same from each of them, so comparing the four panels alone (which is
the mirror of which, which is one cell from which) cannot single out the right one. All
four must differ: a symmetric view, a symmetric V1 or a V1 equal to M is rejected. Views
keep the base's width: no change empties an outer row or column, and no column grows
above the solid's greatest height. ``distractor_kinds`` names the panels in order
(:data:`PANEL_KINDS`), ``change`` whether V1 has a cell added or removed.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from collections import deque
from functools import lru_cache, partial

import numpy as np
from PIL import Image, ImageDraw

from cogforge.generators.symbols import Draft, Task, count_options, mcq_prompt, nth
from cogforge.generators.symbols._mathbase import SIZE, font, png

SUB_FIELD = "geometry"
SCALE = 2  # drawn at twice the size, then shrunk (:func:`_shrink`)
COS30 = math.sqrt(3) / 2
BASES = ((3, 3), (4, 3), (3, 4))
MAX_HEIGHT = 3
HEIGHT_WEIGHTS = (3, 4, 3, 2)  # P(height 0..3) of a column, before rejection
MIN_VISIBLE = 0.35  # of a top face's area: a half-covered top (by a taller neighbour) still counts
MIN_CUBES, MAX_CUBES = 5, 22

SHADES = {"top": "#e3edf7", "front": "#8fb4de", "left": "#5a85bb"}
EDGE = "#1c2833"
FLOOR, FLOOR_LINE = "#e6e6e6", "#8e969b"
NET_FILL = "#fdf2d0"
ARROW = "#c0392b"

STRUCTURE_KINDS = ("count", "opposite-face", "surface-area", "which-net", "volume")
SOLID_KINDS = ("count", "surface-area", "volume")  # the kinds that show a solid
DIRECTIONS = ("front", "top", "left")
CHANGES = ("added", "removed")  # V1: a cube put on / taken off, in turn over the task
PANEL_KINDS = ("correct", "mirror", "one cell", "mirror of one cell")  # V, M, V1, M1
FACE_LETTERS = "EFGHKLMNPRSTUXYZ"  # never A-D: the options are lettered A-D
VIEW_OPTIONS = [f"View {k}" for k in range(1, 5)]
NET_OPTIONS = [f"Figure {k}" for k in range(1, 5)]

RULE = "Every cube stands on the floor or on another cube (grey squares are empty floor)."
PROMPTS = {
    "count": "The solid in the picture is built from identical cubes. " + RULE + " How many cubes make the solid?",
    "surface-area": ("The solid in the picture is built from cubes with edges of 1 cm. " + RULE +
                     " What is the total surface area of the solid in cm², including the face it stands on?"),
    "volume": ("The solid in the picture is built from cubes with edges of {edge} cm. " + RULE +
               " What is the volume of the solid in cm³?"),
    "opposite-face": ("The net in the picture is folded into a cube, with the letters on the outside. "
                      "Which face is opposite the face marked {letter}?"),
    "which-net": "Each figure is made of six squares. Which of them can be folded into a cube?",
    "projection": ("The solid in the picture is built from unit cubes. " + RULE +
                   " The arrow marks the front. Which of the four views is the view from the {direction}{note}?"),
}
DIRECTION_NOTES = {"front": " (looking in the direction of the arrow)",
                   "top": " (looking down, drawn with the front side at the bottom)",
                   "left": " (looking at the solid's left side, so that its front is on your right)"}

Cell = tuple[int, int]


# --------------------------------------------------------------------------- solids


def voxels_of(heights: list[list[int]]) -> list[list[int]]:
    """The cubes ``[x, y, z]`` of a height map ``heights[x][y]``, sorted."""
    return [[x, y, z] for x, col in enumerate(heights) for y, h in enumerate(col) for z in range(h)]


def heights_of(voxels: list, base: list) -> list[list[int]]:
    """The height map of a cube list; raises if a cube floats (the support rule)."""
    heights = [[0] * base[1] for _ in range(base[0])]
    cubes = {tuple(v) for v in voxels}
    for x, y, z in cubes:
        heights[x][y] = max(heights[x][y], z + 1)
    for x, y, z in cubes:
        if z > 0 and (x, y, z - 1) not in cubes:
            raise ValueError(f"cube {[x, y, z]} floats")
    return heights


def _shrink(image: Image.Image) -> bytes:
    """PNG bytes of a picture drawn at :data:`SCALE` times the size, anti-aliased by
    averaging each SCALE x SCALE block."""
    return png(image.reduce(SCALE))


def _iso(x: float, y: float, z: float, ox: float, oy: float, edge: float) -> tuple[float, float]:
    """Isometric projection seen from the front-left and above (viewer towards (-1, -1, 1)):
    +x goes right and up, +y (backwards) left and up, +z up."""
    return ox + (x - y) * COS30 * edge, oy - ((x + y) / 2 + z) * edge


def _faces(x: int, y: int, z: int) -> dict[str, list[tuple[int, int, int]]]:
    """The three faces of a cube the viewer sees, as corner lists."""
    return {"top": [(x, y, z + 1), (x + 1, y, z + 1), (x + 1, y + 1, z + 1), (x, y + 1, z + 1)],
            "front": [(x, y, z), (x + 1, y, z), (x + 1, y, z + 1), (x, y, z + 1)],
            "left": [(x, y, z), (x, y + 1, z), (x, y + 1, z + 1), (x, y, z + 1)]}


def _floor_cell(x: int, y: int) -> list[tuple[int, int, int]]:
    return [(x, y, 0), (x + 1, y, 0), (x + 1, y + 1, 0), (x, y + 1, 0)]


def _painter_order(heights: list[list[int]]) -> list[tuple[int, int, int]]:
    """Cubes far to near: in this projection a cube with a larger ``z - x - y`` is nearer
    wherever two cubes overlap, and cubes with equal keys do not overlap."""
    return sorted(((x, y, z) for x, y, z in voxels_of(heights)), key=lambda c: (c[2] - c[0] - c[1], c))


def top_visibility(heights: list[list[int]], edge: int = 24) -> dict[Cell, float]:
    """Share of each column's top face (its floor cell when empty) left visible, from a
    column-id buffer: tops drawn with their column's id, side faces with 255."""
    W, D = len(heights), len(heights[0])
    H = max(max(c) for c in heights)
    width = int((W + D) * COS30 * edge) + 4
    height = int(((W + D) / 2 + H) * edge) + 4
    ox, oy = D * COS30 * edge + 2, height - 2
    buf = Image.new("L", (width, height), 0)
    draw = ImageDraw.Draw(buf)
    ids = {(x, y): 1 + x * D + y for x in range(W) for y in range(D)}
    for (x, y), i in ids.items():
        if heights[x][y] == 0:
            draw.polygon([_iso(*p, ox, oy, edge) for p in _floor_cell(x, y)], fill=i)
    for x, y, z in _painter_order(heights):
        for name, corners in _faces(x, y, z).items():
            top = name == "top" and z == heights[x][y] - 1
            draw.polygon([_iso(*p, ox, oy, edge) for p in corners], fill=ids[(x, y)] if top else 255)
    counts = np.bincount(np.asarray(buf).ravel(), minlength=256)
    alone = Image.new("L", (width, height), 0)
    ImageDraw.Draw(alone).polygon([_iso(*p, ox, oy, edge) for p in _floor_cell(0, 0)], fill=1)
    area = int(np.asarray(alone).sum())
    return {cell: counts[i] / area for cell, i in ids.items()}


def _connected(cells: set[Cell]) -> bool:
    if not cells:
        return False
    seen, todo = set(), [next(iter(cells))]
    while todo:
        c = todo.pop()
        if c in seen:
            continue
        seen.add(c)
        todo += [(c[0] + dx, c[1] + dy) for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))
                 if (c[0] + dx, c[1] + dy) in cells]
    return seen == cells


def acceptable(heights: list[list[int]]) -> bool:
    """The rejection rules of the module docstring."""
    W, D = len(heights), len(heights[0])
    footprint = {(x, y) for x in range(W) for y in range(D) if heights[x][y]}
    if {x for x, _ in footprint} != set(range(W)) or {y for _, y in footprint} != set(range(D)):
        return False
    if not MIN_CUBES <= sum(map(sum, heights)) <= MAX_CUBES or not _connected(footprint):
        return False
    return min(top_visibility(heights).values()) >= MIN_VISIBLE


def _unhidden(heights: list[list[int]], x: int, y: int, h: int) -> bool:
    """Whether a top at height ``h`` on (x, y) escapes the two ways the nearer columns (only
    those with smaller x and y can cover it) hide a whole top: a column k steps diagonally
    nearer and k taller, or both the left and the front neighbour taller."""
    if any(heights[x - k][y - k] >= h + k for k in range(1, min(x, y) + 1)):
        return False
    return not (x and y and heights[x - 1][y] > h and heights[x][y - 1] > h)


def sample_heights(rng: random.Random, tries: int = 400) -> list[list[int]]:
    """A height map that passes :func:`acceptable`. A column can only be hidden by nearer
    ones (smaller x and y), so the columns are drawn one by one, each among the heights
    that keep every column drawn so far visible (:func:`_unhidden`); :func:`acceptable`
    then decides. The order is near to far or far to near, at random: the first tends to
    tall backs, the second to low fronts, and together they spread the sizes."""
    for _ in range(tries):
        W, D = rng.choice(BASES)
        heights = [[0] * D for _ in range(W)]
        order = sorted(((x, y) for x in range(W) for y in range(D)), key=lambda c: (c[0] + c[1], c),
                       reverse=rng.random() < 0.5)
        for k, (x, y) in enumerate(order):
            drawn = order[:k + 1]
            free = []
            for h in range(MAX_HEIGHT + 1):
                heights[x][y] = h
                if all(_unhidden(heights, a, b, heights[a][b]) for a, b in drawn):
                    free.append(h)
            heights[x][y] = rng.choices(free, [HEIGHT_WEIGHTS[h] for h in free])[0]
        if acceptable(heights):
            return heights
    raise RuntimeError("no acceptable solid found")


# A stream item's knob ``cubes`` (``builders/symbols.py``): the solid's size, in cubes.
CUBE_BANDS = {"up to 12": (1, 12), "13 to 17": (13, 17), "18 or more": (18, 10 ** 6)}


def _heights(ctx, rng: random.Random) -> list[list[int]]:
    """:func:`sample_heights`, drawn again (up to 50 times) until the solid has as many
    cubes as a stream item's knob ``cubes`` asks."""
    band = CUBE_BANDS.get(getattr(ctx, "knobs", {}).get("cubes"), (0, 10 ** 6))
    for _ in range(50):
        heights = sample_heights(rng)
        if band[0] <= sum(map(sum, heights)) <= band[1]:
            break
    return heights


def solid_unit(voxels: list) -> str:
    return "solid:" + hashlib.sha256(json.dumps(sorted(voxels)).encode()).hexdigest()[:16]


def _draw_solid(draw: ImageDraw.ImageDraw, heights: list[list[int]], ox: float, oy: float, edge: float) -> None:
    line = max(2, round(edge / 18))
    W, D = len(heights), len(heights[0])
    for x in range(W):
        for y in range(D):
            draw.polygon([_iso(*p, ox, oy, edge) for p in _floor_cell(x, y)], fill=FLOOR, outline=FLOOR_LINE,
                         width=line)
    for x, y, z in _painter_order(heights):
        for name, corners in _faces(x, y, z).items():
            draw.polygon([_iso(*p, ox, oy, edge) for p in corners], fill=SHADES[name], outline=EDGE, width=line)


def _solid_box(W: int, D: int, H: int, edge: float) -> tuple[float, float, float, float]:
    """Left, top, right, bottom of the drawing relative to the origin (the front-left floor corner)."""
    return -D * COS30 * edge, -((W + D) / 2 + H) * edge, W * COS30 * edge, 0.0


def draw_solid_picture(voxels: list, base: list) -> bytes:
    heights = heights_of(voxels, base)
    W, D = base
    H = max(max(c) for c in heights)
    side = SIZE * SCALE
    margin = 40 * SCALE
    unit_w, unit_h = (W + D) * COS30, (W + D) / 2 + H
    edge = min((side - 2 * margin) / unit_w, (side - 2 * margin) / unit_h, 64 * SCALE)
    left, top, right, bottom = _solid_box(W, D, H, edge)
    ox, oy = (side - (right - left)) / 2 - left, (side - (bottom - top)) / 2 - top
    image = Image.new("RGB", (side, side), "white")
    _draw_solid(ImageDraw.Draw(image), heights, ox, oy, edge)
    return _shrink(image)


# --------------------------------------------------------------------------- views


def view(heights: list[list[int]], direction: str) -> frozenset[Cell]:
    """The orthographic view as cells (column from the left, row from the bottom)."""
    W, D = len(heights), len(heights[0])
    if direction == "front":  # looking backwards (+y): x to the right
        return frozenset((x, z) for x in range(W) for z in range(max(heights[x])))
    if direction == "left":  # looking along +x: the front (y = 0) is on the right
        return frozenset((D - 1 - y, z) for y in range(D) for z in range(max(heights[x][y] for x in range(W))))
    return frozenset((x, y) for x in range(W) for y in range(D) if heights[x][y])  # top: the front row at the bottom


def view_width(base: list, direction: str) -> int:
    return base[1] if direction == "left" else base[0]


def mirror(cells, width: int) -> frozenset[Cell]:
    return frozenset((width - 1 - c, r) for c, r in cells)


def _mutations(heights: list[list[int]], direction: str) -> dict[str, list[list[list[int]]]]:
    """Height maps one cube-move away whose view gains or loses exactly one cell and
    keeps the base's width and the solid's greatest height."""
    W, D = len(heights), len(heights[0])
    H = max(max(c) for c in heights)
    out: dict[str, list] = {"added": [], "removed": []}
    right = view(heights, direction)

    def keep(new, kind):
        shown = view(new, direction)
        if len(shown ^ right) == 1 and max(map(max, new)) <= H:
            cols = {c for c, _ in shown} == {c for c, _ in right}
            rows = direction != "top" or {r for _, r in shown} == {r for _, r in right}
            if cols and rows:
                out[kind].append(new)

    if direction == "top":
        for x in range(W):
            for y in range(D):
                new = [list(c) for c in heights]
                new[x][y] = 0 if heights[x][y] else 1
                keep(new, "removed" if heights[x][y] else "added")
        return out
    lines = [[(x, y) for y in range(D)] for x in range(W)] if direction == "front" else \
        [[(x, y) for x in range(W)] for y in range(D)]
    for line in lines:
        top = max(heights[x][y] for x, y in line)
        up = [list(c) for c in heights]
        x, y = next((x, y) for x, y in line if heights[x][y] == top)
        up[x][y] += 1  # a cube put on the tallest column of the line
        keep(up, "added")
        down = [list(c) for c in heights]
        for x, y in line:  # a cube taken off every tallest column of the line
            if heights[x][y] == top:
                down[x][y] -= 1
        keep(down, "removed")
    return out


def projection_panels(heights: list[list[int]], direction: str, change: str,
                      rng: random.Random) -> list[tuple[str, frozenset[Cell]]] | None:
    """The panels ``(kind, view)`` V, M, V1, M1 of :data:`PANEL_KINDS`, V1 a one-cell
    ``change`` ("added" or "removed") of V, or None when this solid cannot give four
    distinct panels (a symmetric view, no one-cell change whose view and mirror are new)."""
    W = view_width([len(heights), len(heights[0])], direction)
    right = view(heights, direction)
    mirrored = mirror(right, W)
    if mirrored == right:
        return None
    changed = sorted({view(m, direction) for m in _mutations(heights, direction)[change]}, key=sorted)
    # V1 must not be symmetric (else M1 = V1) nor equal M (else M1 = V); V1 != V by construction
    changed = [v for v in changed if v != mirrored and mirror(v, W) != v]
    if not changed:
        return None
    one = rng.choice(changed)
    return list(zip(PANEL_KINDS, (right, mirrored, one, mirror(one, W))))


def structural_scores(panels: list, width: int) -> list[int]:
    """For each panel, how many of the others are its mirror image (in a view ``width``
    cells wide) or exactly one cell away: what comparing the panels alone can tell."""
    sets = [frozenset(tuple(c) for c in p) for p in panels]
    return [sum(mirror(p, width) == q or len(p ^ q) == 1 for j, q in enumerate(sets) if j != k)
            for k, p in enumerate(sets)]


def _draw_view(draw, cells, x0: float, y0: float, cell: float, line: int) -> None:
    """Cells as outlined squares; (x0, y0) is the bottom-left corner of column 0, row 0."""
    for c, r in sorted(cells):
        draw.rectangle([x0 + c * cell, y0 - (r + 1) * cell, x0 + (c + 1) * cell, y0 - r * cell],
                       fill="#d6e4f2", outline=EDGE, width=line)


def _arrow(draw, tail, head, width: int, colour: str) -> None:
    draw.line([tail, head], fill=colour, width=width)
    angle = math.atan2(head[1] - tail[1], head[0] - tail[0])
    size = width * 4.5
    wing = [(head[0] - size * math.cos(angle + s * 0.45), head[1] - size * math.sin(angle + s * 0.45))
            for s in (-1, 1)]
    draw.polygon([head, *wing], fill=colour)


def draw_projection_picture(voxels: list, base: list, direction: str, panels: list) -> bytes:
    """The solid with a "front" arrow at the top, the four candidate views below."""
    heights = heights_of(voxels, base)
    W, D = base
    H = max(max(c) for c in heights)
    side = SIZE * SCALE
    image = Image.new("RGB", (side, side), "white")
    draw = ImageDraw.Draw(image)
    # the solid in the upper 60%: its box plus the arrow lying on the floor in front
    area_top, area_bottom = 8 * SCALE, 285 * SCALE
    edge = min((area_bottom - area_top) / ((W + D) / 2 + H + 1.2), 300 * SCALE / ((W + D) * COS30 + 1.8),
               44 * SCALE)
    tail_w, head_w = (W / 2, -2.3, 0), (W / 2, -0.35, 0)
    left, top, right, bottom = _solid_box(W, D, H, edge)
    tail = _iso(*tail_w, 0, 0, edge)
    right, bottom = max(right, tail[0] + 50 * SCALE), max(bottom, tail[1] + 10 * SCALE)
    ox = (side - (right - left)) / 2 - left
    oy = area_top + (area_bottom - area_top - (bottom - top)) / 2 - top
    _draw_solid(draw, heights, ox, oy, edge)
    t, h = _iso(*tail_w, ox, oy, edge), _iso(*head_w, ox, oy, edge)
    _arrow(draw, t, h, 3 * SCALE, ARROW)
    draw.text((t[0] + 4 * SCALE, t[1] + 2 * SCALE), "front", fill=ARROW, font=font(16 * SCALE, bold=True),
              anchor="lt")
    # four panels in a row
    rows = max(r for cells in panels for _, r in cells) + 1
    cols = max([view_width(base, direction)] + [c + 1 for cells in panels for c, _ in cells])
    panel_w, gap = 112 * SCALE, 8 * SCALE
    x_start = (side - 4 * panel_w - 3 * gap) / 2
    p_top, p_bottom = 298 * SCALE, 472 * SCALE
    cell = min((panel_w - 16 * SCALE) / cols, (p_bottom - p_top - 40 * SCALE) / rows, 26 * SCALE)
    label = font(16 * SCALE, bold=True)
    for k, cells in enumerate(panels):
        px = x_start + k * (panel_w + gap)
        draw.rounded_rectangle([px, p_top, px + panel_w, p_bottom], radius=8 * SCALE, outline="#95a5a6",
                               width=SCALE)
        draw.text((px + panel_w / 2, p_top + 6 * SCALE), f"View {k + 1}", fill="black", font=label, anchor="mt")
        x0 = px + (panel_w - cols * cell) / 2
        y0 = p_top + 30 * SCALE + (p_bottom - p_top - 30 * SCALE + rows * cell) / 2
        _draw_view(draw, [tuple(c) for c in cells], x0, y0, cell, SCALE)
    return _shrink(image)


# --------------------------------------------------------------------------- nets

# Rolling the cube one square: the face that lands at "bottom" and where the others go.
ROLLS = {(1, 0): {"bottom": "east", "east": "top", "top": "west", "west": "bottom"},
         (-1, 0): {"bottom": "west", "west": "top", "top": "east", "east": "bottom"},
         (0, 1): {"bottom": "south", "south": "top", "top": "north", "north": "bottom"},
         (0, -1): {"bottom": "north", "north": "top", "top": "south", "south": "bottom"}}
SIDES = ("bottom", "top", "east", "west", "north", "south")


def roll_faces(cells: list[Cell]) -> dict[Cell, dict[str, str]]:
    """Roll a cube over the net from its first square; the face touching each square is
    the face that square becomes. Faces are named by where they were at the start."""
    cells = [tuple(c) for c in cells]
    start = {s: s for s in SIDES}
    out = {cells[0]: start}
    todo = deque([cells[0]])
    while todo:
        c = todo.popleft()
        for (dc, dr), moves in ROLLS.items():
            n = (c[0] + dc, c[1] + dr)
            if n in set(cells) and n not in out:
                here = out[c]
                out[n] = {pos: here[moves.get(pos, pos)] for pos in SIDES}
                todo.append(n)
    return out


def folds(cells: list[Cell]) -> bool:
    orient = roll_faces(cells)
    return len(orient) == 6 and len({o["bottom"] for o in orient.values()}) == 6


def normalise(cells) -> tuple[Cell, ...]:
    mc, mr = min(c for c, _ in cells), min(r for _, r in cells)
    return tuple(sorted((c - mc, r - mr) for c, r in cells))


TRANSFORMS = (lambda c, r: (c, r), lambda c, r: (-r, c), lambda c, r: (-c, -r), lambda c, r: (r, -c),
              lambda c, r: (-c, r), lambda c, r: (r, c), lambda c, r: (c, -r), lambda c, r: (-r, -c))


def transformed(cells, k: int) -> tuple[Cell, ...]:
    return normalise([TRANSFORMS[k](c, r) for c, r in cells])


@lru_cache(maxsize=1)
def hexominoes() -> tuple[tuple[tuple[Cell, ...], ...], tuple[tuple[Cell, ...], ...]]:
    """The 35 free hexominoes (one orientation each), split into the 11 nets of a cube and
    the non-nets that are not obviously so (no 2x2 block, no five squares in a row)."""
    shapes = {((0, 0),)}
    for _ in range(5):
        shapes = {normalise(s + (n,)) for s in shapes for c in s
                  for n in ((c[0] + 1, c[1]), (c[0] - 1, c[1]), (c[0], c[1] + 1), (c[0], c[1] - 1)) if n not in s}
    free = sorted({min(transformed(s, k) for k in range(8)) for s in shapes})
    nets = tuple(s for s in free if folds(list(s)))

    def obvious(s):  # a 2x2 block or five in a row: known at a glance not to fold
        block = any({(c + 1, r), (c, r + 1), (c + 1, r + 1)} <= set(s) for c, r in s)
        return block or max(max(c for c, _ in s), max(r for _, r in s)) >= 4

    others = tuple(s for s in free if not folds(list(s)) and not obvious(s))
    return nets, others


def _net_layout(cells, box: tuple[float, float, float, float], max_cell: float) -> tuple[float, float, float]:
    cols = max(c for c, _ in cells) + 1
    rows = max(r for _, r in cells) + 1
    x0, y0, x1, y1 = box
    cell = min((x1 - x0) / cols, (y1 - y0) / rows, max_cell)
    return x0 + (x1 - x0 - cols * cell) / 2, y0 + (y1 - y0 - rows * cell) / 2, cell


def draw_net_picture(cells: list, labels: list[str] | None) -> bytes:
    side = SIZE * SCALE
    image = Image.new("RGB", (side, side), "white")
    draw = ImageDraw.Draw(image)
    x0, y0, cell = _net_layout(cells, (30 * SCALE, 30 * SCALE, side - 30 * SCALE, side - 30 * SCALE), 90 * SCALE)
    letter = font(int(cell * 0.45), bold=True)
    for k, (c, r) in enumerate(cells):
        draw.rectangle([x0 + c * cell, y0 + r * cell, x0 + (c + 1) * cell, y0 + (r + 1) * cell], fill=NET_FILL,
                       outline=EDGE, width=2 * SCALE)
        if labels:
            draw.text((x0 + (c + 0.5) * cell, y0 + (r + 0.5) * cell), labels[k], fill="black", font=letter,
                      anchor="mm")
    return _shrink(image)


def draw_figures_picture(figures: list) -> bytes:
    """Four hexominoes in a 2x2 grid, labelled "Figure 1".."Figure 4"."""
    side = SIZE * SCALE
    image = Image.new("RGB", (side, side), "white")
    draw = ImageDraw.Draw(image)
    half = side / 2
    label = font(16 * SCALE, bold=True)
    for k, cells in enumerate(figures):
        px, py = (k % 2) * half, (k // 2) * half
        draw.rounded_rectangle([px + 6 * SCALE, py + 6 * SCALE, px + half - 6 * SCALE, py + half - 6 * SCALE],
                               radius=8 * SCALE, outline="#95a5a6", width=SCALE)
        draw.text((px + half / 2, py + 12 * SCALE), f"Figure {k + 1}", fill="black", font=label, anchor="mt")
        x0, y0, cell = _net_layout(cells, (px + 20 * SCALE, py + 40 * SCALE, px + half - 20 * SCALE,
                                           py + half - 16 * SCALE), 44 * SCALE)
        for c, r in cells:
            draw.rectangle([x0 + c * cell, y0 + r * cell, x0 + (c + 1) * cell, y0 + (r + 1) * cell], fill=NET_FILL,
                           outline=EDGE, width=2 * SCALE)
    return _shrink(image)


# --------------------------------------------------------------------------- pictures


def picture(task: str, meta: dict) -> bytes:
    """The item's picture, from its meta alone."""
    kind = meta["question_kind"]
    if task == "projection":
        return draw_projection_picture(meta["voxels"], meta["base"], meta["direction"], meta["panels"])
    if kind == "opposite-face":
        return draw_net_picture(meta["cells"], meta["labels"])
    if kind == "which-net":
        return draw_figures_picture(meta["figures"])
    return draw_solid_picture(meta["voxels"], meta["base"])


def pictures(task: str, meta: dict) -> list[bytes]:
    return [picture(task, meta)]


# --------------------------------------------------------------------------- generators


def surface_faces(heights: list[list[int]]) -> int:
    """Unit faces on the surface, bottom included: each column's top and bottom, and the
    side faces not against a neighbour at least as tall."""
    W, D = len(heights), len(heights[0])
    total = 0
    for x in range(W):
        for y in range(D):
            h = heights[x][y]
            total += 2 * (h > 0)
            for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                nx, ny = x + dx, y + dy
                other = heights[nx][ny] if 0 <= nx < W and 0 <= ny < D else 0
                total += max(0, h - other)
    return total


def step_options(positions, task: str, n: int, step: int, rng: random.Random) -> list[str]:
    """Like :func:`count_options`, four values ``step`` apart around ``n`` (all positive)."""
    rank = positions.choose(task + " (rank)", 4, rng, [p for p in range(4) if n - p * step > 0])
    values = [str(n + (k - rank) * step) for k in range(4)]
    return positions.place(task, str(n), [v for v in values if v != str(n)], rng)


def _solid_draft(ctx, kind: str, rng: random.Random) -> Draft:
    heights = _heights(ctx, rng)
    voxels = voxels_of(heights)
    base = [len(heights), len(heights[0])]
    meta = {"sub_field": SUB_FIELD, "question_kind": kind, "base": base, "voxels": voxels}
    key = f"mathematics-solid-structure {kind}"
    if kind == "count":
        n = len(voxels)
        options = count_options(ctx.positions, key, n, rng)
        stem = PROMPTS["count"]
    elif kind == "surface-area":
        n = surface_faces(heights)
        options = step_options(ctx.positions, key, n, 2, rng)
        stem = PROMPTS["surface-area"]
        meta["edge"] = 1
    else:
        edge = rng.choice((2, 3))
        n = len(voxels) * edge ** 3
        options = step_options(ctx.positions, key, n, edge ** 3, rng)
        stem = PROMPTS["volume"].format(edge=edge)
        meta["edge"] = edge
    return Draft(mcq_prompt(stem, options), [partial(picture, "solid-structure", meta)], options, str(n),
                 solid_unit(voxels), meta)


def _figure_unit(prefix: str, meta_part) -> str:
    return prefix + hashlib.sha256(json.dumps(meta_part, sort_keys=True).encode()).hexdigest()[:16]


def _opposite_draft(ctx, rng: random.Random) -> Draft:
    nets, _ = hexominoes()
    cells = [list(c) for c in transformed(rng.choice(nets), rng.randrange(8))]
    rng.shuffle(cells)
    labels = rng.sample(FACE_LETTERS, 6)
    orient = roll_faces([tuple(c) for c in cells])
    square_of = {o["bottom"]: cell for cell, o in orient.items()}
    letter_of = {tuple(c): labels[k] for k, c in enumerate(cells)}
    asked = tuple(cells[rng.randrange(6)])
    answer = letter_of[square_of[orient[asked]["top"]]]
    # the four faces around the asked one; those not touching it in the net are the tempting ones
    around = [c for c in letter_of if c != asked and letter_of[c] != answer]
    rng.shuffle(around)
    around.sort(key=lambda c: abs(c[0] - asked[0]) + abs(c[1] - asked[1]) == 1)
    others = [f"Face {letter_of[c]}" for c in around[:3]]
    options = ctx.positions.place("mathematics-solid-structure opposite-face", f"Face {answer}", others, rng)
    meta = {"sub_field": SUB_FIELD, "question_kind": "opposite-face", "cells": cells, "labels": labels,
            "asked": letter_of[asked]}
    stem = PROMPTS["opposite-face"].format(letter=letter_of[asked])
    return Draft(mcq_prompt(stem, options), [partial(picture, "solid-structure", meta)], options, f"Face {answer}",
                 _figure_unit("net:", [cells, labels]), meta)


def _which_net_draft(ctx, rng: random.Random) -> Draft:
    nets, others = hexominoes()
    right = rng.choice(nets)
    wrong = rng.sample(others, 3)
    pos = ctx.positions.choose("mathematics-solid-structure which-net", 4, rng)
    shapes = wrong[:pos] + [right] + wrong[pos:]
    figures = [[list(c) for c in transformed(s, rng.randrange(8))] for s in shapes]
    meta = {"sub_field": SUB_FIELD, "question_kind": "which-net", "figures": figures}
    return Draft(mcq_prompt(PROMPTS["which-net"], NET_OPTIONS), [partial(picture, "solid-structure", meta)],
                 list(NET_OPTIONS), NET_OPTIONS[pos], _figure_unit("nets:", figures), meta)


def make_solid_structure(ctx, count: int, rng: random.Random) -> list[Draft]:
    out: list[Draft] = []
    # a stream item with the knob ``cubes`` asks about a solid (a net has no cubes)
    kinds = STRUCTURE_KINDS if "cubes" not in getattr(ctx, "knobs", {}) else SOLID_KINDS
    while len(out) < count:
        kind = kinds[nth(ctx, len(out)) % len(kinds)]
        if kind == "opposite-face":
            out.append(_opposite_draft(ctx, rng))
        elif kind == "which-net":
            out.append(_which_net_draft(ctx, rng))
        else:
            out.append(_solid_draft(ctx, kind, rng))
    return out


def make_projection(ctx, count: int, rng: random.Random) -> list[Draft]:
    out: list[Draft] = []
    for _ in range(count * 50):
        if len(out) == count:
            break
        direction = DIRECTIONS[nth(ctx, len(out)) % len(DIRECTIONS)]
        change = CHANGES[nth(ctx, len(out)) % len(CHANGES)]
        heights = _heights(ctx, rng)
        panels = projection_panels(heights, direction, change, rng)
        if panels is None:
            continue
        right, distractors = panels[0], panels[1:]
        rng.shuffle(distractors)
        pos = ctx.positions.choose(f"mathematics-projection {direction}", 4, rng)
        placed = distractors[:pos] + [right] + distractors[pos:]
        voxels = voxels_of(heights)
        meta = {"sub_field": SUB_FIELD, "question_kind": direction, "direction": direction,
                "base": [len(heights), len(heights[0])], "voxels": voxels,
                "panels": [[list(c) for c in sorted(cells)] for _, cells in placed],
                "distractor_kinds": [k for k, _ in placed], "change": change}
        stem = PROMPTS["projection"].format(direction=direction, note=DIRECTION_NOTES[direction])
        out.append(Draft(mcq_prompt(stem, VIEW_OPTIONS), [partial(picture, "projection", meta)], list(VIEW_OPTIONS),
                         VIEW_OPTIONS[pos], solid_unit(voxels), meta))
    return out


TASKS = {
    "solid-structure": Task(2, "Math T11", make_solid_structure, mcq=True, filtered=True),
    "projection": Task(3, "Math T16", make_projection, mcq=True, filtered=False),
}


# --------------------------------------------------------------------------- check (independent re-derivation)


def _cube_set(meta: dict) -> set[tuple[int, int, int]]:
    """The cubes, with the support rule and the base checked."""
    cubes = {tuple(v) for v in meta["voxels"]}
    W, D = meta["base"]
    if len(cubes) != len(meta["voxels"]):
        raise ValueError("a cube is listed twice")
    for x, y, z in cubes:
        if not (0 <= x < W and 0 <= y < D and 0 <= z):
            raise ValueError(f"cube {(x, y, z)} is off the base")
        if z and (x, y, z - 1) not in cubes:
            raise ValueError(f"cube {(x, y, z)} floats")
    return cubes


def _ray_visibility(cubes: set, base: list, samples: int = 8) -> dict[Cell, float]:
    """Share of points on each column's top (floor cell when empty) from which a ray to the
    viewer (direction (-1, -1, 1)) meets no cube: slab tests against every cube."""
    W, D = base
    tops = {}
    for x, y, z in cubes:
        tops[(x, y)] = max(tops.get((x, y), 0), z + 1)
    grid = (np.arange(samples) + np.array([[0.37], [0.61]])) / samples  # off every face diagonal
    a, b = np.meshgrid(grid[0], grid[1])
    boxes = np.array(sorted(cubes), dtype=float)  # (M, 3)
    direction = np.array([-1.0, -1.0, 1.0])
    out = {}
    for x in range(W):
        for y in range(D):
            pts = np.stack([x + a.ravel(), y + b.ravel(), np.full(a.size, float(tops.get((x, y), 0)))], axis=1)
            # t where each coordinate enters and leaves each cube: (N, M, 3)
            lo = (boxes[None] - pts[:, None]) / direction
            hi = (boxes[None] + 1 - pts[:, None]) / direction
            t0 = np.minimum(lo, hi).max(axis=2)
            t1 = np.maximum(lo, hi).min(axis=2)
            blocked = ((t1 - np.maximum(t0, 0)) > 1e-9).any(axis=1)
            out[(x, y)] = 1 - blocked.mean()
    return out


def _options_agree(options: list, answer: str, right: str) -> str | None:
    if len(options) != 4 or len(set(options)) != 4:
        return f"options not 4 distinct: {options}"
    if answer != right:
        return f"answer {answer!r}, re-derived {right!r}"
    if options.count(right) != 1:
        return f"{right!r} not exactly once among the options {options}"
    return None


def _rotation_normals(cells: list) -> dict[Cell, tuple[int, int, int]] | None:
    """Fold by rotation matrices: roll a cube over the squares (east = +x, south = +y) and
    record, in the cube's own frame, the normal of the face that touches each square."""
    east = np.array([[0, 0, 1], [0, 1, 0], [-1, 0, 0]])  # rolling towards +x: the top turns to face +x
    south = np.array([[1, 0, 0], [0, 0, 1], [0, -1, 0]])  # rolling towards +y
    turn = {(1, 0): east, (-1, 0): east.T, (0, 1): south, (0, -1): south.T}
    squares = {tuple(c) for c in cells}
    first = tuple(cells[0])
    frames = {first: np.eye(3, dtype=int)}
    todo = [first]
    while todo:
        c = todo.pop()
        for (dc, dr), rot in turn.items():
            n = (c[0] + dc, c[1] + dr)
            if n in squares and n not in frames:
                frames[n] = rot @ frames[c]
                todo.append(n)
    if len(frames) != len(squares):
        return None
    down = np.array([0, 0, -1])
    return {c: tuple(int(v) for v in r.T @ down) for c, r in frames.items()}


def _check_solid(question: str, options: list, answer: str, meta: dict) -> str | None:
    cubes = _cube_set(meta)
    hidden = {c: v for c, v in _ray_visibility(cubes, meta["base"]).items() if v < MIN_VISIBLE}
    if hidden:
        return f"columns with their tops hidden: {hidden}"
    kind = meta["question_kind"]
    if kind == "count":
        right = len(cubes)
    elif kind == "surface-area":
        exposed = sum((x + dx, y + dy, z + dz) not in cubes for x, y, z in cubes
                      for dx, dy, dz in ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)))
        right = exposed * meta["edge"] ** 2
    else:
        right = len(cubes) * meta["edge"] ** 3
        if f"edges of {meta['edge']} cm" not in question:
            return "the question does not state the cube's edge"
    return _options_agree(options, answer, str(right))


def _check_nets(question: str, options: list, answer: str, meta: dict) -> str | None:
    if meta["question_kind"] == "which-net":
        folding = []
        for cells in meta["figures"]:
            normals = _rotation_normals(cells)
            if len(cells) != 6 or normals is None:
                return f"figure {cells} is not six joined squares"
            folding.append(len(set(normals.values())) == 6)
        if folding.count(True) != 1:
            return f"{folding.count(True)} figures fold into a cube"
        return _options_agree(options, answer, NET_OPTIONS[folding.index(True)])
    normals = _rotation_normals(meta["cells"])
    if normals is None or len(set(normals.values())) != 6:
        return "the net does not fold into a cube"
    letter = {tuple(c): meta["labels"][k] for k, c in enumerate(meta["cells"])}
    asked = next(c for c in letter if letter[c] == meta["asked"])
    if f"face marked {meta['asked']}?" not in question:
        return "the question asks about another face"
    far = tuple(-v for v in normals[asked])
    right = f"Face {next(letter[c] for c in letter if normals[c] == far)}"
    if any(o not in {f"Face {v}" for v in letter.values()} - {f"Face {meta['asked']}"} for o in options):
        return f"an option is not another face of the net: {options}"
    return _options_agree(options, answer, right)


def _check_projection(question: str, options: list, answer: str, meta: dict) -> str | None:
    cubes = _cube_set(meta)
    W, D = meta["base"]
    direction = meta["direction"]
    if f"view from the {direction}" not in question:
        return "the question asks for another direction"
    hidden = {c: v for c, v in _ray_visibility(cubes, meta["base"]).items() if v < MIN_VISIBLE}
    if hidden:
        return f"columns with their tops hidden: {hidden}"
    # the view as the shadow of the cubes on the picture plane
    shadow = {"front": lambda x, y, z: (x, z), "top": lambda x, y, z: (x, y), "left": lambda x, y, z: (D - 1 - y, z)}
    right = {shadow[direction](*c) for c in cubes}
    width = D if direction == "left" else W
    flipped = {(width - 1 - c, r) for c, r in right}
    panels = [{tuple(c) for c in p} for p in meta["panels"]]
    if list(options) != VIEW_OPTIONS:
        return f"options {options}"
    matches = [k for k, p in enumerate(panels) if p == right]
    if len(matches) != 1:
        return f"{len(matches)} panels show the right view"
    if answer != VIEW_OPTIONS[matches[0]]:
        return f"answer {answer}, the right view is panel {matches[0] + 1}"
    if len({frozenset(p) for p in panels}) != 4:
        return "two panels are the same"
    kinds = meta["distractor_kinds"]
    if sorted(kinds) != sorted(PANEL_KINDS):
        return f"distractor kinds {kinds}"
    panel = {kind: panels[k] for k, kind in enumerate(kinds)}
    if matches[0] != kinds.index("correct"):
        return f"panel {matches[0] + 1} labelled {kinds[matches[0]]}"
    # the symmetric set {V, M, V1, M1}: M and M1 the mirrors of V and V1, V1 one cell from V
    if panel["mirror"] != flipped:
        return "the mirror panel is not the mirror image of the right view"
    one = panel["one cell"]
    if panel["mirror of one cell"] != {(width - 1 - c, r) for c, r in one}:
        return "the mirror-of-one-cell panel is not the mirror image of the one-cell panel"
    extra, missing = one - right, right - one
    if (meta["change"], len(extra), len(missing)) not in (("added", 1, 0), ("removed", 0, 1)):
        return f"the one-cell panel ({meta['change']}) differs by {len(extra)} added and {len(missing)} removed cells"
    if direction != "top" and any(r and (c, r - 1) not in one for c, r in one):
        return "the one-cell panel has a cell over a gap (no solid shows it)"
    for p in panels:  # every panel: one mirror partner, one one-cell partner among the others
        mirrors = sum({(width - 1 - c, r) for c, r in p} == q for q in panels if q is not p)
        near = sum(len(p ^ q) == 1 for q in panels if q is not p)
        if mirrors != 1 or near < 1:
            return f"the panel set is not symmetric ({mirrors} mirrors, {near} one cell away)"
    return None


def check(task: str, question: str, options: list | None, answer: str, meta: dict) -> str | None:
    """Re-derive the answer from meta alone (see the module docstring); None when it agrees."""
    try:
        if task == "projection":
            return _check_projection(question, options, answer, meta)
        if meta["question_kind"] in ("opposite-face", "which-net"):
            return _check_nets(question, options, answer, meta)
        return _check_solid(question, options, answer, meta)
    except (ValueError, KeyError, StopIteration) as error:
        return f"meta does not describe the item: {error!r}"
