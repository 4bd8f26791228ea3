"""Image schemas: one core drawing per word, one scene per sense, all SVG.

The *core* is the word's invariant object (the can, the fox): a flat-colour Twemoji
drawing (CC-BY 4.0, installed by ``make`` from the npm registry into
``.cache/twemoji``) of the prototype's synset, or of its direct hypernym when the
synset has none (a boxer is drawn as a dog). It is defined once inside ``<defs>``
under an opaque id and placed with ``<use xlink:href>``; its canonical bytes are the
same in every image of the word (:mod:`cogforge.svgcheck` enforces it).

A *scene* places the core in a context that shows how a sense extends the prototype,
chosen by the extension pattern (``scene`` in ``generators/data/cogevolve_patterns.toml``):

==============  ==========================================================
prototype       the core itself, large, in a plain setting (ground, sky)
dish            the core served on a plate with cutlery (meat, fruit as food)
made-of         a coat shape in the core's colour, patterned with small cores (fur, hide)
product         a vase shape in the core's colour, patterned with small cores (material -> thing)
person-like     a person whose head is the core (a person "like" it)
person-part     a person holding up the core (the hand for the worker)
action          a person in motion, the core enlarged beside the moving arm
swatch          paint swatches in the core's colour (the colour named after it)
taste           a glass of drink in the core's colour, the core at its rim
contents        the core translucent, filled with contents, and a measure
institution     people under a flag that bears the core
crowd           the core as a backdrop behind a group of people
outline         a faint core inside a bold dashed outline on an abstract line
emblem          the core on a badge with rays (what it stands for)
==============  ==========================================================

Every scene draws a random amount of setting detail from the build's RNG, so that
"fewest drawn elements first" or "smallest PNG first" does not order a path.
Functions here are pure: bytes in, bytes out; nothing is written.
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
SCENES = ("prototype", "dish", "made-of", "product", "person-like", "person-part", "action", "swatch", "taste",
          "contents", "institution", "crowd", "outline", "emblem")
INK = "#37474F"


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


def _use(core_id: str, x: float, y: float, size: float, opacity: float | None = None) -> str:
    scale = size / CORE_BOX
    use = f'<use xlink:href="#{core_id}" transform="translate({x:.1f} {y:.1f}) scale({scale:.4f})"/>'
    # group opacity: cairosvg ignores opacity on <use> itself
    return use if opacity is None else f'<g opacity="{opacity}">{use}</g>'


def _person(x: float, y: float, h: float, colour: str = "#5C6BC0", head: bool = True) -> list[str]:
    """A simple standing figure, feet at y, height h, centred on x."""
    w = h * 0.36
    out = [f'<path fill="{colour}" d="M{x - w / 2:.1f} {y:.1f} L{x - w / 2:.1f} {y - h * 0.5:.1f} '
           f'Q{x:.1f} {y - h * 0.72:.1f} {x + w / 2:.1f} {y - h * 0.5:.1f} L{x + w / 2:.1f} {y:.1f} Z"/>']
    if head:
        out.append(f'<circle cx="{x:.1f}" cy="{y - h * 0.8:.1f}" r="{h * 0.15:.1f}" fill="#F5C9A5"/>')
    return out


def _setting(rng: random.Random, busy: int) -> list[str]:
    """Background detail: ground, sun, clouds, grass; ``busy`` extra pieces."""
    out = [f'<rect x="0" y="430" width="{SIZE}" height="82" fill="#DCEDC8"/>']
    for _ in range(busy):
        kind = rng.choice(["cloud", "tuft", "pebble"])
        x = rng.uniform(30, SIZE - 30)
        if kind == "cloud":
            y = rng.uniform(30, 90)
            out.append(f'<ellipse cx="{x:.1f}" cy="{y:.1f}" rx="{rng.uniform(28, 44):.1f}" ry="14" fill="#E3F2FD"/>')
        elif kind == "tuft":
            out.append(f'<path fill="#9CCC65" d="M{x:.1f} 440 l6 -18 l6 18 l6 -14 l4 14 Z"/>')
        else:
            out.append(f'<ellipse cx="{x:.1f}" cy="{rng.uniform(450, 495):.1f}" rx="9" ry="5" fill="#BCAAA4"/>')
    return out


def scene(kind: str, core_id: str, colour: str, rng: random.Random) -> list[str]:
    """The scene's elements (outside ``<defs>``), each a string of SVG."""
    busy = rng.randint(0, 5)
    c = core_id
    if kind == "prototype":
        return _setting(rng, busy + 2) + [f'<ellipse cx="256" cy="436" rx="120" ry="16" fill="#C5E1A5"/>',
                                          _use(c, 116, 150, 280)]
    if kind == "dish":
        return _setting(rng, busy) + [
            '<ellipse cx="256" cy="330" rx="190" ry="70" fill="#ECEFF1" stroke="#90A4AE" stroke-width="4"/>',
            '<ellipse cx="256" cy="330" rx="130" ry="44" fill="#FFFFFF" stroke="#CFD8DC" stroke-width="3"/>',
            '<rect x="40" y="240" width="10" height="170" rx="4" fill="#78909C"/>',
            '<path fill="#78909C" d="M462 240 q18 40 0 90 v80 h-10 v-170 z"/>',
            _use(c, 186, 200, 140)]
    if kind == "made-of":
        coat = (f'<path fill="{colour}" fill-opacity="0.45" stroke="{INK}" stroke-width="5" d="M196 90 L140 110 L70 220 L120 250 '
                'L160 190 L160 440 L352 440 L352 190 L392 250 L442 220 L372 110 L316 90 Q256 140 196 90 Z"/>')
        return _setting(rng, busy) + [coat] + [_use(c, x, y, 52) for x, y in ((190, 220), (270, 220),
                                                                                  (190, 320), (270, 320))]
    if kind == "product":
        vase = (f'<path fill="{colour}" fill-opacity="0.45" stroke="{INK}" stroke-width="5" d="M206 70 L306 70 L300 110 '
                'Q400 170 380 300 Q360 420 256 440 Q152 420 132 300 Q112 170 212 110 Z"/>')
        return _setting(rng, busy) + [vase] + [_use(c, x, y, 52) for x, y in ((190, 200), (270, 200),
                                                                                  (190, 300), (270, 300))]
    if kind == "person-like":
        return _setting(rng, busy) + _person(256, 440, 330, head=False) + [_use(c, 171, 70, 170)]
    if kind == "person-part":
        return _setting(rng, busy) + _person(200, 440, 330) + [
            '<path fill="none" stroke="#5C6BC0" stroke-width="22" stroke-linecap="round" d="M250 250 L330 170"/>',
            '<circle cx="380" cy="140" r="84" fill="none" stroke="#FFB300" stroke-width="6"/>',
            _use(c, 320, 80, 120)]
    if kind == "action":
        return _setting(rng, busy) + _person(170, 440, 300) + [
            '<path fill="none" stroke="#5C6BC0" stroke-width="20" stroke-linecap="round" d="M200 260 L300 200"/>',
            '<path fill="none" stroke="#90A4AE" stroke-width="6" d="M300 120 q40 -30 80 0 M300 150 q40 -30 80 0"/>',
            _use(c, 300, 170, 150)]
    if kind == "swatch":
        return _setting(rng, busy) + [
            f'<rect x="60" y="120" width="120" height="160" rx="10" fill="{colour}" stroke="{INK}" stroke-width="4"/>',
            f'<rect x="196" y="120" width="120" height="160" rx="10" fill="{colour}" fill-opacity="0.7" '
            f'stroke="{INK}" stroke-width="4"/>',
            f'<rect x="332" y="120" width="120" height="160" rx="10" fill="{colour}" fill-opacity="0.45" '
            f'stroke="{INK}" stroke-width="4"/>',
            f'<path fill="{colour}" stroke="{INK}" stroke-width="4" d="M300 330 l120 -20 l10 40 l-120 20 z"/>',
            _use(c, 70, 320, 90)]
    if kind == "taste":
        return _setting(rng, busy) + [
            f'<path fill="{colour}" fill-opacity="0.8" stroke="{INK}" stroke-width="6" '
            'd="M170 140 L342 140 L320 420 L192 420 Z"/>',
            '<rect x="238" y="60" width="12" height="140" fill="#EF5350" transform="rotate(15 244 130)"/>',
            _use(c, 300, 80, 110)]
    if kind == "contents":
        dots = [f'<circle cx="{rng.uniform(180, 330):.1f}" cy="{rng.uniform(230, 390):.1f}" r="18" fill="#A1887F"/>'
                for _ in range(6)]
        return _setting(rng, busy) + [_use(c, 116, 150, 280, opacity=0.35)] + dots + [
            f'<rect x="440" y="150" width="16" height="270" fill="none" stroke="{INK}" stroke-width="4"/>',
            f'<path stroke="{INK}" stroke-width="4" d="M440 200 h-14 M440 260 h-14 M440 320 h-14 M440 380 h-14"/>']
    if kind == "institution":
        people = [p for x in (130, 256, 382) for p in _person(x, 440, 170, colour="#455A64")]
        return _setting(rng, busy) + people + [
            f'<rect x="246" y="40" width="8" height="200" fill="{INK}"/>',
            '<rect x="254" y="44" width="150" height="100" fill="#FFF59D" stroke="#F9A825" stroke-width="4"/>',
            _use(c, 289, 54, 80)]
    if kind == "crowd":
        people = [p for x in (90, 170, 256, 342, 422) for p in _person(x, 450, 150, colour="#455A64")]
        return _setting(rng, busy) + [_use(c, 136, 60, 240)] + people
    if kind == "outline":
        return _setting(rng, busy) + [
            f'<path stroke="{INK}" stroke-width="4" d="M30 420 H482"/>',
            f'<circle cx="60" cy="420" r="10" fill="{INK}"/>', f'<circle cx="452" cy="420" r="10" fill="{INK}"/>',
            _use(c, 156, 130, 200, opacity=0.3),
            f'<ellipse cx="256" cy="230" rx="150" ry="150" fill="none" stroke="{INK}" stroke-width="8" '
            'stroke-dasharray="22 14"/>']
    if kind == "emblem":
        rays = "".join(f"M256 230 L{256 + 220 * math.cos(a * math.pi / 6):.1f} "
                       f"{230 + 220 * math.sin(a * math.pi / 6):.1f} " for a in range(12))
        return _setting(rng, busy) + [
            f'<path stroke="#FFCA28" stroke-width="8" d="{rays}"/>',
            '<path fill="#FFF8E1" stroke="#F9A825" stroke-width="8" d="M256 70 L400 120 L390 280 Q256 400 122 280 '
            'L112 120 Z"/>', _use(c, 186, 140, 140)]
    raise SchemaError(f"unknown scene {kind!r}; scenes: {', '.join(SCENES)}")


def compose(core: str, core_id: str, colour: str, kind: str, rng: random.Random) -> bytes:
    """One standalone SVG: the core in ``<defs>``, a white background, the scene in an opaque group."""
    group_id = "g" + "".join(rng.choice("0123456789abcdef") for _ in range(7))
    body = "".join(scene(kind, core_id, colour, rng))
    return (f'<svg xmlns="{SVG_NS}" xmlns:xlink="{XLINK}" width="{SIZE}" height="{SIZE}" '
            f'viewBox="0 0 {SIZE} {SIZE}"><defs>{core}</defs>'
            f'<rect x="0" y="0" width="{SIZE}" height="{SIZE}" fill="#FFFFFF"/>'
            f'<g id="{group_id}">{body}</g></svg>\n').encode()


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
