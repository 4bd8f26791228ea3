"""Chinese idioms spelled as emoji rebuses (pure; used by the culture generator and by QC).

Each character of an idiom is shown by one emoji whose Chinese name (the ``emoji``
package's CLDR name, e.g. 🪣 "桶") either contains that character, or contains a
character read the same way. The idiom list is ``generators/data/symbols_chengyu.tsv``
(see :mod:`generators.symbols._chengyu_source`).

Readings (:func:`readings`): pypinyin's phrase-aware reading in tone numbers (``tong2``;
a neutral tone is ``5``). Its phrase dictionary writes tone sandhi (一心一意 reads
``yi4 xin1 yi2 yi4``); sandhi is undone here, so 一 is always ``yi1`` and 不 always
``bu4``, as a dictionary cites them. A character of an emoji name is read **in that
name** (虹 in 彩虹 is ``hong2``), never through another reading the character may
have in other words (虹 can also be ``gong4``, which would make 🌈 a false clue for 共).

The clues (:func:`build_index`): every usable emoji (:func:`_emoji.usable`: drawn by
the pinned font, no text on it, no flag, no skin tone) whose Chinese name is 1 to 3 Han
characters, that is not in :data:`UNCLEAR` (clock faces, zodiac signs, arrows, buttons,
geometric shapes, the fleur-de-lis, blue public signs: pictures whose name nobody would guess) nor in
:data:`BANNED` (rude), indexed by each character of its name with that character's
reading in the name.

The choice (:func:`build_rebus`), per character of the idiom, best first:

0. a character that comes again with the same reading gets the same emoji again; never an
   emoji already showing another character of the idiom (one emoji, one character);
1. the emoji :data:`PREFERRED` for that character (hand-picked clear pictures for frequent
   characters: 一 as 🏥 医院 "yi1 yuan4" rather than 🥛 一杯奶), when it matches at all;
2. the kind of match: ``same character``, then ``same pinyin with tone``, then ``same
   pinyin without tone`` (a same-character clue read the same way in its name first);
3. a name of 1-2 characters, then the character as the last (head) character of the
   name (马 in 河马 names a kind of 马; 马 in 马头 is a horse's head), then a shorter name.

Ties are broken by the caller's ``rng``. An idiom with a character no emoji matches has
no rebus (``None``). :func:`check_rebus` re-derives every recorded part from the pinyin
and emoji data alone, without the index.
"""

from __future__ import annotations

import functools
import random
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from pypinyin import Style, pinyin
from pypinyin.contrib.tone_convert import to_tone3

from cogforge.core.errors import UserError, read_text
from cogforge.generators.symbols import Draft, _emoji, resolve

CHENGYU_TSV = "generators/data/symbols_chengyu.tsv"
MATCHES = ("same character", "same pinyin with tone", "same pinyin without tone")
HAN = re.compile(r"[\u4e00-\u9fff]+")  # CJK Unified Ideographs: every character of the list and the names
SYLLABLE = re.compile(r"[a-z]+[1-5]")
CITATION = {"一": "yi1", "不": "bu4"}  # tone sandhi undone
MAX_NAME = 3  # longer names ("振动模式", "货币兑换") describe rather than name: hard to guess
PER_ROW = 4
# Pictures whose Chinese name nobody would say on seeing them, by CLDR English name.
UNCLEAR = re.compile(r"o’clock|thirty|\b(Aries|Taurus|Gemini|Cancer|Leo|Virgo|Libra|Scorpio|Sagittarius|"
                     r"Capricorn|Aquarius|Pisces|Ophiuchus)\b|button|\b(up|down|left|right)(-\w+)? arrow$|"
                     r"\b(circle|square)$|part alternation mark|fleur-de-lis|passport control|customs|"
                     r"baggage claim|left luggage|’s room$|restroom|potable water|litter in bin")
