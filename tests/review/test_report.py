"""Tests for sizing.review.report: the ``estimate --json`` record of one evaluated row."""

from __future__ import annotations

import json
import math

import pytest

from sizing.catalog.settings import Settings
from sizing.engine.estimate import estimate
from sizing.review import report
from sizing.units import GiB


@pytest.mark.parametrize(
    ("value", "expected"),
    [(math.nan, None), (math.inf, None), (3.0, 3), (2.123456, 2.1235), (2**53 + 2.0, float(2**53 + 2))],
)
def test_numbers_are_json_safe(value: float, expected: object) -> None:
    """Assert NaN/inf become null, whole floats become ints, others are rounded to 4 digits."""
    got = report._num(value)
    assert got == expected and type(got) is type(expected)


def test_record_of_one_estimate(catalog) -> None:
    """Assert the record's figures are the row's, in GiB/KiB, with per-context concurrency and the command."""
    row = estimate(catalog, Settings(model="Qwen/Qwen3-14B", gpu="l40s"))
    rec = report.record(row, catalog)
    json.dumps(rec)
    assert (rec["gpu"], rec["gpus"], rec["tensor_parallel_size"], rec["gpu_memory_utilization"]) == (
        "l40s",
        1,
        1,
        0.9,
    )
    assert rec["total_memory_gib"] == round(48305799168 / GiB, 4) == 44.9883
    assert rec["kv_kib_per_token"] == row["kv_bytes_per_token"] / 1024
    assert set(rec["concurrency"]) == {str(c) for c in catalog.assume("contexts")}
    assert rec["vllm_command"].startswith("vllm serve Qwen/Qwen3-14B")
    assert rec["change"] in (None, *["more-gpus", "checkpoint", "max-model-len", "kv-fp8"])


@pytest.mark.parametrize(
    ("version", "block_size", "printed"),
    [
        ("0.34.0", None, True),  # vLLM raises the attention block to hold a Mamba state page and says so
        ("0.15.0", None, True),
        ("0.9.2", None, False),  # before the V1 hybrid KV-cache manager: no such line
        ("0.34.0", 4096, False),  # a --block-size already large enough is kept silently
    ],
)
def test_a_hybrid_model_announces_its_attention_block_size(catalog, version, block_size, printed) -> None:
    """'Setting attention block size to N tokens to ensure that attention page size is >= mamba page size.'"""
    from sizing.render.summary import startup_figures

    row = estimate(
        catalog,
        Settings(
            model="nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16",
            gpu="h100-80gb",
            max_model_len=32768,
            vllm_version=version,
            block_size=block_size,
        ),
    )
    rec = report.record(row, catalog)
    assert rec["hybrid_block_size"] == (int(row["block_size"]) if printed else None)
    lines = dict(startup_figures(rec))
    assert (lines.get("Setting attention block size to") == f"{int(row['block_size'])} tokens") is printed
    assert (
        report.record(estimate(catalog, Settings(model="Qwen/Qwen3-14B", gpu="l40s")), catalog)[
            "hybrid_block_size"
        ]
        is None
    )
