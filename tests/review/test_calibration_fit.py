"""Fitting the residual coefficients: non-negative least squares, leave one out, the error band."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from sizing.review.calibration_fit import FitCase, band, fit, fit_graphs, leave_one_out, nnls
from sizing.engine.overhead import FITTED, GRAPH_FITTED


def test_nnls_recovers_known_non_negative_coefficients():
    rng = np.random.default_rng(0)
    a = rng.uniform(1, 2, size=(12, 3))
    x = np.array([2.0, 0.0, 5.0])
    assert nnls(a, a @ x) == pytest.approx(x, abs=1e-9)


def test_nnls_clips_what_would_fit_negative():
    a = np.array([[1.0, 0.0], [0.0, 1.0]])
    assert nnls(a, np.array([3.0, -1.0])).tolist() == pytest.approx([3.0, 0.0])


COEF = dict(zip(FITTED, [3.0, 0.5, 0.0, 1.0, 2.0, 0.25]))


def _cases(coef: dict[str, float], graph_mib: float = 12.0) -> list[FitCase]:
    """Eight logs that follow ``coef`` exactly, the last five budgeting graphs (0.20+), three printing them."""
    rng = np.random.default_rng(1)
    out = []
    for i in range(8):
        basis = tuple(rng.uniform(1e8, 1e9, size=len(FITTED)))
        graph = 51.0 * 2**20
        budgeted = graph if i >= 3 else 0.0
        logged = 2e10 + 1e9 * i
        charge = float(np.dot(basis, [coef[n] for n in FITTED])) + budgeted * graph_mib
        out.append(FitCase(f"c{i}", logged, logged + charge, basis, budgeted, graph,
                           graph * graph_mib if i % 3 == 0 else None))
    return out


def test_fit_reproduces_exact_cases_and_loo_predicts_them():
    cases = _cases(COEF)
    assert fit(cases) == pytest.approx({**COEF, GRAPH_FITTED: 12.0}, rel=1e-6)
    assert {k: v[0] for k, v in leave_one_out(cases).items()} == pytest.approx(
        {c.case: c.logged for c in cases}, rel=1e-9)


def test_graph_coefficient_is_the_median_printed_graph_memory_per_captured_size():
    cases = _cases(COEF)
    printed = [replace(c, graph_logged=c.graph_basis * mib) for c, mib in zip(cases, (5, 9, 40, 10, 11, 12, 13, 14))]
    assert fit_graphs(printed) == pytest.approx(11.5)
    left = leave_one_out(printed)["c0"][1]
    assert left == pytest.approx(printed[0].graph_basis * 12)  # the median of the other seven


def test_leave_one_out_never_sees_the_case_it_predicts():
    cases = _cases(COEF)
    odd = FitCase("odd", 2e10, 2e10 + 5e9, cases[0].basis)  # 5 GiB more charge than the others imply
    loo = leave_one_out([*cases, odd])
    assert loo["odd"] == (pytest.approx(odd.predict(fit(cases)), rel=1e-9), None)


def test_band_is_the_10th_to_90th_percentile_signed():
    errors = [-0.05, -0.02, 0.0, 0.01, 0.02, 0.03, 0.04, 0.2, -0.01, 0.0]
    optimistic, pessimistic = band(errors)
    assert optimistic == pytest.approx(np.quantile(errors, 0.9)) and pessimistic == pytest.approx(
        np.quantile(errors, 0.1))
    assert band([0.01, 0.02])[1] == 0.0
