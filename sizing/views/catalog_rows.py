"""The rows of the hardware and catalog tables, language-neutral: raw values (bytes, counts, ids, flags).

Hardware guidance (weights per precision, GPU classes, CPU cores, host RAM, disk) and the catalog's own
tables (models, GPUs, servers, precisions, assumptions). Each public ``*_rows(ctx)`` function returns a
DataFrame in catalog order; :mod:`sizing.render.table_specs` pairs each with its columns. Nothing here
formats a number.
"""

from __future__ import annotations

import math

import pandas as pd

from sizing.catalog.loader import Catalog
from sizing.units import GB, GiB, MiB
from sizing.views.bundle import SiteContext
from sizing.views.table_rows import labelled, shown_kv, sibling_rows, size_class_models, summary_kv

# ---------------------------------------------------------------------------------------------


def weights_rows(ctx: SiteContext) -> pd.DataFrame:
    """Weights of the 32B, 70B and 671B models per precision (all GPUs), and their file sizes."""
    wanted = [m for k in ("32b", "70b", "671b") for m in size_class_models(ctx, k)]
    df = ctx.frame.drop_duplicates(["model", "checkpoint", "precision"])
    df = pd.concat([sibling_rows(df, ctx, k) for k in ("32b", "70b", "671b")], ignore_index=True)
    df = labelled(df, ctx.catalog)
    df["file_bytes"] = [
        _file_bytes(ctx.catalog, r.model, r.checkpoint, r.online_quantization, r.w_total)
        for r in df.itertuples()
    ]
    df["published_size"] = [
        _published_size(ctx.catalog, r.model, r.checkpoint) is not None and not r.online_quantization
        for r in df.itertuples()
    ]
    order = {m: i for i, m in enumerate(wanted)}
    return df.sort_values("model", key=lambda s: s.map(order), kind="stable").reset_index(drop=True)


def _published_size(cat: Catalog, model: str, checkpoint: str) -> float | None:
    """The checkpoint's size on the Hub, decimal GB, when the catalog records it."""
    return next((c.file_gb for c in cat.models[model].checkpoints if c.id == checkpoint), None)


def _file_bytes(cat: Catalog, model: str, checkpoint: str, online: bool, w_total: float) -> float:
    """Bytes of the checkpoint's files: the Hub size when known, else its weight bytes (NaN if online)."""
    if online:
        return math.nan
    published = _published_size(cat, model, checkpoint)
    return published * GB if published is not None else float(w_total)


def gpu_class_rows(ctx: SiteContext) -> pd.DataFrame:
    """Every GPU type: memory (nominal, nvidia-smi, budget at the catalog's utilisation), bandwidth,
    formats and the largest model one GPU holds (budget and model blank when no server uses it)."""
    budgets = ctx.frame.drop_duplicates("gpu").set_index("gpu")["budget_bytes"]
    fits = single_gpu_fits(ctx)
    rows = [
        {
            "gpu": gid,
            "gpu_name": g.name,
            "memory_bytes": g.memory_gb * GiB,
            "total_bytes": g.memory_mib * MiB,
            "budget_bytes": budgets.get(gid, math.nan),
            "bandwidth_gbs": g.bandwidth_gbs,
            "fp8": g.fp8,
            "fp4": g.fp4,
            "interconnect": interconnect_label(g.interconnect.kind, g.interconnect.generation),
            "largest_single_gpu": largest_single_gpu(fits, gid),
        }
        for gid, g in ctx.catalog.gpus.items()
    ]
    return pd.DataFrame(rows)


def interconnect_label(kind: str, generation: str) -> str:
    """``NVLink 4 (NVSwitch, HGX)`` / ``PCIe 4.0 x16 (no NVLink)`` / ``Infinity Fabric xGMI, …`` (no repeat
    when the text names it)."""
    name = {"nvlink": "NVLink", "xgmi": "Infinity Fabric"}.get(kind, "PCIe")
    return generation if generation.lower().startswith(name.lower()) else f"{name} {generation}"


