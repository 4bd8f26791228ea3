"""Culture answers re-derived from ``meta`` and the data files, pictures drawn again.

* ``emoji-word``: the parts join into the answer, the answer is an ``ok`` line of the
  compound list, and each part's emoji is the word table's emoji for that word, with
  the CLDR name recorded in ``meta``.
* ``emoji-idiom``: the answer is a phrase of the idiom list, and ``meta`` has its line's
  emoji and why.
* ``emoji-chengyu`` / ``-long``: every character's pinyin, emoji, Chinese name and kind
  of match re-derived from the pinyin and emoji data (:func:`_rebus.check_rebus`), and
  the characters make the answer.
* Every generated picture is drawn again from ``meta.emoji`` and must give the item's
  image bytes. Imported items (the source's picture and key): the image opens and the
  answer is not empty.
"""

from __future__ import annotations

import io
from pathlib import Path

from cogforge.qc.core import Build, CheckResult, Finding

ROOT = Path(__file__).resolve().parent.parent.parent


def _path(config: dict, key: str, default: str) -> Path:
    path = Path(config.get(key) or default)
    return path if path.is_absolute() else ROOT / path


def _answer_problem(item, data) -> str | None:
    from cogforge.generators.symbols import _emoji, _rebus

    m, task = item.meta, item.task.removeprefix("culture-")
    if task == "emoji-word":
        parts = m["parts"]
        if "".join(p["word"] for p in parts) != item.answer:
            return f"parts {'+'.join(p['word'] for p in parts)} do not join into {item.answer!r}"
        compound = data.compounds.get(item.answer)
        if compound is None or list(compound.parts) != [p["word"] for p in parts]:
            return f"{item.answer!r} split {'+'.join(p['word'] for p in parts)} is no ok line of the compound list"
        usable = _emoji.usable()
        for p in parts:
            if data.words.get(p["word"]) != p["emoji"]:
                return f"part {p['word']!r}: emoji {p['emoji']}, the word table has {data.words.get(p['word'])}"
            if p["emoji"] not in usable or usable[p["emoji"]].en != p["name"]:
                return f"part {p['word']!r}: name {p['name']!r} is not the CLDR name of {p['emoji']}"
        if m["emoji"] != "".join(p["emoji"] for p in parts):
            return "meta emoji is not the parts' emoji in order"
        return None
    if task == "emoji-idiom":
        idiom = data.idioms.get(item.answer)
        if idiom is None:
            return f"{item.answer!r} is not a phrase of the idiom list"
        if (m["emoji"], m["why"]) != (idiom.emoji, idiom.why):
            return f"emoji or why differ from line {idiom.line} of the idiom list"
        return None
    if task in ("emoji-chengyu", "emoji-chengyu-long"):
        problem = _rebus.check_rebus(m)
        if problem:
            return problem
        if "".join(p["char"] for p in m["rebus"]) != item.answer:
            return f"the rebus characters do not make {item.answer!r}"
        if (len(item.answer) > 4) != (task == "emoji-chengyu-long"):
            return f"{len(item.answer)} characters in {task}"
        return None
    return f"unknown culture task {item.task!r}"


def _readable(data: bytes) -> bool:
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as image:
            image.load()
        return True
    except (UnidentifiedImageError, OSError):
        return False


def check(build: Build, items: list) -> CheckResult:
    from types import SimpleNamespace

    from cogforge.generators.symbols import culture

    out = CheckResult()
    config = build.manifest.get("config", {}).get("domains", {}).get("culture", {})
    words = culture.load_words(_path(config, "words", culture.WORDS_TSV))
    data = SimpleNamespace(
        words=words,
        compounds={c.word: c for c in culture.load_compounds(_path(config, "compounds", culture.COMPOUNDS_TSV), words)},
        idioms={i.phrase: i for i in culture.load_idioms(_path(config, "idioms", culture.IDIOMS_TSV))})
    wrong = redrawn = imported = 0
    for item in items:
        stored = [(build.path / rel).read_bytes() for rel in item.images]
        if item.meta.get("imported"):
            imported += 1
            if not item.answer.strip():
                wrong += 1
                out.findings.append(Finding("error", "culture", item.id, "imported item with an empty answer"))
            if len(stored) != 1 or not _readable(stored[0]):
                redrawn += 1
                out.findings.append(Finding("error", "culture-images", item.id, "imported picture unreadable"))
            continue
        try:
            problem = _answer_problem(item, data)
        except (KeyError, TypeError, ValueError) as err:
            problem = f"cannot be re-derived: {err!r}"
        if problem:
            wrong += 1
            out.findings.append(Finding("error", "culture", item.id, problem))
        try:
            pictures = [culture.render(culture.split_emoji(item.meta["emoji"]))]
        except (KeyError, ValueError) as err:
            pictures = [f"cannot draw: {err}".encode()]
        if pictures != stored:
            redrawn += 1
            out.findings.append(Finding("error", "culture-images", item.id,
                                        "drawing meta.emoji again does not give the item's image bytes"))
    out.stats = {"items": len(items), "imported": imported, "answers_not_rederived": wrong,
                 "images_not_reproduced": redrawn}
    return out
