"""Agreement statistics against published worked examples."""

from __future__ import annotations

import numpy as np
import pytest

from cogforge.annotation.agreement import cohen_kappa, fleiss_kappa, krippendorff_alpha, percent_agreement


def test_cohen_kappa_textbook_example():
    # 50 proposals read by two people: yes/yes 20, yes/no 5, no/yes 10, no/no 15.
    # p_o = 0.70, p_e = 0.50, kappa = 0.40 (the standard worked example).
    a = ["yes"] * 25 + ["no"] * 25
    b = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    assert cohen_kappa(a, b) == pytest.approx(0.4)


def test_fleiss_kappa_worked_example():
    # Fleiss (1971) as worked through in the standard reference: 10 subjects, 14 raters,
    # 5 categories; kappa = 0.210.
    table = np.array([[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0],
                      [2, 2, 8, 1, 1], [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2],
                      [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]])
    assert fleiss_kappa(table) == pytest.approx(0.210, abs=5e-4)


KRIPPENDORFF = [  # Krippendorff (2011), "Computing Krippendorff's alpha-reliability", example C
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]


def test_krippendorff_alpha_reliability_data_example():
    assert krippendorff_alpha([[None if v is None else str(v) for v in row] for row in KRIPPENDORFF],
                              "nominal") == pytest.approx(0.743, abs=5e-4)
    assert krippendorff_alpha(KRIPPENDORFF, "interval") == pytest.approx(0.849, abs=5e-4)
    assert krippendorff_alpha(KRIPPENDORFF, "ordinal") == pytest.approx(0.815, abs=5e-4)


def test_percent_agreement_and_degenerate_cases():
    assert percent_agreement([["a", "a", "b"], ["a", "a"], ["b"]]) == pytest.approx((1 / 3 + 1) / 2)
    assert cohen_kappa([], []) is None
    assert cohen_kappa(["x", "x"], ["x", "x"]) == 1.0
    assert fleiss_kappa(np.array([[1, 0]])) is None  # no unit with two ratings
