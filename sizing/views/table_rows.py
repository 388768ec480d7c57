"""The rows of every published table, language-neutral: raw values (bytes, counts, ids, flags).

Each public ``*_rows(ctx)`` function returns a DataFrame in a deterministic order (catalog order,
which is also the order of the evaluated matrix). :mod:`sizing.render.table_specs` pairs each with its columns
and formats the cells per language. Nothing here formats a number.

Summary tables (what fits, recommendations, quick reference, throughput, GPU classes) describe one
configuration: the recommended plan with ``--kv-cache-dtype fp8`` (:func:`summary_kv`) at the
catalog's ``gpu_memory_utilization`` and ``max_model_len``; the per-server fit tables show every
KV cache type.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pandas as pd

from sizing.catalog.loader import Catalog
from sizing.errors import UsageError
from sizing.units import GB
from sizing.views import policy, series
from sizing.views.bundle import SiteContext
from sizing.views.context_plans import recommended_rows
from sizing.views.policy import LONG_CONTEXT, QUICK_REFERENCE, REPRESENTATIVES, SHORT_CONTEXT, SIBLINGS
from sizing.views.throughput import SPEED_KEY, fit_speed

# ---------------------------------------------------------------------------------------------
# Shared helpers
# ---------------------------------------------------------------------------------------------


def summary_kv(ctx: SiteContext) -> str:
    """The KV cache type the summary tables use: fp8 when the catalog evaluates it, else its first."""
    return policy.summary_kv(ctx.catalog.assume("kv_cache_dtypes"))


def server_kv(ctx: SiteContext, server: str) -> str:
    """The KV cache type a server's fit table shows: :func:`summary_kv`, or ``auto`` on a GPU with no FP8
    KV backend (:func:`sizing.views.policy.summary_kv_on`)."""
    cat = ctx.catalog
    return policy.summary_kv_on(summary_kv(ctx), cat.gpus.get(cat.servers[server].gpu))


def summary_contexts(ctx: SiteContext) -> list[int]:
    """The short (4K) and long (32K) contexts of the summary tables that the catalog publishes."""
    return [c for c in (SHORT_CONTEXT, LONG_CONTEXT) if c in ctx.contexts]


def checkpoint_label(df: pd.DataFrame, cat: Catalog) -> pd.Series:
    """The checkpoint as vLLM loads it: its id, plus ``--quantization X`` when quantised at load time."""
    flag = df["precision"].map(lambda p: cat.precisions[p].vllm_quantization or "")
    online = df["online_quantization"].astype(bool)
    return df["checkpoint"].where(~online, df["checkpoint"] + " (--quantization " + flag + ")")


def labelled(df: pd.DataFrame, cat: Catalog) -> pd.DataFrame:
    """``df`` with display names: model_name, precision_name, server_name, checkpoint_label."""
    out = df.copy()
    out["model_name"] = out["model"].map(lambda m: cat.models[m].name)
    out["precision_name"] = out["precision"].map(lambda p: cat.precisions[p].name)
    out["server_name"] = out["server"].map(lambda s: cat.servers[s].name if s in cat.servers else s)
    out["checkpoint_label"] = checkpoint_label(out, cat)
    if "needs_hw" in out.columns:
        out["weight_only"] = weight_only(out)
    if "change" in out.columns:
        out["change_value"] = named_checkpoint_change(out, cat)
    return out


def named_checkpoint_change(df: pd.DataFrame, cat: Catalog) -> pd.Series:
    """``change_value`` with a suggested checkpoint's precision id replaced by its name:
    ``Qwen/Qwen3-32B-AWQ (int4-awq)`` -> ``Qwen/Qwen3-32B-AWQ (INT4 AWQ)``."""

    def named(code: object, value: object) -> object:
        if code != "checkpoint" or not isinstance(value, str) or not value.endswith(")"):
            return value
        head, _, pid = value[:-1].rpartition(" (")
        name = cat.precisions[pid].name.replace(" (", " ").replace(")", "") if pid in cat.precisions else ""
        return f"{head} ({name})" if name else value

    return pd.Series([named(c, v) for c, v in zip(df["change"], df["change_value"])], index=df.index)


def weight_only(df: pd.DataFrame) -> pd.Series:
    """``fp8``/``fp4`` where the format needs tensor cores the GPU lacks, else "".

    vLLM then runs the checkpoint weight-only through its Marlin kernels, slower than native
    (vllm/model_executor/layers/quantization/utils/marlin_utils_fp4.py, is_fp4_marlin_supported;
    marlin_utils_fp8.py for FP8 on Ampere).
    """
    needs = df["needs_hw"].astype(str).to_numpy()
    lacks = np.zeros(len(df), dtype=bool)
    for hw in set(needs) - {""}:
        has = df[f"hw_{hw}"].to_numpy(dtype=bool) if f"hw_{hw}" in df else np.ones(len(df), dtype=bool)
        lacks |= (needs == hw) & ~has
    return df["needs_hw"].where(lacks, "")


def size_class_models(ctx: SiteContext, size: str) -> list[str]:
    """The representative of a size class and its same-architecture siblings present in the catalog."""
    return [m for m in (REPRESENTATIVES[size], *SIBLINGS.get(size, ())) if m in ctx.catalog.models]


def sibling_rows(df: pd.DataFrame, ctx: SiteContext, size: str) -> pd.DataFrame:
    """Rows of a size class: its representative, plus sibling rows of precisions it lacks."""
    models = size_class_models(ctx, size)
    if not models:
        return df.head(0)
    own = df[df["model"] == models[0]]
    extra = df[df["model"].isin(models[1:]) & ~df["precision"].isin(set(own["precision"]))]
    return pd.concat([own, extra], ignore_index=True)


def shown_kv(ctx: SiteContext, df: pd.DataFrame, kv: str) -> pd.Series:
    """Per row of ``df``: its KV type is the one summaries show on its GPU, ``kv`` or, on GPUs without an
    FP8 KV cache, ``auto`` (:func:`sizing.views.policy.summary_kv_on`)."""
    shown = {g: policy.summary_kv_on(kv, ctx.catalog.gpus.get(g)) for g in df["gpu"].astype(str).unique()}
    return df["kv_cache_dtype"].astype(str) == df["gpu"].astype(str).map(shown)


@functools.lru_cache(maxsize=16)
def chosen(ctx: SiteContext, kv: str | None = None, per_precision: bool = False) -> pd.DataFrame:
    """The recommended row of every combination (optionally of one KV cache type), labelled.

    ``per_precision`` keeps one checkpoint per model and precision (the first in catalog order),
    as the summary tables list precisions, not every published checkpoint. Cached per context;
    pandas copy-on-write keeps callers' changes out of the cached frame.
    """
    df = recommended_rows(ctx)  # each context counted on its own plan
    if kv is not None:
        df = df[shown_kv(ctx, df, kv)]
    if per_precision:
        df = df.drop_duplicates(["model", "precision", "server", "kv_cache_dtype"])
    return labelled(df, ctx.catalog).reset_index(drop=True)


def add_sequences(df: pd.DataFrame, contexts: list[int]) -> pd.DataFrame:
    """``seq_<ctx>`` columns: whole sequences per server, NaN beyond the model's context."""
    for c in contexts:
        df[f"seq_{c}"] = df[f"sequences_{c}"].where(c <= df["max_context"])
    return df


