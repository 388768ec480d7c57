"""Evaluate every model × checkpoint × server × KV dtype × plan of the catalog into one DataFrame.

:func:`evaluate` builds the case frame with cross joins, computes every row column-wise
(:func:`sizing.memory.compute`), then adds capacity at each published context length, decode
ceilings, prices, the chosen plan per combination and, where nothing fits, the nearest change
that would. One Python call per catalog entry, none per row.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from sizing import kvcache as kv
from sizing import memory
from sizing.advice import add_nearest_change
from sizing.cases import KV_BYTES, Knobs, model_frame, plan_frame, server_frame
from sizing.catalog import Catalog
from sizing.overhead import Coefficients, default_batch
from sizing.versions import Rules, rules_for

KEY = ["model", "checkpoint", "precision", "server", "kv_cache_dtype"]


def coefficients(cat: Catalog) -> Coefficients:
    """The calibrated overhead coefficients of the catalog's assumptions."""
    return Coefficients.from_assumptions({k: a.value for k, a in cat.assumptions.items()})


def resolve_plans(df: pd.DataFrame) -> pd.DataFrame:
    """Turn plan templates into tp/pp/dp per server and drop plans the model or server cannot take."""
    df = df.copy()
    df["tp"] = np.where(df["pp_nodes"], df["gpus_per_node"], df["tp"])
    df["pp"] = np.where(df["pp_nodes"], df["nodes"], 1)
    df["dp"] = df["server_gpus"] // (df["tp"] * df["pp"])
    ok = (df["tp"] <= df["gpus_per_node"]) & (df["gpus_per_node"] % df["tp"] == 0) & (df["dp"] >= 1)
    ok &= (df["attention_heads"] % df["tp"] == 0)
    ok &= (df["kv_heads"] % df["tp"] == 0) | (df["tp"] % df["kv_heads"] == 0)
    ok &= (df["la_value_heads"] % df["tp"] == 0) | (df["linear_layers"] == 0)
    ok &= ~(df["pp_nodes"] & (df["nodes"] < 2))
    return df[ok].drop(columns=["pp_nodes"])


def apply_settings(df: pd.DataFrame, rules: Rules, knobs: Knobs) -> pd.DataFrame:
    """Add the vLLM settings columns (budget fraction, lengths, batch defaults, block size)."""
    df["gpu_memory_utilization"] = knobs.gpu_memory_utilization
    df["max_model_len"] = np.minimum(df["max_context"], knobs.max_model_len or df["max_context"])
    tokens, seqs = default_batch(df["total_bytes"], df["is_a100"], llm_class=knobs.llm_class)
    df["max_num_batched_tokens"] = knobs.max_num_batched_tokens or tokens
    df["max_num_seqs"] = knobs.max_num_seqs or seqs
    df["kv_bytes"] = df["kv_cache_dtype"].map(KV_BYTES)
    df["block_size_override"] = knobs.block_size or 0
    mla_bs = np.where(df["arch_sm"] == 100, 128, np.where(df["arch_sm"] == 90, max(64, rules.block_size),
                                                          rules.block_size))
    df["block_size_attention"] = np.where(df["is_mla"], mla_bs, rules.block_size)
    df["enforce_eager"] = knobs.enforce_eager
    df["kv_cache_memory_bytes"] = knobs.kv_cache_memory_bytes or 0
    return df


def case_matrix(cat: Catalog, rules: Rules) -> pd.DataFrame:
    """The cross product of models × checkpoints × servers × KV dtypes × valid plans, with settings."""
    servers = server_frame(cat)
    plans = plan_frame(int(servers["gpus_per_node"].max()), int(servers["nodes"].max()))
    kv_dtypes = pd.DataFrame({"kv_cache_dtype": list(cat.assume("kv_cache_dtypes"))})
    df = model_frame(cat).merge(servers, how="cross").merge(kv_dtypes, how="cross").merge(plans, how="cross")
    knobs = Knobs(float(cat.assume("gpu_memory_utilization")), int(cat.assume("max_model_len")))
    return apply_settings(resolve_plans(df), rules, knobs).reset_index(drop=True)


def add_contexts(df: pd.DataFrame, rules: Rules, contexts: list[int]) -> None:
    """Concurrency per engine and whole sequences per server at each published context length."""
    for ctx in contexts:
        per_engine = memory.concurrency_at(df, rules, ctx)
        usable = ctx <= df["max_context"]
        df[f"concurrency_{ctx}"] = np.where(usable, per_engine, np.nan)
        df[f"sequences_{ctx}"] = np.where(usable & df["fits"], np.floor(per_engine) * df["dp"], 0)


