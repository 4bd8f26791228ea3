"""Emoji data and emoji rebus pictures for the culture domain (pure functions).

``usable()`` is the set of emoji a rebus may show: fully qualified, no skin-tone
modifier, no flag, no emoji that carries text (letters, digits or a Han character
printed on it would give words away), and actually drawn by the pinned Noto Color
Emoji font. Debian's font 2.042 has no glyphs for Emoji 16 and later (they draw
nothing), so the filter renders rather than trusting the emoji version.

Names are the ``emoji`` package's CLDR short names (English and Chinese).
``render_rebus`` draws emoji in reading order (left to right, then the next row) on a
white RGB PNG; Noto draws only at 109 px, so each emoji is drawn there, cropped to its
ink and scaled to its tile.
"""

from __future__ import annotations

import functools
import io
from dataclasses import dataclass

from cogforge.generators.constructure import EMOJI_FONT

DRAW_SIZE = 109  # the only size the Noto bitmap font draws (136 x 128 bitmaps)
ADVANCE = 136  # one glyph's advance at that size: a sequence the font does not ligate is wider
TILE = 96  # a tile's side in the picture (72.6 px when four in a row are shown 336 px wide)
GAP = 12  # between tiles, and the margin around them

_SKIN_TONES = range(0x1F3FB, 0x1F400)
_REGIONAL = range(0x1F1E6, 0x1F200)
_TAGS = range(0xE0020, 0xE0080)
_ENCLOSED_ALNUM = range(0x1F100, 0x1F200)  # 🅰️ 🆗 🆒 🆕 ... (letters printed on them)
_ENCLOSED_IDEO = range(0x1F200, 0x1F300)  # 🈚 🈶 🉐 ... (a Han character printed on them)
# Other emoji whose Noto picture shows letters, digits or a Han character.
_TEXT_BEARING = {
    "\u00a9", "\u00ae", "\u2122", "\u2139", "\u24c2", "\u3297", "\u3299",  # © ® ™ ℹ Ⓜ ㊗ ㊙
    "\U0001f004",  # 🀄 mahjong red dragon (中)
    "\U0001f4af",  # 💯
    "\U0001f51e",  # 🔞 (18)
    "\U0001f519", "\U0001f51a", "\U0001f51b", "\U0001f51c", "\U0001f51d",  # 🔙 🔚 🔛 🔜 🔝 (BACK END ON! SOON TOP)
    "\U0001f520", "\U0001f521", "\U0001f522", "\U0001f523", "\U0001f524",  # 🔠 🔡 🔢 🔣 🔤 (ABCD abcd 1234)
    "\U0001f3e7",  # 🏧 (ATM)
    "\U0001f6be",  # 🚾 (WC)
    "\U0001f51f",  # 🔟 (10, a keycap without U+20E3)
    "\U0001f4c5", "\U0001f4c6",  # 📅 📆 ("July 17" in Noto)
    "\U0001f3ea",  # 🏪 (24)
    "\U0001f3e8",  # 🏨 (H)
    "\U0001f4f4",  # 📴 (OFF)
    "\U0001f4df",  # 📟 (1998)
    "\U0001f502",  # 🔂 (1)
    "\U0001f9e7",  # 🧧 (福)
    "\U0001f4e7",  # 📧 (E)
}
# Flags joined by ZWJ (rainbow, transgender, pirate) and 🎌 (two flags of Japan): left out with the
# country flags. Generic flags stay (🏁 chequered, 🚩 triangular, 🏳️ white, 🏴 black).
_FLAG_HEADS = {"\U0001f3f3", "\U0001f3f4"}
_FLAGS = {"\U0001f38c"}


@dataclass(frozen=True)
class EmojiInfo:
    emoji: str
    en: str  # CLDR short name, words separated by spaces: "red apple"
    zh: str  # CLDR Chinese name: "红苹果"
    version: float  # the Emoji version that introduced it
    aliases: tuple[str, ...] = ()  # the package's other English names ("apple"), spaces for "_"


def _name(text: str) -> str:
    return text.strip(":").replace("_", " ")


def carries_text(e: str) -> bool:
    """Whether the emoji's picture shows letters, digits or Han characters (keycaps included)."""
    return ("\u20e3" in e or e.replace("\ufe0f", "") in _TEXT_BEARING
            or any(ord(c) in _ENCLOSED_ALNUM or ord(c) in _ENCLOSED_IDEO for c in e))


