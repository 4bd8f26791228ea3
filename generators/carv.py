"""CARV's visual world and its procedural renderer.

A CARV image is a *state*: five properties (subject, subject_number, object,
object_color, spatial_relation) with one value each (paper section 3.2). The
vocabulary, caption words and palette live in ``data/carv_world.json``; the nine
item drawings live in ``data/carv_items.svg``.

Rendering is a pure function ``state -> PNG bytes``. The scene is written as an SVG
document (a wall, a floor, the furniture, the items), rasterised by cairosvg and
re-encoded by Pillow as an 8-bit RGB PNG with no metadata, so the same state always
gives the same bytes. The layout rules keep every property readable at a glance:

* furniture is drawn front-on with a visible top surface, so "on" is unambiguous;
* "under" puts the items on the floor directly below the top, between the legs;
* "left"/"right" put the items on the floor beside the furniture, which is shifted
  to the other side to make room, and never touch it;
* two items stand side by side with a gap, so the count is never hidden;
* wood is a grained texture, not a flat brown.

Backends plug in through :class:`Renderer`; a later backend (a diffusion model that
refines this render) only has to map a state to PNG bytes.
"""

from __future__ import annotations

import functools
import io
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, NamedTuple, Protocol

DATA = Path(__file__).parent / "data"
SIZE = 512
FLOOR_Y = 440
ITEM_SCALE = 0.9  # item drawings are 100 x 100; on the canvas they are 90 px tall
TWO_ITEM_OFFSET = 48  # half the distance between two items' centres


class State(NamedTuple):
    """One CARV image: a value for each of the five properties."""

    subject: str
    subject_number: str
    object: str
    object_color: str
    spatial_relation: str


PROPERTIES: tuple[str, ...] = State._fields


@dataclass(frozen=True)
class World:
    """The vocabulary of the visual world, read from ``carv_world.json``."""

    values: dict[str, tuple[str, ...]]
    words: dict[str, dict]
    palette: dict

    def states(self) -> list[State]:
        """Every state, in a fixed order (the product of the value lists)."""
        out = [()]
        for prop in PROPERTIES:
            out = [s + (v,) for s in out for v in self.values[prop]]
        return [State(*s) for s in out]

    def caption(self, state: State) -> str:
        """The canonical caption: "two cups under a blue table"."""
        singular, plural = self.words["subject"][state.subject]
        noun = singular if state.subject_number == "one" else plural
        colour = self.words["object_color"][state.object_color]
        relation = self.words["spatial_relation"][state.spatial_relation]
        return f"{state.subject_number} {noun} {relation} a {colour} {state.object}"


@functools.cache
def load_world() -> World:
    raw = json.loads((DATA / "carv_world.json").read_text())
    if tuple(raw["properties"]) != PROPERTIES:
        raise ValueError(
            f"{DATA / 'carv_world.json'}: properties must be {list(PROPERTIES)}, "
            f"got {raw['properties']}"
        )
    values = {p: tuple(raw["values"][p]) for p in PROPERTIES}
    return World(values=values, words=raw["words"], palette=raw["palette"])


@functools.cache
def _item_defs() -> str:
    text = (DATA / "carv_items.svg").read_text()
    match = re.search(r"^<defs>.*^</defs>", text, re.S | re.M)
    if match is None:
        raise ValueError(f"{DATA / 'carv_items.svg'}: no <defs> block with the item drawings")
    return match.group(0)


# --------------------------------------------------------------------------- layout


@dataclass(frozen=True)
class _Furniture:
    """Geometry of a piece of furniture centred on ``cx`` (all in canvas pixels)."""

    cx: float
    half_width: float  # of the top surface
    top_y: float  # where items standing on it rest
    front_bottom: float  # lower edge of the front apron: the clearance for "under"
    leg_inset: float
    leg_width: float
    back_top: float | None  # chairs have a backrest rising to this height

    @property
    def inner_left(self) -> float:
        return self.cx - self.half_width + self.leg_inset + self.leg_width

    @property
    def inner_right(self) -> float:
        return self.cx + self.half_width - self.leg_inset - self.leg_width


