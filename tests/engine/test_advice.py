"""The nearest change for recommended rows that do not fit."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from sizing.catalog.loader import load_catalog
from sizing.engine import kvcache as kv
from sizing.engine.evaluate import evaluate

ROOT = Path(__file__).resolve().parents[2]


def test_shorter_context_is_suggested_when_the_pool_holds_at_least_4k(matrix):
    rows = matrix[matrix["chosen"] & (matrix["change"] == "max-model-len")]
    assert len(rows)
    for _, row in rows.iterrows():
        value = int(row["change_value"])
        assert value % 1024 == 0 and 4096 <= value <= row["longest_context"] < row["max_model_len"]


@pytest.fixture(scope="module")
def small_pool(tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    """The catalog with 33300 MiB L40S cards and 6K requests: Qwen3-14B in BF16 holds about 3.3K tokens
    with an 'auto' KV cache (too few to suggest a shorter context) and fits with fp8.

    The card size follows the calibrated overheads and the cautious low end of the KV band: with the
    fitted coefficients of catalog/assumptions.yaml, 33000 MiB leaves too little for either dtype (so the
    advice skips kv-fp8 for a smaller checkpoint); 33300 MiB leaves 51 blocks of 64 tokens (3264 tokens)
    with 'auto' and twice that with fp8. The highest utilisation the advice may suggest is the one used, so
    no higher ``--gpu-memory-utilization`` is advised.
    """
    copy = tmp_path_factory.mktemp("advice") / "catalog"
    shutil.copytree(ROOT / "catalog", copy)
    for stem, entry, field, value in (
        ("gpus", "l40s", "memory_mib", 33300),
        ("assumptions", "max_model_len", "value", 6144),
        ("assumptions", "gpu_memory_utilization_max", "value", 0.90),
    ):
        data = yaml.safe_load((copy / f"{stem}.yaml").read_text(encoding="utf-8"))
        data[entry][field] = value
        (copy / f"{stem}.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return evaluate(load_catalog(copy))


def test_fp8_kv_is_suggested_only_where_it_fits(small_pool):
    matrix = small_pool
    rows = matrix[matrix["chosen"] & (matrix["change"] == "kv-fp8")]
    qwen = rows[(rows["checkpoint"] == "Qwen/Qwen3-14B") & (rows["server"] == "gpu-l40s")]
    assert len(qwen) == 1 and qwen["change_value"].tolist() == ["fp8"]
    assert int(qwen["longest_context"].iloc[0]) < 4096
    for _, row in rows.iterrows():
        same = matrix[
            (matrix["checkpoint"] == row["checkpoint"])
            & (matrix["precision"] == row["precision"])
            & (matrix["server"] == row["server"])
            & (matrix["kv_cache_dtype"] == "fp8")
        ]
        assert row["kv_cache_dtype"] == "auto" and same["fits"].any()


def test_a_smaller_checkpoint_is_one_that_fits_on_the_same_server(matrix):
    rows = matrix[matrix["chosen"] & (matrix["change"] == "checkpoint")]
    assert len(rows)
    for _, row in rows.iterrows():
        ckpt = row["change_value"].rsplit(" (", 1)[0]
        other = matrix[
            (matrix["checkpoint"] == ckpt)
            & (matrix["server"] == row["server"])
            & (matrix["kv_cache_dtype"] == row["kv_cache_dtype"])
            & matrix["fits"]
        ]
        assert len(other) and other["w_total"].max() < row["w_total"]


def _room(row, gpus: int, band: float) -> float:
    """Bytes left per GPU after weights split over ``gpus`` and one full request's KV cache, at the low
    end of the KV band (the printed figure divided by 1 + the optimistic error)."""
    per_layer = kv.attention_bytes_per_token_layer(
        row["is_mla"], row["kv_heads"], row["head_dim"], row["mla_dim"], gpus, row["kv_bytes"]
    )
    request = int(per_layer) * (row["full_layers"] + row["sliding_layers"]) * row["max_model_len"]
    fixed = row["activation_bytes"] + row["nontorch_bytes"] + row["cudagraph_bytes"]
    printed = row["budget_bytes"] - fixed - row["w_total"] / gpus
    return (printed / (1 + band) if printed > 0 else printed) - request


def test_more_gpus_is_the_smallest_power_of_two_above_the_server_holding_a_request(matrix, catalog):
    band = float(catalog.assume("kv_band_optimistic"))
    assert band > 0
    rows = matrix[matrix["chosen"] & (matrix["change"] == "more-gpus")]
    assert len(rows)
    for _, row in rows.head(200).iterrows():
        gpus = int(row["change_value"])
        assert gpus & (gpus - 1) == 0 and gpus > row["server_gpus"]
        if gpus <= 64:
            assert _room(row, gpus, band) >= 0
        if gpus // 2 > row["server_gpus"] and gpus <= 64:
            assert _room(row, gpus // 2, band) < 0


def test_more_gpus_is_never_advised_at_or_below_the_servers_count(matrix):
    rows = matrix[matrix["chosen"] & (matrix["change"] == "more-gpus")]
    assert len(rows)
    assert (rows["change_value"].astype(str).astype(int) > rows["server_gpus"]).all()


def test_deepseek_v3_on_8x_h20_is_advised_tp_8_at_the_highest_utilisation(matrix, catalog):
    """The issue's case: TP 8 at 0.95 starts on the 8× H20, so the advice is not "needs 8 GPUs"."""
    for model in ("deepseek-ai/DeepSeek-V3", "deepseek-ai/DeepSeek-V3.2"):
        row = matrix[
            matrix["chosen"]
            & (matrix["model"] == model)
            & (matrix["precision"] == "fp8")
            & (matrix["server"] == "ref-8x-h20")
            & (matrix["kv_cache_dtype"] == "fp8")
        ].iloc[0]
        assert not row["fits"] and row["change"] == "gpu-memory-utilization"
        assert row["change_value"] == f"{float(catalog.assume('gpu_memory_utilization_max')):.2f}"
        assert row["change_plan"] == "tp-tp8-pp1-dp1"


