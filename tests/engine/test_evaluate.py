"""The full matrix: one row per combination, vectorised results equal single estimates."""

from __future__ import annotations

import numpy as np
import pytest

from scripts.bench_sizing import row_request
from sizing.engine.estimate import estimate_frame

COMPARED = [
    "weights_bytes",
    "available_kv_bytes",
    "kv_bytes_per_token",
    "num_gpu_blocks",
    "kv_cache_tokens",
    "max_concurrency",
    "fits",
]


def test_one_row_per_combination_and_plan(matrix, catalog):
    keys = ["model", "checkpoint", "precision", "server", "kv_cache_dtype", "plan", "tp", "pp"]
    assert not matrix.duplicated(keys).any()
    assert set(matrix["model"]) == set(catalog.models)
    assert set(matrix["server"]) == set(catalog.servers)
    chosen = (
        matrix[matrix["chosen"]]
        .groupby(["model", "checkpoint", "precision", "server", "kv_cache_dtype"])
        .size()
    )
    assert (chosen == 1).all()


def test_no_negative_or_nan_capacity(matrix):
    for column in (
        "num_gpu_blocks",
        "kv_cache_tokens",
        "max_concurrency",
        "weights_bytes",
        "kv_bytes_per_token",
    ):
        values = matrix[column].to_numpy(dtype=float)
        assert np.isfinite(values).all() and (values >= 0).all(), column


@pytest.mark.parametrize("index", [0, 7, 101, 333, 777])
def test_matrix_rows_equal_single_estimates(matrix, catalog, index):
    row = matrix.iloc[index % len(matrix)]
    req = row_request(row)
    single = estimate_frame(catalog, req).iloc[0]
    for column in COMPARED:
        assert single[column] == row[column], column


def test_chosen_plan_prefers_data_parallel_when_one_gpu_holds_the_model(matrix):
    rows = matrix[
        (matrix["checkpoint"] == "Qwen/Qwen3-14B-FP8")
        & (matrix["server"] == "gpu-rtx-pro")
        & (matrix["kv_cache_dtype"] == "fp8")
        & matrix["chosen"]
    ]
    assert rows["plan"].tolist() == ["dp"] and rows["dp"].tolist() == [2]
    assert rows["reason"].tolist() == ["fits-one-gpu"]


def test_non_fitting_rows_name_a_change(matrix):
    misses = matrix[matrix["chosen"] & ~matrix["fits"]]
    assert len(misses) and (misses["change"] != "").all()
    changes = {"gpu-memory-utilization", "max-model-len", "kv-fp8", "checkpoint", "more-gpus"}
    assert set(misses["change"]) <= changes


def test_price_per_gb_of_the_two_offers(matrix):
    price = matrix.drop_duplicates("server").set_index("server")["price_per_gb_month"]
    assert price["gpu-l40s"] == pytest.approx(979 / 48) and round(price["gpu-l40s"], 2) == 20.40
    assert price["gpu-rtx-pro"] == pytest.approx(2199 / 192) and round(price["gpu-rtx-pro"], 2) == 11.45


def test_fp8_kv_doubles_gqa_tokens(matrix):
    dense = matrix[(matrix["model"] == "Qwen/Qwen3-14B") & (matrix["plan"] == "dp")]
    auto = dense[dense["kv_cache_dtype"] == "auto"].set_index(["checkpoint", "server"])["kv_bytes_per_token"]
    fp8 = dense[dense["kv_cache_dtype"] == "fp8"].set_index(["checkpoint", "server"])["kv_bytes_per_token"]
    assert (auto == 2 * fp8).all()


def _plans(matrix, model, server, kv="auto"):
    rows = matrix[
        (matrix["model"] == model)
        & (matrix["checkpoint"] == model)
        & (matrix["server"] == server)
        & (matrix["kv_cache_dtype"] == kv)
    ]
    return {(r.plan, int(r.tp), int(r.dp)): r for r in rows.itertuples()}


