"""Culture (paper Table 1, culture rows T1-T4): emoji rebuses of English words and idioms
and of Chinese idioms (chengyu), built from curated data, or imported from eWe-bench /
Emoji2Idiom.

Tasks (ids ``culture-<name>``; levels and the paper's ids in :data:`TASKS`):

* ``emoji-word`` (T1): emoji whose English names join into one word (🌲 pine + 🍎 apple
  -> ``pineapple``). The compounds are WordNet 3.0 noun lemmas that split into words of
  a curated word -> emoji table (``symbols_emoji_words.tsv``: each word's emoji, and
  whether its CLDR name, an alias, the head of its name or our choice gives the word);
  every candidate split was reviewed by hand (``symbols_emoji_compounds.tsv``: ``ok``
  or why not: false splits such as tea + ring, obscure words, a part whose emoji is
  already the whole word, anything offensive). ``meta.parts`` records each part's word,
  emoji and CLDR name.
* ``emoji-idiom`` (T2): an English idiom or phrase as a sequence of emoji, from
  ``symbols_emoji_idioms.tsv`` (phrase, emoji, a one-line why), written for the project.
* ``emoji-chengyu`` (T3) and ``emoji-chengyu-long`` (T4): a Chinese idiom, one emoji a
  character, through the emoji's Chinese name (same character, or same pinyin with or
  without tone): :mod:`generators.symbols._rebus`.

Every picture is :func:`_emoji.render_rebus` of the emoji in reading order (four a row).
With ``--input emoji2idiom=FILE.xlsx`` (or the config's ``emoji2idiom``) a task's items
are the workbook's first, then generated ones fill the count
(:mod:`generators.symbols._emoji2idiom`).
"""

from __future__ import annotations

import functools
import random
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

from cogforge.core.errors import UserError, read_text
from cogforge.generators.symbols import DomainConfig, Draft, Task, resolve
from cogforge.generators.symbols import _emoji, _emoji2idiom, _rebus

DOMAIN = "culture"
DEFAULT_COUNTS = {"emoji-word": 150, "emoji-idiom": 150, "emoji-chengyu": 300, "emoji-chengyu-long": 40}
WORDS_TSV = "generators/data/symbols_emoji_words.tsv"
COMPOUNDS_TSV = "generators/data/symbols_emoji_compounds.tsv"
IDIOMS_TSV = "generators/data/symbols_emoji_idioms.tsv"
PER_ROW = 4
CREDITS = [
    "Emoji pictures: Noto Color Emoji (Debian fonts-noto-color-emoji 2.042; font SIL OFL 1.1, "
    "images Apache-2.0), drawn with Pillow.",
    "Emoji names: the `emoji` 2.16.0 package (BSD-3-Clause) with CLDR annotations (Unicode License v3; "
    "a few Chinese names come from emojiterra.com, whose licence is not stated).",
    "English compounds: Princeton WordNet 3.0 (WordNet 3.0 licence) noun lemmas, split into the words of "
    "`generators/data/symbols_emoji_words.tsv` and reviewed by hand in "
    "`generators/data/symbols_emoji_compounds.tsv` (curated for cogforge).",
    "English idioms: `generators/data/symbols_emoji_idioms.tsv`, idioms and phrases as emoji, written for cogforge.",
    "Chinese idioms: the emoji-chengyu 0.0.6 idiom list (MIT; from pwxcoo/chinese-xinhua, MIT), only each "
    "idiom and its pinyin, filtered into "
    "`generators/data/symbols_chengyu.tsv` by `generators/symbols/_chengyu_source.py`; readings by "
    "pypinyin 0.55.0 (MIT).",
]
PROMPTS = {
    "emoji-word": ("Each emoji in the picture stands for a short English word. Read from left to right, the "
                   "words join, without spaces, into one English word. Which word is it? Write the word on "
                   "the last line as 'Answer: ...'."),
    "emoji-idiom": ("The emoji in the picture, read from left to right and row by row, stand for a well-known "
                    "English idiom or phrase. Which one is it? Write the idiom or phrase on the last line as "
                    "'Answer: ...'."),
}
IDIOM_EMOJI = (2, 8)  # emoji per idiom (two rows of four at most)
_PUNCT = re.compile(r"[^a-z0-9 ]+")


