"""Image schemas: one core drawing per word, one picture per sense, all SVG.

The *core* is the word's invariant object (the can, the fox): a flat-colour Twemoji
drawing (CC-BY 4.0, installed by ``make`` from the npm registry into
``.cache/twemoji``) that shows the prototype, chosen by the builder from curated maps
(never a hypernym's drawing picked automatically). It is defined once inside ``<defs>``
under an opaque id and placed with ``<use xlink:href>``; its canonical bytes are the
same in every image of the word (:mod:`cogforge.svgcheck` enforces it).

A picture has two layers that are chosen apart, so that its style never tells the role:

* a *setting* (the scene kind: meadow, kitchen, studio, street, night, shore), the
  backdrop, dealt by the builder so that each is used for prototypes and extensions alike;
* a *depiction*, what the sense is: a *frame* shared by prototypes and extensions (a
  frame is how a picture is built: a fenced field, a table, a hanging sheet, a shelf, a
  group of people) and, inside it, a *variant* that shows what the sense is. Both come
  from the sense's own meaning, never from its role: ``scene``/``source_scene`` in
  ``generators/data/cogevolve_patterns.toml``, else the sense's lexicographer file
  (:data:`BY_LEXNAME`). So an animal is in the field whether it is a word's prototype
  (chicken) or not, and so is a plant (the aubergine plant is a prototype, the banana
  tree an extension of the fruit); food is on the table either way (the banana, the
  chicken's meat):

==================  ==================================================================
field/lives         the core standing on the grass inside a wooden fence (an animal)
field/grows         the core on a green stem with leaves, growing from a mound of soil inside the fence (a plant)
table/served        the core served on a plate with cutlery, on a table (food)
table/drink         a glass of drink in the core's colour on the table, the core at its rim (a flavour)
material/sample     a sheet hanging from a rod, in the core's colour and patterned with small cores, the core beside it (fur, wood, bone: what things are made of)
material/paint      the hanging sheet as a colour card: swatches in the colour the sense names (``cogevolve_colours.tsv``)
measure/vessel      the core, solid and empty, on a shelf beside a measuring jug (a container)
measure/contents    the core translucent and filled, on the shelf beside the jug (the quantity it holds)
people/place        the core large, small people at its foot (a building or a place)
people/members      the group of people under a flag that bears the core (those who belong to it)
people/person-like  the group, its middle person taller, with the core for a head (a person like it)
==================  ==================================================================

A sense whose meaning no frame shows (a resemblance, a shape, an abstraction: no
drawing around the same core shows "a zone resembling an island") gets no picture.

Every setting draws a random amount of detail from the build's RNG, and the core is
placed with a little jitter, so that "fewest drawn elements first" or "smallest PNG
first" does not order a path. Functions here are pure: bytes in, bytes out; nothing is
written (the colour and core tables are read, not written).
"""

from __future__ import annotations

import io
import random
import re
from collections import Counter
from pathlib import Path

from lxml import etree

from cogforge.core.errors import UserError

SIZE = 512  # viewBox and PNG size
CORE_BOX = 36  # Twemoji's viewBox is 0 0 36 36
SVG_NS = "http://www.w3.org/2000/svg"
XLINK = "http://www.w3.org/1999/xlink"
_CORE_ATTRS = {"d", "fill", "cx", "cy", "r", "rx", "ry", "x", "y", "width", "height", "points", "transform",
               "x1", "y1", "x2", "y2", "stroke", "stroke-width", "fill-rule", "clip-rule", "opacity",
               "fill-opacity", "stroke-linecap", "stroke-linejoin", "stroke-miterlimit"}
_CORE_TAGS = {"path", "circle", "ellipse", "rect", "polygon", "polyline", "line", "g"}


class SchemaError(ValueError):
    """A core drawing that cannot be used (missing file, unsupported element)."""


