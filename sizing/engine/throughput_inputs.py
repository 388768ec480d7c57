"""The per-GPU arrays :mod:`sizing.engine.throughput` reads, built from an evaluated frame (the matrix or
one estimate) and the catalog: bytes, FLOP/s, bytes/s, tokens, and the fitted constants of each row's class.

Vectorised: catalog figures are mapped onto the rows by id (``Series.map``, once per distinct id).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from sizing.catalog.loader import Catalog
from sizing.catalog.workloads import ClassConstants

CLASSES = ("dense", "moe", "mla-moe", "hybrid")
"""Architecture classes the constants are fitted per (``calibration/throughput.yaml``)."""

METRICS = ("output_tps", "tpot_s", "ttft_s")
"""Metrics with a band: measured / estimate − 1, 10th and 90th percentile per class."""

ROOFLINE = {"eta_bw": 1.0, "eta_kv": 1.0, "eta_compute": 1.0, "overlap_loss": 0.0, "tau_layer_s": 0.0, "tau_seq_s": 0.0, "tau_allreduce_s": 0.0,
            "wave_share": 0.0}
"""The constants of a row outside every calibrated class: the roofline bound, no band."""


@dataclass(frozen=True)
class Refusal:
    """Why rows cannot be estimated (``reason`` per row, "" where they can)."""

    reason: np.ndarray


def architecture_class(df: pd.DataFrame) -> np.ndarray:
    """Each row's class: ``hybrid`` with linear-attention layers, ``mla-moe`` for MLA with experts, ``moe``
    with experts, else ``dense`` (sliding-window models included)."""
    moe, mla = df["is_moe"].to_numpy(bool), df["is_mla"].to_numpy(bool)
    hybrid = df["linear_layers"].to_numpy() > 0
    return np.select([hybrid, moe & mla, moe], ["hybrid", "mla-moe", "moe"], "dense").astype(object)


def compute_dtype(df: pd.DataFrame) -> np.ndarray:
    """The dtype a row's GEMMs run in: fp8 or fp4 where the weights need it and the GPU has it, else bf16
    (weight-only formats and FP8 on Ampere dequantise to bf16: vLLM's Marlin kernels)."""
    needs = df["needs_hw"].astype(str).to_numpy()
    fp8 = (needs == "fp8") & df["hw_fp8"].to_numpy(bool)
    fp4 = (needs == "fp4") & df["hw_fp4"].to_numpy(bool)
    return np.select([fp4, fp8], ["fp4", "fp8"], "bf16").astype(object)


def peak_flops(cat: Catalog, gpus: pd.Series, dtypes: np.ndarray) -> np.ndarray:
    """Dense peak FLOP/s of each row's GPU in its compute dtype (NaN where the catalog has none)."""
    peaks = {(gid, d): getattr(g.tflops_dense, d) if g.tflops_dense else None
             for gid, g in cat.gpus.items() for d in ("bf16", "fp8", "fp4")}
    keys = pd.Series(list(zip(gpus.astype(str), dtypes)), index=gpus.index)
    tflops = keys.map(lambda k: peaks.get(k) or np.nan).to_numpy(float)
    return tflops * 1e12


def _by_id(column: pd.Series, values: dict[str, float]) -> np.ndarray:
    """``values[id]`` per row (NaN for an id not in it), mapped once per distinct id."""
    return column.astype(str).map(values).to_numpy(float)


def hit_share(df: pd.DataFrame, cat: Catalog) -> np.ndarray:
    """k / E per row: the share of routed experts one token picks (1 for a dense model)."""
    if "moe_top_k" in df:
        k, e = df["moe_top_k"].to_numpy(float), df["experts"].to_numpy(float)
        return np.where(e > 0, k / np.maximum(e, 1), 1.0)
    shares = {mid: m.moe.experts_per_token / m.moe.experts if m.moe else 1.0 for mid, m in cat.models.items()}
    return np.nan_to_num(_by_id(df["model"], shares), nan=1.0)


def weight_arrays(df: pd.DataFrame, cat: Catalog) -> dict[str, np.ndarray]:
    """Dense and routed-expert weight bytes per GPU, k/E, and the parameters one token multiplies per GPU.

    The matrix gives the bytes a one-sequence step reads (``weights_read_bytes``: the dense part plus k/E
    of the experts), so the expert bytes are ``(weights − read) / (1 − k/E)``; parameters are the model card's
    active parameters over TP × PP (for a model outside the catalog, bytes over bytes per parameter)."""
    share = hit_share(df, cat)
    weights, read = df["weights_bytes"].to_numpy(float), df["weights_read_bytes"].to_numpy(float)
    experts = np.where(share < 1, (weights - read) / np.maximum(1 - share, 1e-9), 0.0)
    per_param = {pid: p.bytes_per_param for pid, p in cat.precisions.items()}
    active = {mid: 1e9 * (m.active_params_b or m.total_params_b) for mid, m in cat.models.items()}
    ranks = df["tp"].to_numpy(float) * df["pp"].to_numpy(float)
    params = _by_id(df["model"], active) / ranks
    params = np.where(np.isnan(params), read / _by_id(df["precision"], per_param), params)
    return {"dense_bytes": weights - experts, "expert_bytes": experts, "hit_share": share, "active_params": params}


def geometry_arrays(df: pd.DataFrame) -> dict[str, np.ndarray]:
    """Per-GPU layer counts, KV bytes and attention width (FLOPs per (query, key) pair are twice it)."""
    names = ("full_on_stage", "sliding_on_stage", "linear_on_stage", "window", "kv_bytes_per_token_layer",
             "linear_state_bytes", "hidden_size", "tp", "pp", "dp", "max_num_seqs", "max_num_batched_tokens")
    x = {name: df[name].to_numpy(float) for name in names}
    per_head = np.where(df["is_mla"].to_numpy(bool), 2 * df["mla_dim"].to_numpy(float),
                        2 * df["head_dim"].to_numpy(float))
    x["attn_width"] = df["attention_heads"].to_numpy(float) / x["tp"] * per_head
    x["stage_layers"] = np.ceil(df["layers"].to_numpy(float) / x["pp"])
    x["kv_tokens"] = np.maximum(df["kv_cache_tokens"].to_numpy(float), 0.0)
    return x


def constant_arrays(classes: np.ndarray, constants: dict[str, ClassConstants]) -> dict[str, np.ndarray]:
    """The fitted constants of each row's class (the roofline where its class is not calibrated), the
    band percentiles per metric (NaN when not calibrated) and ``calibrated``."""
    out: dict[str, np.ndarray] = {"calibrated": np.isin(classes, list(constants))}
    for name, bound in ROOFLINE.items():
        out[name] = np.array([getattr(constants[c], name) if c in constants else bound for c in CLASSES])
    for metric in METRICS:
        for end, i in (("p10", 0), ("p90", 1)):
            out[f"{metric}_{end}"] = np.array([constants[c].band[metric][i] if c in constants else np.nan
                                               for c in CLASSES])
    codes = pd.Categorical(classes, categories=list(CLASSES)).codes
    return {k: (v if k == "calibrated" else v[codes]) for k, v in out.items()}


def inputs(df: pd.DataFrame, cat: Catalog, constants: dict[str, ClassConstants]) -> dict[str, np.ndarray]:
    """Every array :func:`sizing.engine.throughput.steady_state` reads, one value per row of ``df``, plus
    ``class``, ``compute_dtype`` and ``refused`` (why a row cannot be estimated, "" where it can)."""
    classes, dtypes = architecture_class(df), compute_dtype(df)
    x = {**geometry_arrays(df), **weight_arrays(df, cat), **constant_arrays(classes, constants)}
    x["bandwidth"] = df["bandwidth_gbs"].to_numpy(float) * 1e9
    links = {gid: g.interconnect.bandwidth_gbs * 1e9 for gid, g in cat.gpus.items()}
    x["link"] = np.nan_to_num(_by_id(df["gpu"], links), nan=32e9)
    x["peak_flops"] = peak_flops(cat, df["gpu"], dtypes)
    x["price_monthly"] = df["price_monthly"].to_numpy(float)
    x["class"], x["compute_dtype"] = classes, dtypes
    x["refused"] = refusals(df, x)
    return x


def refusals(df: pd.DataFrame, x: dict[str, np.ndarray]) -> np.ndarray:
    """Why each row cannot be estimated: no dense peak for its GPU and dtype, or no KV pool ("" if it can)."""
    gpu = df["gpu"].astype(str).to_numpy(object)
    no_peak = np.isnan(x["peak_flops"])
    reason = np.where(no_peak, "no dense " + x["compute_dtype"].astype(str) + " peak TFLOP/s for GPU " + gpu
                      + " in catalog/gpus.yaml (tflops_dense)", "")
    no_pool = (x["kv_tokens"] <= 0) & ~no_peak
    return np.where(no_pool, "the engine does not start: no KV cache", reason).astype(object)