def test_deepseek_r1_on_8x_h200_weighs_tp8_against_dp8_with_expert_parallelism(matrix):
    plans = _plans(matrix, "deepseek-ai/DeepSeek-R1", "ref-8x-h200")
    tp8, dp_ep = plans[("tp", 8, 1)], plans[("dp-ep", 1, 8)]
    assert tp8.fits and dp_ep.fits and int(dp_ep.ep) == 8 and int(tp8.ep) == 1
    # attention and embeddings are whole on every DP rank: more weights per GPU than TP 8 ...
    assert dp_ep.weights_bytes > tp8.weights_bytes
    # ... but MLA's latent cache is replicated under TP, so eight independent pools serve far more
    assert dp_ep.sequences_32768 > 4 * tp8.sequences_32768
    assert dp_ep.chosen and not tp8.chosen and dp_ep.reason == "ep-for-capacity"


def test_expert_parallel_plans_exist_only_for_moe_models_over_all_the_servers_gpus(matrix):
    ep = matrix[matrix["plan"] == "dp-ep"]
    assert ep["is_moe"].all() and (ep["ep"] == ep["dp"]).all() and (ep["ep"] == ep["server_gpus"]).all()
    assert (ep["nodes"] > 1).any()
    assert not _plans(matrix, "Qwen/Qwen3-32B", "ref-8x-h200").keys() & {("dp-ep", 1, 8)}


def test_memory_columns_computed_once_per_class_equal_the_row_by_row_matrix(matrix, catalog):
    # evaluate() computes memory.compute once per model row x KV dtype x (GPU, tp, pp, ep) class and
    # spreads it; computing every row of the same case frame gives the identical matrix.
    import pandas as pd

    from sizing.engine import columns
    from sizing.engine.evaluate import case_matrix, finish
    from sizing.engine.versions import rules_for

    rules = rules_for(str(catalog.assume("vllm_version")))
    row_by_row = finish(case_matrix(catalog, rules), catalog, rules)
    row_by_row.attrs["vllm_version"] = matrix.attrs["vllm_version"]
    assert set(row_by_row.columns) - set(matrix.columns) == columns.PER_CLASS_ONLY
    pd.testing.assert_frame_equal(matrix, row_by_row[list(matrix.columns)], check_exact=True)


def test_text_columns_are_categoricals_that_sort_as_their_text(matrix):
    # The id and label columns are categoricals with their categories in text order, so sorting or
    # grouping the matrix by them gives what plain text would.
    import pandas as pd

    from sizing.engine.evaluate import as_text

    text_columns = [name for name, column in matrix.items() if isinstance(column.dtype, pd.CategoricalDtype)]
    assert {"model", "checkpoint", "server", "plan", "reason", "change", "change_value"} <= set(text_columns)
    plain = as_text(matrix)
    assert list(plain.columns) == list(matrix.columns) and plain.attrs == matrix.attrs
    for name in text_columns:
        categories = list(matrix[name].cat.categories)
        assert categories == sorted(categories), name
        assert plain[name].dtype == "str" and plain[name].tolist() == matrix[name].astype(str).tolist(), name
    order = ["model", "precision", "checkpoint", "server", "kv_cache_dtype", "reason"]
    assert (
        matrix.sort_values(order, kind="stable").index == plain.sort_values(order, kind="stable").index
    ).all()