# Pictures a benchmark should not show (rude or adult).
BANNED = {"\U0001f595", "\U0001f3e9", "\U0001f4a9", "\U0001f346"}  # 🖕 🏩 💩 🍆
# Hand-picked clear pictures for frequent characters (char -> emoji): taken before any
# other clue that matches, whatever its kind (千 as ✏️ 铅笔 rather than 🔖 书签).
PREFERRED = {
    "马": "🐎", "龙": "🐉", "虎": "🐅", "牛": "🐂", "羊": "🐑", "鸡": "🐔", "狗": "🐕", "猪": "🐖", "鼠": "🐁",
    "兔": "🐇", "蛇": "🐍", "猴": "🐒", "鱼": "🐟", "鸟": "🐦", "猫": "🐈", "熊": "🐻", "狼": "🐺", "象": "🐘",
    "山": "⛰️", "水": "💧", "火": "🔥", "月": "🌙", "花": "🌸", "树": "🌳", "石": "🪨", "雨": "🌧️", "雪": "❄️",
    "云": "☁️", "风": "🌬️", "星": "⭐", "心": "❤️", "手": "✋", "脚": "🦶", "眼": "👁️", "耳": "👂", "鼻": "👃",
    "牙": "🦷", "笑": "😄", "哭": "😢", "人": "🧑", "书": "📚", "刀": "🔪", "门": "🚪", "车": "🚗", "船": "🚢",
    "钱": "💰", "金": "🥇", "一": "🏥", "千": "✏️", "之": "🕷️", "自": "🚲", "里": "🎁", "高": "👠", "前": "👛",
}
QUESTIONS = {
    False: ("Each emoji in the picture stands for one character of a four-character Chinese idiom (chengyu): "
            "its Chinese name contains that character, or a character with the same pinyin (the tone may "
            "differ). Read the emoji left to right and row by row. Which idiom is it? Write the idiom in "
            "Chinese characters on the last line as 'Answer: ...'."),
    True: ("Each emoji in the picture stands for one character of a Chinese saying of more than four "
           "characters: its Chinese name contains that character, or a character with the same pinyin (the "
           "tone may differ). Read the emoji left to right and row by row. Which saying is it? Write it in "
           "Chinese characters, without punctuation, on the last line as 'Answer: ...'."),
}


class ChengyuError(UserError):
    """A line of the idiom list that cannot be used."""


@dataclass(frozen=True)
class Idiom:
    text: str  # without punctuation
    pinyin: str  # tone marks, one syllable per character, as in the source
    source: str  # where the source has it ("emoji-chengyu 0.0.6 data/chengyu.json:123")
    line: int  # the line of the list


@dataclass(frozen=True)
class Clue:
    """One character of one emoji's Chinese name."""
    emoji: str
    name: str
    at: int  # the character's position in the name
    reading: str  # its reading in the name (TONE3)

    @property
    def char(self) -> str:
        return self.name[self.at]


@dataclass(frozen=True)
class Index:
    by_char: dict[str, tuple[Clue, ...]]
    by_reading: dict[str, tuple[Clue, ...]]  # "tong2"
    by_syllable: dict[str, tuple[Clue, ...]]  # "tong"


def readings(text: str) -> list[str]:
    """Each character's reading in ``text`` (all Han): phrase-aware pypinyin in tone
    numbers, neutral tone ``5``, ü written ``v``, 一 and 不 in their citation tones."""
    return list(_readings(text))


@functools.lru_cache(maxsize=4096)
def _readings(text: str) -> tuple[str, ...]:
    if not HAN.fullmatch(text):
        raise ValueError(f"{text!r} is not all Han characters")
    out = [r[0] for r in pinyin(text, style=Style.TONE3, neutral_tone_with_five=True)]
    if len(out) != len(text) or not all(SYLLABLE.fullmatch(r) for r in out):
        raise ValueError(f"pypinyin has no reading for a character of {text!r}: {out}")
    return tuple(CITATION.get(c, r) for c, r in zip(text, out))


def tone3(marked: str) -> list[str]:
    """Tone-marked pinyin ("tóng zhōu gòng jì") in the form of :func:`readings`, without
    its sandhi rule (a caller comparing 一 or 不 applies :data:`CITATION`)."""
    return [to_tone3(s, neutral_tone_with_five=True) for s in marked.split()]


def toneless(reading: str) -> str:
    return reading.rstrip("12345")


