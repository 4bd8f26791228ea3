"""Contact sheets for ``docs/``: what a benchmark's pictures look like, with what they mean.

``python -m cogforge.contact cogevolve BUILD OUT.png`` draws, for a spread of words,
every schema of the word in a row, captioned with the sense's role and definition.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

TILE = 220


def _font(size: int):
    for name in ("DejaVuSans.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"):
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    return ImageFont.load_default()


def cogevolve_sheet(build: Path, out: Path, words: int = 8) -> Path:
    """One row per word (the words with the most senses first, then by name)."""
    graphs = {}
    for line in (build / "items.jsonl").read_text().splitlines():
        item = json.loads(line)
        if item["task"] == "1b-t2i":
            graphs[item["meta"]["word"]] = item["meta"]
    chosen = sorted(graphs.values(), key=lambda m: (-len(m["image_records"]), m["word"]))[:words]
    width = 1 + max(len(m["image_records"]) for m in chosen)
    caption_h = 70
    sheet = Image.new("RGB", (width * TILE, len(chosen) * (TILE + caption_h)), "white")
    draw, small, big = ImageDraw.Draw(sheet), _font(12), _font(20)
    for row, meta in enumerate(chosen):
        y = row * (TILE + caption_h)
        draw.text((10, y + TILE // 2 - 10), meta["word"], fill="black", font=big)
        senses = {s["key"]: s for s in meta["graph"]["senses"]}
        roles = {meta["graph"]["prototype"]: "prototype"}
        roles.update({t: label for _s, t, label in meta["graph"]["edges"]})
        records = sorted(meta["image_records"], key=lambda r: (r["sense"] != meta["graph"]["prototype"], r["sense"]))
        for col, record in enumerate(records, 1):
            tile = Image.open(build / record["png"]).convert("RGB").resize((TILE - 10, TILE - 10))
            sheet.paste(tile, (col * TILE + 5, y + 5))
            text = f"{roles.get(record['sense'], '?')}: {senses[record['sense']]['gloss']}"
            lines = textwrap.wrap(text, 34)[:4]
            draw.multiline_text((col * TILE + 5, y + TILE), "\n".join(lines), fill="black", font=small)
    out.parent.mkdir(parents=True, exist_ok=True)
    sheet.save(out)
    return out


if __name__ == "__main__":
    benchmark, build, out = sys.argv[1:4]
    if benchmark != "cogevolve":
        raise SystemExit("contact sheets: cogevolve (CARV's and CONSTRUCTURE's are in docs/ already)")
    print(cogevolve_sheet(Path(build), Path(out)))
