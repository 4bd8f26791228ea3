"""Contact sheets for ``docs/``: what a benchmark's pictures look like, with what they mean.

``python -m cogforge.contact cogevolve BUILD OUT.png`` draws, for a spread of words,
every schema of the word in a row, captioned with the sense's role and definition;
``python -m cogforge.contact symbols BUILD OUT.png [DOMAIN]`` draws items of every
task of a symbols domain (default chemistry), captioned with the answer (and the
injected error); ``python -m cogforge.contact constructure BUILD OUT.png`` draws every
pictured concept with the name and synset it is asked about by;
``python -m cogforge.contact items BUILD OUT.png [N]`` draws N items of
any benchmark (one from its own package too), captioned with the question and the answer.
"""

from __future__ import annotations

import json
import re
import sys
import textwrap
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

TILE = 220


# Captions in Chinese (the symbols' culture and language answers) need a CJK face: AR PL UKai,
# installed with the toolkit (Makefile APT_PACKAGES); DejaVu draws every other caption.
CJK_FONT = "/usr/share/fonts/truetype/arphic/ukai.ttc"


def _font(size: int, cjk: bool = False):
    for name in ((CJK_FONT,) if cjk else ()) + ("DejaVuSans.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"):
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    return ImageFont.load_default()


def cogevolve_sheet(build: Path, out: Path, words: int = 8) -> Path:
    """One row per word: the words with the most pictures first, then by name, one word
    for each frame its prototype is drawn in before a second (so every frame shows)."""
    graphs = {}
    for line in (build / "items.jsonl").read_text().splitlines():
        item = json.loads(line)
        if item["task"] == "1b-t2i":
            graphs[item["meta"]["word"]] = item["meta"]
    ranked = sorted(graphs.values(), key=lambda m: (-len(m["image_records"]), m["word"]))
    seen: dict[str, int] = {}
    for meta in ranked:  # a rank within the prototype's frame: the first word of each frame first
        frame = next((r.get("depiction", "").split("/")[0] for r in meta["image_records"]
                      if r["sense"] == meta["graph"]["prototype"]), "")
        seen[frame] = seen.get(frame, 0) + 1
        meta["_turn"] = seen[frame]
    chosen = sorted(ranked, key=lambda m: m["_turn"])[:words]
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