def clear_names(usable: dict | None = None) -> dict[str, str]:
    """emoji -> Chinese name, for every emoji a rebus may use."""
    usable = _emoji.usable() if usable is None else usable
    return {e: info.zh for e, info in usable.items()
            if HAN.fullmatch(info.zh) and len(info.zh) <= MAX_NAME and not UNCLEAR.search(info.en)
            and e not in BANNED}


@functools.lru_cache(maxsize=1)
def default_names() -> dict[str, str]:
    """:func:`clear_names` of the pinned emoji data and font (computed once)."""
    return clear_names()


@functools.lru_cache(maxsize=1)
def default_index() -> Index:
    return build_index(default_names())


def build_index(names: dict[str, str]) -> Index:
    """The clues of ``names`` (emoji -> Chinese name), by character, reading and toneless syllable."""
    by_char, by_reading, by_syllable = defaultdict(list), defaultdict(list), defaultdict(list)
    for e, name in names.items():
        for at, reading in enumerate(readings(name)):
            clue = Clue(e, name, at, reading)
            by_char[clue.char].append(clue)
            by_reading[reading].append(clue)
            by_syllable[toneless(reading)].append(clue)
    def freeze(d):
        return {k: tuple(v) for k, v in d.items()}
    return Index(freeze(by_char), freeze(by_reading), freeze(by_syllable))


def match_of(char: str, reading: str, name: str) -> str | None:
    """How the emoji named ``name`` stands for ``char`` read ``reading``, or None."""
    if char in name:
        return MATCHES[0]
    name_readings = readings(name)
    if reading in name_readings:
        return MATCHES[1]
    if toneless(reading) in map(toneless, name_readings):
        return MATCHES[2]
    return None


def _rank(clue: Clue, char: str, reading: str) -> tuple:
    kind = 0 if clue.char == char else 1 if clue.reading == reading else 2
    return (PREFERRED.get(char) != clue.emoji, kind, clue.reading != reading, len(clue.name) > 2,
            clue.at != len(clue.name) - 1, len(clue.name)), kind


def build_rebus(idiom: str, index: Index, rng: random.Random | None = None) -> list[dict] | None:
    """Per character of ``idiom``: ``{"char", "pinyin", "emoji", "emoji_zh", "match"}``, or
    None when a character has no clue (an emoji already showing another character of the
    idiom is none). Ties between equally good clues go to ``rng`` (without one, the first
    in the emoji data's order)."""
    parts, used = [], {}
    for char, reading in zip(idiom, readings(idiom)):
        again = next((p for p in parts if p["char"] == char and p["pinyin"] == reading), None)
        if again is not None:  # a character read the same way again: the same emoji again
            parts.append(dict(again))
            continue
        clues = index.by_char.get(char, ()) + index.by_reading.get(reading, ()) + \
            index.by_syllable.get(toneless(reading), ())
        ranked = {clue: _rank(clue, char, reading) for clue in clues if used.get(clue.emoji, char) == char}
        if not ranked:
            return None
        best = min(ranked.values())
        ties = [c for c, r in ranked.items() if r == best]
        clue = rng.choice(ties) if rng is not None else ties[0]
        used[clue.emoji] = char
        parts.append({"char": char, "pinyin": reading, "emoji": clue.emoji, "emoji_zh": clue.name,
                      "match": MATCHES[best[1]]})
    return parts


def check_rebus(meta: dict) -> str | None:
    """What is wrong with a generated chengyu item's rebus, re-derived from the pinyin and
    emoji data alone (None when every part holds)."""
    parts = meta.get("rebus")
    if not parts:
        return "meta has no rebus"
    try:
        idiom = "".join(p["char"] for p in parts)
        expected = readings(idiom)
    except (KeyError, TypeError, ValueError) as error:
        return f"rebus parts unreadable ({error})"
    names = default_names()
    for n, (part, reading) in enumerate(zip(parts, expected), 1):
        where = f"character {n} ({part['char']})"
        if part.get("pinyin") != reading:
            return f"{where}: pinyin {part.get('pinyin')!r}, pypinyin reads {reading!r}"
        name = names.get(part.get("emoji"))
        if name is None:
            return f"{where}: {part.get('emoji')!r} is not an emoji a rebus may use"
        if part.get("emoji_zh") != name:
            return f"{where}: emoji_zh {part.get('emoji_zh')!r}, the emoji data name {part['emoji']} {name!r}"
        match = match_of(part["char"], reading, name)
        if match is None:
            return f"{where}: {name} ({' '.join(readings(name))}) neither has {part['char']} nor reads {reading}"
        if part.get("match") != match:
            return f"{where}: match {part.get('match')!r}, re-derived {match!r}"
    if meta.get("emoji") != "".join(p["emoji"] for p in parts):
        return f"meta emoji {meta.get('emoji')!r} is not the rebus's emoji in order"
    return None


