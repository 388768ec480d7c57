"""Fit the residual overhead coefficients on the start-up logs, and measure them out of sample.

Every fitted term of :mod:`sizing.engine.overhead` is ``coefficient × basis``, so the printed
"Available KV cache memory" of a case is ``rest − basis · c``, where ``rest`` is the budget
less the weights and the terms the vLLM source fixes (:data:`FIXED_TERMS`: sampler, MoE workspaces, MLA
prefill, linear-attention projections, the encoder profile, Model Runner V2's buffers).
:func:`fit` solves the non-negative least-squares problem on the *relative* error of every
reproducible ``available_kv`` case, each weighted so that a group of near-duplicate runs counts once,
after the CUDA-graph coefficient is set from the graph memory the logs print (:func:`fit_graphs`);
:func:`leave_group_out` refits both without every log of a model (or of a GPU type) and predicts them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from sizing.engine.memory import graph_bases, overhead_bases
from sizing.engine.overhead import FITTED, FORWARD_FITTED, GRAPH_FITTED
from sizing.engine.versions import Rules


@dataclass(frozen=True)
class FitCase:
    """One log in the fit, bytes: its logged available KV memory (None where it prints none), ``rest``
    and the basis vector of :data:`FITTED`; the graph basis its available KV subtracts (0 where the release
    line does not budget graphs), the graph basis of its own capture list, and the graph memory it printed."""

    case: str
    logged: float | None
    rest: float
    basis: tuple[float, ...]
    graph_budgeted: float = 0.0
    graph_basis: float = 0.0
    graph_logged: float | None = None
    model: str = ""
    gpu: str = ""
    weight: float = 1.0
    forward_fixed: float = 0.0
    sampler_phase: float = 0.0

    def forward(self, coef: Mapping[str, float]) -> float:
        """The forward pass's activation peak under ``coef``: its fixed part plus the fitted forward terms."""
        return self.forward_fixed + sum(self.basis[FITTED.index(n)] * coef[n] for n in FORWARD_FITTED)

    def sampler_wins(self, coef: Mapping[str, float]) -> bool:
        """Whether the sampler phase, not the forward pass, sets the activation peak under ``coef``."""
        return self.sampler_phase > self.forward(coef)

    def predict(self, coef: Mapping[str, float]) -> float:
        """Printed available KV memory under the coefficients ``coef`` (by name), bytes."""
        graphs = self.graph_budgeted * coef[GRAPH_FITTED]
        others = sum(self.basis[FITTED.index(n)] * coef[n] for n in FITTED if n not in FORWARD_FITTED)
        return self.rest - graphs - max(self.forward(coef), self.sampler_phase) - others

    def predict_graphs(self, coef: Mapping[str, float]) -> float:
        """The CUDA-graph memory of this case's capture list under ``coef``, bytes."""
        return self.graph_basis * coef[GRAPH_FITTED]


FIXED_TERMS = ("moe_workspace_bytes", "encoder_profile_bytes", "runner_buffers_bytes")
"""Terms whose shape the source fixes (no fitted coefficient) and that add to the activation peak whichever
phase sets it: subtracted before the fit, as the engine does."""
FORWARD_FIXED = ("mla_prefill_bytes", "linear_profile_bytes", "eager_forward_bytes")
"""Fixed terms of the forward pass, which competes with the sampler phase
(:func:`sizing.engine.overhead.profile_peak`)."""


def fit_case(
    case: str,
    logged_bytes: float | None,
    row: Mapping[str, Any],
    rules: Rules,
    graph_bytes: float | None = None,
) -> FitCase:
    """The :class:`FitCase` of an evaluated estimate ``row`` (see :func:`sizing.engine.memory.compute`)
    under the release line ``rules``, with the logged available KV and CUDA-graph memory (bytes or None);
    its model, GPU type and weight are set by the caller (:func:`dataclasses.replace`)."""
    fixed = sum(float(row[name]) for name in FIXED_TERMS)
    rest = float(row["budget_bytes"]) - float(row["weights_bytes"]) - fixed
    frame = pd.DataFrame([dict(row)])
    bases = overhead_bases(frame, rules)
    captured, estimated = (float(basis[0]) for basis in graph_bases(frame, rules))
    budgeted = bool(row["cudagraph_budgeted"]) and not rules.extensible_kv_cache
    return FitCase(
        case,
        logged_bytes,
        rest,
        tuple(float(bases[name][0]) for name in FITTED),
        estimated * budgeted,
        captured,
        graph_bytes,
        forward_fixed=sum(float(row[name]) for name in FORWARD_FIXED),
        sampler_phase=float(row["sampler_phase_bytes"]),
    )


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


def fit_graphs(cases: list[FitCase]) -> float:
    """The CUDA-graph coefficient: the weighted median of printed graph memory over its basis, across the logs
    that
    print it (each near-duplicate group once).

    A median, because the printed figures spread widely (0.28–1.8 GiB) around no trend the basis could follow.
    """
    found = [c for c in cases if c.graph_logged and c.graph_basis > 0]
    if not found:
        return 0.0
    ratios = np.array([float(c.graph_logged or 0.0) / c.graph_basis for c in found])
    return float(weighted_quantile(ratios, np.array([c.weight for c in found]), 0.5))


