"""Evaluate every model × checkpoint × server × KV dtype × plan of the catalog into one DataFrame.

:func:`evaluate` builds the case frame from the valid positions of the catalog's small frames (text
as categoricals, :mod:`sizing.engine.case_frame`), computes the memory columns once per compute class
(:func:`sizing.engine.memory.compute`) and spreads them to the rows, then adds capacity at each published
context length, decode
ceilings, prices, the chosen plan per combination and, where nothing fits, the nearest change
that would. One Python call per catalog entry, none per row.

The id and label columns of the matrix (model, server, plan, reason ...) are categoricals, their
categories in text order: a code of one or two bytes per row, where plain text would cost a Python
string reference per row and cell (on the 100× catalog, 14 columns × 1.5 M rows, the largest single
cost of the evaluation). They compare, group and sort as the text does; :func:`as_text` turns them
into plain text for callers that build strings from them.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
from pandas.api.internals import create_dataframe_from_blocks

from sizing.catalog.loader import Catalog
from sizing.catalog.settings import Settings
from sizing.engine import capability, columns, memory
from sizing.engine import kvcache as kv
from sizing.engine.advice import add_nearest_change
from sizing.engine.case_frame import Classes, case_frame
from sizing.engine.case_frame import resolve_plans as resolve_plans  # estimate.py reads it from here
from sizing.engine.cases import COMBINATION, Groups
from sizing.engine.frames import Grouping, spread, take_block, text_categorical
from sizing.engine.overhead import Coefficients, default_batch, v0_batch
from sizing.engine.versions import Rules, rules_for
from sizing.kvdtypes import KV_CACHE_DTYPE_BYTES

KEY = COMBINATION
BF16_BYTES = 2
"""Bytes per weight of an unquantised (BF16/FP16) checkpoint: ``w_tensor_bytes`` below it is quantised."""


def coefficients(cat: Catalog) -> Coefficients:
    """The calibrated overhead coefficients of the catalog's assumptions."""
    return Coefficients.from_assumptions({k: a.value for k, a in cat.assumptions.items()})  # type: ignore[misc]


def apply_settings(df: pd.DataFrame, rules: Rules, knobs: Settings) -> pd.DataFrame:
    """Add the vLLM settings columns (budget fraction, lengths, batch defaults, block size) shared by every
    row; ``knobs.gpu_memory_utilization`` must be set (:func:`gpu_memory_utilization`)."""
    df["gpu_memory_utilization"] = knobs.gpu_memory_utilization
    df["max_model_len"] = np.minimum(df["max_context"], knobs.max_model_len or df["max_context"])
    tokens, seqs = default_batch(
        df["total_bytes"], df["is_a100"], llm_class=knobs.llm_class, minor=rules.minor
    )
    if rules.engine == "v0":
        tokens, seqs = v0_batch(df["max_model_len"])
    df["max_num_batched_tokens"] = knobs.max_num_batched_tokens or tokens
    df["max_num_seqs"] = knobs.max_num_seqs or seqs
    float32 = capability.runs_float32(df["arch_sm"], df["fp16_refused"])
    df["float32"] = float32
    df["model_dtype_bytes"] = np.where(float32, capability.FP32_BYTES, df["model_dtype_bytes"])
    kv_auto = (df["kv_cache_dtype"] == "auto").to_numpy()
    kv_bytes = np.asarray(df["kv_cache_dtype"].map(KV_CACHE_DTYPE_BYTES))
    df["kv_bytes"] = np.where(float32 & kv_auto, capability.FP32_BYTES, kv_bytes)
    df["block_size_override"] = knobs.block_size or 0
    mla_bs = np.where(
        df["arch_sm"] // 10 == 10,
        rules.mla_block_size_sm100,
        np.where(df["arch_sm"] == 90, max(rules.mla_min_block_size_sm90, rules.block_size), rules.block_size),
    )
    mla_bs = np.where(df["index_head_dim"] > 0, max(kv.SPARSE_MLA_BLOCK_SIZE, rules.block_size), mla_bs)
    df["block_size_attention"] = np.where(df["is_mla"], mla_bs, rules.block_size)
    df["enforce_eager"] = knobs.enforce_eager
    df["kv_cache_memory_bytes"] = knobs.kv_cache_memory_bytes or 0
    df["limit_mm_set"] = knobs.limit_mm_per_prompt is not None
    df["limit_mm_per_prompt"] = knobs.limit_mm_per_prompt or 0
    df["language_model_only"] = knobs.language_model_only
    return df