def test_a_higher_utilisation_is_advised_only_where_it_starts(matrix, catalog):
    from sizing.engine.advice import starts_at_utilization
    from sizing.engine.evaluate import coefficients
    from sizing.engine.versions import rules_for

    rows = matrix[matrix["chosen"] & (matrix["change"] == "gpu-memory-utilization")]
    assert len(rows)
    for _, row in rows.head(50).iterrows():
        same = (
            matrix[["checkpoint", "precision", "server", "kv_cache_dtype"]]
            == row[["checkpoint", "precision", "server", "kv_cache_dtype"]]
        ).all(axis=1)
        plan = row["change_plan"] or f"{row['plan']}-tp{row['tp']}-pp{row['pp']}-dp{row['dp']}"
        label = (
            matrix["plan"].astype(str)
            + "-tp"
            + matrix["tp"].astype(str)
            + "-pp"
            + matrix["pp"].astype(str)
            + "-dp"
            + matrix["dp"].astype(str)
        )
        target = np.flatnonzero((same & (label == plan)).to_numpy())
        assert len(target) == 1
        utilization = float(row["change_value"])
        rules = rules_for(str(catalog.assume("vllm_version")))
        starts = starts_at_utilization(matrix, target, utilization, rules, coefficients(catalog))
        assert starts.tolist() == [True]
        assert utilization == float(catalog.assume("gpu_memory_utilization_max"))


def test_the_gpu_count_is_judged_on_the_low_end_of_the_band():
    from sizing.engine.advice import cautious_free

    # 10 GiB printed with a 25 % optimistic error: vLLM may print as little as 10 / 1.25 = 8 GiB.
    got = cautious_free(np.array([10 * 2**30, -(2**30)]), 0.25)
    assert got.tolist() == [8 * 2**30, -(2**30)]