def _furniture(kind: str, cx: float) -> _Furniture:
    if kind == "table":
        return _Furniture(cx, 130, 262, 284, 8, 16, None)
    if kind == "chair":
        return _Furniture(cx, 115, 312, 332, 4, 16, 140)
    raise ValueError(f"unknown furniture {kind!r}: expected 'table' or 'chair'")


def _furniture_cx(relation: str) -> float:
    # Beside-the-furniture items need room on one side, so the furniture moves over.
    return {"left": 326, "right": 186}.get(relation, SIZE / 2)


def item_positions(state: State) -> list[tuple[float, float]]:
    """Where each item stands: (centre x, base y) in canvas pixels."""
    furn = _furniture(state.object, _furniture_cx(state.spatial_relation))
    count = 1 if state.subject_number == "one" else 2
    relation = state.spatial_relation
    if relation == "on":
        cx, base = furn.cx, furn.top_y
    elif relation == "under":
        cx, base = furn.cx, FLOOR_Y + 6
    elif relation == "left":
        cx, base = (furn.cx - furn.half_width) / 2, FLOOR_Y + 6
    elif relation == "right":
        cx, base = (furn.cx + furn.half_width + SIZE) / 2, FLOOR_Y + 6
    else:
        raise ValueError(f"unknown spatial relation {relation!r}")
    if count == 1:
        return [(cx, base)]
    return [(cx - TWO_ITEM_OFFSET, base), (cx + TWO_ITEM_OFFSET, base)]


def item_box(x: float, base: float) -> tuple[float, float, float, float]:
    """The canvas box (left, top, right, bottom) an item drawing can occupy."""
    half = 50 * ITEM_SCALE
    return (x - half, base - 100 * ITEM_SCALE, x + half, base)


def furniture_box(state: State) -> tuple[float, float, float, float]:
    """The canvas box of the furniture, backrest included."""
    furn = _furniture(state.object, _furniture_cx(state.spatial_relation))
    top = furn.back_top if furn.back_top is not None else furn.top_y - 12
    return (furn.cx - furn.half_width - 4, top, furn.cx + furn.half_width + 4, FLOOR_Y)


# --------------------------------------------------------------------------- drawing


def _wood_pattern(grain: str) -> str:
    lines = []
    for i, y in enumerate(range(3, 48, 7)):
        wobble = 3 + (i % 3)
        lines.append(
            f'<path d="M0 {y} C40 {y - wobble} 80 {y + wobble} 120 {y} '
            f'S200 {y - wobble} 240 {y}" fill="none" stroke="{grain}" '
            f'stroke-width="{1.6 if i % 2 else 2.4}" stroke-opacity="0.55"/>'
        )
    lines.append(f'<ellipse cx="170" cy="24" rx="9" ry="4" fill="none" stroke="{grain}" '
                 f'stroke-width="1.8" stroke-opacity="0.6"/>')
    return (
        '<pattern id="grain" patternUnits="userSpaceOnUse" width="240" height="48">'
        + "".join(lines)
        + "</pattern>"
        + '<pattern id="grain-v" patternUnits="userSpaceOnUse" width="48" height="240" '
        'patternTransform="rotate(90)">' + "".join(lines) + "</pattern>"
    )


def _part(shape: str, fill: str, grain: str | None, vertical: bool = False) -> str:
    """A furniture part: a flat fill, plus wood grain laid over it when wooden."""
    outline = 'stroke="#2b2b2b" stroke-width="3" stroke-linejoin="round"'
    out = f'<{shape} fill="{fill}" {outline}/>'
    if grain:
        pattern = "grain-v" if vertical else "grain"
        out += f'<{shape} fill="url(#{pattern})" stroke="none"/>'
    return out