def catalog_knobs(cat: Catalog) -> Settings:
    """The settings every catalog case is sized with (the assumptions' budget fraction and context)."""
    return Settings(
        gpu_memory_utilization=gpu_memory_utilization(cat), max_model_len=int(cat.assume("max_model_len"))
    )


def case_matrix(cat: Catalog, rules: Rules) -> pd.DataFrame:
    """The cross product of models × checkpoints × servers × KV dtypes × valid plans, with settings."""
    return apply_settings(case_frame(cat)[0], rules, catalog_knobs(cat))


def gpu_memory_utilization(cat: Catalog, requested: float | None = None) -> float:
    """The ``--gpu-memory-utilization`` of a case, a fraction in (0, 1]: ``requested``, else the catalog's."""
    return requested or float(cat.assume("gpu_memory_utilization"))


def context_columns(
    df: pd.DataFrame, rules: Rules, contexts: list[int], per_class: dict[str, np.ndarray] | None = None
) -> dict[str, np.ndarray]:
    """Concurrency per engine, whole sequences per server (none where vLLM has no kernel for the format on the
    GPU, ``unsupported``) and whether the band's optimistic end starts,
    at each published context length: each context counted as its own ``--max-model-len`` (a row that
    does not start at the catalog's length may start at a shorter one:
    :func:`sizing.engine.memory.starts_at`).

    ``per_class``: the per-engine concurrency columns already computed (:func:`usable_concurrency`).
    """
    out: dict[str, np.ndarray] = {}
    max_context, dp = (df[name].to_numpy() for name in ("max_context", "dp"))
    kernel = ~df["unsupported"].to_numpy(dtype=bool)  # no kernel: vLLM does not start, holds nothing
    for ctx in contexts:
        name = f"concurrency_{ctx}"
        out[name] = per_class[name] if per_class else usable_concurrency(df, rules, ctx)
        out[f"sequences_{ctx}"] = whole_sequences(
            out[name], (ctx <= max_context) & (out[name] >= 1) & kernel, dp
        )
        optimistic = f"starts_optimistic_{ctx}"
        out[optimistic] = per_class[optimistic] if per_class else memory.starts_at(df, rules, ctx, True)
    return out


def whole_sequences(concurrency: np.ndarray, holds: np.ndarray, dp: np.ndarray) -> np.ndarray:
    """Whole sequences the server holds: floor(``concurrency``) per engine × ``dp`` engines where ``holds``,
    else 0. Computed in place in the one new array (on a 1.5M-row matrix each temporary costs fresh pages)."""
    sequences = np.floor(concurrency)
    np.multiply(sequences, dp, out=sequences)
    sequences[~holds] = 0
    return sequences


def usable_concurrency(df: pd.DataFrame, rules: Rules, ctx: int) -> np.ndarray:
    """Requests of ``ctx`` tokens one engine holds (:func:`sizing.engine.memory.concurrency_at`), NaN where
    ``ctx`` exceeds the model's context."""
    return np.where(ctx <= df["max_context"].to_numpy(), memory.concurrency_at(df, rules, ctx), np.nan)


