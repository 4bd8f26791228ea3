"""A format example in a prompt must never be the item's answer.

Prompts show how to write an answer ('Answer: 2, 1, 2', a caption "such as ...", a
fraction "such as 5/2"). When an item's key equals its own prompt's example, a model
that copies the example scores without looking at the picture: 14 balancing items
were keyed '2, 1, 2', 12 CARV items "one bowl on a red chair". The check finds every
example in each item's question (:func:`format_examples`) and fails the item whose
answer it equals. Only the item's own answer counts: an example that is another
item's key gives that item nothing, since it is not in that item's prompt (the
statistics still count such examples, per task).

A benchmark's QC hooks (``Benchmark.qc``) may define ``example_matches(item, example) -> bool`` to
compare as its scorer does (sympy equivalence, element counts); the default compares
the texts, case and spacing aside.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

from cogforge.qc.core import Build, CheckResult, Finding, plugin

# words that introduce an example, and an answer line quoted as the reply should read
_MARKER = re.compile(r"(?:such as|e\.g\.|for example|for instance)[,:]?\s+", re.I)
_ANSWER_LINE = re.compile(r"""['"“](?:Answer|Final Answer|Final Sequence|Caption)\s*:\s*([^'"”]*)['"”]""", re.I)
_QUOTES = {"'": "'", '"': '"', "“": "”"}
_PAIRS = {"(": ")", "[": "]", "{": "}"}
# placeholders name a slot, they are not examples: <letter>, FORMULA, [ID] -> [ID] -> ...
_PLACEHOLDER = re.compile(r"^(?:<[^>]*>|[A-Z_]{3,}|\[[A-Z]+\].*|)$")


def _unquoted(text: str) -> str:
    """The example at the start of ``text``: up to a space outside brackets (a union of
    intervals, ``(-oo, 1) U (2, oo)``, goes on over its ``U``), without trailing punctuation."""
    depth, end = 0, len(text)
    for k, ch in enumerate(text):
        if ch in _PAIRS:
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
        elif ch.isspace() and depth == 0:
            if re.match(r"\s+[U∪]\s+\S", text[k:]):
                continue
            if k > 0 and text[k - 1] in "U∪" and text[k - 2:k - 1].isspace():
                continue
            end = k
            break
    return text[:end].rstrip(",;:.")


def format_examples(question: str) -> list[str]:
    """Every format example in a prompt: quoted answer lines ('Answer: 2, 1, 2') and what
    follows "such as", "e.g." or "for example" (quoted, or one expression)."""
    found = [m.group(1).strip() for m in _ANSWER_LINE.finditer(question)]
    for m in _MARKER.finditer(question):
        rest = question[m.end():]
        if rest[:1] in _QUOTES:
            close = rest.find(_QUOTES[rest[0]], 1)
            if close > 0:
                found.append(rest[1:close].strip())
            continue
        while rest:  # "such as [-2, 3) or (-oo, 1) U (2, oo)": every alternative
            example = _unquoted(rest)
            found.append(example)
            rest = rest[len(example):]
            rest = rest[len(" or "):] if rest.startswith(" or ") else ""
    return [e for e in found if not _PLACEHOLDER.match(e)]


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text.strip().strip(".").lower())


def _same_text(item, example: str) -> bool:
    return _normal(example) == _normal(item.answer)


def check_examples(build: Build) -> CheckResult:
    out = CheckResult()
    matches = getattr(plugin(build.benchmark), "example_matches", None) or _same_text
    answers_of: dict[str, set] = defaultdict(set)
    for item in build.items:
        answers_of[item.task].add(_normal(item.answer))
    with_examples, elsewhere = Counter(), Counter()
    for item in build.items:
        examples = format_examples(item.question)
        if examples:
            with_examples[item.task] += 1
        for example in examples:
            if matches(item, example):
                out.findings.append(Finding("error", "examples", item.id,
                                            f"the prompt's format example {example!r} is the item's answer: "
                                            "a model copying it scores; choose an example that is no answer"))
            elif _normal(example) in answers_of[item.task]:
                elsewhere[item.task] += 1
    out.stats = {"items_with_examples": dict(sorted(with_examples.items())),
                 "examples_that_answer_another_item": dict(sorted(elsewhere.items()))}
    return out
