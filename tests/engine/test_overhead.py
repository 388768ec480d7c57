"""Tests for sizing.engine.overhead: vLLM's batch defaults, capture sizes and the overhead terms, by hand."""

from __future__ import annotations

import numpy as np
import pytest

from sizing.engine import overhead as oh
from sizing.units import GiB, MiB

COEF = oh.Coefficients(act_hidden_factor=2.5, act_intermediate_factor=3, sampler_bytes_per_logit=8,
                       profile_base_mib=150, nontorch_mib=60, nontorch_tp_mib=40,
                       cudagraph_mib_per_capture_layer=0.3, cuda_context_mib=500, extensible_margin_gib=1)


@pytest.mark.parametrize(("gib", "a100", "llm", "expected"), [
    (45, False, False, (2048, 256)), (45, False, True, (8192, 256)), (79.6, False, False, (8192, 1024)),
    (79.6, False, True, (16384, 1024)), (79.2, True, False, (2048, 256)), (178, False, False, (16384, 1024))])
def test_batch_defaults_by_memory(gib: float, a100: bool, llm: bool, expected: tuple[int, int]) -> None:
    """Assert get_batch_defaults' thresholds: 70 GiB (not an A100) and 160 GiB."""
    tokens, seqs = oh.default_batch(np.array([gib * GiB]), np.array([a100]), llm_class=llm)
    assert (int(tokens[0]), int(seqs[0])) == expected


@pytest.mark.parametrize(("seqs", "mnbt", "limit", "count"), [
    (256, 2048, 512, 3 + 31 + 17), (2, 2048, 512, 3), (1, 2048, 512, 2), (8, 8192, 512, 3 + 2),
    (1024, 8192, 1024, 3 + 31 + 49), (1024, 300, 1024, 3 + 31 + 3)])
def test_capture_sizes_count(seqs: int, mnbt: int, limit: int, count: int) -> None:
    """Assert [1, 2, 4] + 8..248 step 8 + 256..top step 16, top = min(2 × seqs, limit, tokens)."""
    assert oh.capture_sizes(np.array([seqs]), np.array([mnbt]), np.array([limit])).tolist() == [count]


def test_activation_peak_of_qwen3_0_6b_at_2048_tokens() -> None:
    """Assert 2048 × 2 × (2.5 × 1024 + 3 × 3072) + 256 × 151936 × 8 + 150 MiB = 516685824 bytes."""
    peak = oh.activation_peak(COEF, np.array([2048]), np.array([1024]), np.array([3072]), np.array([151936]),
                              np.array([256]))
    assert peak.tolist() == [516685824.0]


def test_nontorch_grows_once_there_is_more_than_one_gpu() -> None:
    """Assert 60 MiB alone, 100 MiB in any TP × PP world above one."""
    assert oh.nontorch(COEF, np.array([1, 2, 8])).tolist() == [60 * MiB, 100 * MiB, 100 * MiB]


def test_cudagraph_memory_and_eager_mode() -> None:
    """Assert 51 captures × 28 layers × 0.3 MiB = 428.4 MiB, and nothing with --enforce-eager."""
    out = oh.cudagraph_memory(COEF, np.array([51, 51]), np.array([28, 28]), np.array([False, True]))
    assert out[0] == pytest.approx(428.4 * MiB) and out[1] == 0.0


def test_coefficients_come_from_the_assumptions_by_name() -> None:
    """Assert from_assumptions picks exactly the fields it needs, as floats."""
    values = {f: i + 1 for i, f in enumerate(oh.Coefficients.__dataclass_fields__)} | {"unrelated": "x"}
    coef = oh.Coefficients.from_assumptions(values)
    assert coef.act_hidden_factor == 1.0 and coef.extensible_margin_gib == float(len(values) - 1)