def longest_context(df: pd.DataFrame) -> np.ndarray:
    """Longest single sequence the KV pool holds, tokens (capped at the model's context). The linear
    layers' blocks are those one request holds (:func:`sizing.engine.memory.mamba_blocks`: more with
    speculative decoding or prefix caching)."""
    fixed = df["groups_sliding"] * kv.sliding_blocks(
        np.maximum(df["window"], 1), df["max_num_batched_tokens"], df["max_context"], df["block_size_sliding"]
    ) + memory.mamba_blocks(df)
    spare = np.maximum(df["num_gpu_blocks"] - fixed, 0)
    full = np.floor(spare / np.maximum(df["groups_full"], 1)) * df["block_size_full"]
    length = np.where(df["groups_full"] > 0, full, np.where(spare > 0, df["max_context"], 0))
    return np.minimum(length, df["max_context"]).astype(np.int64)


def decode_columns(df: pd.DataFrame, contexts: list[int]) -> dict[str, np.ndarray]:
    """Weight bytes read per decode step and the decode ceilings (tokens/s), bare and at each context."""
    bandwidth = df["bandwidth_gbs"].to_numpy() * 1e9
    experts_idle = (
        (1 - df["active_share"]) * df["w_experts"] * kv.stage_count(df["layers"], df["pp"]) / df["layers"]
    )
    read = (df["weights_bytes"] - experts_idle / memory.expert_ranks(df)).to_numpy()
    out = {"weights_read_bytes": read, "decode_tps_ceiling": bandwidth / read}
    per_token = df["kv_bytes_per_token"].to_numpy()
    out.update({f"decode_tps_{ctx}": bandwidth / (read + per_token * ctx) for ctx in contexts})
    return out


def service_columns(
    df: pd.DataFrame,
    contexts: list[int],
    nvme_default_gbs: float,
    per_class: dict[str, np.ndarray] | None = None,
) -> dict[str, np.ndarray]:
    """Decode ceilings, longest context, price per GB of VRAM, load time, minimum CPU cores.

    ``per_class``: the decode columns and the longest context already computed (:func:`class_columns`).
    """
    known = per_class or {**decode_columns(df, contexts), "longest_context": longest_context(df)}
    out = {
        name: known[name]
        for name in (
            "weights_read_bytes",
            "decode_tps_ceiling",
            *(f"decode_tps_{ctx}" for ctx in contexts),
            "longest_context",
        )
    }
    vram_gb = df["memory_gb"].to_numpy() * df["server_gpus"].to_numpy()
    out["price_per_gb_month"] = df["price_monthly"].to_numpy() / vram_gb
    out["cpu_cores_min"] = 2 + df["gpus_per_node"].to_numpy()
    out["load_time_s"] = load_seconds(
        df["w_total"].to_numpy(), df["nvme_read_gbs"].to_numpy(), nvme_default_gbs
    )
    out["ram_per_vram"] = np.divide(
        df["ram_gb"].to_numpy(), vram_gb, out=vram_gb
    )  # vram_gb is not needed after
    return out


def load_seconds(weights: np.ndarray, read_gbs: np.ndarray, default_gbs: float) -> np.ndarray:
    """Seconds to read ``weights`` (bytes) at ``read_gbs`` (decimal GB/s; NaN: ``default_gbs``), in one new
    array."""
    seconds = np.where(np.isnan(read_gbs), default_gbs, read_gbs)
    np.multiply(seconds, 1e9, out=seconds)
    return np.divide(weights, seconds, out=seconds)


REASONS = (
    "",
    "no-fit",
    "fits-one-gpu",
    "tp-needed",
    "tp-for-capacity",
    "pp-across-nodes",
    "ep-needed",
    "ep-for-capacity",
)
"""Why a row is the chosen plan of its combination ("" for the rows not chosen)."""


NO_RANK = np.int8(127)
"""A rank above every plan's (:func:`sizing.engine.cases.plan_frame`): no plan qualifies."""


