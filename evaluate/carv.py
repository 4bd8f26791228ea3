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

import functools
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


@functools.lru_cache(maxsize=None)
def _pattern(phrases: tuple[str, ...]) -> re.Pattern:
    # Longest alternatives first, so "on top of" wins over "on" at the same position.
    alternatives = "|".join(re.escape(p) for p in sorted(phrases, key=len, reverse=True))
    return re.compile(rf"\b(?:{alternatives})\b")


def _find(text: str, phrases: list[str]) -> list[tuple[int, int, str]]:
    """Non-overlapping matches of whole-word phrases, left to right: (start, end, phrase)."""
    return [(m.start(), m.end(), m.group(0)) for m in _pattern(tuple(phrases)).finditer(text)]


@dataclass
class Parse:
    """What a caption says about each property (sets: a caption may say several things)."""

    subject: set[str] = field(default_factory=set)
    subject_number: set[str] = field(default_factory=set)
    object: set[str] = field(default_factory=set)
    object_color: set[str] = field(default_factory=set)
    spatial_relation: set[str] = field(default_factory=set)


@functools.lru_cache(maxsize=65536)
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


# --------------------------------------------------------------------------- scoring plugin

STATES = 9 * 2 * 2 * 3 * 4
TABLE2 = ["Single", "Union SS", "Union DS", "Intersection SS", "Intersection DS", "Difference SS", "Difference DS"]


def is_correct(answer: str, row: dict) -> bool:
    return judge_caption(answer, row["meta"]["states"]["answer"])


def chance(row: dict) -> float:
    """A uniform guess over the world's 432 states."""
    return 1 / STATES


def strata(row: dict) -> dict[str, str | None]:
    """The paper's Table 2 columns (two atomic changes per pair) and Figure 6 (|T| = 2, 3, 4)."""
    meta = row["meta"]
    column, atomic = meta["table2_column"], meta["atomic"]
    scaling = column in ("Union SS", "Intersection SS")
    return {"Table 2": column if atomic == 2 else None,
            "atomic changes": f"{column}, {atomic} changes" if scaling else None}


def tables(records: list[dict]) -> dict[str, dict[str, float]]:
    """Accuracy in the paper's Table 2 layout and by number of atomic changes."""
    groups: dict[str, list[bool]] = {}
    scaling: dict[str, list[bool]] = {}
    for r in records:
        column = r["strata"].get("Table 2")
        if column:
            groups.setdefault(column, []).append(r["correct"])
        if r["strata"].get("atomic changes"):
            scaling.setdefault(r["strata"]["atomic changes"], []).append(r["correct"])
    return {"Table 2": {c: sum(groups[c]) / len(groups[c]) for c in TABLE2 if c in groups},
            "atomic changes": {k: sum(v) / len(v) for k, v in sorted(scaling.items())}}


def random_answer(rng, row: dict | None = None) -> str:
    """The caption of a uniformly random state (the same space for every item): the random baseline's guess."""
    return rng.choice(_all_captions())


@functools.cache
def _all_captions() -> list[str]:
    from cogforge.generators.carv import load_world

    world = load_world()
    return [world.caption(s) for s in world.states()]


def tables_markdown(results: dict) -> list[str]:
    """The report's lines for :func:`tables`: the paper's Table 2 and the atomic-change split."""
    def pct(x) -> str:
        return "-" if x is None else f"{100 * x:.1f}"

    first = next(iter(results["models"].values()))
    cols = list(first["tables"]["Table 2"])
    md = ["", "## As in the paper's Table 2 (accuracy %, two atomic changes per pair)", "",
          "| model | " + " | ".join(cols) + " |", "|" + " --- |" * (len(cols) + 1)]
    for model, r in results["models"].items():
        md.append(f"| {model} | " + " | ".join(pct(r["tables"]["Table 2"].get(c)) for c in cols) + " |")
    scols = list(first["tables"]["atomic changes"])
    md += ["", "## By number of atomic changes (shared source)", "",
           "| model | " + " | ".join(scols) + " |", "|" + " --- |" * (len(scols) + 1)]
    for model, r in results["models"].items():
        md.append(f"| {model} | " + " | ".join(pct(r["tables"]["atomic changes"].get(c)) for c in scols) + " |")
    return md