def longest_context(df: pd.DataFrame) -> np.ndarray:
    """Longest single sequence the KV pool holds, tokens (capped at the model's context)."""
    fixed = df["groups_sliding"] * kv.sliding_blocks(np.maximum(df["window"], 1), df["max_num_batched_tokens"],
                                                     df["max_context"], df["block_size"]) + df["groups_linear"]
    spare = np.maximum(df["num_gpu_blocks"] - fixed, 0)
    full = np.floor(spare / np.maximum(df["groups_full"], 1)) * df["block_size"]
    length = np.where(df["groups_full"] > 0, full, np.where(spare > 0, df["max_context"], 0))
    return np.minimum(length, df["max_context"]).astype(np.int64)


def add_service_metrics(df: pd.DataFrame, contexts: list[int], nvme_default_gbs: float) -> None:
    """Decode ceilings, longest context, price per GB of VRAM, load time, minimum CPU cores."""
    bandwidth = df["bandwidth_gbs"] * 1e9
    experts_idle = (1 - df["active_share"]) * df["w_experts"] * kv.stage_count(df["layers"], df["pp"]) / df["layers"]
    df["weights_read_bytes"] = df["weights_bytes"] - experts_idle / df["tp"]
    df["decode_tps_ceiling"] = bandwidth / df["weights_read_bytes"]
    for ctx in contexts:
        df[f"decode_tps_{ctx}"] = bandwidth / (df["weights_read_bytes"] + df["kv_bytes_per_token"] * ctx)
    df["longest_context"] = longest_context(df)
    df["price_per_gb_month"] = df["price_monthly"] / (df["memory_gb"] * df["server_gpus"])
    df["cpu_cores_min"] = 2 + df["gpus_per_node"]
    read = df["nvme_read_gbs"].fillna(nvme_default_gbs) * 1e9
    df["load_time_s"] = df["w_total"] / read
    df["ram_per_vram"] = df["ram_gb"] / (df["memory_gb"] * df["server_gpus"])


def choose_plans(df: pd.DataFrame, dp_share: float) -> None:
    """Mark the recommended plan of each combination.

    The simplest plan that fits (data parallel first, then the smallest TP, then TP × PP) wins,
    unless it serves fewer than ``dp_share`` of the full-length sequences the best fitting plan
    serves; nothing fitting, the largest plan is shown with the reason ``no-fit``.
    """
    groups = [df[k] for k in KEY]
    served = (np.floor(df["max_concurrency"]) * df["dp"]).where(df["fits"])
    enough = served >= dp_share * served.groupby(groups).transform("max")
    best_rank = df["rank"].where(enough).groupby(groups).transform("min")
    largest = df["rank"].groupby(groups).transform("max")
    df["chosen"] = np.where(best_rank.notna(), df["rank"] == best_rank, df["rank"] == largest)
    simplest_fit = df["rank"].where(df["fits"]).groupby(groups).transform("min")
    tp_reason = np.where(simplest_fit < df["rank"], "tp-for-capacity", "tp-needed")
    reason = np.select([~df["fits"], df["plan"] == "dp", df["plan"] == "tp"],
                       ["no-fit", "fits-one-gpu", tp_reason], "pp-across-nodes")
    df["reason"] = np.where(df["chosen"], reason, "")


def finish(df: pd.DataFrame, cat: Catalog, rules: Rules) -> pd.DataFrame:
    """Compute a case frame and add contexts, service metrics, chosen plans and advice."""
    contexts = [int(c) for c in cat.assume("contexts")]
    df = memory.compute(df, rules, coefficients(cat))
    add_contexts(df, rules, contexts)
    add_service_metrics(df, contexts, float(cat.assume("nvme_read_gbs")))
    choose_plans(df, float(cat.assume("dp_min_capacity_share")))
    add_nearest_change(df)
    df.attrs.update(rules=rules.line, contexts=contexts)
    return df


def evaluate(cat: Catalog, version: str | None = None) -> pd.DataFrame:
    """Every combination of the catalog, one row each, under the rules of vLLM ``version``."""
    version = version or str(cat.assume("vllm_version"))
    rules = rules_for(version)
    df = finish(case_matrix(cat, rules), cat, rules)
    df.attrs["vllm_version"] = version
    return df