def main_models(ctx: SiteContext) -> list[str]:
    """Models of the catalog examples and the size-class representatives, in catalog order."""
    wanted = {ex.model for ex in ctx.catalog.examples.values()} | set(REPRESENTATIVES.values())
    return [m for m in ctx.catalog.models if m in wanted]


def total_vram_gb(df: pd.DataFrame) -> pd.Series:
    """Nominal GPU memory of the whole server, decimal GB."""
    return df["memory_gb"] * df["server_gpus"]


# ---------------------------------------------------------------------------------------------
# Fit tables and summaries of the matrix
# ---------------------------------------------------------------------------------------------


def fit_rows(ctx: SiteContext, server: str) -> pd.DataFrame:
    """Every model × checkpoint on ``server`` at the summary KV type: verdict, plan, memory, sequences, and
    users within the speed target and cost (:func:`sizing.views.throughput.fit_speed`).

    ``model_label`` is the model's name, plus the checkpoint id when the model has several
    checkpoints of one precision or is quantised at load time (so every row names what it runs).
    """
    df = chosen(ctx, summary_kv(ctx))
    df = df[df["server"] == server].copy()
    df["kv_cache_bytes"] = np.maximum(df["kv_cache_bytes"], 0)
    df["model_label"] = model_labels(df)
    speed = fit_speed(ctx)
    df = df.merge(speed[speed["server"] == server], on=list(SPEED_KEY), how="left", validate="one_to_one")
    return add_sequences(df, ctx.contexts).reset_index(drop=True)