def single_gpu_fits(ctx: SiteContext) -> pd.DataFrame:
    """Rows where one GPU holds the model (TP 1, PP 1), largest model first, then largest weights.

    Filters on whether the model *fits* one GPU, whichever plan the planner prefers for the
    server: a model it splits over two GPUs for more cache still fits on one of them.
    """
    f = ctx.frame  # one GPU: no tensor, pipeline or expert split (dp-ep rows spread the experts)
    df = f[
        shown_kv(ctx, f, summary_kv(ctx))
        & (f["tp"] == 1)
        & (f["pp"] == 1)
        & ~f["expert_parallel"]
        & f["fits"]
    ]
    df = labelled(df, ctx.catalog)
    df = df.assign(params=df["model"].map(lambda m: ctx.catalog.models[m].total_params_b))
    return df.sort_values(["params", "w_total"], ascending=False, kind="stable")


def largest_single_gpu(fits: pd.DataFrame, gpu: str) -> str:
    """``Model, precision`` of the first row of ``fits`` on ``gpu`` (see :func:`single_gpu_fits`), or ""."""
    rows = fits[fits["gpu"] == gpu]
    return "" if rows.empty else f"{rows.iloc[0]['model_name']} ({rows.iloc[0]['precision_name']})"


def cpu_core_rows(ctx: SiteContext) -> pd.DataFrame:
    """GPUs per node -> vLLM's minimum of 2 + N physical cores, and the recommended range."""
    ranges = ctx.catalog.assume("cpu_cores_recommended")
    rows = [
        {"gpus": n, "cores_min": minimum_cores(n), "cores_low": low, "cores_high": high}
        for n, low, high in ranges
    ]
    return pd.DataFrame(rows)


def minimum_cores(gpus: int) -> int:
    """vLLM's minimum physical cores for ``gpus`` GPUs: one API server, one engine core, one per GPU."""
    return 2 + gpus


def host_ram_rows(ctx: SiteContext) -> pd.DataFrame:
    """Every server: total GPU memory against system RAM (decimal GB), where the catalog states RAM."""
    rows = []
    for sid, s in ctx.catalog.servers.items():
        vram = ctx.catalog.gpus[s.gpu].memory_gb * s.gpus_per_node * s.nodes
        ram = s.ram_gb * s.nodes if s.ram_gb else math.nan
        rows.append(
            {
                "server": sid,
                "server_name": s.name,
                "server_gpus": s.gpus_per_node * s.nodes,
                "vram_bytes": vram * GB,
                "ram_bytes": ram * GB,
                "ram_ratio": ram / vram,
                "ram_covers_vram": (ram >= vram) if s.ram_gb else None,
            }
        )
    return pd.DataFrame(rows)


def read_speed_gbs(ctx: SiteContext, server: str) -> float:
    """Sustained NVMe read of ``server``, decimal GB/s (assumption ``nvme_read_gbs`` when not stated)."""
    nvme = ctx.catalog.servers[server].nvme
    return nvme.read_gbs if nvme else float(ctx.catalog.assume("nvme_read_gbs"))


def offer_servers(ctx: SiteContext) -> list[str]:
    """Ids of the offer servers, in catalog order."""
    return [sid for sid, s in ctx.catalog.servers.items() if s.kind == "offer"]


def disk_rows(ctx: SiteContext) -> pd.DataFrame:
    """Published checkpoints: file size and load time from each offer server's NVMe (``load_<server>``, s)."""
    df = ctx.frame[~ctx.frame["online_quantization"]].drop_duplicates(["model", "checkpoint"])
    df = labelled(df, ctx.catalog)
    df["file_bytes"] = [
        _file_bytes(ctx.catalog, r.model, r.checkpoint, False, r.w_total) for r in df.itertuples()
    ]
    for sid in offer_servers(ctx):
        df[f"load_{sid}"] = df["file_bytes"] / (read_speed_gbs(ctx, sid) * GB)
    return df.reset_index(drop=True)


# ---------------------------------------------------------------------------------------------
# The catalog itself
# ---------------------------------------------------------------------------------------------


LINEAR_KIND_LABELS = {"gated_delta_net": "Gated DeltaNet", "kda": "KDA", "mamba2": "Mamba-2"}


def attention_label(cat: Catalog, model: str) -> str:
    """``MLA`` / ``GQA`` (or ``MHA``), plus sliding window or linear-attention layers (Gated DeltaNet,
    KDA, Mamba-2) when present."""
    m = cat.models[model]
    base = "MLA" if m.mla else ("MHA" if m.kv_heads == m.attention_heads else "GQA")
    la = m.linear_attention
    extras = [
        f"sliding window {m.sliding_window.window}" if m.sliding_window else "",
        LINEAR_KIND_LABELS[la.kind] if la else "",
    ]
    return " + ".join([base, *(e for e in extras if e)])