def choose_plans(df: pd.DataFrame, dp_share: float, by: Grouping | None = None) -> None:
    """Mark the recommended plan of each combination (``by``: its rows, else grouped by :data:`KEY`).

    The simplest plan that fits (data parallel first, then the smallest TP, then TP × PP) wins,
    unless it serves fewer than ``dp_share`` of the full-length sequences the best fitting plan
    serves; nothing fitting, the largest plan is shown with the reason ``no-fit``.
    """
    by = by or Grouping.of(df, KEY)
    fits, rank = df["fits"].to_numpy(), df["rank"].to_numpy(np.int8)
    served = np.where(fits, np.floor(df["max_concurrency"].to_numpy()) * df["dp"].to_numpy(), np.nan)
    best_rank = simplest_enough(by, rank, serves_enough(by, served, dp_share))
    pick = np.where(best_rank == NO_RANK, by.table(np.maximum, rank, -1), best_rank)  # none fits: the largest
    df["chosen"] = rank == pick[by.ids]
    simplest_fit = by.table(np.minimum, np.where(fits, rank, NO_RANK), NO_RANK)
    df["reason"] = plan_reasons(df, simplest_fit[by.ids] < rank)


def serves_enough(by: Grouping, served: np.ndarray, dp_share: float) -> np.ndarray:
    """Per row: whether the plan serves at least ``dp_share`` of the most whole sequences any plan of its
    group serves (``served``: NaN where a plan does not start)."""
    return served >= dp_share * by.reduce(np.fmax, served)


def simplest_enough(by: Grouping, rank: np.ndarray, enough: np.ndarray) -> np.ndarray:
    """Per group: the rank of the simplest plan that serves enough (``enough``, :func:`serves_enough`),
    :data:`NO_RANK` where none starts."""
    return by.table(np.minimum, np.where(enough, rank, NO_RANK), NO_RANK)


def choose_context_plans(df: pd.DataFrame, contexts: list[int], dp_share: float, by: Grouping) -> None:
    """``chosen_<ctx>``: the recommended plan of each combination launched with ``--max-model-len <ctx>``.

    The plan chosen at the catalog's length is kept while it serves at least ``dp_share`` of the most whole
    sequences of that length any plan holds (``sequences_<ctx>``); otherwise (it holds fewer, or none) the
    rule of :func:`choose_plans` picks again at that length; where no plan starts, the catalog's plan
    stays. So a row that starts at 128K only on a wider plan is counted and launched with that plan, and
    no context holds fewer sequences than the catalog's plan would."""
    rank, chosen = df["rank"].to_numpy(np.int8), df["chosen"].to_numpy()
    kept = by.table(np.maximum, np.where(chosen, rank, -1), -1)
    for ctx in contexts:
        served = df[f"sequences_{ctx}"].to_numpy(dtype=np.float64)
        served = np.where(served >= 1, served, np.nan)
        enough = serves_enough(by, served, dp_share)
        keep = by.table(np.maximum, (chosen & enough).view(np.int8), 0) > 0
        best_rank = simplest_enough(by, rank, enough)
        pick = np.where(keep | (best_rank == NO_RANK), kept, best_rank)
        df[f"chosen_{ctx}"] = rank == pick[by.ids]


CHOSEN_AT = re.compile(r"^chosen_(\d+)$")
"""A per-context plan choice column of :func:`choose_context_plans`."""


def plan_contexts(df: pd.DataFrame) -> list[int]:
    """The contexts (tokens) ``df`` has a per-context plan choice for (its ``chosen_<c>`` columns)."""
    return sorted(int(m.group(1)) for m in map(CHOSEN_AT.match, map(str, df.columns)) if m)


def plan_reasons(df: pd.DataFrame, tp_for_capacity: np.ndarray) -> pd.Categorical:
    """The reason of each chosen row; ``tp_for_capacity``: a simpler plan fits, this one serves enough
    more."""
    code = {reason: np.int8(number) for number, reason in enumerate(REASONS)}
    chosen = np.flatnonzero(df["chosen"].to_numpy())
    plan, more = (
        df["plan"].iloc[chosen],
        tp_for_capacity[chosen],
    )  # compared as categorical codes when it is one
    tp_reason = np.where(more, code["tp-for-capacity"], code["tp-needed"])
    ep_reason = np.where(more, code["ep-for-capacity"], code["ep-needed"])
    reason = np.select(
        [~df["fits"].to_numpy()[chosen], plan == "dp", plan == "tp", plan == "dp-ep"],
        [code["no-fit"], code["fits-one-gpu"], tp_reason, ep_reason],
        code["pp-across-nodes"],
    )
    return text_categorical(spread(reason, chosen, len(df), code[""]), REASONS)


