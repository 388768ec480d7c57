"""Fitting the residual coefficients: non-negative least squares, leave one out, the error band."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from sizing.engine.overhead import FITTED, GRAPH_FITTED
from sizing.review.calibration_fit import (
    FitCase,
    band,
    fit,
    fit_graphs,
    leave_group_out,
    nnls,
    weighted_quantile,
)
from sizing.units import GiB


def test_nnls_recovers_known_non_negative_coefficients():
    rng = np.random.default_rng(0)
    a = rng.uniform(1, 2, size=(12, 3))
    x = np.array([2.0, 0.0, 5.0])
    assert nnls(a, a @ x) == pytest.approx(x, abs=1e-9)


def test_nnls_clips_what_would_fit_negative():
    a = np.array([[1.0, 0.0], [0.0, 1.0]])
    assert nnls(a, np.array([3.0, -1.0])).tolist() == pytest.approx([3.0, 0.0])


COEF = dict(zip(FITTED, [3.0, 0.5, 0.0, 1.0, 2.0, 0.25, 0.75, 1.5], strict=True))


def _cases(coef: dict[str, float], graph_mib: float = 12.0) -> list[FitCase]:
    """Ten logs that follow ``coef`` exactly, the last seven budgeting graphs (0.20+), four printing
    them."""
    rng = np.random.default_rng(1)
    out = []
    for i in range(10):
        basis = tuple(rng.uniform(1e8, 1e9, size=len(FITTED)))
        graph = 51.0 * 2**20
        budgeted = graph if i >= 3 else 0.0
        logged = 2e10 + 1e9 * i
        charge = float(np.dot(basis, [coef[n] for n in FITTED])) + budgeted * graph_mib
        out.append(
            FitCase(
                f"c{i}",
                logged,
                logged + charge,
                basis,
                budgeted,
                graph,
                graph * graph_mib if i % 3 == 0 else None,
            )
        )
    return out


def test_fit_reproduces_exact_cases_and_loo_predicts_them():
    cases = _cases(COEF)
    assert fit(cases) == pytest.approx({**COEF, GRAPH_FITTED: 12.0}, rel=1e-6)
    assert {k: v[0] for k, v in leave_group_out(cases, "case").items()} == pytest.approx(
        {c.case: c.logged for c in cases}, rel=1e-9
    )


def test_graph_coefficient_is_the_median_printed_graph_memory_per_captured_size():
    cases = _cases(COEF)
    printed = [
        replace(c, graph_logged=c.graph_basis * mib) for c, mib in zip(cases, (5, 9, 40, 10, 11, 12, 13, 14))
    ]
    assert fit_graphs(printed) == pytest.approx(11.5)
    left = leave_group_out(printed, "case")["c0"][1]
    assert left == pytest.approx(printed[0].graph_basis * 12)  # the median of the other seven


def test_leave_one_model_out_never_sees_any_log_of_the_model_it_predicts():
    cases = [replace(c, model="m") for c in _cases(COEF)]
    odd = [FitCase(f"odd{i}", 2e10, 2e10 + 5e9, cases[0].basis, model="odd") for i in range(2)]  # 5 GiB more
    out = leave_group_out([*cases, *odd], "model")
    assert out["odd0"] == (pytest.approx(odd[0].predict(fit(cases)), rel=1e-9), None)
    assert out["odd1"][0] == pytest.approx(out["odd0"][0])
    assert out["c0"][0] != pytest.approx(
        cases[0].predict(fit(cases)), rel=1e-6
    )  # the odd model pulls their fit


def test_the_fit_puts_each_log_on_the_phase_that_sets_its_peak():
    """A log whose sampler phase (10 GiB) outweighs its forward pass is charged that phase whole, whatever the
    activation factors; the forward-dominated logs alone set those factors, and every log predicts exactly."""
    forward = _cases(COEF)
    basis = forward[0].basis
    others = sum(
        b * COEF[n] for b, n in zip(basis, FITTED) if n not in ("act_hidden_factor", "act_mlp_factor")
    )
    sampler = FitCase("s", 2e10, 2e10 + 10 * GiB + others, basis, sampler_phase=10.0 * GiB)
    coef = fit([*forward, sampler])
    assert coef == pytest.approx(fit(forward), rel=1e-6)
    assert sampler.sampler_wins(coef) and not any(c.sampler_wins(coef) for c in forward)
    assert sampler.predict(coef) == pytest.approx(2e10, rel=1e-9)


def test_a_share_of_the_mlp_intermediates_is_at_most_all_of_them():
    cases = [replace(c, logged=c.logged - 4 * c.basis[FITTED.index("act_mlp_factor")]) for c in _cases(COEF)]
    assert fit(cases)["act_mlp_factor"] == pytest.approx(1.0)


def test_weights_let_a_group_of_duplicates_count_once():
    cases = _cases(COEF)
    twins = [FitCase(f"t{i}", 2e10, 2e10 + 5e9, cases[0].basis, weight=0.25) for i in range(4)]
    once = FitCase("once", 2e10, 2e10 + 5e9, cases[0].basis)
    assert fit([*cases, *twins]) == pytest.approx(fit([*cases, once]), rel=1e-9)


def test_weighted_quantile_counts_each_value_by_its_weight():
    values, weights = np.array([0.0, 1.0, 2.0, 3.0]), np.array([1.0, 1.0, 1.0, 1.0])
    assert weighted_quantile(values, weights, 0.5) == pytest.approx(1.5)
    assert weighted_quantile(np.array([0.0, 10.0]), np.array([3.0, 1.0]), 0.5) == pytest.approx(
        0.0 + 10 * (0.5 - 0.375) / 0.5
    )


DECILES = (0.1, 0.9)


def test_band_is_the_empirical_10th_to_90th_percentile_signed():
    """Ten equal logs: the lowest is the 10th percentile and the 9th the 90th, so 9 of 10 lie inside."""
    errors = np.array([-0.05, -0.02, 0.0, 0.01, 0.02, 0.03, 0.04, 0.2, -0.01, 0.0])
    assert band(errors, np.ones(10), DECILES) == (pytest.approx(0.04), pytest.approx(-0.05))
    doubled = np.ones(10)
    doubled[7] = (
        2.0  # the +20 % log weighs 2 of 11: more than 10 % lies above +4 %, less than 10 % below −2 %
    )
    assert band(errors, doubled, DECILES) == (pytest.approx(0.2), pytest.approx(-0.02))
    assert band(np.array([0.01, 0.02]), np.ones(2), DECILES)[1] == 0.0
    assert band(errors, np.ones(10), (0.2, 0.8)) == (pytest.approx(0.03), pytest.approx(-0.02))