def core_file(folder: Path, code_points: str) -> Path:
    """Twemoji's file for an emoji given as hex code points ("1F414" or "2693 FE0F")."""
    parts = [c.lower() for c in code_points.split()]
    for name in ("-".join(parts), "-".join(p for p in parts if p != "fe0f")):
        if (folder / f"{name}.svg").is_file():
            return folder / f"{name}.svg"
    raise SchemaError(f"no Twemoji drawing for U+{code_points} in {folder}; run `make build-cogevolve` "
                      "(it installs the @twemoji/svg package into .cache/twemoji)")


def core_group(svg: bytes, core_id: str) -> tuple[str, str]:
    """The drawing as ``<g id=core_id>...</g>`` with only plain shapes and paint
    attributes kept, and its dominant fill colour (for swatches, coats, drinks)."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, remove_comments=True)
    root = etree.fromstring(svg, parser)
    if root.get("viewBox", "0 0 36 36").split() != ["0", "0", "36", "36"]:
        raise SchemaError(f"core drawing has viewBox {root.get('viewBox')!r}; cores are 36 x 36")

    def clean(el) -> str:
        tag = etree.QName(el).localname
        if tag not in _CORE_TAGS:
            raise SchemaError(f"core drawing uses <{tag}>, which schemas do not allow")
        attrs = "".join(f' {k}="{v}"' for k, v in sorted(el.attrib.items()) if k in _CORE_ATTRS)
        inner = "".join(clean(child) for child in el)
        return f"<{tag}{attrs}>{inner}</{tag}>" if inner else f"<{tag}{attrs}/>"

    body = "".join(clean(child) for child in root)
    return f'<g id="{core_id}">{body}</g>', _dominant(svg)


def _dominant(svg: bytes) -> str:
    """The colour that covers most of the drawing (by pixels, not by path length: a
    lemon's leaf has longer paths than its yellow skin), greys aside when there is colour."""
    import cairosvg
    from PIL import Image

    png = cairosvg.svg2png(bytestring=svg, output_width=72, output_height=72, unsafe=False)
    counts = Counter(p[:3] for p in Image.open(io.BytesIO(png)).convert("RGBA").get_flattened_data() if p[3] > 250)
    ranked = [f"#{r:02X}{g:02X}{b:02X}" for (r, g, b), _n in counts.most_common()]
    return next((c for c in ranked if not _greyish(c)), ranked[0] if ranked else "#888888")


def _greyish(colour: str) -> bool:
    match = re.fullmatch(r"#([0-9A-F]{2})([0-9A-F]{2})([0-9A-F]{2})", colour)
    if not match:
        return True
    r, g, b = (int(x, 16) for x in match.groups())
    return max(r, g, b) - min(r, g, b) < 30


SETTINGS = ("meadow", "kitchen", "studio", "street", "night", "shore")
FRAMES = {"field": ("lives", "grows"), "table": ("served", "drink"), "material": ("sample", "paint"),
          "measure": ("vessel", "contents"), "people": ("place", "members", "person-like")}
DEPICTIONS = tuple(f"{frame}/{variant}" for frame, variants in FRAMES.items() for variant in variants)
# What each depiction can show: the lexicographer files of the senses it may draw. A
# pattern's scene that does not fit the sense's file (a feather "worn as an ornament" is
# an artifact, not a fur) leaves the sense undrawn rather than drawn as something else.
FITS = {"field/lives": {"noun.animal"}, "field/grows": {"noun.plant"}, "table/served": {"noun.food"},
        "table/drink": {"noun.cognition", "noun.food"}, "material/sample": {"noun.substance"},
        "material/paint": {"noun.attribute"}, "measure/vessel": {"noun.artifact"},
        "measure/contents": {"noun.quantity"}, "people/place": {"noun.artifact", "noun.location"},
        "people/members": {"noun.group"}, "people/person-like": {"noun.person"}}
# How a sense is drawn when no pattern says: by what it is, whatever its role.
BY_LEXNAME = {"noun.animal": "field/lives", "noun.plant": "field/grows", "noun.food": "table/served",
              "noun.substance": "material/sample", "noun.quantity": "measure/contents",
              "noun.group": "people/members", "noun.person": "people/person-like"}
# the card inside the white margin that every setting paints
CARD = (8, 8, SIZE - 16, SIZE - 16)
GROUND = 430
INK = "#37474F"
SWATCH_BOX = (140, 100, 70, 130)  # x, y, width, height of the swatch's opaque panel (QC samples it)
PERSON = "#5C6BC0"


def _card(fill: str) -> str:
    x, y, w, h = CARD
    return f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="18" fill="{fill}"/>'


def _band(y: float, height: float, fill: str) -> str:
    x, _y, w, _h = CARD
    return f'<rect x="{x}" y="{y:.1f}" width="{w}" height="{height:.1f}" fill="{fill}"/>'


def setting(kind: str, rng: random.Random) -> list[str]:
    """The backdrop: a sky or wall, a ground or table, and a random amount of detail,
    so that "fewest drawn elements first" or "smallest PNG first" does not order a path."""
    busy = rng.randint(1, 5)
    xs = [rng.uniform(40, SIZE - 40) for _ in range(busy)]
    if kind == "meadow":
        out = [_card("#E3F2FD"), _band(GROUND, SIZE - 8 - GROUND, "#AED581")]
        out += [f'<path fill="#7CB342" d="M{x:.1f} {GROUND + 14} l6 -18 l6 18 l6 -14 l4 14 Z"/>' for x in xs]
        out.append(f'<circle cx="{rng.uniform(60, 450):.1f}" cy="52" r="26" fill="#FFE082"/>')
        return out
    if kind == "kitchen":
        out = [_card("#FFF3E0")]
        out += [f'<path stroke="#FFE0B2" stroke-width="3" d="M8 {y} H504"/>' for y in range(60, GROUND, 52)]
        out += [_band(GROUND, SIZE - 8 - GROUND, "#BCAAA4"), _band(GROUND, 10, "#8D6E63")]
        out += [f'<rect x="{x:.1f}" y="40" width="46" height="30" rx="4" fill="#FFCCBC"/>' for x in xs[:3]]
        return out
    if kind == "studio":
        out = [_card("#ECEFF1"), _band(GROUND - 40, SIZE - 8 - GROUND + 40, "#CFD8DC")]
        out.append('<path fill="#FFFFFF" fill-opacity="0.6" d="M160 8 L352 8 L440 470 L72 470 Z"/>')
        out += [f'<circle cx="{x:.1f}" cy="30" r="8" fill="#90A4AE"/>' for x in xs]
        return out
    if kind == "street":
        out = [_card("#E1F5FE")]
        for x in xs + [rng.uniform(40, 470)]:
            h = rng.uniform(90, 190)
            out.append(f'<rect x="{x - 36:.1f}" y="{GROUND - h:.1f}" width="72" height="{h:.1f}" fill="#D7CCC8"/>')
        out += [_band(GROUND, SIZE - 8 - GROUND, "#B0BEC5"),
                f'<path stroke="#FFFFFF" stroke-width="5" stroke-dasharray="30 20" d="M8 {GROUND + 40} H504"/>']
        return out
    if kind == "night":
        out = [_card("#283593"), _band(GROUND, SIZE - 8 - GROUND, "#33691E")]
        out += [f'<circle cx="{x:.1f}" cy="{rng.uniform(24, 120):.1f}" r="3" fill="#FFF59D"/>' for x in xs + xs[:2]]
        out.append(f'<circle cx="{rng.uniform(60, 450):.1f}" cy="60" r="24" fill="#FFF9C4"/>')
        return out
    if kind == "shore":
        out = [_card("#E0F7FA"), _band(GROUND - 70, 70, "#4FC3F7"), _band(GROUND, SIZE - 8 - GROUND, "#FFE0B2")]
        out += [f'<path fill="none" stroke="#FFFFFF" stroke-width="4" d="M{x:.1f} {GROUND - 40} q14 -10 28 0"/>'
                for x in xs]
        return out
    raise SchemaError(f"unknown setting {kind!r}; settings: {', '.join(SETTINGS)}")


def _use(core_id: str, x: float, y: float, size: float, opacity: float | None = None) -> str:
    scale = size / CORE_BOX
    use = f'<use xlink:href="#{core_id}" transform="translate({x:.1f} {y:.1f}) scale({scale:.4f})"/>'
    # group opacity: cairosvg ignores opacity on <use> itself
    return use if opacity is None else f'<g opacity="{opacity}">{use}</g>'


def _person(x: float, y: float, h: float, colour: str = PERSON, head: bool = True, arms: str = "down") -> list[str]:
    """A standing figure with legs, arms and (unless ``head`` is False) a head; feet at y."""
    w = h * 0.3
    top, hip = y - h * 0.78, y - h * 0.42
    limb = f'fill="none" stroke="{colour}" stroke-width="{h * 0.07:.1f}" stroke-linecap="round"'
    out = [f'<path {limb} d="M{x - w * 0.25:.1f} {hip:.1f} L{x - w * 0.3:.1f} {y - 4:.1f} '
           f'M{x + w * 0.25:.1f} {hip:.1f} L{x + w * 0.3:.1f} {y - 4:.1f}"/>',
           f'<rect x="{x - w / 2:.1f}" y="{top:.1f}" width="{w:.1f}" height="{hip - top + 6:.1f}" '
           f'rx="{w * 0.3:.1f}" fill="{colour}"/>']
    if arms == "down":
        out.append(f'<path {limb} d="M{x - w / 2:.1f} {top + 12:.1f} L{x - w * 0.8:.1f} {hip:.1f} '
                   f'M{x + w / 2:.1f} {top + 12:.1f} L{x + w * 0.8:.1f} {hip:.1f}"/>')
    else:  # the right arm raised: holding something up
        out.append(f'<path {limb} d="M{x - w / 2:.1f} {top + 12:.1f} L{x - w * 0.8:.1f} {hip:.1f} '
                   f'M{x + w / 2:.1f} {top + 12:.1f} L{x + w * 1.3:.1f} {top - h * 0.12:.1f}"/>')
    if head:
        out.append(f'<circle cx="{x:.1f}" cy="{y - h * 0.88:.1f}" r="{h * 0.11:.1f}" fill="#F5C9A5"/>')
    return out


def depiction(kind: str, core_id: str, colour: str, rng: random.Random) -> list[str]:
    """What the sense is (a ``frame/variant`` of :data:`DEPICTIONS`), drawn over a setting
    (outside ``<defs>``), each a string of SVG. The frame's furniture is the same for every
    variant; the core's place and size vary a little from picture to picture (``dx``, ``dy``)."""
    frame, _, variant = kind.partition("/")
    if variant not in FRAMES.get(frame, ()):
        raise SchemaError(f"unknown depiction {kind!r}; depictions: {', '.join(DEPICTIONS)}")
    c, dx, dy = core_id, rng.uniform(-16, 16), rng.uniform(-10, 10)
    return {"field": _field, "table": _table, "material": _material, "measure": _measure,
            "people": _people}[frame](variant, c, colour, dx, dy, rng)


def _field(variant: str, c: str, colour: str, dx: float, dy: float, rng: random.Random) -> list[str]:
    posts = "".join(f"M{x} 270 V{GROUND + 6} " for x in range(36, 500, 62))
    out = [f'<path fill="none" stroke="#8D6E63" stroke-width="12" stroke-linecap="round" d="{posts}"/>',
           '<path fill="none" stroke="#A1887F" stroke-width="9" d="M20 300 H492 M20 350 H492"/>']
    if variant == "lives":  # an animal on the grass
        size = rng.uniform(190, 240)
        return out + [f'<ellipse cx="{256 + dx:.1f}" cy="{GROUND + 8}" rx="{size * 0.42:.1f}" ry="14" '
                      'fill="#000000" fill-opacity="0.12"/>', _use(c, 256 + dx - size / 2, GROUND - size + 8, size)]
    size = rng.uniform(140, 165)  # a plant: the core on a stem with leaves, out of a mound of soil
    top = 250 - size / 2 + dy
    return out + [
        f'<path fill="none" stroke="#558B2F" stroke-width="11" stroke-linecap="round" '
        f'd="M{256 + dx:.1f} {GROUND - 4} C{246 + dx:.1f} 360 {266 + dx:.1f} 300 {256 + dx:.1f} {top + size - 20:.1f}"/>',
        f'<ellipse cx="{222 + dx:.1f}" cy="350" rx="36" ry="13" fill="#7CB342" transform="rotate(-25 {222 + dx:.1f} 350)"/>',
        f'<ellipse cx="{290 + dx:.1f}" cy="320" rx="36" ry="13" fill="#7CB342" transform="rotate(25 {290 + dx:.1f} 320)"/>',
        f'<ellipse cx="{256 + dx:.1f}" cy="{GROUND + 2}" rx="96" ry="24" fill="#6D4C41"/>',
        _use(c, 256 + dx - size / 2, top, size)]


def _table(variant: str, c: str, colour: str, dx: float, dy: float, rng: random.Random) -> list[str]:
    out = ['<rect x="40" y="360" width="432" height="18" rx="4" fill="#8D6E63"/>',
           f'<path stroke="#6D4C41" stroke-width="14" d="M78 378 V{GROUND + 40} M434 378 V{GROUND + 40}"/>']
    if variant == "served":  # food on a plate, a fork and a knife beside it
        return out + [
            '<ellipse cx="256" cy="338" rx="175" ry="36" fill="#ECEFF1" stroke="#90A4AE" stroke-width="4"/>',
            '<ellipse cx="256" cy="338" rx="118" ry="22" fill="#FFFFFF" stroke="#CFD8DC" stroke-width="3"/>',
            '<rect x="52" y="250" width="9" height="100" rx="4" fill="#78909C"/>',
            '<path fill="#78909C" d="M452 250 q16 30 0 60 v40 h-9 v-100 z"/>',
            _use(c, 256 + dx - 85, 160 + dy, 170)]
    return out + [  # a flavour: a drink in the core's colour, the core at the glass's rim
        f'<path fill="{colour}" fill-opacity="0.8" stroke="{INK}" stroke-width="6" d="M176 170 L320 170 L304 358 L192 358 Z"/>',
        '<rect x="236" y="90" width="12" height="130" fill="#EF5350" transform="rotate(15 242 150)"/>',
        _use(c, 286 + dx, 70 + dy, 140)]


def _material(variant: str, c: str, colour: str, dx: float, dy: float, rng: random.Random) -> list[str]:
    x, y, w, h = SWATCH_BOX
    out = [f'<path stroke="{INK}" stroke-width="10" stroke-linecap="round" d="M100 66 H412"/>']
    if variant == "sample":  # a sheet of the stuff: the core's colour, patterned with the core
        out.append(f'<path fill="{colour}" fill-opacity="0.85" stroke="{INK}" stroke-width="5" '
                   'd="M118 70 H394 V330 Q356 350 318 330 Q280 310 242 330 Q204 350 166 330 Q142 318 118 330 Z"/>')
        out += [_use(c, px, py, 56) for px in (140, 228, 316) for py in (96, 200)]
    else:  # a colour card: swatches painted in the colour the sense names (SWATCH_BOX is the first)
        out.append(f'<path fill="#FAFAFA" stroke="{INK}" stroke-width="5" d="M118 70 H394 V330 H118 Z"/>')
        out += [f'<rect x="{x + k * 81}" y="{y}" width="{w}" height="{h}" rx="8" fill="{colour}" '
                f'fill-opacity="{opacity}" stroke="{INK}" stroke-width="3"/>'
                for k, opacity in enumerate((1, 0.75, 0.5))]
        out.append(f'<rect x="{x}" y="{y + h + 20}" width="232" height="36" rx="8" fill="{colour}" '
                   f'stroke="{INK}" stroke-width="3"/>')
    return out + [_use(c, 384 + dx, GROUND - 104, 100)]


def _measure(variant: str, c: str, colour: str, dx: float, dy: float, rng: random.Random) -> list[str]:
    out = ['<rect x="40" y="380" width="432" height="14" rx="3" fill="#A1887F"/>',
           '<path fill="#FFFFFF" fill-opacity="0.7" stroke="#546E7A" stroke-width="4" '
           'd="M396 250 H456 V380 H396 Z M456 270 q22 10 0 40"/>',
           '<path stroke="#546E7A" stroke-width="3" d="M396 280 h14 M396 305 h9 M396 330 h14 M396 355 h9"/>']
    size = rng.uniform(200, 225)
    left = 200 + dx - size / 2
    if variant == "vessel":  # the container itself, solid and empty
        return out + [_use(c, left, 384 - size, size)]
    dots = [f'<circle cx="{rng.uniform(left + size * 0.3, left + size * 0.7):.1f}" '  # where a vessel's opening is
            f'cy="{rng.uniform(384 - size * 0.8, 384 - size * 0.45):.1f}" r="14" fill="#8D6E63"/>' for _ in range(7)]
    return out + [_use(c, left, 384 - size, size, opacity=0.35)] + dots  # what it holds, seen through it


def _people(variant: str, c: str, colour: str, dx: float, dy: float, rng: random.Random) -> list[str]:
    if variant == "person-like":  # the middle one taller, the core for a head
        side = [p for x in (96, 416) for p in _person(x, GROUND + 10, 170, colour="#455A64")]
        return side + _person(256 + dx, GROUND + 10, 300, head=False) + [_use(c, 256 + dx - 75, 104 + dy, 150)]
    if variant == "place":  # the place itself, large, its people small at its foot
        return [_use(c, 256 + dx - 145, GROUND - 282, 290)] + [
            p for x in (70, 130, 382, 442) for p in _person(x, GROUND + 10, 100, colour="#455A64")]
    people = [p for x in (130, 256, 382) for p in _person(x, GROUND + 10, 170, colour="#455A64")]
    return people + [f'<rect x="246" y="40" width="8" height="200" fill="{INK}"/>',  # members: under its flag
                     '<rect x="254" y="44" width="150" height="100" fill="#FFF59D" stroke="#F9A825" stroke-width="4"/>',
                     _use(c, 289, 54, 80)]


def compose(core: str, core_id: str, colour: str, depicted: str, backdrop: str, rng: random.Random) -> bytes:
    """One standalone SVG: the core in ``<defs>``, a white margin, the setting
    ``backdrop`` and the ``depicted`` sense over it in an opaque group."""
    group_id = "g" + "".join(rng.choice("0123456789abcdef") for _ in range(7))
    body = "".join(setting(backdrop, rng) + depiction(depicted, core_id, colour, rng))
    return (f'<svg xmlns="{SVG_NS}" xmlns:xlink="{XLINK}" width="{SIZE}" height="{SIZE}" '
            f'viewBox="0 0 {SIZE} {SIZE}"><defs>{core}</defs>'
            f'<rect x="0" y="0" width="{SIZE}" height="{SIZE}" fill="#FFFFFF"/>'
            f'<g id="{group_id}">{body}</g></svg>\n').encode()


COLOURS = Path(__file__).resolve().parent.parent / "data" / "cogevolve_colours.tsv"


def load_colours(path: Path = COLOURS) -> dict[str, str]:
    """Colour sense key -> the sRGB hex of the colour it names (``cogevolve_colours.tsv``)."""
    out = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) != 3 or not re.fullmatch(r"#[0-9A-F]{6}", parts[1]):
            raise SchemaError(f"{path}:{number}: expected 'sense key<TAB>#RRGGBB<TAB>source'; fix the line")
        out[parts[0]] = parts[1]
    return out


