"""Statistics the QC report uses: balance of strata and answer-only baselines."""

from __future__ import annotations

import math
from collections import Counter
from typing import Hashable, Sequence


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