def _furniture_svg(furn: _Furniture, colors: dict) -> str:
    grain = colors["grain"]
    left, right = furn.cx - furn.half_width, furn.cx + furn.half_width
    legs = []
    for x in (left + furn.leg_inset, right - furn.leg_inset - furn.leg_width):
        legs.append(_part(f'rect x="{x}" y="{furn.front_bottom - 2}" width="{furn.leg_width}" '
                          f'height="{FLOOR_Y - furn.front_bottom + 4}"',
                          colors["leg"], grain, vertical=True))
    parts = []
    if furn.back_top is not None:  # a chair: two posts and rails behind the seat
        post_w = furn.leg_width
        for x in (left + furn.leg_inset + 6, right - furn.leg_inset - 6 - post_w):
            parts.append(_part(f'rect x="{x}" y="{furn.back_top}" width="{post_w}" '
                               f'height="{furn.top_y - furn.back_top}"',
                               colors["leg"], grain, vertical=True))
        for y, h in ((furn.back_top, 30), (furn.back_top + 58, 16)):
            parts.append(_part(f'rect x="{left + furn.leg_inset}" y="{y}" '
                               f'width="{2 * (furn.half_width - furn.leg_inset)}" height="{h}" rx="5"',
                               colors["top"], grain))
    # The top surface, seen slightly from above, then the front edge below it.
    back_y, inset = furn.top_y - 12, 14
    parts.append(_part(f'path d="M{left + inset} {back_y} L{right - inset} {back_y} '
                       f'L{right} {furn.top_y + 4} L{left} {furn.top_y + 4} Z"',
                       colors["top"], grain))
    parts.append(_part(f'rect x="{left}" y="{furn.top_y + 4}" width="{2 * furn.half_width}" '
                       f'height="{furn.front_bottom - furn.top_y - 4}" rx="3"',
                       colors["front"], grain))
    return "".join(legs + parts)


def _check_state(state: State, world: World) -> None:
    for prop, value in state._asdict().items():
        if value not in world.values[prop]:
            raise ValueError(f"state {tuple(state)}: {prop}={value!r} is not one of "
                             f"{list(world.values[prop])}")


def _svg_open(defs: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
            f'width="{SIZE}" height="{SIZE}" viewBox="0 0 {SIZE} {SIZE}">' + defs)


def _item_use(state: State, x: float, base: float, prefix: str = "item") -> str:
    left, top = x - 50 * ITEM_SCALE, base - 100 * ITEM_SCALE
    return (f'<use xlink:href="#{prefix}-{state.subject}" '
            f'transform="translate({left} {top}) scale({ITEM_SCALE})"/>')


def scene_svg(state: State, world: World | None = None) -> str:
    """The SVG document for one state (pure; no I/O beyond the cached data files)."""
    world = world or load_world()
    _check_state(state, world)
    pal = world.palette
    colors = pal[state.object_color]
    furn = _furniture(state.object, _furniture_cx(state.spatial_relation))
    items = []
    for x, base in item_positions(state):
        items.append(
            f'<ellipse cx="{x}" cy="{base}" rx="{34 * ITEM_SCALE}" ry="5" '
            f'fill="#000" fill-opacity="0.18"/>'
            + _item_use(state, x, base)
        )
    return (
        _svg_open(_item_defs().replace("<defs>", "<defs>" + _wood_pattern(pal["wood"]["grain"]), 1))
        + f'<rect width="{SIZE}" height="{SIZE}" fill="{pal["wall"]}"/>'
        + f'<rect y="{FLOOR_Y}" width="{SIZE}" height="{SIZE - FLOOR_Y}" fill="{pal["floor"]}"/>'
        + f'<path d="M0 {FLOOR_Y} L{SIZE} {FLOOR_Y}" stroke="{pal["floor_line"]}" stroke-width="3"/>'
        + _furniture_svg(furn, colors)
        + "".join(items)
        + "</svg>"
    )


# --------------------------------------------------------------------------- object regions

_PAINT = re.compile(r'\b(fill|stroke)="(?!none")[^"]*"')


def _flat(svg: str, colour: str) -> str:
    """The same shapes with every fill and stroke in one colour (wood grain included)."""
    return _PAINT.sub(lambda m: f'{m.group(1)}="{colour}"', svg)