CORES = Path(__file__).resolve().parent.parent / "data" / "cogevolve_cores.tsv"


def load_cores(path: Path = CORES) -> dict[str, tuple[str, str] | None]:
    """Prototype synset -> (emoji code points, the synset the drawing shows), or None
    where a drawing is withdrawn: CONSTRUCTURE's curated emoji map (each emoji shows
    its own synset), overridden by CogEvolve's curated ``cogevolve_cores.tsv``."""
    from cogforge.generators.constructure import load_emoji_map

    out: dict[str, tuple[str, str] | None] = {}
    for entry in load_emoji_map():
        out.setdefault(entry.synset, (entry.codepoints, entry.synset))
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) != 4 or not parts[3].strip():
            raise UserError("expected 'prototype synset<TAB>code points or -<TAB>depicted synset<TAB>why'; "
                            "fix the line", path, number)
        synset, points, depicted, _why = parts
        out[synset] = None if points == "-" else (points, depicted)
    return out


def core_for(graph: dict, cores: dict[str, tuple[str, str] | None]) -> tuple[str, str] | None:
    """(code points, depicted synset) of the prototype's drawing, or None: a word is drawn
    only when a curated line says the drawing shows its prototype (never a hypernym's
    drawing picked automatically: a banana plant is not a herb sprig)."""
    return cores.get(graph["senses"][graph["prototype"]]["synset"])


