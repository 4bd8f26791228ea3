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
* a *depiction*, what the sense is, chosen by meaning (``scene`` in
  ``generators/data/cogevolve_patterns.toml`` for an extension, the lexicographer file
  for a prototype):

==============  ==========================================================
specimen        the core on its own, standing on the ground
companion       the core beside a person
potted          the core growing from a flower pot (a plant)
dish            the core served on a plate with cutlery (meat, fruit as food)
made-of         a coat in the core's colour, patterned with small cores, the core beside it (fur, hide)
product         a vase in the core's colour, patterned likewise (material -> thing)
person-like     a person whose head is the core (a person "like" it)
person-part     a person holding up the core (a tool in hand; the hand for the worker)
action          a person in motion, the core enlarged beside the moving arm
swatch          paint swatches in the colour the sense names (``cogevolve_colours.tsv``)
taste           a glass of drink in the core's colour, the core at its rim
contents        the core translucent, filled with contents, and a measure
institution     people under a flag that bears the core
crowd           the core as a backdrop behind a group of people
outline         a faint core inside a bold dashed outline on an abstract line
emblem          the core on a badge with rays (what it stands for)
==============  ==========================================================

Every setting draws a random amount of detail from the build's RNG, and the core is
placed with a little jitter, so that "fewest drawn elements first" or "smallest PNG
first" does not order a path. Functions here are pure: bytes in, bytes out; nothing is
written (the colour table is read, not written).
"""

from __future__ import annotations

import io
import math
import random
import re
from collections import Counter
from pathlib import Path

from lxml import etree

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
    fills: Counter = Counter()

    def clean(el) -> str:
        tag = etree.QName(el).localname
        if tag not in _CORE_TAGS:
            raise SchemaError(f"core drawing uses <{tag}>, which schemas do not allow")
        attrs = "".join(f' {k}="{v}"' for k, v in sorted(el.attrib.items()) if k in _CORE_ATTRS)
        if el.get("fill"):
            fills[el.get("fill").upper()] += len(el.get("d", "")) or 20
        inner = "".join(clean(child) for child in el)
        return f"<{tag}{attrs}>{inner}</{tag}>" if inner else f"<{tag}{attrs}/>"

    body = "".join(clean(child) for child in root)
    dominant = next((c for c, _ in fills.most_common() if not _greyish(c)), fills.most_common(1)[0][0]
                    if fills else "#888888")
    return f'<g id="{core_id}">{body}</g>', dominant


def _greyish(colour: str) -> bool:
    match = re.fullmatch(r"#([0-9A-F]{2})([0-9A-F]{2})([0-9A-F]{2})", colour)
    if not match:
        return True
    r, g, b = (int(x, 16) for x in match.groups())
    return max(r, g, b) - min(r, g, b) < 30


SETTINGS = ("meadow", "kitchen", "studio", "street", "night", "shore")
DEPICTIONS = ("specimen", "companion", "potted", "dish", "made-of", "product", "person-like", "person-part",
              "action", "swatch", "taste", "contents", "institution", "crowd", "outline", "emblem")
# the card inside the white margin that every setting paints
CARD = (8, 8, SIZE - 16, SIZE - 16)
GROUND = 430
INK = "#37474F"
SWATCH_BOX = (60, 120, 120, 160)  # x, y, width, height of the swatch's opaque panel (QC samples it)
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
    """What the sense is, drawn over a setting (outside ``<defs>``), each a string of SVG.

    The core's place and size vary a little from picture to picture (``dx``, ``dy``)."""
    c, dx, dy = core_id, rng.uniform(-16, 16), rng.uniform(-10, 10)
    if kind == "specimen":
        size = rng.uniform(180, 260)
        return [f'<ellipse cx="{256 + dx:.1f}" cy="{GROUND + 6}" rx="{size * 0.42:.1f}" ry="14" fill="#000000" '
                'fill-opacity="0.12"/>', _use(c, 256 + dx - size / 2, GROUND - size + 6, size)]
    if kind == "companion":
        left = rng.random() < 0.5
        size = rng.uniform(170, 220)
        cx, px = (170, 390) if left else (342, 122)
        return _person(px + dx, GROUND + 10, 250) + [_use(c, cx + dx - size / 2, GROUND - size + 8, size)]
    if kind == "potted":
        return ['<path fill="#D84315" d="M186 340 L326 340 L306 440 L206 440 Z"/>',
                '<rect x="176" y="326" width="160" height="24" rx="6" fill="#BF360C"/>',
                _use(c, 156 + dx, 136 + dy, 200)]
    if kind == "dish":
        return [
            '<ellipse cx="256" cy="330" rx="190" ry="70" fill="#ECEFF1" stroke="#90A4AE" stroke-width="4"/>',
            '<ellipse cx="256" cy="330" rx="130" ry="44" fill="#FFFFFF" stroke="#CFD8DC" stroke-width="3"/>',
            '<rect x="40" y="240" width="10" height="170" rx="4" fill="#78909C"/>',
            '<path fill="#78909C" d="M462 240 q18 40 0 90 v80 h-10 v-170 z"/>',
            _use(c, 166 + dx, 160 + dy, 180)]
    if kind in ("made-of", "product"):  # a coat (fur, hide) or a vase (a thing made of it) patterned with the core,
        # the core itself beside it: what the thing is made from
        side = 1 if rng.random() < 0.5 else -1
        shape = ("M196 90 L140 110 L70 220 L120 250 L160 190 L160 440 L352 440 L352 190 L392 250 L442 220 L372 110 "
                 "L316 90 Q256 140 196 90 Z" if kind == "made-of" else
                 "M206 70 L306 70 L300 110 Q400 170 380 300 Q360 420 256 440 Q152 420 132 300 Q112 170 212 110 Z")
        thing = (f'<g transform="translate({256 + side * 90:.1f} 0) scale(0.72 1) translate(-256 0)">'
                 f'<path fill="{colour}" fill-opacity="0.45" stroke="{INK}" stroke-width="6" d="{shape}"/>'
                 + "".join(_use(c, x, y, 60) for x, y in ((196, 200), (262, 200), (196, 300), (262, 300))) + "</g>")
        return [thing, _use(c, 256 - side * 150 - 80 + dx, GROUND - 170, 160)]
    if kind == "person-like":  # a person whose head is the core: someone "like" it
        return _person(256 + dx, GROUND + 10, 330, head=False) + [_use(c, 256 + dx - 90, 30, 180)]
    if kind == "person-part":  # a person holding the core up: the one who has or uses it
        return _person(190 + dx, GROUND + 10, 330, arms="up") + [_use(c, 290 + dx, 60 + dy, 130)]
    if kind == "action":
        return _person(170 + dx, GROUND + 10, 300, arms="up") + [
            f'<path fill="none" stroke="#90A4AE" stroke-width="6" d="M{300 + dx:.1f} 120 q40 -30 80 0 '
            f'M{300 + dx:.1f} 150 q40 -30 80 0"/>', _use(c, 300 + dx, 170, 150)]
    if kind == "swatch":  # the first panel is SWATCH_BOX, painted in the colour named
        x, y, w, h = SWATCH_BOX
        return [
            f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="10" fill="{colour}" stroke="{INK}" stroke-width="4"/>',
            f'<rect x="{x + 136}" y="{y}" width="{w}" height="{h}" rx="10" fill="{colour}" fill-opacity="0.7" '
            f'stroke="{INK}" stroke-width="4"/>',
            f'<rect x="{x + 272}" y="{y}" width="{w}" height="{h}" rx="10" fill="{colour}" fill-opacity="0.45" '
            f'stroke="{INK}" stroke-width="4"/>',
            f'<path fill="{colour}" stroke="{INK}" stroke-width="4" d="M300 330 l120 -20 l10 40 l-120 20 z"/>',
            _use(c, 70 + dx, 320, 90)]
    if kind == "taste":
        return [f'<path fill="{colour}" fill-opacity="0.8" stroke="{INK}" stroke-width="6" '
                'd="M170 140 L342 140 L320 420 L192 420 Z"/>',
                '<rect x="238" y="60" width="12" height="140" fill="#EF5350" transform="rotate(15 244 130)"/>',
                _use(c, 290 + dx, 50, 170)]
    if kind == "contents":
        dots = [f'<circle cx="{rng.uniform(180, 330):.1f}" cy="{rng.uniform(230, 390):.1f}" r="18" fill="#A1887F"/>'
                for _ in range(6)]
        return [_use(c, 116 + dx, 150, 280, opacity=0.35)] + dots + [
            f'<rect x="440" y="150" width="16" height="270" fill="none" stroke="{INK}" stroke-width="4"/>',
            f'<path stroke="{INK}" stroke-width="4" d="M440 200 h-14 M440 260 h-14 M440 320 h-14 M440 380 h-14"/>']
    if kind == "institution":
        people = [p for x in (130, 256, 382) for p in _person(x, GROUND + 10, 170, colour="#455A64")]
        return people + [f'<rect x="246" y="40" width="8" height="200" fill="{INK}"/>',
                         '<rect x="254" y="44" width="150" height="100" fill="#FFF59D" stroke="#F9A825" '
                         'stroke-width="4"/>', _use(c, 289, 54, 80)]
    if kind == "crowd":
        people = [p for x in (90, 170, 256, 342, 422) for p in _person(x, GROUND + 20, 150, colour="#455A64")]
        return [_use(c, 136 + dx, 50, 240)] + people
    if kind == "outline":
        return [f'<path stroke="{INK}" stroke-width="4" d="M30 420 H482"/>',
                f'<circle cx="60" cy="420" r="10" fill="{INK}"/>', f'<circle cx="452" cy="420" r="10" fill="{INK}"/>',
                _use(c, 156 + dx, 130, 200, opacity=0.3),
                f'<ellipse cx="{256 + dx:.1f}" cy="230" rx="150" ry="150" fill="none" stroke="{INK}" stroke-width="8" '
                'stroke-dasharray="22 14"/>']
    if kind == "emblem":
        rays = "".join(f"M256 230 L{256 + 220 * math.cos(a * math.pi / 6):.1f} "
                       f"{230 + 220 * math.sin(a * math.pi / 6):.1f} " for a in range(12))
        return [f'<path stroke="#FFCA28" stroke-width="8" d="{rays}"/>',
                '<path fill="#FFF8E1" stroke="#F9A825" stroke-width="8" d="M256 70 L400 120 L390 280 Q256 400 122 280 '
                'L112 120 Z"/>', _use(c, 186 + dx, 140, 140)]
    raise SchemaError(f"unknown depiction {kind!r}; depictions: {', '.join(DEPICTIONS)}")


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
