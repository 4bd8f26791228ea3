"""Function type (Math T2, L1): the family of the curve drawn; the check classifies meta's
expression by its structure."""

from __future__ import annotations

import random

import sympy as sp

from cogforge.generators.symbols import Draft, mcq_prompt, nth
from cogforge.generators.symbols._functions.derive import X, _sym
from cogforge.generators.symbols._functions.shapes import (FAMILY_NAMES, FAMILY_ORDER, PROMPTS, W6, _draft, _meta,
                                                           plot_of, sample_family)


def make_function_type(ctx, count: int, rng: random.Random) -> list[Draft]:
    """The families in turn; three other family names, chosen evenly, as distractors."""
    out = []
    for i in range(nth(ctx, 0), nth(ctx, count)):
        family = FAMILY_ORDER[i % len(FAMILY_ORDER)]
        s = sample_family(family, rng)
        others = rng.sample([f for f in FAMILY_ORDER if f != family], 3)
        options = ctx.positions.place("mathematics-function-type", FAMILY_NAMES[family],
                                      [FAMILY_NAMES[f] for f in others], rng)
        meta = _meta("function-type", s, plot_of(s, W6), family=family)
        out.append(_draft("function-type", mcq_prompt(PROMPTS["function-type"], options), options,
                          FAMILY_NAMES[family], meta))
    return out


# --------------------------------------------------------------------------- check


def classify(f: sp.Expr) -> str:
    """The family of an expression, from its structure."""
    if f.has(sp.sin, sp.cos):
        return "trigonometric"
    if f.has(sp.Abs):
        return "absolute"
    if f.has(sp.log):
        return "logarithmic"
    if any(p.exp.has(X) for p in f.atoms(sp.Pow)) or f.has(sp.exp):
        return "exponential"
    if any(p.exp == sp.S.Half and p.base.has(X) for p in f.atoms(sp.Pow)):
        return "sqrt"
    num, den = sp.fraction(sp.together(f))
    if den.has(X):
        return "rational"
    degree = sp.degree(f, X)
    return {2: "quadratic", 3: "cubic"}.get(degree, f"polynomial of degree {degree}")


def _check_function_type(question: str, options: list, answer: str, meta: dict) -> str | None:
    found = classify(_sym(meta["f"]))
    if FAMILY_NAMES.get(found) != answer:
        return f"re-derived family {found}, answer {answer!r}"
    if not set(options) <= set(FAMILY_NAMES.values()):
        return f"options {options} are not family names"
    return None