EXTRA = "_class_"
"""Prefix of the per-class columns :func:`class_columns` adds that :func:`finish` places itself."""


def class_columns(df: pd.DataFrame, rules: Rules, coef: Coefficients, contexts: list[int]) -> pd.DataFrame:
    """:func:`sizing.engine.memory.compute`, whether vLLM has a kernel for the format on the GPU
    (``unsupported``, :mod:`sizing.engine.capability`), plus the per-engine concurrency at each context, the
    longest context and the decode ceilings: everything that depends only on a row's compute class
    (:data:`sizing.engine.case_frame.COMPUTE_KEY`)."""
    out = memory.compute(df, rules, coef)
    kv_fp8 = out["kv_cache_dtype"].astype(str).str.startswith("fp8").to_numpy()
    quantized = out["w_tensor_bytes"].to_numpy() < BF16_BYTES
    no_kernel = capability.unsupported(  # vLLM stops: nothing fits
        out["arch_sm"], out["min_sm"], kv_fp8, out["float32"].to_numpy(bool) & quantized
    )
    out = out.assign(
        fits=out["fits"].to_numpy() & ~no_kernel,
        fits_optimistic=out["fits_optimistic"].to_numpy() & ~no_kernel,
    )
    extra = {f"concurrency_{ctx}": usable_concurrency(out, rules, ctx) for ctx in contexts}
    extra.update({f"starts_optimistic_{ctx}": memory.starts_at(out, rules, ctx, True) for ctx in contexts})
    extra["longest_context"] = longest_context(out)
    extra.update(decode_columns(out, contexts))
    return out.assign(
        unsupported=no_kernel, **{f"{EXTRA}{name}": np.asarray(values) for name, values in extra.items()}
    )


def expand_classes(df: pd.DataFrame, computed: pd.DataFrame, classes: np.ndarray) -> pd.DataFrame:
    """``df`` with every column ``computed`` added (one row per class) taken at each row's class."""
    new = [name for name in computed.columns if name not in df.columns]
    by_dtype: dict[np.dtype, list[str]] = {}
    for name in new:
        by_dtype.setdefault(computed[name].dtype, []).append(name)
    blocks = [
        (
            take_block([(computed[name].to_numpy(), classes) for name in names], dtype, len(classes)),
            np.array([new.index(n) for n in names]),
        )
        for dtype, names in by_dtype.items()
    ]
    added = create_dataframe_from_blocks(blocks, index=df.index, columns=pd.Index(new))
    return pd.concat([df, added], axis=1)


def take_columns(columns: dict[str, np.ndarray], rows: np.ndarray) -> dict[str, np.ndarray]:
    """Each column taken at the positions ``rows`` (the columns of one dtype filled together, as one
    block)."""
    by_dtype: dict[np.dtype, list[str]] = {}
    for name, values in columns.items():
        by_dtype.setdefault(values.dtype, []).append(name)
    out: dict[str, np.ndarray] = {}
    for dtype, names in by_dtype.items():
        out.update(zip(names, take_block([(columns[name], rows) for name in names], dtype, len(rows))))
    return {name: out[name] for name in columns}


