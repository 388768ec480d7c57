"""The per-GPU arrays :mod:`sizing.engine.throughput` reads, built from an evaluated frame (the matrix or
one estimate) and the catalog: bytes, FLOP/s, bytes/s, tokens, and the fitted constants of each row's class.

Vectorised and free of per-row text: catalog figures are looked up once per distinct id and taken to the
rows by code; the class, the compute dtype and the refusal are integer codes into :data:`CLASSES`,
:data:`DTYPES` and a per-call table of reasons (``refused_texts``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from sizing.catalog.loader import Catalog
from sizing.catalog.workloads import ClassConstants
from sizing.engine import kvcache as kv
from sizing.engine import memory
from sizing.engine.cases import model_frame, sm_version

CLASSES = ("dense", "moe", "mla-moe", "hybrid")
"""Architecture classes the constants are fitted per (``calibration/throughput.yaml``)."""

DTYPES = ("bf16", "fp8", "fp4")
"""Compute dtypes, in the order of the ``compute_dtype`` codes."""

METRICS = ("output_tps", "tpot_s", "ttft_s")
"""Metrics with a band: measured / estimate − 1, 10th and 90th percentile per class."""

ROOFLINE = {
    "eta_bw": 1.0,
    "eta_kv": 1.0,
    "eta_compute": 1.0,
    "overlap_loss": 0.0,
    "tau_layer_s": 0.0,
    "tau_seq_s": 0.0,
    "tau_step_s": 0.0,
    "eta_experts": 1.0,
    "tau_allreduce_s": 0.0,
    "wave_share": 0.0,
    "tau_expert_s": 0.0,
    "tau_dequant_s": 0.0,
}
"""The constants of a row outside every calibrated class: the roofline bound, no band."""


def class_codes(df: pd.DataFrame) -> np.ndarray:
    """Each row's class as a code into :data:`CLASSES`: hybrid with linear-attention layers, MLA with experts,
    experts, else dense (sliding-window models included)."""
    moe, mla = df["is_moe"].to_numpy(bool), df["is_mla"].to_numpy(bool)
    hybrid = df["linear_layers"].to_numpy() > 0
    return np.select([hybrid, moe & mla, moe], [3, 2, 1], 0).astype(np.int8)


def architecture_class(df: pd.DataFrame) -> np.ndarray:
    """Each row's class name (:data:`CLASSES`), for callers that want text (calibration)."""
    return np.asarray(CLASSES, dtype=object)[class_codes(df)]


def dtype_codes(df: pd.DataFrame) -> np.ndarray:
    """The dtype a row's GEMMs run in, as a code into :data:`DTYPES`: fp8 or fp4 where the weights need it
    and the GPU has it, else bf16 (weight-only formats and FP8 on Ampere dequantise to bf16: vLLM's
    Marlin kernels)."""
    needs = df["needs_hw"]
    fp8 = (needs == "fp8").to_numpy(bool) & df["hw_fp8"].to_numpy(bool)
    fp4 = (needs == "fp4").to_numpy(bool) & df["hw_fp4"].to_numpy(bool)
    return np.select([fp4, fp8], [2, 1], 0).astype(np.int8)


def id_codes(column: pd.Series) -> tuple[np.ndarray, list[str]]:
    """(a code per row, the distinct ids): categoricals as they are, other columns categorised once."""
    cat = column if isinstance(column.dtype, pd.CategoricalDtype) else column.astype("category")
    return cat.cat.codes.to_numpy(), [str(c) for c in cat.cat.categories]


def by_id(column: pd.Series, values: dict[str, float]) -> np.ndarray:
    """``values[id]`` per row (NaN for an id not in it), looked up once per distinct id."""
    codes, ids = id_codes(column)
    table = np.array([values.get(i, np.nan) for i in ids] + [np.nan], dtype=float)
    return table[codes]  # code -1 (missing) takes the trailing NaN


def peak_flops(cat: Catalog, gpus: pd.Series, dtypes: np.ndarray) -> np.ndarray:
    """Dense peak FLOP/s of each row's GPU in its compute dtype (NaN where the catalog has none)."""
    codes, ids = id_codes(gpus)
    table = np.full((len(ids) + 1, len(DTYPES)), np.nan)
    for i, gid in enumerate(ids):
        peaks = cat.gpus[gid].tflops_dense if gid in cat.gpus else None
        for j, name in enumerate(DTYPES):
            value = getattr(peaks, name) if peaks else None
            table[i, j] = np.nan if value is None else value * 1e12
    return table[codes, dtypes]