def object_names(state: State) -> list[str]:
    """The objects of a state's scene, in drawing order: the furniture, then the items
    from left to right ("table", "cup"; or "chair", "cup 1", "cup 2")."""
    count = len(item_positions(state))
    items = [state.subject] if count == 1 else [f"{state.subject} {n}" for n in range(1, count + 1)]
    return [state.object] + items


def object_masks(state: State) -> dict:
    """Where each object is visible in the procedural render: ``{name: bool array (H, W)}``
    keyed by :func:`object_names`, in drawing order.

    Each mask is the scene redrawn in two flat colours: the object black, everything drawn
    after it (what can hide it, e.g. the cup standing in front of the table) white, on white;
    a pixel belongs to the object where it is more than half black. Same geometry, same
    rasteriser and same antialiasing as :class:`ProceduralRenderer`, so the masks line up
    with the render pixel for pixel (an edge pixel goes to the object covering most of it).
    Item shadows belong to no object.
    """
    import numpy as np
    from PIL import Image

    world = load_world()
    _check_state(state, world)
    furn = _furniture(state.object, _furniture_cx(state.spatial_relation))
    shapes = [_flat(_furniture_svg(furn, {"top": "#000", "front": "#000", "leg": "#000", "grain": None}),
                    "#000")]
    shapes += [_item_use(state, x, base, "black-item") for x, base in item_positions(state)]
    defs = _item_defs()
    defs = (defs.replace("<defs>", "<defs>" + _flat(defs, "#000").replace('id="item-', 'id="black-item-')
                         .replace("<defs>", "").replace("</defs>", "")
                         + _flat(defs, "#fff").replace('id="item-', 'id="white-item-')
                         .replace("<defs>", "").replace("</defs>", ""), 1))
    masks = {}
    for number, name in enumerate(object_names(state)):
        hiders = "".join(_flat(s, "#fff").replace("#black-item-", "#white-item-")
                         .replace("<use ", '<use fill="#fff" ')
                         for s in shapes[number + 1:])
        svg = (_svg_open(defs) + f'<rect width="{SIZE}" height="{SIZE}" fill="#fff"/>'
               + shapes[number] + hiders + "</svg>")
        grey = np.asarray(Image.open(io.BytesIO(svg_to_png(svg))).convert("L"))
        masks[name] = grey < 128
    return masks


def svg_to_png(svg: str) -> bytes:
    """Rasterise an SVG to RGB PNG bytes with no metadata (same input, same bytes).

    cairosvg draws into an in-memory cairo surface; Pillow encodes the pixels. This
    skips cairo's own PNG writer, which would be a second encode of the same image.
    cairosvg parses through defusedxml, so a hostile SVG cannot reach files or
    expand entities.
    """
    from cairosvg.parser import Tree
    from cairosvg.surface import PNGSurface
    from PIL import Image

    surface = PNGSurface(Tree(bytestring=svg.encode()), None, 96)
    canvas = surface.cairo
    canvas.flush()
    size = (canvas.get_width(), canvas.get_height())
    image = Image.frombuffer("RGBA", size, bytes(canvas.get_data()), "raw", "BGRA",
                             canvas.get_stride(), 1).convert("RGB")
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=6)
    return out.getvalue()


# --------------------------------------------------------------------------- backends


class Renderer(Protocol):
    """Maps a state to PNG bytes. ``name`` and ``version`` go into the manifest."""

    name: str
    version: str

    def render(self, state: State) -> bytes: ...


@dataclass(frozen=True)
class ProceduralRenderer:
    """The built-in renderer: SVG scene, rasterised by cairo. No weights, no GPU."""

    name: str = "procedural"
    version: str = "1"

    def render(self, state: State) -> bytes:
        return svg_to_png(scene_svg(state))


RENDERERS: dict[str, Callable[[], Renderer]] = {"procedural": ProceduralRenderer}


def get_renderer(name: str) -> Renderer:
    try:
        return RENDERERS[name]()
    except KeyError:
        raise ValueError(f"unknown CARV renderer {name!r}; available: {sorted(RENDERERS)}") from None
