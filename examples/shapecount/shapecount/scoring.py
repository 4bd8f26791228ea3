"""Scoring ShapeCount: a response is right when the one number it states is the count.

The shared scorer extracts the answer first (a JSON ``answer``, an "Answer: ..." line, or a
short reply taken whole); this module judges what it extracted. Digits and the number words
up to twenty count ("3", "3.0", "three"); a reply that states two different numbers ("2 red
circles and 3 blue ones") is wrong, since it does not say which it means.

Standard library only: the release's lmms-eval ``utils.py`` embeds this module's source, so
lmms-eval scores a response exactly as ``cogforge eval score`` does.
"""

from __future__ import annotations

import re

NUMBER_WORDS = {w: n for n, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty".split())}
_NUMBER = re.compile(r"\d+(?:\.\d+)?|[a-z]+")


def numbers_in(text: str) -> set[float]:
    """Every number a reply states, as digits or as a word."""
    found = set()
    for token in _NUMBER.findall(text.lower()):
        if token[0].isdigit():
            found.add(float(token))
        elif token in NUMBER_WORDS:
            found.add(float(NUMBER_WORDS[token]))
    return found


def is_correct(answer: str, row: dict) -> bool:
    """The extracted answer states exactly one number, and it is the item's count."""
    return numbers_in(answer) == {float(row["answer"])}


def _range(row: dict) -> tuple[int, int]:
    low, high = row["meta"]["count_range"]
    return low, high


def chance(row: dict) -> float:
    """A guess among the counts the build could ask for."""
    low, high = _range(row)
    return 1 / (high - low + 1)


def random_answer(rng, row: dict) -> str:
    """The random baseline's answer: a count drawn uniformly from the item's range."""
    low, high = _range(row)
    return str(rng.randint(low, high))


def strata(row: dict) -> dict[str, str]:
    """Accuracy is also reported per colour, per shape and per count."""
    return {"colour": row["meta"]["colour"], "shape": row["meta"]["shape"], "count": row["answer"]}
