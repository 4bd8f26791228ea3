"""Plane geometry for the mathematics domain (paper Table 1, Math T3, T4, T9, T10, T15):
figures with labelled points, marks and given values, drawn with Pillow, answered
exactly.

Every figure is a JSON dict (``meta["figure"]``) that :func:`.drawing.draw` renders; the
picture depends on that dict alone. The generators place vertices on lattice points,
Pythagorean triples, Heronian triangles and special triangles, so the values they write
on a figure and the answers are exact (ints, ``Fraction``, sympy).
``check`` re-derives each answer from meta by another route: exact predicates on the
vertices (shape), exact foot-point tests and an enumeration of triangles among the
drawn segments (elements), sympy formulas *and* measurement of the to-scale figure
(quantity), the law of cosines and sines with sympy (relation), and the marked values
(definition-check).

Modules: :mod:`.drawing` (the renderer) and :mod:`.common` (prompts, placing points,
balanced options) serve one module per task, each with its generator and its check:
:mod:`.shape` (T3), :mod:`.elements` (T4), :mod:`.quantity` (T9), :mod:`.relation` (T10)
and :mod:`.definition_check` (T15).
"""

from __future__ import annotations

from cogforge.generators.symbols import Task
from cogforge.generators.symbols._geometry.common import SUB_FIELD
from cogforge.generators.symbols._geometry.definition_check import (DEFINITION_ERRORS, DEFINITION_FAMILIES,
                                                                    _check_definition, _violations,
                                                                    make_definition_check)
from cogforge.generators.symbols._geometry.drawing import pictures
from cogforge.generators.symbols._geometry.elements import _check_elements, count_triangles, make_elements
from cogforge.generators.symbols._geometry.quantity import (QUANTITY_KINDS, _check_quantity, _quantity_formula, _same,
                                                            make_geometry_quantity)
from cogforge.generators.symbols._geometry.relation import _check_relation, _criteria, _solve, make_geometry_relation
from cogforge.generators.symbols._geometry.shape import (_check_shape, _quadrilateral_names, _triangle_names,
                                                         make_shape)

# read by generators/symbols/mathematics.py, QC and bench (TASKS, pictures, check) and by
# tests/test_math_geometry.py (the rest)
__all__ = ["DEFINITION_ERRORS", "DEFINITION_FAMILIES", "QUANTITY_KINDS", "TASKS", "_criteria", "_quadrilateral_names",
           "_quantity_formula", "_same", "_solve", "_triangle_names", "_violations", "check", "count_triangles",
           "make_shape", "pictures"]

TASKS = {
    "shape": Task(1, "Math T3", make_shape, mcq=True, filtered=True),
    "elements": Task(1, "Math T4", make_elements, mcq=True, filtered=True),
    "geometry-quantity": Task(2, "Math T9", make_geometry_quantity, mcq=False, filtered=False),
    "geometry-relation": Task(2, "Math T10", make_geometry_relation, mcq=True, filtered=True),
    "definition-check": Task(3, "Math T15", make_definition_check, mcq=True, filtered=False),
}
CHECKS = {"shape": _check_shape, "elements": _check_elements, "geometry-quantity": _check_quantity,
          "geometry-relation": _check_relation, "definition-check": _check_definition}


def check(task: str, question: str, options: list | None, answer: str, meta: dict) -> str | None:
    """None when the answer and options agree with an independent re-derivation from meta."""
    if task not in CHECKS:
        return f"unknown geometry task {task!r}"
    if meta.get("sub_field") != SUB_FIELD:
        return "meta.sub_field is not geometry"
    return CHECKS[task](question, options, answer, meta)