def sm100_family(cat: Catalog, gpus: pd.Series) -> np.ndarray:
    """Whether each row's GPU is a datacenter Blackwell (compute capability 10.x: B200 sm_100, B300 sm_103),
    looked up once per distinct GPU."""
    family = {gid: float(100 <= sm_version(g) < 110) for gid, g in cat.gpus.items()}
    return np.nan_to_num(by_id(gpus, family), nan=0.0) > 0


def dequantised(df: pd.DataFrame, cat: Catalog) -> tuple[np.ndarray, np.ndarray]:
    """(1.0 where the MoE kernels dequantise a row's weights, else 0.0; bytes per weight of its format).

    Weight-only: fewer than 16 bits and no FP8/FP4 tensor-core path for them on the GPU, i.e. a format that
    needs no such hardware (INT4/INT8 W4A16/W8A16: Marlin; MXFP4: Triton or Marlin) or an FP8/FP4 format on
    a GPU without it (Marlin). MXFP4 on a datacenter Blackwell runs FlashInfer's TRT-LLM MXFP4 kernels
    instead (``get_mxfp4_backend``, ``vllm/model_executor/layers/quantization/mxfp4.py``: the SM100 branch
    before the Triton and Marlin ones)."""
    specs = cat.precisions
    bits = by_id(df["precision"], {pid: p.weight_bits for pid, p in specs.items()})
    per_weight = by_id(df["precision"], {pid: p.bytes_per_param for pid, p in specs.items()})
    needs = df["needs_hw"].fillna("").astype(str).to_numpy()
    missing = ((needs == "fp8") & ~df["hw_fp8"].to_numpy(bool)) | (
        (needs == "fp4") & ~df["hw_fp4"].to_numpy(bool)
    )
    native_mx = (df["precision"].astype(str).to_numpy() == "mxfp4") & sm100_family(cat, df["gpu"])
    weight_only = ((needs == "") & (bits < 16) & ~native_mx) | missing
    return weight_only.astype(float), np.nan_to_num(per_weight, nan=2.0)


def hit_share(df: pd.DataFrame, cat: Catalog) -> np.ndarray:
    """k / E per row: the share of routed experts one token picks (1 for a dense model)."""
    if "moe_top_k" in df:
        k, e = df["moe_top_k"].to_numpy(float), df["experts"].to_numpy(float)
        return np.where(e > 0, k / np.maximum(e, 1), 1.0)
    shares = {mid: m.moe.experts_per_token / m.moe.experts if m.moe else 1.0 for mid, m in cat.models.items()}
    return np.nan_to_num(by_id(df["model"], shares), nan=1.0)


WEIGHT_SPLIT = (
    "w_layer_sharded",
    "w_layer_replicated",
    "w_embeddings",
    "w_lm_head",
    "w_experts",
    "w_vision",
    "w_rank_buffers",
)
"""The per-checkpoint weight columns (:func:`sizing.engine.cases.model_frame`) the expert split reads."""


def checkpoint_weights(df: pd.DataFrame, cat: Catalog) -> dict[str, np.ndarray]:
    """:data:`WEIGHT_SPLIT` of each row's checkpoint and precision, bytes of the whole model (NaN for a
    checkpoint the catalog does not have), looked up once per distinct (checkpoint, precision)."""
    ck_codes, checkpoints = id_codes(df["checkpoint"])
    pr_codes, precisions = id_codes(df["precision"])
    at = {(c, p): (i, j) for i, c in enumerate(checkpoints) for j, p in enumerate(precisions)}
    tables = {name: np.full((len(checkpoints) + 1, len(precisions) + 1), np.nan) for name in WEIGHT_SPLIT}
    for row in model_frame(cat)[["checkpoint", "precision", *WEIGHT_SPLIT]].itertuples(index=False):
        if (row[0], row[1]) in at:
            for name, value in zip(WEIGHT_SPLIT, row[2:]):
                tables[name][at[(row[0], row[1])]] = value
    return {name: table[ck_codes, pr_codes] for name, table in tables.items()}  # code -1: the NaN row


def split_frame(df: pd.DataFrame, cat: Catalog) -> pd.DataFrame:
    """Each row's checkpoint weights (:func:`checkpoint_weights`) with the plan columns
    :func:`sizing.engine.memory.non_expert_weights_per_gpu` reads."""
    w = pd.DataFrame(checkpoint_weights(df, cat), index=df.index)
    for name in ("layers", "pp", "tp", "w_draft"):
        if name in df:
            w[name] = df[name].to_numpy()
    w["language_model_only"] = df["language_model_only"].to_numpy() if "language_model_only" in df else 0
    return w