def symbols_sheet(build: Path, out: Path, per_task: int = 5, domain: str = "chemistry") -> Path:
    """One row per task of a domain: items with different answers (each error type, each
    reaction type), captioned with the answer and, for error items, the error injected.
    Wide pictures (equations) take two tiles."""
    by_task: dict[str, list[dict]] = {}
    for line in (build / "items.jsonl").read_text().splitlines():
        item = json.loads(line)
        if item["meta"].get("domain") == domain and item["images"]:
            by_task.setdefault(item["task"], []).append(item)
    caption_h, label_w = 56, 200
    rows = sorted(by_task, key=lambda t: (int(re.sub(r"\D", "", by_task[t][0]["meta"]["paper_task"]) or 0), t))
    sheet = Image.new("RGB", (label_w + per_task * 2 * TILE, len(rows) * (TILE + caption_h)), "white")
    cjk = domain in ("culture", "language")
    draw, small, big = ImageDraw.Draw(sheet), _font(14 if cjk else 12, cjk), _font(16)
    for r, task in enumerate(rows):
        y = r * (TILE + caption_h)
        level = by_task[task][0]["meta"]
        draw.multiline_text((8, y + TILE // 2 - 20), f"{task.removeprefix(domain + '-')}\nL{level['level']}, "
                            f"{level['paper_task']}", fill="black", font=big)
        x = label_w
        distinct = list({i["answer"]: i for i in reversed(by_task[task])}.values())[::-1]
        chosen = (distinct + [i for i in by_task[task] if i not in distinct])[:per_task]
        for item in chosen:
            image = Image.open(build / item["images"][0]).convert("RGB")
            wide = image.width > image.height * 1.2
            w = 2 * TILE - 10 if wide else TILE - 10
            scale = min(w / image.width, (TILE - 10) / image.height)  # the whole picture, its shape kept
            tile = image.resize((round(image.width * scale), round(image.height * scale)), Image.LANCZOS)
            sheet.paste(tile, (x + 5, y + 5 + (TILE - 10 - tile.height) // 2))
            text = f"answer: {item['answer']}" + (f" ({item['meta']['error_type']})" if "error_type" in item["meta"]
                                                  else "")
            if "question_kind" in item["meta"] and domain == "mathematics":  # one task asks several things
                text = f"{item['meta']['question_kind']}: {text}"
            width = (62 if wide else 30) // (2 if cjk else 1)  # a CJK character is two columns wide
            draw.multiline_text((x + 5, y + TILE), "\n".join(textwrap.wrap(text, width)[:3]), fill="black", font=small)
            x += w + 10
    out.parent.mkdir(parents=True, exist_ok=True)
    sheet.save(out)
    return out


def corecognition_sheet(build: Path, out: Path, concept: str | None = None) -> Path:
    """One row per family: a control and its manipulated twin side by side (a sequence's
    strip for multi-frame items), captioned with the question and both answers; all
    concepts, or some (``concept``: keys comma-separated, or a stage name)."""
    pairs: dict[str, dict[str, dict]] = {}
    for line in (build / "items.jsonl").read_text().splitlines():
        item = json.loads(line)
        m = item["meta"]
        if concept and m["concept"] not in concept.split(",") and m["stage"] != concept:
            continue
        first = pairs.setdefault(m["family"], {})
        if not first or first.get("control", {}).get("meta", {}).get("pair_id", m["pair_id"]) == m["pair_id"]:
            first[m["role"]] = item
    rows = [f for f in pairs if len(pairs[f]) == 2]
    tile_w = round((TILE - 10) * 4 / 3) + 10  # the frames are 4:3; a sequence's strip is scaled to fit
    pair_w, caption_h, label_w = 2 * tile_w, 64, 220
    sheet = Image.new("RGB", (label_w + pair_w + 30, len(rows) * (TILE + caption_h) + 10), "white")
    draw, small, big = ImageDraw.Draw(sheet), _font(13), _font(15)
    for r, family in enumerate(rows):
        y = r * (TILE + caption_h) + 5
        control = pairs[family]["control"]
        draw.multiline_text((8, y + 20), f"{control['meta']['concept_name']}\n{family}\n"
                            f"{control['meta']['type']}, causal: {control['meta']['causal_param']}",
                            fill="black", font=big)
        x = label_w
        for role in ("control", "manipulated"):
            item = pairs[family][role]
            path = item["meta"].get("combined_image") or item["images"][0]
            image = Image.open(build / path).convert("RGB")
            scale = min((tile_w - 10) / image.width, (TILE - 10) / image.height)
            tile = image.resize((round(image.width * scale), round(image.height * scale)), Image.LANCZOS)
            sheet.paste(tile, (x + 5, y + (TILE - 10 - tile.height) // 2))
            draw.rectangle([x + 4, y - 1, x + 6 + tile.width, y + TILE - 9], outline=(180, 180, 180))
            draw.text((x + 5, y + TILE - 4), f"{role}: answer {item['answer']}", fill="black", font=small)
            x += tile_w + 10
        question = control["question"].split("\nA. ")[0]
        draw.text((label_w + 5, y + TILE + 14), "\n".join(textwrap.wrap(question, 90)[:2]), fill=(60, 60, 60),
                  font=small)
    out.parent.mkdir(parents=True, exist_ok=True)
    sheet.save(out)
    return out


def items_sheet(build: Path, out: Path, n: int = 8, columns: int = 4, tile: int = 300) -> Path:
    """Any benchmark: ``n`` items, each item's first picture captioned with its question and
    answer; an item whose (task, answer) is not shown yet is taken first, in build order."""
    items = [json.loads(line) for line in (build / "items.jsonl").read_text().splitlines()]
    items = [i for i in items if i["images"]]
    seen, first, rest = set(), [], []
    for item in items:
        key = (item["task"], item["answer"])
        (rest if key in seen else first).append(item)
        seen.add(key)
    chosen = (first + rest)[:n]
    caption_h, rows = 64, -(-len(chosen) // columns)
    sheet = Image.new("RGB", (columns * (tile + 10) + 10, rows * (tile + caption_h) + 10), "white")
    draw, small = ImageDraw.Draw(sheet), _font(13)
    for k, item in enumerate(chosen):
        x, y = 10 + (k % columns) * (tile + 10), 10 + (k // columns) * (tile + caption_h)
        image = Image.open(build / item["images"][0]).convert("RGB")
        image.thumbnail((tile, tile), Image.LANCZOS)
        sheet.paste(image, (x, y))
        draw.rectangle([x - 1, y - 1, x + image.width, y + image.height], outline=(180, 180, 180))
        question = item["question"].split("\n")[0]
        text = textwrap.wrap(question, tile // 7)[:2] + [f"answer: {item['answer']}"]
        draw.multiline_text((x, y + image.height + 4), "\n".join(text), fill="black", font=small)
    out.parent.mkdir(parents=True, exist_ok=True)
    sheet.save(out)
    return out


def constructure_sheet(build: Path, out: Path, columns: int = 18, tile: int = 80) -> Path:
    """Every pictured concept of a CONSTRUCTURE build, in name order, captioned with the name
    the questions show it by and its synset: what a reader checks a picture's sense against."""
    shown = {}
    for line in (build / "items.jsonl").read_text().splitlines():
        item = json.loads(line)
        if item["task"] != "atomic":  # an atomic "No" item shows another chain's picture
            concept = item["meta"]["image_concept"]
            shown.setdefault(concept["id"], (concept["name"], concept["synset"], item["images"][0]))
    concepts = sorted(shown.values())
    caption_h, rows = 30, -(-len(concepts) // columns)
    width = tile + 12
    sheet = Image.new("RGB", (columns * width + 10, rows * (tile + caption_h) + 10), "white")
    draw, small = ImageDraw.Draw(sheet), _font(9)
    for k, (name, synset, path) in enumerate(concepts):
        x, y = 10 + (k % columns) * width, 10 + (k // columns) * (tile + caption_h)
        image = Image.open(build / path).convert("RGB")
        image.thumbnail((tile, tile), Image.LANCZOS)
        sheet.paste(image, (x, y))
        text = [textwrap.shorten(name, width // 5, placeholder="."), textwrap.shorten(synset, width // 5, placeholder=".")]
        draw.multiline_text((x, y + tile + 2), "\n".join(text), fill="black", font=small)
    out.parent.mkdir(parents=True, exist_ok=True)
    sheet.save(out)
    return out


SHEETS = {"cogevolve": cogevolve_sheet, "symbols": symbols_sheet, "corecognition": corecognition_sheet,
          "constructure": constructure_sheet, "items": items_sheet}

if __name__ == "__main__":
    benchmark, build, out, *rest = sys.argv[1:]
    if benchmark not in SHEETS:
        raise SystemExit(f"contact sheets: {', '.join(SHEETS)} (CARV's is in docs/ already)")
    # symbols: the domain (default chemistry); corecognition: one concept (default all); items: how many
    options = ({"concept": rest[0]} if benchmark == "corecognition" else {"n": int(rest[0])} if benchmark == "items"
               else {"domain": rest[0]}) if rest else {}
    print(SHEETS[benchmark](Path(build), Path(out), **options))