# --------------------------------------------------------------------------- the idiom list


def load_idioms(path: Path) -> list[Idiom]:
    """The idiom list: ``idiom<TAB>pinyin<TAB>source`` lines, ``#`` comments.

    Raises:
        ChengyuError: naming the file and line of a malformed line, an idiom that is not
            all Han characters or shorter than 4, a pinyin of another length, or a duplicate.
    """
    out, seen = [], {}
    for number, line in enumerate(read_text(path, "idiom list", error=ChengyuError).splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        cols = line.split("\t")
        if len(cols) != 3:
            raise ChengyuError(f"{len(cols)} tab-separated columns, expected idiom, pinyin, source", path, number)
        text, marked, source = cols
        if not HAN.fullmatch(text) or len(text) < 4:
            raise ChengyuError(f"idiom {text!r} is not 4 or more Han characters (write it without punctuation)",
                               path, number)
        if len(marked.split()) != len(text):
            raise ChengyuError(f"pinyin {marked!r} has {len(marked.split())} syllables for {len(text)} "
                               "characters", path, number)
        if text in seen:
            raise ChengyuError(f"{text} again (first on line {seen[text]}); keep one line", path, number)
        seen[text] = number
        out.append(Idiom(text, marked, source, number))
    return out


def prepare(ctx, config: dict) -> None:
    """Load the idiom list (``config["chengyu"]``, default :data:`CHENGYU_TSV`) and the
    emoji clues into ``ctx`` (``ctx.chengyu``, ``ctx.rebus_index``)."""
    ctx.chengyu = load_idioms(resolve(config.get("chengyu") or CHENGYU_TSV))
    ctx.rebus_index = default_index()


def make_drafts(ctx, count: int, rng: random.Random, long: bool) -> list[Draft]:
    """Up to ``count`` rebus items of four-character idioms (``long=False``) or longer
    sayings. Every idiom of the list gets its rebus, in a shuffled order, so that the items
    of a smaller count are the first ones of a larger; idioms without a rebus are counted
    in ``ctx.dropped``, and idioms already imported for the task (``ctx.imported``) are
    left out (one idiom, one split)."""
    task = "emoji-chengyu-long" if long else "emoji-chengyu"
    imported = {d.answer for d in getattr(ctx, "imported", {}).get(task, ())}
    pool = [i for i in ctx.chengyu if (len(i.text) > 4) == long]
    out = []
    for idiom in rng.sample(pool, len(pool)):
        parts = build_rebus(idiom.text, ctx.rebus_index, rng)
        if parts is None:
            ctx.dropped[f"culture-{task} (no emoji for a character)"] += 1
            continue
        if idiom.text in imported:
            continue
        out.append(_draft(idiom, parts, long))
    return out[:max(count, 0)]


def _draft(idiom, parts: list[dict], long: bool) -> Draft:
    emojis = [p["emoji"] for p in parts]
    meta = {"rebus": parts, "emoji": "".join(emojis), "answer_format": "zh-idiom", "idiom_source": idiom.source}
    return Draft(QUESTIONS[long], [functools.partial(_emoji.render_rebus, emojis, PER_ROW)], None,
                 idiom.text, idiom.text, meta)


def stream_draft(ctx, rng: random.Random, long: bool, length: int | None = None) -> list[Draft]:
    """One stream item: an idiom drawn from the list (of ``length`` characters when given),
    its rebus built as the build builds it; none when a character has no emoji (the
    stream draws again)."""
    pool = [i for i in ctx.chengyu if (len(i.text) > 4) == long and length in (None, len(i.text))]
    idiom = rng.choice(pool)
    parts = build_rebus(idiom.text, ctx.rebus_index, rng)
    return [] if parts is None else [_draft(idiom, parts, long)]