class CultureDataError(UserError):
    """A line of the curated culture data (words, compounds, idioms) that cannot be used."""


@dataclass(frozen=True)
class Compound:
    word: str
    parts: tuple[str, ...]
    line: int


@dataclass(frozen=True)
class Idiom:
    phrase: str
    emoji: str
    why: str
    line: int


class Config(DomainConfig):
    """``[domains.culture]`` in ``builders/symbols.toml``."""

    DOMAIN = "culture"
    DEFAULT_COUNTS = DEFAULT_COUNTS
    words: str = WORDS_TSV
    compounds: str = COMPOUNDS_TSV
    idioms: str = IDIOMS_TSV
    chengyu: str = _rebus.CHENGYU_TSV
    emoji2idiom: list[str] = []
    emoji2idiom_images: str = ""


INPUTS = ("emoji2idiom",)  # --input emoji2idiom=FILE.xlsx


# --------------------------------------------------------------------------- data files


def _rows(path: Path, what: str, header: str):
    """(line number, columns) of a tab-separated file with a header row and ``#`` comments."""
    lines = read_text(path, what, error=CultureDataError).splitlines()
    started = False
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("#"):
            continue
        if not started:
            if line != header:
                raise CultureDataError(f"the header row must be {header!r} (tab-separated)", path, number)
            started = True
            continue
        cols = line.split("\t")
        width = header.count("\t") + 1
        if len(cols) != width or any(not c.strip() or c != c.strip() for c in cols):
            raise CultureDataError(f"expected {width} tab-separated non-empty columns ({header.replace(chr(9), ', ')}) "
                                   "without surrounding spaces", path, number)
        yield number, cols


def split_emoji(text: str) -> list[str]:
    """The emoji of ``text`` in order; raises ValueError when anything else is in it."""
    import emoji

    tokens = emoji.emoji_list(text)
    if "".join(t["emoji"] for t in tokens) != text:
        raise ValueError(f"{text!r} is not emoji only (joined, the emoji it holds are "
                         f"{''.join(t['emoji'] for t in tokens)!r})")
    return [t["emoji"] for t in tokens]


def _usable_emoji(text: str, path: Path, number: int) -> list[str]:
    try:
        tokens = split_emoji(text)
    except ValueError as error:
        raise CultureDataError(str(error), path, number) from None
    usable = _emoji.usable()
    for e in tokens:
        if e not in usable:
            raise CultureDataError(f"{e!r} ({' '.join(f'U+{ord(c):04X}' for c in e)}) is not an emoji a rebus "
                                   "may show (fully qualified, no skin tone, no flag, no text on it, drawn by the "
                                   "pinned Noto font); choose another", path, number)
    return tokens


WORD_SOURCES = ("CLDR name", "CLDR alias", "CLDR name head", "CLDR name word", "curated")


def load_words(path: Path) -> dict[str, str]:
    """``word<TAB>emoji<TAB>source``: one emoji per word, each emoji for one word."""
    out, by_emoji = {}, {}
    for number, (word, e, source) in _rows(path, "emoji word table", "word\temoji\tsource"):
        if not re.fullmatch(r"[a-z]+", word):
            raise CultureDataError(f"word {word!r}: lower-case letters a-z only", path, number)
        if len(_usable_emoji(e, path, number)) != 1:
            raise CultureDataError(f"{e!r}: one emoji a word", path, number)
        if source not in WORD_SOURCES:
            raise CultureDataError(f"source {source!r}: one of {', '.join(WORD_SOURCES)}", path, number)
        if word in out:
            raise CultureDataError(f"{word!r} again; keep one line", path, number)
        if e in by_emoji:
            raise CultureDataError(f"{e} is already {by_emoji[e]!r}; an emoji stands for one word", path, number)
        out[word], by_emoji[e] = e, word
    return out