def finish(
    df: pd.DataFrame,
    cat: Catalog,
    rules: Rules,
    classes: Classes | None = None,
    knobs: Settings | None = None,
    groups: Groups | None = None,
) -> pd.DataFrame:
    """Compute a case frame and add contexts, service metrics, chosen plans and advice.

    ``classes`` (:class:`Classes`): compute the settings (``knobs``, when the frame has none
    yet) and the memory columns once per class, then spread them to the rows. ``groups``: the rows'
    groupings when known (:func:`sizing.engine.case_frame.case_groups`), else found from the key columns.
    """
    contexts = [int(c) for c in cat.assume("contexts")]
    coef = coefficients(cat)
    if classes is None:
        df = class_columns(df, rules, coef, contexts).copy()  # one block per dtype: a small frame
        per_class = {
            name[len(EXTRA) :]: df.pop(name).to_numpy().copy()
            for name in list(df.columns)
            if name.startswith(EXTRA)
        }
    else:
        members = apply_settings(classes.members, rules, knobs) if knobs else classes.members
        computed = class_columns(members, rules, coef, contexts)
        extra = [name for name in computed.columns if name.startswith(EXTRA)]
        per_class = take_columns(
            {name[len(EXTRA) :]: computed[name].to_numpy() for name in extra}, classes.of_row
        )
        df = expand_classes(df, computed.drop(columns=[*extra, *classes.left_out]), classes.of_row)
    df = append_columns(
        df,
        {
            **context_columns(df, rules, contexts, per_class),
            **service_columns(df, contexts, float(cat.assume("nvme_read_gbs")), per_class),
        },
    )
    groups = groups or Groups.of(df)
    choose_plans(df, float(cat.assume("dp_min_capacity_share")), groups.combination)
    choose_context_plans(df, contexts, float(cat.assume("dp_min_capacity_share")), groups.combination)
    add_nearest_change(df, coef, rules, float(cat.assume("gpu_memory_utilization_max")), groups)
    df = text_last(df)
    df.attrs.update(rules=rules.line, contexts=contexts)
    return df


def _text_names(df: pd.DataFrame) -> list[str]:
    """The categorical (text) columns of ``df``."""
    return [name for name, column in df.items() if isinstance(column.dtype, pd.CategoricalDtype)]


def text_last(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with its categorical text columns moved, as they are, to the end of the frame."""
    names = _text_names(df)
    return append_columns(df.drop(columns=names), {name: df[name].array for name in names})


def as_text(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with its categorical text columns as plain text (``str``), in place in the column order.

    The text arrays are attached as they are (``df[name] = ...`` would copy each of them once more).
    Costs a string reference per row and column: take the rows you need first.
    """
    names = _text_names(df)
    text = append_columns(
        df.drop(columns=names),
        {
            name: df[name].cat.categories.array.take(df[name].cat.codes.to_numpy(), allow_fill=True)
            for name in names
        },
    )
    text = text[list(df.columns)] if list(text.columns) != list(df.columns) else text
    text.attrs.update(df.attrs)
    return text


def append_columns(
    df: pd.DataFrame, columns: dict[str, np.ndarray | pd.api.extensions.ExtensionArray]
) -> pd.DataFrame:
    """``df`` with ``columns`` (one value per row each) appended in order, without copying them."""
    blocks = [
        (values.reshape(1, -1) if isinstance(values, np.ndarray) else values, np.array([position]))
        for position, values in enumerate(columns.values())
    ]
    added = create_dataframe_from_blocks(blocks, index=df.index, columns=pd.Index(list(columns)))
    return pd.concat([df, added], axis=1)


def evaluate(cat: Catalog, version: str | None = None) -> pd.DataFrame:
    """Every combination of the catalog, one row each, under the rules of vLLM ``version``.

    The rows carry every declared column but the model's, checkpoint's and GPU's own figures the memory
    arithmetic reads once per compute class (:data:`sizing.engine.columns.PER_CLASS_ONLY`).

    Text columns are categoricals (see the module docstring); :func:`as_text` gives plain text.
    """
    version = version or str(cat.assume("vllm_version"))
    rules = rules_for(version)
    frame, classes, groups = case_frame(cat, columns.PER_CLASS_ONLY)
    df = finish(frame, cat, rules, classes, catalog_knobs(cat), groups)
    df.attrs["vllm_version"] = version
    return df
