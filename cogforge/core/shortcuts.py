"""Statistics the QC report uses: balance of strata and answer-only baselines."""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from typing import Callable, Hashable, Sequence


def balance_index(counts: Sequence[int]) -> float:
    """min / max of the class counts: 1 is perfectly balanced.

    This is the Balance Index of the CogEvolve paper (Table 6: 11,882 / 16,572 = 0.717).
    """
    counts = [c for c in counts]
    if not counts or max(counts) == 0:
        return 1.0
    return min(counts) / max(counts)


def gini(counts: Sequence[int]) -> float:
    """Gini coefficient of the class counts (0 = equal; mean absolute difference / 2 mean).

    Computed from the Lorenz curve. For CogEvolve's Table 6 this gives 0.073; the
    paper prints 0.106, which no standard formula reproduces from its counts.
    """
    xs = sorted(counts)
    n, total = len(xs), sum(xs)
    if n == 0 or total == 0:
        return 0.0
    weighted = sum((i + 1) * x for i, x in enumerate(xs))
    return 2 * weighted / (n * total) - (n + 1) / n


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for a proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def binomial_sf(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p), summed in log space (exact, no scipy)."""
    if k <= 0:
        return 1.0
    if p <= 0:
        return 0.0
    if p >= 1:
        return 1.0
    total = 0.0
    for i in range(k, n + 1):
        log_term = (math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1)
                    + i * math.log(p) + (n - i) * math.log1p(-p))
        total += math.exp(log_term)
    return min(1.0, total)


def majority_baseline(answers: Sequence[Hashable]) -> tuple[Hashable, int]:
    """The most common answer and how many items it answers (ties: first seen)."""
    counts = Counter(answers)
    best = max(counts.values())
    for answer in answers:
        if counts[answer] == best:
            return answer, best
    raise ValueError("no answers")


def choices_only_predictions(options: Sequence[Sequence[str]], answers: Sequence[str]) -> list[str]:
    """What a model that sees only the options would answer, per item.

    Two cues are tried, each learned without the item itself (leave-one-out):

    * answer prior: how often an option's text is the correct answer elsewhere,
      against how often it appears at all;
    * centrality (the RAVEN leak): the option sharing most words with the other
      options, since a sampler that builds distractors by perturbing the answer
      makes the answer the centre of its options.

    For each item the cue that is right more often on the *other* items is used.
    Ties break by option text, never by position.
    """
    n = len(options)
    appear: Counter = Counter(o for opts in options for o in set(opts))
    correct: Counter = Counter(answers)

    def prior_pick(i: int) -> str:
        def score(o: str) -> tuple[float, str]:
            a = appear[o] - 1
            c = correct[o] - (1 if answers[i] == o else 0)
            return ((c + 0.5) / (a + 1) if a >= 0 else 0.0, o)
        return max(options[i], key=score)

    def central_pick(i: int) -> str:
        words = [set(o.lower().split()) for o in options[i]]
        def score(j: int) -> tuple[int, str]:
            return (sum(len(words[j] & words[k]) for k in range(len(words)) if k != j), options[i][j])
        return options[i][max(range(len(options[i])), key=score)]

    prior = [prior_pick(i) for i in range(n)]
    central = [central_pick(i) for i in range(n)]
    prior_hits = [p == a for p, a in zip(prior, answers)]
    central_hits = [c == a for c, a in zip(central, answers)]
    total_prior, total_central = sum(prior_hits), sum(central_hits)
    out = []
    for i in range(n):
        use_prior = total_prior - prior_hits[i] >= total_central - central_hits[i]
        out.append(prior[i] if use_prior else central[i])
    return out


# --------------------------------------------------------------------------- blind heuristics
#
# Each heuristic answers a multiple-choice item from its option texts and question
# stem alone, never the image: ``heuristic(options, answers, stems) -> picks``.
# Those that learn from the build (answer priors) learn leave-one-out, without the
# item itself. Ties break by option text, never by position (positions are shuffled;
# the majority-position baseline covers them). QC runs every one of them and the
# builders filter against them, so a cue found once is never found again.


def question_stem(question: str, options: Sequence[str] | None) -> str:
    """The question without its lettered option lines ("A. dog") and answer instruction."""
    if not options:
        return question
    listed = {f"{chr(65 + k)}. {o}" for k, o in enumerate(options)} | \
             {f"({chr(65 + k)}) {o}" for k, o in enumerate(options)}
    lines = [line for line in question.splitlines() if line.strip() not in listed]
    return "\n".join(line for line in lines if not line.lower().startswith("answer with the option"))


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def _best(options: Sequence[str], score: Callable[[str], float]) -> str:
    return max(options, key=lambda o: (score(o), o))


def _answer_prior(rate: bool):
    def heuristic(options, answers, stems):
        appear = Counter(o for opts in options for o in set(opts))
        correct = Counter(answers)
        picks = []
        for opts, answer in zip(options, answers):
            def score(o: str) -> float:
                c = correct[o] - (o == answer)
                return (c + 0.5) / (appear[o]) if rate else c  # appear[o] - 1 others, + 1 smoothing
            picks.append(_best(opts, score))
        return picks
    return heuristic


def _option_frequency(sign: int):
    def heuristic(options, answers, stems):
        appear = Counter(o for opts in options for o in set(opts))
        return [_best(opts, lambda o: sign * appear[o]) for opts in options]
    return heuristic


def _length(sign: int, unit: str):
    size = len if unit == "chars" else (lambda o: len(o.split()))
    return lambda options, answers, stems: [_best(opts, lambda o: sign * size(o)) for opts in options]


def _question_overlap(sign: int):
    def heuristic(options, answers, stems):
        return [_best(opts, lambda o: sign * len(_words(o) & _words(stem))) for opts, stem in zip(options, stems)]
    return heuristic


def _centrality(options, answers, stems):
    """The RAVEN leak: the option sharing most words with the other options."""
    picks = []
    for opts in options:
        words = [_words(o) for o in opts]
        shared = {o: sum(len(words[j] & words[k]) for k in range(len(opts)) if k != j) for j, o in enumerate(opts)}
        picks.append(_best(opts, shared.get))
    return picks


def _question_prior(options, answers, stems):
    """The answer most often right for the same question stem elsewhere (e.g. per concept)."""
    by_stem: dict[str, Counter] = defaultdict(Counter)
    for stem, answer in zip(stems, answers):
        by_stem[stem][answer] += 1
    return [_best(opts, lambda o: by_stem[stem][o] - (o == answer))
            for opts, answer, stem in zip(options, answers, stems)]


# How often an option's text appears across the task, whatever its answers: a sampler
# whose answers are rarer (or commoner) texts than its distractors leaks through it
# (CONSTRUCTURE's first roles did: brothers shown once were answers, a chain's lineage
# shown everywhere never was). Judged like every other heuristic.
FREQUENCY_HEURISTICS: dict[str, Callable] = {
    "most-frequent-option": _option_frequency(1),
    "least-frequent-option": _option_frequency(-1),
}

HEURISTICS: dict[str, Callable] = {
    "answer-count": _answer_prior(rate=False),
    "answer-rate": _answer_prior(rate=True),
    "question-prior": _question_prior,
    "centrality": _centrality,
    "longest": _length(1, "chars"),
    "shortest": _length(-1, "chars"),
    "most-words": _length(1, "words"),
    "fewest-words": _length(-1, "words"),
    "most-question-words": _question_overlap(1),
    "fewest-question-words": _question_overlap(-1),
    **FREQUENCY_HEURISTICS,
}


# Learned leave-one-out from the answers: their "avoided" form is not a model's cue (on
# a balanced yes/no task leave-one-out always points away from the item's own answer).
LEARNED = frozenset({"answer-count", "answer-rate", "question-prior"})


def heuristic_accuracies(options: Sequence[Sequence[str]], answers: Sequence[str], stems: Sequence[str],
                         heuristics: dict[str, Callable] | None = None) -> dict[str, tuple[float, list[bool]]]:
    """Every heuristic's accuracy and per-item hits, plus each one *avoided*.

    "avoid-X" drops X's pick and guesses among the rest; its expected accuracy is
    ``mean(wrong_i / (k_i - 1))``. It catches a sampler that made a cue point *away*
    from the answer (a heuristic far below chance is a leak too). Only for the
    heuristics that do not learn from the answers (see :data:`LEARNED`).
    """
    out = {}
    for name, heuristic in (HEURISTICS if heuristics is None else heuristics).items():
        hits = [p == a for p, a in zip(heuristic(options, answers, stems), answers)]
        n = len(hits) or 1
        out[name] = (sum(hits) / n, hits)
        if name in LEARNED:
            continue
        avoided = [0.0 if h else 1 / (len(o) - 1) for h, o in zip(hits, options)]
        out[f"avoid-{name}"] = (sum(avoided) / n, [not h for h in hits])
    return out