def with_primary(primary: str | None, source: str) -> str:
    """A catalog entry's sources, its primary source (datasheet, model card, config.json) first."""
    return "; ".join(part for part in (primary, source) if part)


def model_catalog_rows(ctx: SiteContext) -> pd.DataFrame:
    """One row per catalog model: size, shape, context, attention kind, checkpoints, source."""
    cat = ctx.catalog
    rows = [
        {
            "model": mid,
            "name": m.name,
            "total_params_b": m.total_params_b,
            "active_params_b": m.active_params_b if m.active_params_b else math.nan,
            "layers": m.layers,
            "hidden_size": m.hidden_size,
            "attention_heads": m.attention_heads,
            "kv_heads": m.kv_heads,
            "head_dim": m.head_dim,
            "max_context": m.max_context,
            "attention": attention_label(cat, mid),
            "checkpoints": "; ".join(f"{c.id} ({cat.precisions[c.precision].name})" for c in m.checkpoints),
            "source": with_primary(m.primary_source, m.source),
        }
        for mid, m in cat.models.items()
    ]
    return pd.DataFrame(rows)


def gpu_catalog_rows(ctx: SiteContext) -> pd.DataFrame:
    """One row per catalog GPU, as the catalog states it."""
    rows = [
        {
            "gpu": gid,
            "name": g.name,
            "architecture": g.architecture,
            "memory_bytes": g.memory_gb * GiB,
            "memory_mib": g.memory_mib,
            "bandwidth_gbs": g.bandwidth_gbs,
            "fp8": g.fp8,
            "fp4": g.fp4,
            "interconnect": interconnect_label(g.interconnect.kind, g.interconnect.generation),
            "link_gbs": g.interconnect.bandwidth_gbs,
            "source": with_primary(g.primary_source, g.source),
        }
        for gid, g in ctx.catalog.gpus.items()
    ]
    return pd.DataFrame(rows)


def server_catalog_rows(ctx: SiteContext) -> pd.DataFrame:
    """One row per catalog server: GPUs, host, price, locations (blank where the catalog says nothing)."""
    cat = ctx.catalog
    rows = [
        {
            "server": sid,
            "name": s.name,
            "kind": s.kind,
            "gpu_name": cat.gpus[s.gpu].name,
            "gpus_per_node": s.gpus_per_node,
            "nodes": s.nodes,
            "cpu": s.cpu.model if s.cpu else "",
            "cpu_cores": s.cpu.cores if s.cpu else math.nan,
            "ram_bytes": s.ram_gb * GB if s.ram_gb else math.nan,
            "nvme_read_gbs": s.nvme.read_gbs if s.nvme else math.nan,
            "network_gbps": s.network_gbps or math.nan,
            "price_monthly": s.price.monthly if s.price else math.nan,
            "currency": s.price.currency if s.price else "",
            "locations": ", ".join(s.locations),
        }
        for sid, s in cat.servers.items()
    ]
    return pd.DataFrame(rows)


def precision_catalog_rows(ctx: SiteContext) -> pd.DataFrame:
    """One row per weight format: bits, grouping, bytes per parameter, hardware and vLLM flag."""
    rows = [
        {
            "precision": pid,
            "name": p.name,
            "weight_bits": p.weight_bits,
            "group_size": p.group_size or math.nan,
            "scale_bits": p.scale_bits,
            "zero_bits": p.zero_bits,
            "bytes_per_param": p.bytes_per_param,
            "needs_hw": p.needs_hw or "",
            "vllm_quantization": p.vllm_quantization or "",
            "online_from": p.online_from or "",
        }
        for pid, p in ctx.catalog.precisions.items()
    ]
    return pd.DataFrame(rows)


def assumption_value(value: object) -> str:
    """An assumption's value as the catalog writes it (lists in brackets, strings bare)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "[" + ", ".join(assumption_value(v) for v in value) + "]"
    return str(value).lower() if isinstance(value, bool) else str(value)


def assumption_rows(ctx: SiteContext) -> pd.DataFrame:
    """One row per assumption: key, value, reason."""
    rows = [
        {"key": key, "value": assumption_value(a.value), "reason": a.reason}
        for key, a in ctx.catalog.assumptions.items()
    ]
    return pd.DataFrame(rows)