def weight_split(df: pd.DataFrame, cat: Catalog, share: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(Routed-expert bytes, weight bytes no step reads) per GPU.

    The experts are what the rank holds beyond its other weights
    (:func:`sizing.engine.memory.non_expert_weights_per_gpu`), so the kernels' padding of the experts
    (MXFP4) counts with them. No step reads the input embedding whole (``VocabParallelEmbedding`` gathers
    the rows of the step's tokens; a tied LM head is read as the head) nor a loaded vision tower on text
    requests. A checkpoint outside the catalog: experts from the bytes a one-sequence step reads
    (``weights_read_bytes``, the rest plus k/E of the experts), ``(weights − read) / (1 − k/E)``, and
    nothing unread."""
    weights, read = df["weights_bytes"].to_numpy(float), df["weights_read_bytes"].to_numpy(float)
    w = split_frame(df, cat)
    rest = memory.non_expert_weights_per_gpu(w)
    fallback = (weights - read) / np.maximum(1 - share, 1e-9)
    experts = np.where(np.isnan(rest), fallback, np.maximum(weights - rest, 0.0))
    stage_share = kv.stage_count(w["layers"], w["pp"]) / w["layers"]
    tower = w["w_vision"] * (1 - w["language_model_only"]) * stage_share
    embedding = np.where(w["w_lm_head"] > 0, w["w_embeddings"], 0.0)
    unread = np.nan_to_num(((embedding + tower) / w["tp"]).to_numpy(float), nan=0.0)
    return np.where(share < 1, experts, 0.0), unread


def weight_arrays(df: pd.DataFrame, cat: Catalog) -> dict[str, np.ndarray]:
    """Dense and routed-expert weight bytes a step reads per GPU (:func:`weight_split`; the dense part is
    the rest of the weights), k/E, the LM head's parameters per GPU (``vocab × hidden / tp``, which a prompt
    token skips), and the parameters one token multiplies per GPU: the model card's active
    parameters over TP × PP (for a model outside the catalog, the bytes a one-sequence step reads over bytes
    per parameter)."""
    share = hit_share(df, cat)
    weights, read = df["weights_bytes"].to_numpy(float), df["weights_read_bytes"].to_numpy(float)
    experts, unread = weight_split(df, cat, share)
    per_param = {pid: p.bytes_per_param for pid, p in cat.precisions.items()}
    active = {mid: 1e9 * (m.active_params_b or m.total_params_b) for mid, m in cat.models.items()}
    ranks = df["tp"].to_numpy(float) * df["pp"].to_numpy(float)
    params = by_id(df["model"], active) / ranks
    params = np.where(np.isnan(params), read / by_id(df["precision"], per_param), params)
    vocab = np.nan_to_num(by_id(df["model"], {mid: m.vocab_size for mid, m in cat.models.items()}), nan=0.0)
    return {
        "head_params": vocab * df["hidden_size"].to_numpy(float) / df["tp"].to_numpy(float),
        "dense_bytes": weights - experts - unread,
        "expert_bytes": experts,
        "hit_share": share,
        "active_params": params,
    }


def geometry_arrays(df: pd.DataFrame) -> dict[str, np.ndarray]:
    """Per-GPU layer counts, KV bytes and attention width (FLOPs per (query, key) pair are twice it), and
    ``expert_group``: how many engines share one rank's routed experts (``ep / tp`` with data and expert
    parallelism, else 1)."""
    names = (
        "full_on_stage",
        "sliding_on_stage",
        "linear_on_stage",
        "window",
        "kv_bytes_per_token_layer",
        "linear_state_bytes",
        "hidden_size",
        "tp",
        "pp",
        "dp",
        "max_num_seqs",
        "max_num_batched_tokens",
    )
    x = {name: df[name].to_numpy(float) for name in names}
    per_head = np.where(
        df["is_mla"].to_numpy(bool), 2 * df["mla_dim"].to_numpy(float), 2 * df["head_dim"].to_numpy(float)
    )
    x["attn_width"] = df["attention_heads"].to_numpy(float) / x["tp"] * per_head
    ep = df["ep"].to_numpy(float) if "ep" in df else np.ones(len(df))
    x["expert_group"] = np.maximum(ep / x["tp"], 1.0)  # engines whose tokens reach one rank's experts
    x["experts_on_rank"] = df["experts"].to_numpy(float) / np.maximum(ep, 1.0)
    x["stage_layers"] = np.ceil(df["layers"].to_numpy(float) / x["pp"])
    x["kv_tokens"] = np.maximum(df["kv_cache_tokens"].to_numpy(float), 0.0)
    return x


def constant_arrays(classes: np.ndarray, constants: dict[str, ClassConstants]) -> dict[str, np.ndarray]:
    """The fitted constants of each row's class (the roofline where its class is not calibrated), the
    band percentiles per metric (NaN when not calibrated) and ``calibrated``."""
    table: dict[str, np.ndarray] = {"calibrated": np.array([c in constants for c in CLASSES])}
    for name, bound in ROOFLINE.items():
        table[name] = np.array([getattr(constants[c], name) if c in constants else bound for c in CLASSES])
    for metric in METRICS:
        for end, i in (("p10", 0), ("p90", 1)):
            table[f"{metric}_{end}"] = np.array(
                [constants[c].band[metric][i] if c in constants else np.nan for c in CLASSES]
            )
    return {name: values[classes] for name, values in table.items()}


NO_START = int(np.iinfo(np.int64).max)
COMPRESSED = NO_START - 1
"""DeepSeek-V4 (``csa_bytes_per_block`` > 0): its sparse, compressed attention reads what the step model of
:mod:`sizing.engine.throughput` does not describe (full attention over every cached token)."""
"""The refusal key of an engine that does not start: above every other key, so that key 0 (the row can be
estimated) sorts first and keeps code 0."""


def refusal_codes(df: pd.DataFrame, x: dict[str, np.ndarray]) -> tuple[np.ndarray, list[str]]:
    """Why each row cannot be estimated, as (a code per row, the reasons; code 0 is "": it can): no dense
    peak for its GPU and compute dtype, an engine that does not start (no KV cache), or DeepSeek-V4
    (:data:`COMPRESSED`)."""
    gpu_codes, gpus = id_codes(df["gpu"])
    no_peak = np.isnan(x["peak_flops"])
    key = np.where(no_peak, 1 + gpu_codes.astype(np.int64) * len(DTYPES) + x["compute_dtype"], 0)
    key = np.where(~no_peak & (x["kv_tokens"] <= 0), NO_START, key)
    csa = df["csa_bytes_per_block"].to_numpy() > 0 if "csa_bytes_per_block" in df else np.zeros(len(df), bool)
    key = np.where(csa, COMPRESSED, key)
    distinct, codes = np.unique(key, return_inverse=True)
    texts = [reason(int(k), gpus) for k in distinct]
    if "" not in texts:
        texts, codes = ["", *texts], codes + 1
    return codes.astype(np.int32).reshape(-1), texts


def reason(key: int, gpus: list[str]) -> str:
    """The text of one refusal key of :func:`refusal_codes`."""
    if key == 0:
        return ""
    if key == NO_START:
        return "the engine does not start: no KV cache"
    if key == COMPRESSED:
        return "DeepSeek-V4's compressed sparse attention is not modelled by the throughput engine"
    gpu, dtype = divmod(key - 1, len(DTYPES))
    return f"no dense {DTYPES[dtype]} peak TFLOP/s for GPU {gpus[gpu]} in catalog/gpus.yaml (tflops_dense)"


def inputs_with_reasons(
    df: pd.DataFrame, cat: Catalog, constants: dict[str, ClassConstants]
) -> tuple[dict[str, np.ndarray], list[str]]:
    """Every array :func:`sizing.engine.throughput.steady_state` reads, one value per row of ``df``, with the
    codes ``class`` (:data:`CLASSES`), ``compute_dtype`` (:data:`DTYPES`) and ``refused``; and the refusal
    texts those last codes index (code 0: the row can be estimated)."""
    classes, dtypes = class_codes(df), dtype_codes(df)
    x = {**geometry_arrays(df), **weight_arrays(df, cat), **constant_arrays(classes, constants)}
    x["bandwidth"] = df["bandwidth_gbs"].to_numpy(float) * 1e9
    links = {gid: g.interconnect.bandwidth_gbs * 1e9 for gid, g in cat.gpus.items()}
    x["link"] = np.nan_to_num(by_id(df["gpu"], links), nan=32e9)
    x["peak_flops"] = peak_flops(cat, df["gpu"], dtypes)
    x["dequant"], x["expert_weight_bytes"] = dequantised(df, cat)
    x["price_monthly"] = df["price_monthly"].to_numpy(float)
    x["class"], x["compute_dtype"] = classes, dtypes
    x["refused"], texts = refusal_codes(df, x)
    return x, texts


def inputs(df: pd.DataFrame, cat: Catalog, constants: dict[str, ClassConstants]) -> dict[str, np.ndarray]:
    """:func:`inputs_with_reasons` without the refusal texts."""
    return inputs_with_reasons(df, cat, constants)[0]