def _hls(rgb: tuple[int, int, int]) -> tuple[float, float, float]:
    import colorsys

    return colorsys.rgb_to_hls(*(v / 255 for v in rgb))


def swatch_colour(png: bytes) -> tuple[int, int, int]:
    """The colour painted in the swatch's opaque panel (the median of its inner pixels)."""
    from PIL import Image

    x, y, w, h = SWATCH_BOX
    panel = Image.open(io.BytesIO(png)).convert("RGB").crop((x + 12, y + 12, x + w - 12, y + h - 12))
    pixels = sorted(panel.get_flattened_data(), key=lambda p: sum(p))
    return pixels[len(pixels) // 2]


def same_colour(drawn: tuple[int, int, int], named: str) -> bool:
    """Whether ``drawn`` reads as the named colour ``#RRGGBB``: the same hue (within 20 degrees)
    where the named colour has one, and lightness within 0.15 (near-greys compare lightness only)."""
    want = tuple(int(named[k:k + 2], 16) for k in (1, 3, 5))
    (h1, l1, s1), (h2, l2, s2) = _hls(drawn), _hls(want)
    if abs(l1 - l2) > 0.15:
        return False
    if s2 < 0.15 or l2 > 0.92 or l2 < 0.08:  # hue is noise for greys, near-whites and near-blacks
        return True
    return min(abs(h1 - h2), 1 - abs(h1 - h2)) * 360 <= 20 and s1 >= s2 / 2


def render(svg: bytes) -> bytes:
    """PNG of a schema: fixed size, white background, RGB, no text chunks, same bytes every time."""
    import cairosvg
    from PIL import Image

    raw = cairosvg.svg2png(bytestring=svg, output_width=SIZE, output_height=SIZE, background_color="white",
                           unsafe=False)
    image = Image.open(io.BytesIO(raw)).convert("RGB")
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=False, compress_level=6)
    return out.getvalue()
