"""One deployment, as ``python -m sizing estimate`` describes it, computed by the same column rules.

A :class:`Request` carries vLLM's own flag names. :func:`estimate_frame` turns it into a small case
frame (one row per candidate plan when no parallelism is given) and runs it through
:func:`sizing.engine.evaluate.finish`, so a single estimate and the full matrix can never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sizing.engine.cases import (Knobs, checkpoint_columns, checkpoints_of, gpu_columns, model_columns, plan_frame,
                          server_columns)
from sizing.catalog.loader import Catalog
from sizing.errors import UsageError
from sizing.engine import memory
from sizing.engine.evaluate import apply_settings, coefficients, finish, gpu_memory_utilization, resolve_plans
from sizing.catalog.schema import Checkpoint, Model
from sizing.units import MiB
from sizing.engine.versions import max_capture_size, rules_for


@dataclass(frozen=True)
class Request:
    """One case, in vLLM's flag vocabulary (None = vLLM's or the catalog's default)."""

    model: str
    server: str | None = None
    gpu: str | None = None
    gpu_memory_mib: int | None = None
    gpus: int | None = None
    vllm_version: str | None = None
    tensor_parallel_size: int | None = None
    pipeline_parallel_size: int | None = None
    data_parallel_size: int | None = None
    gpu_memory_utilization: float | None = None
    max_model_len: int | None = None
    kv_cache_dtype: str = "auto"
    max_num_batched_tokens: int | None = None
    max_num_seqs: int | None = None
    block_size: int | None = None
    enforce_eager: bool = False
    quantization: str | None = None
    kv_cache_memory_bytes: int | None = None
    llm_class: bool = False


def find_model(cat: Catalog, name: str) -> tuple[str, Model, str | None]:
    """(model id, model, checkpoint id or None) for a catalog model id, checkpoint id or config.json path."""
    if name in cat.models:
        return name, cat.models[name], None
    for mid, model in cat.models.items():
        if any(c.id == name for c in model.checkpoints):
            return mid, model, name
    if Path(name).suffix == ".json" and Path(name).is_file():
        from sizing.engine.importer import model_from_config_file  # noqa: PLC0415 - only for file paths
        model = model_from_config_file(Path(name), cat)
        return model.checkpoints[0].id, model, None
    raise UsageError(f"--model: {name!r} is neither a catalog model, a checkpoint id nor a config.json file")


def pick_checkpoint(cat: Catalog, model: Model, ckpt_id: str | None, quantization: str | None
                    ) -> tuple[Checkpoint, bool]:
    """The checkpoint to load: the one named, else one of precision ``quantization``, else the native one."""
    options = checkpoints_of(cat, model)
    if ckpt_id:
        return next((c, o) for c, o in options if c.id == ckpt_id and not o)
    if not quantization:
        return options[0]
    wanted = [(c, o) for c, o in options if c.precision == quantization
              or cat.precisions[c.precision].vllm_quantization == quantization]
    if not wanted:
        raise UsageError(f"--quantization: no {quantization!r} checkpoint or online path for this model")
    return wanted[0]


CUSTOM = {"server_kind": "custom", "price_monthly": float("nan"), "currency": "", "nvme_read_gbs": float("nan"),
          "ram_gb": float("nan")}


def _custom_gpu(mib: int) -> dict[str, object]:
    return {"gpu": f"{mib} MiB", "total_bytes": mib * MiB, "memory_gb": float("nan"), "bandwidth_gbs": float("nan"),
            "is_a100": False, "hw_fp8": True, "hw_fp4": False, "arch_sm": 0, "max_capture_size": max_capture_size(0),
            "interconnect": "pcie"}


def hardware(cat: Catalog, req: Request) -> dict[str, Any]:
    """Server-like columns from --server, --gpu or --gpu-memory-mib, with --gpus overriding the count."""
    if req.server:
        if req.server not in cat.servers:
            raise UsageError(f"--server: unknown server {req.server!r}")
        server = cat.servers[req.server]
        cols: dict[str, Any] = server_columns(req.server, server, cat.gpus[server.gpu])
    elif req.gpu:
        if req.gpu not in cat.gpus:
            raise UsageError(f"--gpu: unknown GPU {req.gpu!r}")
        cols = {**CUSTOM, "server": req.gpu, **gpu_columns(req.gpu, cat.gpus[req.gpu]), "gpus_per_node": 1, "nodes": 1}
    elif req.gpu_memory_mib:
        cols = {**CUSTOM, "server": f"{req.gpu_memory_mib} MiB", **_custom_gpu(req.gpu_memory_mib),
                "gpus_per_node": 1, "nodes": 1}
    else:
        raise UsageError("give one of --server, --gpu or --gpu-memory-mib")
    if req.gpus:
        cols.update(gpus_per_node=req.gpus, nodes=1)
    elif not req.server:  # a bare GPU type: as many GPUs as the plan asks for
        sizes = (req.tensor_parallel_size, req.pipeline_parallel_size, req.data_parallel_size)
        cols["gpus_per_node"] = int(np.prod([s or 1 for s in sizes]))
    cols["server_gpus"] = int(cols["gpus_per_node"]) * int(cols["nodes"])
    return cols