def load_compounds(path: Path, words: dict[str, str]) -> list[Compound]:
    """``compound<TAB>part+part<TAB>status`` (``ok`` or ``rejected: why``); the ``ok`` ones."""
    out, seen = [], {}
    for number, (word, parts, status) in _rows(path, "compound list", "compound\tparts\tstatus"):
        split = tuple(parts.split("+"))
        if "".join(split) != word or len(split) < 2 or "" in split:
            raise CultureDataError(f"parts {parts!r} do not join into {word!r}", path, number)
        if status != "ok":
            if not re.fullmatch(r"rejected: \S.*", status):
                raise CultureDataError(f"status {status!r}: 'ok' or 'rejected: <why>'", path, number)
            continue
        missing = [p for p in split if p not in words]
        if missing:
            raise CultureDataError(f"{', '.join(missing)} not in the word table; add it there or reject the line",
                                   path, number)
        if word in seen:
            raise CultureDataError(f"{word!r} is ok again (first on line {seen[word]}); keep one", path, number)
        seen[word] = number
        out.append(Compound(word, split, number))
    return out


def compound_candidates(words, lemmas) -> list[tuple[str, tuple[str, ...]]]:
    """Every split of a lemma (lower-case letters only) into two or three words of the
    word table, in lemma order: what the compound list must review line by line."""
    table = set(words)

    def splits(rest: str, depth: int):
        if depth and rest in table:
            yield (rest,)
        if depth < 2:
            for cut in range(2, len(rest) - 1):
                if rest[:cut] in table:
                    yield from ((rest[:cut],) + tail for tail in splits(rest[cut:], depth + 1))

    return [(lemma, parts) for lemma in sorted(set(lemmas)) if re.fullmatch(r"[a-z]+", lemma)
            for parts in splits(lemma, 0)]


def normalise(phrase: str) -> str:
    return " ".join(_PUNCT.sub(" ", phrase.lower().replace("'", "")).split())


def load_idioms(path: Path) -> list[Idiom]:
    """``phrase<TAB>emoji<TAB>why``; no phrase (compared in lower case without punctuation)
    nor emoji string twice."""
    out, phrases, strings = [], {}, {}
    for number, (phrase, e, why) in _rows(path, "idiom list", "phrase\temoji\twhy"):
        tokens = _usable_emoji(e, path, number)
        if not IDIOM_EMOJI[0] <= len(tokens) <= IDIOM_EMOJI[1]:
            raise CultureDataError(f"{len(tokens)} emoji; an idiom has {IDIOM_EMOJI[0]} to {IDIOM_EMOJI[1]}",
                                   path, number)
        key = normalise(phrase)
        if key in phrases:
            raise CultureDataError(f"{phrase!r} again (first on line {phrases[key]}); keep one", path, number)
        if e in strings:
            raise CultureDataError(f"{e} again (first on line {strings[e]}); two phrases cannot share a picture",
                                   path, number)
        phrases[key], strings[e] = number, number
        out.append(Idiom(phrase, e, why, number))
    return out


# --------------------------------------------------------------------------- build


def prepare(config: dict, inputs: dict[str, list[str]], progress: bool) -> SimpleNamespace:
    words = load_words(resolve(config["words"]))
    ctx = SimpleNamespace(words=words, compounds=load_compounds(resolve(config["compounds"]), words),
                          idioms=load_idioms(resolve(config["idioms"])), dropped=Counter(),
                          imported={task: [] for task in TASKS}, sources={})
    _rebus.prepare(ctx, config)
    images = resolve(config["emoji2idiom_images"]) if config["emoji2idiom_images"] else None
    files = list(config["emoji2idiom"]) + list(inputs.get("emoji2idiom", []))
    for path in files:
        for task, drafts in _emoji2idiom.load(resolve(path), images, ctx.dropped).items():
            ctx.imported[task] += drafts
    if files:
        ctx.sources["emoji2idiom"] = [Path(p).name for p in files]
    return ctx


def counts(config: dict) -> dict[str, int]:
    return DEFAULT_COUNTS | dict(config["counts"])


def word_parts(compound: Compound, words: dict[str, str]) -> list[dict]:
    usable = _emoji.usable()
    return [{"word": p, "emoji": words[p], "name": usable[words[p]].en} for p in compound.parts]