def model_labels(df: pd.DataFrame) -> pd.Series:
    """``Name``; ``Name · org/checkpoint`` where name and precision do not identify the row, and
    ``Name · --quantization fp8`` for a checkpoint quantised at load time."""
    online = df["online_quantization"].astype(bool)
    ambiguous = df.duplicated(["model", "precision"], keep=False) & ~online
    flag = df["checkpoint_label"].str.extract(r"\((--quantization [^)]+)\)$", expand=False).fillna("")
    label = df["model_name"].where(~ambiguous, df["model_name"] + " · " + df["checkpoint"])
    return label.where(~online, df["model_name"] + " · " + flag)


def what_fits_rows(ctx: SiteContext) -> pd.DataFrame:
    """Every model and precision on each offer server, summary KV type: fits, plan, 4K/32K sequences."""
    df = chosen(ctx, summary_kv(ctx), per_precision=True)
    df = df[df["server_kind"] == "offer"].copy()
    return add_sequences(df, summary_contexts(ctx)).reset_index(drop=True)


def recommendation_rows(ctx: SiteContext, size: str) -> pd.DataFrame:
    """Catalog servers on which the ``size`` class fits, per precision (largest weights first, then
    smaller servers); siblings (:data:`SIBLINGS`) add the precisions the representative lacks."""
    df = sibling_rows(chosen(ctx, summary_kv(ctx), per_precision=True), ctx, size)
    df = df[df["fits"]].copy()
    df["vram_gb"] = total_vram_gb(df)
    df = df.sort_values(["w_total", "vram_gb", "server_gpus"], ascending=[False, True, True], kind="stable")
    return add_sequences(df, summary_contexts(ctx)).reset_index(drop=True)


def quick_reference_rows(ctx: SiteContext) -> pd.DataFrame:
    """The seed's targets (:data:`QUICK_REFERENCE`): tier, model, server, and the computed verdict,
    plan, weights and sequences of the recommended row (first checkpoint of the precision)."""
    df = chosen(ctx, summary_kv(ctx), per_precision=True)
    parts = []
    for tier, size, precision, server in QUICK_REFERENCE:
        if size not in REPRESENTATIVES or server not in ctx.catalog.servers:
            continue
        rows = sibling_rows(df[(df["server"] == server) & (df["precision"] == precision)], ctx, size)
        parts.append(rows.head(1).assign(tier=tier))
    if not parts:
        return df.head(0)
    return add_sequences(pd.concat(parts, ignore_index=True), summary_contexts(ctx))


def throughput_rows(ctx: SiteContext) -> pd.DataFrame:
    """Decode ceilings of the main models on the offer servers where they fit, tokens/s per sequence."""
    df = chosen(ctx, summary_kv(ctx), per_precision=True)
    keep = df["model"].isin(main_models(ctx)) & (df["server_kind"] == "offer") & df["fits"]
    df = df[keep].copy()
    for c in summary_contexts(ctx):
        df[f"tps_{c}"] = df[f"decode_tps_{c}"].where(c <= df["max_context"])
    return df.reset_index(drop=True)


def price_rows(ctx: SiteContext) -> pd.DataFrame:
    """Offer servers with a price: monthly price, total GPU memory, price per GB of it per month."""
    df = labelled(ctx.frame.drop_duplicates("server"), ctx.catalog)
    df = df[df["price_monthly"].notna()].copy()
    df["vram_bytes"] = total_vram_gb(df) * GB
    return df.reset_index(drop=True)


def server_prices(ctx: SiteContext) -> list[series.PriceRow]:
    """The priced servers of the price chart, cheapest GB of GPU memory first
    (:func:`sizing.views.series.price_rows`)."""
    return series.price_rows(ctx.catalog, ctx.frame)


def example_table_row(ctx: SiteContext, example_id: str) -> dict[str, Any]:
    """The recommended matrix row for an example's checkpoint, server and KV cache type (what the tables show
    for it), as a record."""
    ex = ctx.example(example_id)
    f = recommended_rows(ctx)
    rows = f[
        (f["checkpoint"] == ex["checkpoint"])
        & (f["server"] == ex["server"])
        & (f["kv_cache_dtype"] == ex["kv_cache_dtype"])
        & ~f["online_quantization"]
    ]
    if rows.empty:
        raise UsageError(f"example {example_id!r}: no recommended row in the matrix")
    return rows.iloc[0].to_dict()
