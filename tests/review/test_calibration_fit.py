"""Fitting the residual coefficients: non-negative least squares, leave one out, the error band."""

from __future__ import annotations

import numpy as np
import pytest

from sizing.review.calibration_fit import FitCase, band, fit, leave_one_out, nnls
from sizing.engine.overhead import FITTED


def test_nnls_recovers_known_non_negative_coefficients():
    rng = np.random.default_rng(0)
    a = rng.uniform(1, 2, size=(12, 3))
    x = np.array([2.0, 0.0, 5.0])
    assert nnls(a, a @ x) == pytest.approx(x, abs=1e-9)


def test_nnls_clips_what_would_fit_negative():
    a = np.array([[1.0, 0.0], [0.0, 1.0]])
    assert nnls(a, np.array([3.0, -1.0])).tolist() == pytest.approx([3.0, 0.0])


def _cases(coef: np.ndarray) -> list[FitCase]:
    rng = np.random.default_rng(1)
    out = []
    for i in range(8):
        basis = tuple(rng.uniform(1e8, 1e9, size=len(FITTED)))
        logged = 2e10 + 1e9 * i
        out.append(FitCase(f"c{i}", logged, logged + float(np.dot(basis, coef)), basis))
    return out


def test_fit_reproduces_exact_cases_and_loo_predicts_them():
    coef = np.array([3.0, 0.5, 0.0, 1.0, 2.0, 0.25])
    cases = _cases(coef)
    assert fit(cases) == pytest.approx(coef, rel=1e-6)
    assert leave_one_out(cases) == pytest.approx({c.case: c.logged for c in cases}, rel=1e-9)


def test_leave_one_out_never_sees_the_case_it_predicts():
    cases = _cases(np.array([3.0, 0.5, 0.0, 1.0, 2.0, 0.25]))
    odd = FitCase("odd", 2e10, 2e10 + 5e9, cases[0].basis)  # 5 GiB more charge than the others imply
    loo = leave_one_out([*cases, odd])
    assert loo["odd"] == pytest.approx(odd.rest - np.dot(odd.basis, fit(cases)), rel=1e-9)


def test_band_is_the_10th_to_90th_percentile_signed():
    errors = [-0.05, -0.02, 0.0, 0.01, 0.02, 0.03, 0.04, 0.2, -0.01, 0.0]
    optimistic, pessimistic = band(errors)
    assert optimistic == pytest.approx(np.quantile(errors, 0.9)) and pessimistic == pytest.approx(
        np.quantile(errors, 0.1))
    assert band([0.01, 0.02])[1] == 0.0