def fit(cases: list[FitCase]) -> dict[str, float]:
    """Every fitted coefficient by name: the graph one first (:func:`fit_graphs`), then those of
    :data:`FITTED`,
    all ≥ 0, minimising the weighted squared relative available-KV error with the graph term subtracted."""
    graph = fit_graphs(cases)
    kv = [c for c in cases if c.logged is not None]
    wins = [False] * len(kv)
    seen: list[list[bool]] = []
    while wins not in seen and len(seen) < FIT_ROUNDS:
        seen.append(wins)
        coef = {**dict(zip(FITTED, bounded(*_system(kv, wins, graph)).tolist())), GRAPH_FITTED: graph}
        wins = [c.sampler_wins(coef) for c in kv]
    return coef


UPPER = {"act_mlp_factor": 1.0}
"""Coefficients with a ceiling: the share of the MLP intermediates live at the peak is at most all of them."""


def bounded(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """:func:`nnls` with the ceilings of :data:`UPPER`: a coefficient above its ceiling is fixed there and
    the others are refitted without it."""
    x = nnls(a, b)
    over = [FITTED.index(name) for name, top in UPPER.items() if x[FITTED.index(name)] > top]
    if not over:
        return x
    fixed = np.zeros(len(FITTED))
    fixed[over] = [UPPER[FITTED[i]] for i in over]
    free = np.ones(len(FITTED), dtype=bool)
    free[over] = False
    x = fixed.copy()
    x[free] = nnls(a[:, free], b - a @ fixed)
    return x


FIT_ROUNDS = 20
"""At most this many refits while logs move between the forward-peak and the sampler-peak branch; the first
puts every log on the forward branch (so the forward coefficients are identified), each next one puts each
log on the branch the previous coefficients give it, until the branches repeat."""


def _system(kv: list[FitCase], sampler_wins: list[bool], graph: float) -> tuple[np.ndarray, np.ndarray]:
    """The weighted relative least-squares system (a, b) of the logs ``kv``, each on its branch of
    ``max(forward, sampler phase)``: the forward branch keeps the forward bases and subtracts the forward's
    fixed part; the sampler branch drops them and subtracts the sampler phase."""
    logged = np.array([c.logged for c in kv], dtype=np.float64)
    root = np.sqrt(np.array([c.weight for c in kv], dtype=np.float64)) / np.abs(logged)
    wins = np.array(sampler_wins, dtype=bool)
    forward = np.array([name in FORWARD_FITTED for name in FITTED])
    basis = np.where(wins[:, None] & forward[None, :], 0.0, np.array([c.basis for c in kv]))
    peak = np.where(wins, [c.sampler_phase for c in kv], [c.forward_fixed for c in kv])
    rest = np.array([c.rest - c.graph_budgeted * graph for c in kv])
    return basis * root[:, None], (rest - peak - logged) * root


def leave_group_out(cases: list[FitCase], key: str) -> dict[str, tuple[float | None, float | None]]:
    """Each case's (available KV, CUDA-graph memory), bytes, predicted by a fit that saw no case sharing
    its ``key`` (``"model"``: every log of the model, any checkpoint; ``"gpu"``: every log of the GPU
    type); None where the case logs no such figure."""
    out = {}
    for value in sorted({getattr(c, key) for c in cases}):
        coef = fit([c for c in cases if getattr(c, key) != value])
        for case in (c for c in cases if getattr(c, key) == value):
            out[case.case] = (
                case.predict(coef) if case.logged is not None else None,
                case.predict_graphs(coef) if case.graph_logged is not None else None,
            )
    return out


def weighted_quantile(values: np.ndarray, weights: np.ndarray, q: float | np.ndarray) -> Any:
    """The ``q`` quantile(s) of ``values`` where each value counts ``weights`` times (midpoint rule)."""
    order = np.argsort(values, kind="stable")
    v, w = np.asarray(values, dtype=np.float64)[order], np.asarray(weights, dtype=np.float64)[order]
    position = (np.cumsum(w) - w / 2) / w.sum()
    return np.interp(q, position, v)


def empirical_quantile(values: np.ndarray, weights: np.ndarray, q: float) -> float:
    """The weighted empirical ``q`` quantile: the smallest value whose cumulative weight share reaches ``q``
    (the inverse of the empirical distribution), so that less than ``q`` of the weight lies below it."""
    order = np.argsort(values, kind="stable")
    v, w = np.asarray(values, dtype=np.float64)[order], np.asarray(weights, dtype=np.float64)[order]
    share = np.cumsum(w) / w.sum()
    return float(v[min(int(np.searchsorted(share, q - 1e-12)), len(v) - 1)])


def band(errors: np.ndarray, weights: np.ndarray, quantiles: Sequence[float]) -> tuple[float, float]:
    """(optimistic, pessimistic) empirical error quantiles ``quantiles`` (low, high; the catalog's
    ``kv_band_quantiles``), clipped to ≥ 0 and ≤ 0 (see :func:`sizing.engine.kv_band.kv_band`): less than
    the low share of the weight lies below the low one and at most 1 − high above the high one."""
    low, high = (empirical_quantile(np.asarray(errors), np.asarray(weights), q) for q in quantiles)
    return max(high, 0.0), min(low, 0.0)
