"""Fit the residual overhead coefficients on the start-up logs, and measure them out of sample.

Every fitted term of :mod:`sizing.engine.overhead` is ``coefficient × basis``, so the printed
"Available KV cache memory" of a case is ``rest − basis · c``, where ``rest`` is the budget
less the weights and the terms the vLLM source fixes (sampler, MoE workspaces, MLA prefill).
:func:`fit` solves the non-negative least-squares problem on the *relative* error of every
reproducible ``available_kv`` case; :func:`leave_one_out` refits without each case and predicts it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
import pandas as pd

from sizing.engine.memory import overhead_bases
from sizing.engine.overhead import FITTED
from sizing.engine.versions import Rules

BAND_QUANTILES = (0.1, 0.9)
"""The error band covers the 10th to 90th percentile of the leave-one-out available-KV errors."""


@dataclass(frozen=True)
class FitCase:
    """One log in the fit: its logged available KV memory, ``rest`` and basis vector (bytes)."""

    case: str
    logged: float
    rest: float
    basis: tuple[float, ...]

    def predict(self, coef: np.ndarray) -> float:
        """Printed available KV memory under the coefficient vector ``coef`` (order of FITTED), bytes."""
        return self.rest - float(np.dot(self.basis, coef))


FIXED_TERMS = ("sampler_bytes", "moe_workspace_bytes", "mla_prefill_bytes", "linear_profile_bytes")
"""Profile-run terms whose shape the source fixes (no coefficient): subtracted before the fit."""


def fit_case(case: str, logged_bytes: float, row: Mapping[str, Any], rules: Rules) -> FitCase:
    """The :class:`FitCase` of an evaluated estimate ``row`` (see :func:`sizing.engine.memory.compute`)
    under the release line ``rules`` (CUDA graphs are fitted where the printed figure subtracts them)."""
    fixed = sum(float(row[name]) for name in FIXED_TERMS)
    rest = float(row["budget_bytes"]) - float(row["weights_bytes"]) - fixed
    bases = overhead_bases(pd.DataFrame([dict(row)]), rules)
    budgeted_graphs = rules.cudagraphs_budgeted and not rules.extensible_kv_cache
    basis = [float(bases[name][0]) for name in FITTED]
    basis[FITTED.index("cudagraph_mib_per_capture_layer")] *= float(budgeted_graphs)
    return FitCase(case, logged_bytes, rest, tuple(basis))


def nnls(a: np.ndarray, b: np.ndarray, iterations: int = 100) -> np.ndarray:
    """Non-negative least squares ``min ‖a x − b‖, x ≥ 0`` (Lawson–Hanson active set)."""
    scale = np.maximum(np.linalg.norm(a, axis=0), 1e-300)
    a = a / scale
    x, passive = np.zeros(a.shape[1]), np.zeros(a.shape[1], dtype=bool)
    for _ in range(iterations):
        gradient = a.T @ (b - a @ x)
        if passive.all() or gradient[~passive].max(initial=0) <= 1e-12:
            break
        passive[np.argmax(np.where(passive, -np.inf, gradient))] = True
        while True:
            z = np.zeros_like(x)
            z[passive] = np.linalg.lstsq(a[:, passive], b, rcond=None)[0]
            if (z[passive] > 0).all():
                x = z
                break
            blocked = passive & (z <= 0)
            step = np.min(x[blocked] / np.maximum(x[blocked] - z[blocked], 1e-300))
            x = x + step * (z - x)
            passive &= x > 1e-15
    return x / scale


def fit(cases: list[FitCase]) -> np.ndarray:
    """Coefficients (order of FITTED) minimising the squared relative available-KV error, all ≥ 0."""
    logged = np.array([c.logged for c in cases])
    a = np.array([c.basis for c in cases]) / np.abs(logged)[:, None]
    b = (np.array([c.rest for c in cases]) - logged) / np.abs(logged)
    return nnls(a, b)


def leave_one_out(cases: list[FitCase]) -> dict[str, float]:
    """Each case's printed available KV memory predicted by a fit that never saw it, bytes."""
    return {c.case: c.predict(fit([o for o in cases if o is not c])) for c in cases}


def band(errors: list[float]) -> tuple[float, float]:
    """(optimistic, pessimistic) error quantiles: ≥ 0 and ≤ 0 (see :func:`sizing.engine.overhead.kv_band`)."""
    low, high = np.quantile(np.asarray(errors), BAND_QUANTILES)
    return max(float(high), 0.0), min(float(low), 0.0)