def is_flag(e: str) -> bool:
    cps = [ord(c) for c in e]
    return (any(c in _REGIONAL or c in _TAGS for c in cps) or e in _FLAGS
            or (e[0] in _FLAG_HEADS and "\u200d" in e))


@functools.cache
def _font():
    from PIL import ImageFont

    if not EMOJI_FONT.is_file():
        raise FileNotFoundError(f"{EMOJI_FONT} not found: install Debian's fonts-noto-color-emoji "
                                "(`make build-constructure` does)")
    return ImageFont.truetype(str(EMOJI_FONT), DRAW_SIZE)


def drawn(e: str) -> bool:
    """Whether the font draws ``e`` as one glyph with ink (Emoji 16+ glyphs are missing)."""
    font = _font()
    if abs(font.getlength(e) - ADVANCE) > 1:
        return False
    box = font.getbbox(e)
    return box[2] > box[0] and box[3] > box[1]


@functools.lru_cache(maxsize=1)
def usable() -> dict[str, EmojiInfo]:
    """Every emoji a rebus may show, keyed by the emoji string (in the package's order)."""
    import emoji
    from emoji.unicode_codes import EMOJI_DATA, STATUS

    emoji.config.load_language("zh")
    out = {}
    for e, data in EMOJI_DATA.items():
        if data["status"] != STATUS["fully_qualified"]:
            continue
        if any(ord(c) in _SKIN_TONES for c in e) or is_flag(e) or carries_text(e):
            continue
        if "zh" not in data or not drawn(e):
            continue
        out[e] = EmojiInfo(e, _name(data["en"]), _name(data["zh"]), float(data["E"]),
                           tuple(_name(a) for a in data.get("alias", ())))
    return out


@functools.lru_cache(maxsize=512)
def _glyph(e: str):
    """``e`` drawn at 109 px and cropped to its ink (RGBA)."""
    from PIL import Image, ImageDraw

    side = 2 * ADVANCE
    glyph = Image.new("RGBA", (side, side), (255, 255, 255, 0))
    ImageDraw.Draw(glyph).text((0, 0), e, font=_font(), embedded_color=True)
    box = glyph.getbbox()
    if box is None:
        raise ValueError(f"the emoji font has no glyph for {e!r}")
    return glyph.crop(box)


def _tile(e: str):
    """``e`` scaled to fit a TILE x TILE square (aspect kept), centred on transparency."""
    from PIL import Image

    glyph = _glyph(e)
    scale = TILE / max(glyph.width, glyph.height)
    size = (max(1, round(glyph.width * scale)), max(1, round(glyph.height * scale)))
    glyph = glyph.resize(size, Image.Resampling.LANCZOS)
    tile = Image.new("RGBA", (TILE, TILE), (255, 255, 255, 0))
    tile.alpha_composite(glyph, ((TILE - size[0]) // 2, (TILE - size[1]) // 2))
    return tile


def layout(n: int, per_row: int = 4) -> tuple[int, int, list[tuple[int, int]]]:
    """Canvas width, height and each tile's top-left corner for ``n`` emoji,
    ``per_row`` to a row, in reading order."""
    cols = min(n, per_row)
    rows = -(-n // per_row)
    width = cols * TILE + (cols + 1) * GAP
    height = rows * TILE + (rows + 1) * GAP
    corners = [(GAP + (k % per_row) * (TILE + GAP), GAP + (k // per_row) * (TILE + GAP)) for k in range(n)]
    return width, height, corners


def render_rebus(emojis: list[str], per_row: int = 4) -> bytes:
    """The emoji in reading order (left to right, then the next row) on white, as RGB PNG
    bytes without metadata. Each tile is at least 64 px when the long side is 336 px."""
    from PIL import Image

    if not emojis:
        raise ValueError("a rebus needs at least one emoji")
    width, height, corners = layout(len(emojis), per_row)
    canvas = Image.new("RGBA", (width, height), (255, 255, 255, 255))
    for e, corner in zip(emojis, corners):
        canvas.alpha_composite(_tile(e), corner)
    out = io.BytesIO()
    canvas.convert("RGB").save(out, format="PNG", compress_level=1)  # level 6 is 2.5x slower, 12% smaller
    return out.getvalue()
