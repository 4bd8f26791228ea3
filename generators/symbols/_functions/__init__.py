"""Function plots for the mathematics domain (sub-field "function"; paper Table 1, Math T1,
T2, T6, T7, T8, T13 and T14): a curve drawn on a grid, questions with exact answers.

Algorithm. Every function is a *shape*: a family with small exact parameters (Fractions)
chosen so that what the question needs lies on the grid: integer zeros, extrema,
inflection points, intercepts and asymptotes (``a*(x - h)**2 + k``,
``a*((x - h)**3 - 3*d**2*(x - h)) + k`` with extrema at ``h -+ d``, a cubic from its
roots, ``a*((x - h)**2 - d**2)**2 + k``, ``a*2**(s*(x - h)) + k``,
``a*log2(s*(x - h)) + k``, ``A*sin(2*pi*(x - phi)/P) + k``, ``a/(x - h)**n + k``,
``a*|x - h| + k``, ``a*sqrt(s*(x - h)) + k``, a sawtooth or a triangle wave, linear
pieces on a bounded domain). The generator knows the answer from the parameters (sympy
only prints the canonical expression); the drawing is a spec in ``meta["plot"]``
(pieces of the canonical sympy expression over x-ranges, dashed asymptotes, filled and
open dots, parametric curves, vertical segments), evaluated with numpy from the
expression strings and drawn by :func:`generators.symbols._mathbase.plot`.
:func:`check` re-derives every answer from ``meta["f"]`` (or the question's formula, or
the drawn curve) with sympy: real roots and solve, derivatives and their signs, the
natural domain from log and root arguments and denominators, the image from critical
values and end limits, exact values, periods proved by shifting the expression; and it
confirms that the drawing is ``meta["f"]``.

Rejection rules. A sampled shape is kept only when its key points are inside the
window with a margin and the family is visible: an exponential shows its flattening
onto the dashed asymptote, a logarithm its vertical asymptote and its slow growth, a
rational function both branches, a sine at least two periods, a cubic turning points
curved enough to place on the grid; a zero count has no zero within 0.25 of the
window's edge and no tangency; no dot sits at the origin (where the axes cross over it).

Options. Answers are never told by the options alone. For points and zero sets the four
options are built first, a seed and three perturbations of it (a zero missing or added
or moved to a neighbouring grid value, coordinates swapped, a sign flipped); the cluster
is kept only if a function can be built through each member, and the answer is one of
the four in balanced turn. Monotonicity's options are the four intervals into which
three grid cuts divide the line; the function is built so that each of them in turn is
where it goes the way asked (the others are pieces of its other monotonic intervals, or
run across an extremum). Parity is asked with periodicity (six combinations, three
others as distractors), the period always with the options 2, 4, 6, 8. Family names
are answered in turn with three other families chosen evenly.

Critical thinking (L3): half the items are consistent (``error_type`` "none"), the
other half carry one labelled inconsistency, the types taken in turn.

Modules: :mod:`.shapes` (shapes, their drawing and sampling, the prompts) and
:mod:`.derive` (the sympy re-derivation the checks share) serve one module per task:
:mod:`.keypoints` (T1), :mod:`.function_type` (T2), :mod:`.monotonicity` (T6),
:mod:`.global_properties` (T7), :mod:`.domain_value` (T8), :mod:`.plot_consistency`
(T13) and :mod:`.vertical_line` (T14), each with its generator and its check.
"""

from __future__ import annotations

from cogforge.generators.symbols import Task
from cogforge.generators.symbols._functions.derive import _check_plot, _probe_points, _same_function, _sym
from cogforge.generators.symbols._functions.domain_value import _check_domain_value, make_domain_value
from cogforge.generators.symbols._functions.function_type import _check_function_type, make_function_type
from cogforge.generators.symbols._functions.global_properties import _check_global, make_global_properties
from cogforge.generators.symbols._functions.keypoints import KEYPOINT_KINDS, _check_keypoints, make_keypoints
from cogforge.generators.symbols._functions.monotonicity import (_check_monotonicity, _interval_text, _parse_interval,
                                                                 make_monotonicity)
from cogforge.generators.symbols._functions.plot_consistency import (CONSISTENCY_ERRORS, _check_consistency, _differs,
                                                                     make_plot_consistency, parse_formula)
from cogforge.generators.symbols._functions.shapes import (FAMILY_NAMES, PROMPTS, SUB_FIELD, W6, W8, _meta, _off_origin,
                                                           canon, expr_of, pictures, plot_of, text_of)
from cogforge.generators.symbols._functions.vertical_line import (VERTICAL_LINE_ERRORS, _check_vertical_line,
                                                                  _values_at, make_vertical_line)

# read by generators/symbols/mathematics.py, QC and bench (TASKS, pictures, check) and by
# tests/test_math_functions.py (the rest)
__all__ = ["CONSISTENCY_ERRORS", "FAMILY_NAMES", "KEYPOINT_KINDS", "PROMPTS", "TASKS", "VERTICAL_LINE_ERRORS", "W6",
           "W8", "_differs", "_interval_text", "_meta", "_off_origin", "_parse_interval", "_probe_points",
           "_same_function", "_sym", "_values_at", "canon", "check", "expr_of", "parse_formula", "pictures", "plot_of",
           "text_of"]

TASKS = {
    "keypoints": Task(1, "Math T1", make_keypoints, filtered=True),
    "function-type": Task(1, "Math T2", make_function_type, filtered=True),
    "monotonicity": Task(2, "Math T6", make_monotonicity, filtered=True),
    "global-properties": Task(2, "Math T7", make_global_properties),
    "domain-value": Task(2, "Math T8", make_domain_value, mcq=False),
    "plot-consistency": Task(3, "Math T13", make_plot_consistency),
    "vertical-line": Task(3, "Math T14", make_vertical_line),
}
CHECKS = {"keypoints": _check_keypoints, "function-type": _check_function_type, "monotonicity": _check_monotonicity,
          "global-properties": _check_global, "domain-value": _check_domain_value,
          "plot-consistency": _check_consistency, "vertical-line": _check_vertical_line}


def check(task: str, question: str, options: list | None, answer: str, meta: dict) -> str | None:
    """Re-derive the answer from meta (sympy), confirm the drawing, the options and any
    injected inconsistency; None when everything agrees, else what differs."""
    if meta.get("sub_field") != SUB_FIELD:
        return "sub_field is not 'function'"
    if options is not None:
        if len(set(options)) != len(options) or answer not in options:
            return f"options {options} are not distinct or lack the answer {answer!r}"
        if len(options) != (2 if task in ("plot-consistency", "vertical-line") else 4):
            return f"{len(options)} options"
    if "f" in meta:
        problem = _check_plot(meta)
        if problem:
            return problem
    if task not in CHECKS:
        return f"unknown task {task!r}"
    return CHECKS[task](question, options, answer, meta)
