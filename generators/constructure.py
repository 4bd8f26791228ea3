"""Images for CONSTRUCTURE concepts: colour emoji rendered with Pillow, or a user's photos.

Emoji come from Debian's ``fonts-noto-color-emoji``; ``data/emoji_synsets.tsv`` maps
each emoji that depicts one concrete concept to its WordNet noun synset. Photos come
from folders in the ImageNet layout (``n02084071/*.jpg``: the folder name is the
WordNet offset id). Both are pure functions from a source to PNG bytes.
"""

from __future__ import annotations

import functools
import io
from dataclasses import dataclass
from pathlib import Path

EMOJI_FONT = Path("/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf")
EMOJI_MAP = Path(__file__).parent / "data" / "emoji_synsets.tsv"
EMOJI_SIZE = 160  # the font's bitmaps are 136 x 128 at its one size, 109
PHOTO_MAX = 512
PHOTO_SUFFIXES = {".jpg", ".jpeg", ".png", ".webp", ".bmp"}


@dataclass(frozen=True)
class EmojiEntry:
    codepoints: str  # "1F415" or "1F468 200D 1F373"
    synset: str  # nltk name, e.g. dog.n.01
    unicode_name: str
    name: str | None = None  # the lemma the concept is shown by, where its first one misleads

    @property
    def text(self) -> str:
        return "".join(chr(int(cp, 16)) for cp in self.codepoints.split())


def load_emoji_map(path: Path = EMOJI_MAP) -> list[EmojiEntry]:
    entries = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) not in (3, 4):
            raise ValueError(f"{path}:{number}: expected 'code points<TAB>synset<TAB>Unicode name"
                             "[<TAB>shown name]'")
        entries.append(EmojiEntry(*parts))
    return entries


@functools.cache
def _font():
    from PIL import ImageFont

    if not EMOJI_FONT.is_file():
        raise FileNotFoundError(f"{EMOJI_FONT} not found: install Debian's fonts-noto-color-emoji "
                                "(`make build-constructure` does)")
    return ImageFont.truetype(str(EMOJI_FONT), 109)


def render_emoji(text: str) -> bytes:
    """One emoji, centred on white, as 160 x 160 RGB PNG bytes (no metadata)."""
    from PIL import Image, ImageDraw

    canvas = Image.new("RGBA", (EMOJI_SIZE, EMOJI_SIZE), (255, 255, 255, 255))
    glyph = Image.new("RGBA", (EMOJI_SIZE, EMOJI_SIZE), (255, 255, 255, 0))
    ImageDraw.Draw(glyph).text((0, 0), text, font=_font(), embedded_color=True)
    box = glyph.getbbox()
    if box is None:
        raise ValueError(f"the emoji font has no glyph for {text!r}")
    glyph = glyph.crop(box)
    canvas.alpha_composite(glyph, ((EMOJI_SIZE - glyph.width) // 2, (EMOJI_SIZE - glyph.height) // 2))
    out = io.BytesIO()
    canvas.convert("RGB").save(out, format="PNG", compress_level=6)
    return out.getvalue()


def photo_sources(folders: list[Path]) -> dict[str, list[Path]]:
    """ImageNet-layout folders: {"n02084071": [photo paths, sorted]}."""
    found: dict[str, list[Path]] = {}
    for folder in folders:
        folder = Path(folder)
        if not folder.is_dir():
            raise FileNotFoundError(f"photo folder {folder} does not exist")
        for sub in sorted(folder.iterdir()):
            if sub.is_dir() and len(sub.name) == 9 and sub.name[0] == "n" and sub.name[1:].isdigit():
                photos = sorted(p for p in sub.iterdir() if p.suffix.lower() in PHOTO_SUFFIXES)
                if photos:
                    found.setdefault(sub.name, []).extend(photos)
    return found


def load_photo(path: Path) -> bytes:
    """A photo as RGB PNG bytes, no side longer than 512 px; a broken file is a clear error."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as image:
            image = image.convert("RGB")
    except (UnidentifiedImageError, OSError) as err:
        raise ValueError(f"{path}: not a readable image ({err})") from None
    image.thumbnail((PHOTO_MAX, PHOTO_MAX))
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=6)
    return out.getvalue()
