"""A deterministic caption judge for CARV's controlled world.

A caption is right when it states all five properties of the answer state and
contradicts none of them; extra correct detail ("two white mugs with an orange
band") is fine. The parser knows each value's synonyms:

* number: one/a/an/single/1, two/2/both/a couple of/pair of (a pair of scissors is one);
  a plural noun with no number means two, since the world holds one or two items;
* item: the nine subjects and common synonyms (mug for cup, tea pot for teapot);
* furniture: table/desk, chair/seat;
* colour of the furniture: the colour word nearest before the furniture noun
  (wood/wooden/brown, red, blue); colours elsewhere describe the items and are ignored;
* relation: on/on top of/atop/upon, under/underneath/beneath/below,
  left of/to the left of, right of/to the right of.

Anything named that the answer state does not have (a second item kind, the other
piece of furniture, another relation) makes the caption wrong.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

SUBJECTS = {
    "cup": ["cup", "cups", "mug", "mugs", "coffee cup", "coffee cups", "teacup", "teacups"],
    "bowl": ["bowl", "bowls"],
    "bottle": ["bottle", "bottles"],
    "book": ["book", "books"],
    "apple": ["apple", "apples"],
    "scissors": ["scissors", "scissor", "pair of scissors", "pairs of scissors"],
    "candle": ["candle", "candles"],
    "banana": ["banana", "bananas"],
    "teapot": ["teapot", "teapots", "tea pot", "tea pots"],
}
PLURALS = {"cups", "mugs", "coffee cups", "teacups", "bowls", "bottles", "books", "apples",
           "pairs of scissors", "candles", "bananas", "teapots", "tea pots"}
FURNITURE = {"table": ["table", "tables", "desk"], "chair": ["chair", "chairs", "seat", "stool"]}
COLOURS = {"wood": ["wooden", "wood", "brown", "timber"], "red": ["red"], "blue": ["blue"]}
RELATIONS = {
    "left": ["to the left of", "on the left of", "on the left side of", "left of", "at the left of"],
    "right": ["to the right of", "on the right of", "on the right side of", "right of", "at the right of"],
    "under": ["underneath", "beneath", "below", "under"],
    "on": ["on top of", "atop", "upon", "sitting on", "placed on", "resting on", "standing on", "on"],
}
ONE = {"one", "a", "an", "single", "1", "lone"}
TWO = {"two", "2", "both", "couple", "pair", "pairs", "twin"}
NUMBER_WORDS = ONE | TWO | {"three", "four", "five", "3", "4", "5", "several", "many", "no", "zero"}


def _norm(text: str) -> str:
    text = text.lower().replace("-", " ")
    text = re.sub(r"[^a-z0-9 ]+", " ", text)
    return re.sub(r"\s+", " ", text).strip()


def _find(text: str, phrases: list[str]) -> list[tuple[int, int, str]]:
    """Non-overlapping matches of whole-word phrases, longest first: (start, end, phrase)."""
    taken: list[tuple[int, int, str]] = []
    for phrase in sorted(phrases, key=len, reverse=True):
        for m in re.finditer(rf"\b{re.escape(phrase)}\b", text):
            if all(m.end() <= s or m.start() >= e for s, e, _ in taken):
                taken.append((m.start(), m.end(), phrase))
    return sorted(taken)


@dataclass
class Parse:
    """What a caption says about each property (sets: a caption may say several things)."""

    subject: set[str] = field(default_factory=set)
    subject_number: set[str] = field(default_factory=set)
    object: set[str] = field(default_factory=set)
    object_color: set[str] = field(default_factory=set)
    spatial_relation: set[str] = field(default_factory=set)


def parse_caption(caption: str) -> Parse:
    text = _norm(caption)
    out = Parse()
    # Relations first: "on the left of" must not also read as "on".
    rel_spans = []
    for rel, phrases in RELATIONS.items():
        for s, e, _ in _find(text, phrases):
            rel_spans.append((s, e, rel))
    rel_spans.sort()
    kept = []
    for s, e, rel in sorted(rel_spans, key=lambda x: x[0] - x[1]):  # longest first
        if all(e <= ks or s >= ke for ks, ke, _ in kept):
            kept.append((s, e, rel))
    out.spatial_relation = {rel for _, _, rel in kept}
    masked = list(text)
    for s, e, _ in kept:
        masked[s:e] = " " * (e - s)
    text_wo_rel = "".join(masked)

    furniture = []
    for name, phrases in FURNITURE.items():
        for s, e, _ in _find(text_wo_rel, phrases):
            furniture.append((s, e, name))
            out.object.add(name)
    for s, _, _ in furniture:
        words = text_wo_rel[:s].split()[-3:]  # the noun phrase right before the furniture noun
        for colour, names in COLOURS.items():
            if any(w in names for w in words):
                out.object_color.add(colour)
    for subject, phrases in SUBJECTS.items():
        for s, e, phrase in _find(text_wo_rel, phrases):
            out.subject.add(subject)
            before = text_wo_rel[:s].split()[-4:]
            numbers = [w for w in before if w in NUMBER_WORDS]
            scissors_pair = subject == "scissors" and phrase.startswith("pair")
            if numbers:
                word = numbers[-1]
                if word in ONE or (scissors_pair and word in {"a", "one", "single"}):
                    out.subject_number.add("one")
                elif word in TWO and not (scissors_pair and word in {"pair"}):
                    out.subject_number.add("two")
                else:
                    out.subject_number.add(word)  # three, several...: contradicts either
            elif phrase in PLURALS or (subject == "scissors" and phrase == "pairs of scissors"):
                out.subject_number.add("two")
            elif scissors_pair:
                out.subject_number.add("one")
            elif subject != "scissors":
                out.subject_number.add("one")
    return out


def judge_caption(caption: str, answer: dict) -> bool:
    """True when the caption states every property of ``answer`` and contradicts none."""
    said = parse_caption(caption)
    for prop in ("subject", "subject_number", "object", "object_color", "spatial_relation"):
        values = getattr(said, prop)
        if values != {answer[prop]}:
            return False
    return True