def render(emojis: list[str]) -> bytes:
    """A culture item's picture from its emoji (``meta.emoji`` split): QC draws it again."""
    return _emoji.render_rebus(list(emojis), PER_ROW)


def _filled(ctx, task: str, count: int, generated) -> list[Draft]:
    """The imported items of ``task`` first, then generated ones up to ``count``; a generated
    item whose answer an imported one has already is left out (one answer, one unit)."""
    imported = ctx.imported[task][:count]
    taken = {d.answer.casefold() for d in imported}
    made = [d for d in generated(count) if d.answer.casefold() not in taken]
    return imported + made[:count - len(imported)]


def _word_draft(ctx, compound: Compound) -> Draft:
    parts = word_parts(compound, ctx.words)
    emojis = [p["emoji"] for p in parts]
    meta = {"parts": parts, "emoji": "".join(emojis), "answer_format": "word-en", "data_line": compound.line}
    return Draft(PROMPTS["emoji-word"], [functools.partial(render, emojis)], None, compound.word, compound.word, meta)


def _idiom_draft(idiom: Idiom) -> Draft:
    emojis = split_emoji(idiom.emoji)
    meta = {"emoji": idiom.emoji, "why": idiom.why, "answer_format": "phrase-en", "data_line": idiom.line}
    return Draft(PROMPTS["emoji-idiom"], [functools.partial(render, emojis)], None, idiom.phrase, idiom.phrase, meta)


def make_word(ctx, count: int, rng: random.Random) -> list[Draft]:
    return _filled(ctx, "emoji-word", count,
                   lambda n: [_word_draft(ctx, c) for c in rng.sample(ctx.compounds, len(ctx.compounds))[:n]])


def make_idiom(ctx, count: int, rng: random.Random) -> list[Draft]:
    return _filled(ctx, "emoji-idiom", count,
                   lambda n: [_idiom_draft(i) for i in rng.sample(ctx.idioms, len(ctx.idioms))[:n]])


def make_chengyu(ctx, count: int, rng: random.Random) -> list[Draft]:
    return _filled(ctx, "emoji-chengyu", count, lambda n: _rebus.make_drafts(ctx, n, rng, False))


def make_chengyu_long(ctx, count: int, rng: random.Random) -> list[Draft]:
    return _filled(ctx, "emoji-chengyu-long", count, lambda n: _rebus.make_drafts(ctx, n, rng, True))


# A stream item (``builders/symbols.py``) is one entry of the curated lists, drawn with
# replacement (the build takes each once); its knob ``emoji`` (English idioms) or
# ``characters`` (long idioms) picks the entries of that length (every English word is two emoji).
STREAM_KNOBS = {"emoji-idiom": {"emoji": (2, 3, 4)}, "emoji-chengyu-long": {"characters": (5, 6, 7, 8)}}


def _knob(ctx, name: str):
    return getattr(ctx, "knobs", {}).get(name)


def stream_word(ctx, count: int, rng: random.Random) -> list[Draft]:
    return [_word_draft(ctx, rng.choice(ctx.compounds))]


def stream_idiom(ctx, count: int, rng: random.Random) -> list[Draft]:
    want = _knob(ctx, "emoji")
    return [_idiom_draft(rng.choice([i for i in ctx.idioms if want in (None, len(split_emoji(i.emoji)))]))]


def stream_chengyu(ctx, count: int, rng: random.Random) -> list[Draft]:
    return _rebus.stream_draft(ctx, rng, False)


def stream_chengyu_long(ctx, count: int, rng: random.Random) -> list[Draft]:
    return _rebus.stream_draft(ctx, rng, True, _knob(ctx, "characters"))


TASKS = {
    "emoji-word": Task(1, "Cult T1", make_word, mcq=False, stream=stream_word),
    "emoji-idiom": Task(2, "Cult T2", make_idiom, mcq=False, stream=stream_idiom),
    "emoji-chengyu": Task(3, "Cult T3", make_chengyu, mcq=False, stream=stream_chengyu),
    "emoji-chengyu-long": Task(3, "Cult T4", make_chengyu_long, mcq=False, stream=stream_chengyu_long),
}
