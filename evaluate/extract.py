"""Extracting answers from model responses.

Standard library only: lmms-eval's ``utils.py`` of every release embeds this module's
source (``exports/lmms_eval.py``), so it imports nothing of cogforge. Reading
predictions files is ``evaluate/predictions.py``.
For multiple choice under circular evaluation, a rotated variant's id is
``<item id>::rot<r>`` and its options are the item's rotated left by ``r``.

Extraction is layered. The deterministic parser runs first and says how it found
the answer: ``json`` (a JSON object with ``answer``/``caption``), ``final`` (a
final-answer phrase), ``letter`` (an option letter), ``option`` (an option's text),
``yes/no``, or ``text`` (a short free-text reply taken whole). Only when it fails,
and only when asked, an LLM judge is consulted (``evaluate/judge.py``).
"""

from __future__ import annotations

import json
import re

ROTATION = re.compile(r"^(?P<id>.+)::rot(?P<r>\d+)$")


def _json_answer(text: str) -> str | None:
    for match in re.finditer(r"\{[^{}]*\}", text, re.S):
        try:
            obj = json.loads(match.group(0))
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict):
            for key in ("answer", "caption", "final_answer", "choice", "option"):
                if isinstance(obj.get(key), (str, int)):
                    return str(obj[key]).strip()
    return None


# "Final Sequence" is CogEvolve's ordering marker; "**Answer**:" puts the bold before the colon.
# A star inside a value (3*sqrt(2), 2**x) is kept; stars around it (bold) are not. Chinese
# replies write "答案：" or "答案是" (full-width colon).
_FINAL = re.compile(r"(?:final answer|final sequence|answer|caption|答案)\s*\**\s*(?:is|:|：|是)\s*[\"'*]*"
                    r"((?:[^\n\"*]|(?<=[\w)])\*{1,2}(?=[\w(]))+)", re.I)
# A free answer named the way the symbols culture prompts allow ("The idiom is ..."), read
# only when no final-answer phrase is found.
_NAMED = re.compile(r"(?:\bidiom|成语)\s*\**\s*(?:is|:|：|是)\s*[\"'*“「]*([^\n\"*”」]+)", re.I)
_LETTER_ALONE = re.compile(r"^\s*\(?([A-Z])\)?[.:)]?\s*$")
_LETTER_LEAD = re.compile(r"^\s*\(?([A-Z])[.:)]\s")


def _letter(text: str, k: int) -> str | None:
    valid = {chr(65 + i) for i in range(k)}
    candidates = [text.strip()]
    final = _FINAL.findall(text)
    if final:
        candidates.insert(0, final[-1].strip())
    for candidate in candidates:
        for pattern in (_LETTER_ALONE, _LETTER_LEAD):
            m = pattern.match(candidate)
            if m and m.group(1) in valid:
                return m.group(1)
    m = re.findall(r"\b(?:option|choice|answer)\s*\(?([A-Z])\)?\b", text, re.I)
    if m and m[-1].upper() in valid:
        return m[-1].upper()
    return None


def extract(response: str, options: list[str] | None) -> tuple[str | None, str]:
    """(answer, method). For multiple choice the answer is an option's text; else free text."""
    text = response.strip()
    if not text:
        return None, "empty"
    if options:
        inner = _json_answer(text)
        for candidate, method in ((inner, "json"), (text, "letter")):
            if candidate is None:
                continue
            letter = _letter(candidate, len(options))
            if letter:
                return options[ord(letter) - 65], "json" if method == "json" else "letter"
            lowered = candidate.strip().strip(".").lower()
            for option in options:
                if lowered == option.lower().strip().strip("."):  # an option may end in "etc."
                    return option, "option" if method == "letter" else "json"
        mentioned = [o for o in options if re.search(rf"\b{re.escape(o.lower())}\b", text.lower())]
        if len(mentioned) == 1:
            return mentioned[0], "option"
        return None, "unparsed"
    inner = _json_answer(text)
    if inner:
        return inner, "json"
    final = _FINAL.findall(text) or _NAMED.findall(text)
    if final:
        return final[-1].strip().strip("."), "final"
    if text.lower().strip(".") in ("yes", "no"):
        return text.lower().strip("."), "yes/no"
    if len(text.split()) <= 25 and "\n" not in text:
        return text, "text"
    return None, "unparsed"


def rotate(options: list[str], r: int) -> list[str]:
    return options[r:] + options[:r]