def plans_for(req: Request, per_node: int, nodes: int) -> pd.DataFrame:
    """The explicit plan of the request, or every candidate plan when it names no parallelism."""
    sizes = (req.tensor_parallel_size, req.pipeline_parallel_size, req.data_parallel_size)
    if not any(sizes):
        return plan_frame(per_node, nodes)
    tp, pp, dp = (s or 1 for s in sizes)
    plan = "tp-pp" if pp > 1 else ("tp" if tp > 1 else "dp")
    return pd.DataFrame([{"plan": plan, "tp": tp, "pp": pp, "dp": dp, "rank": 0, "explicit": True}])


def check_plan(row: pd.Series) -> None:
    """Refuse an explicit plan vLLM would refuse: heads TP cannot split, or more GPUs than there are."""
    tp, pp, dp = int(row["tp"]), int(row["pp"]), int(row["dp"])
    heads, kv_heads = int(row["attention_heads"]), int(row["kv_heads"])
    if heads % tp or (kv_heads % tp and tp % kv_heads):
        raise UsageError(f"--tensor-parallel-size {tp}: must divide the model's {heads} attention heads "
                         f"and divide or be a multiple of its {kv_heads} KV heads")
    if tp * pp * dp > int(row["server_gpus"]):
        raise UsageError(f"TP {tp} × PP {pp} × DP {dp} needs {tp * pp * dp} GPUs; "
                         f"the hardware given has {int(row['server_gpus'])}")


def request_frame(cat: Catalog, req: Request) -> pd.DataFrame:
    """The case frame of ``req``: one row per plan considered."""
    mid, model, ckpt_id = find_model(cat, req.model)
    ckpt, online = pick_checkpoint(cat, model, ckpt_id, req.quantization)
    hw = hardware(cat, req)
    spec = cat.precisions[ckpt.precision]
    base = {"model": mid, **model_columns(model), **checkpoint_columns(model, ckpt, spec, online), **hw,
            "kv_cache_dtype": req.kv_cache_dtype}
    if Path(req.model).name == "config.json":  # a local model folder: vLLM serves the folder itself
        base["checkpoint"] = str(Path(req.model).parent)
    plans = plans_for(req, int(hw["gpus_per_node"]), int(hw["nodes"]))
    frame = pd.DataFrame([base]).merge(plans, how="cross")
    if "explicit" in frame:
        check_plan(frame.iloc[0])
        return frame.drop(columns=["explicit"])
    return resolve_plans(frame.assign(pp_nodes=frame["plan"] == "tp-pp"))


def knobs_of(cat: Catalog, req: Request) -> Knobs:
    """The Knobs of a request; an unset --gpu-memory-utilization takes the catalog's value."""
    gmu = gpu_memory_utilization(cat, req.gpu_memory_utilization)
    return Knobs(gmu, req.max_model_len, req.max_num_batched_tokens, req.max_num_seqs, req.block_size,
                 req.enforce_eager, req.kv_cache_memory_bytes, req.llm_class)


def estimate_frame(cat: Catalog, req: Request) -> pd.DataFrame:
    """Every plan considered for ``req``, computed; the recommended row has ``chosen`` set."""
    version = req.vllm_version or str(cat.assume("vllm_version"))
    rules = rules_for(version)
    frame = apply_settings(request_frame(cat, req), rules, knobs_of(cat, req))
    if frame.empty:
        raise UsageError("no valid parallel plan: TP must divide the attention and KV heads and the GPUs per node")
    if req.max_model_len and req.max_model_len > int(frame["max_context"].iloc[0]):
        raise UsageError(f"--max-model-len {req.max_model_len} exceeds the model's context "
                         f"{int(frame['max_context'].iloc[0])}")
    out = finish(frame.reset_index(drop=True), cat, rules)
    out.attrs["vllm_version"] = version
    return out


def memory_estimate(cat: Catalog, req: Request) -> pd.Series:
    """The memory columns only (weights, budget, blocks, tokens, concurrency, fits) of an explicit plan.

    The same column rules as :func:`estimate`, without plan choice, advice and service metrics; for
    callers that need many cases fast (calibration). The request must name its parallel sizes.
    """
    if not req.tensor_parallel_size:
        raise UsageError("memory_estimate needs an explicit --tensor-parallel-size")
    rules = rules_for(req.vllm_version or str(cat.assume("vllm_version")))
    frame = apply_settings(request_frame(cat, req), rules, knobs_of(cat, req))
    return memory.compute(frame, rules, coefficients(cat)).iloc[0]


def estimate(cat: Catalog, req: Request) -> pd.Series:
    """The recommended row for ``req`` (with ``vllm_version`` attached)."""
    frame = estimate_frame(cat, req)
    row = frame[frame["chosen"]].iloc[0].copy()
    row["vllm_version"] = frame.attrs["vllm_version"]
    return row