def test_no_multi_node_row_holds_fewer_sequences_than_one_node_of_its_gpus(matrix, catalog):
    """Assert every recommended row on a server of several nodes holds at least the full-length (catalog
    ``max_model_len``) sequences the same GPUs hold on one node (DeepSeek-V3 FP8 on 2 × 8× H200: DP+EP across
    the nodes, not TP 8 × DP 2 with 70 instead of 200)."""
    chosen = matrix[matrix["chosen"]]
    keys = ["model", "checkpoint", "precision", "kv_cache_dtype"]
    length = int(catalog.assume("max_model_len"))
    pairs = [
        (sid, one)
        for sid, s in catalog.servers.items()
        if s.nodes > 1
        for one, o in catalog.servers.items()
        if o.nodes == 1 and o.gpu == s.gpu and o.gpus_per_node == s.gpus_per_node
    ]
    assert pairs
    for many, one in pairs:
        a = chosen[chosen["server"] == many].set_index(keys)[f"sequences_{length}"]
        b = chosen[chosen["server"] == one].set_index(keys)[f"sequences_{length}"].reindex(a.index)
        assert (a >= b).all(), (many, a[a < b].head())
    row = chosen[
        (chosen["model"] == "deepseek-ai/DeepSeek-V3")
        & (chosen["precision"] == "fp8")
        & (chosen["server"] == "ref-2n-8x-h200")
        & (chosen["kv_cache_dtype"] == "fp8")
    ].iloc[0]
    assert row["plan"] == "dp-ep"
    assert (row["dp"], row["ep"], row["nodes_per_engine"], row["dp_per_node"]) == (16, 16, 2, 8)


def test_plans_carry_what_each_nodes_command_needs(matrix):
    """Assert nodes_per_engine and dp_per_node: TP × PP spans its PP nodes, TP and DP replicas stay in a
    node."""
    multi = matrix[matrix["nodes"] > 1]
    pp = multi[multi["plan"] == "tp-pp"]
    assert len(pp) and (pp["nodes_per_engine"] == pp["pp"]).all() and (pp["dp_per_node"] == 1).all()
    tp = multi[multi["plan"] == "tp"]
    assert len(tp) and (tp["nodes_per_engine"] == 1).all()
    assert (tp["dp_per_node"] * tp["tp"] == tp["gpus_per_node"]).all()
    single = matrix[matrix["nodes"] == 1]
    assert (single["nodes_per_engine"] == 1).all() and (single["dp_per_node"] == single["dp"]).all()


def test_each_context_chooses_its_plan_by_the_catalog_lengths_rule(matrix, catalog):
    """Assert one ``chosen_<c>`` row per combination and context; at the catalog's length it is the
    ``chosen`` row; at every context it holds at least ``dp_min_capacity_share`` of the most whole sequences
    any plan holds there and never fewer than the ``chosen`` plan (Llama 3.1 8B FP8 on 2× RTX 4090 at 128K:
    TP 2, where one GPU per replica holds no request)."""
    keys = ["model", "checkpoint", "precision", "server", "kv_cache_dtype"]
    share = float(catalog.assume("dp_min_capacity_share"))
    for c in matrix.attrs["contexts"]:
        picked = matrix[matrix[f"chosen_{c}"]]
        assert not picked.duplicated(keys).any() and len(picked) == int(matrix["chosen"].sum())
        best = matrix.groupby(keys, observed=True)[f"sequences_{c}"].transform("max")
        held = picked[f"sequences_{c}"]
        assert ((held >= share * best[picked.index]) | (best[picked.index] < 1)).all()
        kept = matrix[matrix["chosen"]].set_index(keys)[f"sequences_{c}"]
        assert (picked.set_index(keys)[f"sequences_{c}"].reindex(kept.index) >= kept).all()
    length = int(catalog.assume("max_model_len"))
    at_length = matrix["max_model_len"] == length
    assert (matrix.loc[at_length, f"chosen_{length}"] == matrix.loc[at_length, "chosen"]).all()
    case = (
        (matrix["model"] == "meta-llama/Llama-3.1-8B-Instruct")
        & (matrix["precision"] == "fp8")
        & (matrix["server"] == "ref-2x-rtx-4090")
        & (matrix["kv_cache_dtype"] == "auto")
    )
    at_128k = matrix[case & matrix["chosen_131072"]]
    assert at_128k["plan"].astype(str).tolist()[0] == "tp" and at_128k["tp"].tolist()[0] == 2
    assert at_128k["sequences_131072"].min() >= 1
    assert matrix[case & matrix["chosen"]]["plan"].astype(str).tolist()[0] == "dp"
