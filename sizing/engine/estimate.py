"""One deployment, as ``python -m sizing estimate`` describes it, computed by the same column rules.

A :class:`sizing.catalog.settings.Settings` carries vLLM's own flag names. :func:`estimate_frame` turns it
into a small case frame (one row per candidate plan when no parallelism is given) and runs it through
:func:`sizing.engine.evaluate.finish`, so a single estimate and the full matrix can never disagree.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd

from sizing.catalog import ids, plans
from sizing.catalog import quantization as quant
from sizing.catalog.loader import Catalog
from sizing.catalog.schema import Checkpoint, Model, PrecisionSpec
from sizing.catalog.settings import Settings
from sizing.engine import dsv4_weights as d4
from sizing.engine import memory, speculative
from sizing.engine.cases import (
    checkpoint_columns,
    checkpoints_of,
    gpu_columns,
    model_columns,
    plan_frame,
    server_columns,
)
from sizing.engine.evaluate import (
    apply_settings,
    as_text,
    coefficients,
    finish,
    gpu_memory_utilization,
    resolve_plans,
)
from sizing.engine.versions import SUPPORTED, Rules, max_capture_size, rules_for
from sizing.errors import UsageError
from sizing.units import MiB

PLAN_COLUMNS = (
    "attention_heads",
    "kv_heads",
    "la_value_heads",
    "linear_layers",
    "expert_intermediate",
    "layers",
    "tp",
    "pp",
    "dp",
)


def _config_path(name: str) -> Path | None:
    """The config.json ``name`` points at: the file itself, or ``config.json`` in a model folder."""
    path = Path(name)
    try:
        if path.is_dir() and (path / "config.json").is_file():
            return path / "config.json"
        return path if path.suffix == ".json" and path.is_file() else None
    except OSError:  # a name no file system holds (too long, …): not a path
        return None


def find_model(cat: Catalog, name: str) -> tuple[str, Model, str | None]:
    """(model id, model, checkpoint id or None) for a model or checkpoint id (any case), a config.json, or a
    folder holding one."""
    found = ids.resolve_model(cat, name)
    if found is not None and found in cat.models:
        return found, cat.models[found], None
    for mid, model in cat.models.items():
        if any(c.id == found for c in model.checkpoints):
            return mid, model, found
    config = _config_path(name)
    if config:
        from sizing.engine.importer import model_from_config_file  # noqa: PLC0415 - only for file paths

        model = model_from_config_file(config, cat)
        return model.checkpoints[0].id, model, None
    close = ids.did_you_mean(name, ids.model_names(cat))
    raise UsageError(
        f"--model: {ids.shown(name)} is neither a catalog model, a checkpoint id nor a "
        f"config.json file{close}"
    )


def _label(cat: Catalog, ckpt: Checkpoint, online: bool) -> str:
    spec = cat.precisions[ckpt.precision]
    how = f"--quantization {spec.vllm_quantization}" if online else ckpt.id
    return f"{ckpt.precision} ({how})"


def pick_checkpoint(
    cat: Catalog, model: Model, ckpt_id: str | None, quantization: str | None
) -> tuple[Checkpoint, bool]:
    """The checkpoint to load: the one named, else one of ``--quantization`` (vLLM's or the catalog's name),
    else the native one."""
    options = checkpoints_of(cat, model)
    if ckpt_id:
        return next((c, o) for c, o in options if c.id == ckpt_id and not o)
    if not quantization:
        return options[0]
    formats = quant.formats_for(cat, quantization)
    wanted = sorted(
        ((c, o) for c, o in options if c.precision in formats),
        key=lambda option: formats.index(option[0].precision),
    )
    if not wanted:
        have = [_label(cat, c, o) for c, o in options]
        raise UsageError(quant.missing_message(quantization, model.checkpoints[0].id, have))
    return wanted[0]


CUSTOM = {
    "server_kind": "custom",
    "price_monthly": float("nan"),
    "currency": "",
    "nvme_read_gbs": float("nan"),
    "ram_gb": float("nan"),
}


def _custom_gpu(mib: int) -> dict[str, object]:
    return {
        "gpu": f"{mib} MiB",
        "total_bytes": mib * MiB,
        "memory_gb": float("nan"),
        "bandwidth_gbs": float("nan"),
        "is_a100": False,
        "hw_fp8": True,
        "hw_fp4": False,
        "arch_sm": 0,
        "max_capture_size": max_capture_size(0),
        "interconnect": "pcie",
        "nvswitch": False,
        "rocm": False,
    }


def hardware(cat: Catalog, req: Settings) -> dict[str, Any]:
    """Server-like columns from --server, --gpu or --gpu-memory-mib, with --gpus overriding the count."""
    if req.server:
        sid = ids.resolve("--server", req.server, cat.servers, "server")
        server = cat.servers[sid]
        cols: dict[str, Any] = server_columns(sid, server, cat.gpus[server.gpu])
    elif req.gpu:
        gid = ids.resolve("--gpu", req.gpu, cat.gpus, "GPU")
        cols = {**CUSTOM, "server": gid, **gpu_columns(gid, cat.gpus[gid]), "gpus_per_node": 1, "nodes": 1}
        if req.gpu_memory_mib:  # the GPU type's features with the total memory torch reported
            cols["total_bytes"] = req.gpu_memory_mib * MiB
    elif req.gpu_memory_mib:
        cols = {
            **CUSTOM,
            "server": f"{req.gpu_memory_mib} MiB",
            **_custom_gpu(req.gpu_memory_mib),
            "gpus_per_node": 1,
            "nodes": 1,
        }
    else:
        raise UsageError("give one of --server, --gpu or --gpu-memory-mib")
    if req.gpus:
        cols.update(_gpus_of(req, cols))
    elif not req.server:  # a bare GPU type: as many GPUs as the plan asks for
        sizes = (req.tensor_parallel_size, req.pipeline_parallel_size, req.data_parallel_size)
        cols["gpus_per_node"] = int(np.prod([s or 1 for s in sizes]))
    cols["server_gpus"] = int(cols["gpus_per_node"]) * int(cols["nodes"])
    return cols


def _gpus_of(req: Settings, cols: dict[str, Any]) -> dict[str, int]:
    """GPUs per node and nodes for ``--gpus N``: on a server at most its GPUs, whole nodes beyond one."""
    gpus, per_node, nodes = int(req.gpus or 0), int(cols["gpus_per_node"]), int(cols["nodes"])
    if not req.server:
        return {"gpus_per_node": gpus, "nodes": 1}
    total = per_node * nodes
    if gpus > total:
        raise UsageError(f"--gpus {gpus}: server {cols['server']} has {total} GPU{'s' * (total != 1)}")
    if gpus > per_node and gpus % per_node:
        raise UsageError(
            f"--gpus {gpus}: server {cols['server']} has {nodes} nodes of {per_node} GPUs; "
            f"beyond one node give a multiple of {per_node}"
        )
    return {"gpus_per_node": min(gpus, per_node), "nodes": max(gpus // per_node, 1)}


def plans_for(req: Settings, per_node: int, nodes: int) -> pd.DataFrame:
    """The explicit plan of the request, or every candidate plan when it names no parallelism.

    This is the one place ``expert_parallel`` is decided for a request. With ``--enable-expert-parallel``
    and no sizes, the single-node TP plans split the experts too: vLLM turns EP on whenever
    ``tp × dp > 1`` and the flag is set, over ``ep = tp × dp`` ranks
    (``vllm/model_executor/layers/fused_moe/config.py: FusedMoEParallelConfig.make``).
    """
    sizes = (req.tensor_parallel_size, req.pipeline_parallel_size, req.data_parallel_size)
    if not any(sizes):
        plans = plan_frame(per_node, nodes)
        if req.enable_expert_parallel:  # the flag without sizes: every single-node TP plan splits experts too
            plans["expert_parallel"] = plans["plan"].isin(["tp", "dp-ep"])
        return plans
    tp, pp, dp = (s or 1 for s in sizes)
    ep = req.enable_expert_parallel and pp == 1
    plan = "dp-ep" if ep else ("tp-pp" if pp > 1 else ("tp" if tp > 1 else "dp"))
    return pd.DataFrame(
        [
            {
                "plan": plan,
                "tp": tp,
                "pp": pp,
                "dp": dp,
                "rank": 0,
                "expert_parallel": ep,
                "ep": tp * dp if ep else 1,
                "explicit": True,
            }
        ]
    )


def check_plan(row: pd.Series) -> None:
    """Refuse an explicit plan vLLM would refuse (:func:`sizing.catalog.plans.problem`): heads, layers,
    experts,
    GPUs."""
    columns = {key: row[key] for key in PLAN_COLUMNS}
    found = plans.flag_problem({**columns, "gpus": row["server_gpus"]})
    if found:
        raise UsageError(found)


def spec_columns(
    req: Settings, model: Model, mid: str, ckpt: Checkpoint, spec: PrecisionSpec
) -> dict[str, object]:
    """The speculative-decoding columns of ``req`` (zeros without ``--speculative-config``); UsageError when
    the
    model cannot run the method asked for (:func:`sizing.engine.speculative.resolve`)."""
    if req.speculative_config is None:
        return speculative.columns(model, ckpt, spec, None)
    try:
        resolved = speculative.resolve(req.speculative_config, model, mid)
    except ValueError as exc:
        raise UsageError(f"--speculative-config: {exc}") from None
    return speculative.columns(model, ckpt, spec, resolved)


def request_frame(cat: Catalog, req: Settings) -> pd.DataFrame:
    """The case frame of ``req``: one row per plan considered."""
    mid, model, ckpt_id = find_model(cat, req.model)
    ckpt, online = pick_checkpoint(cat, model, req.checkpoint or ckpt_id, req.quantization)
    hw = hardware(cat, req)
    spec = cat.precisions[ckpt.precision]
    base = {
        "model": mid,
        **model_columns(model),
        **checkpoint_columns(model, ckpt, spec, online),
        **hw,
        "kv_cache_dtype": req.kv_cache_dtype,
        **spec_columns(req, model, mid, ckpt, spec),
        "prefix_caching": req.enable_prefix_caching,
        "no_flashinfer": not req.flashinfer_installed,
    }
    config = _config_path(req.model) if ckpt_id is None and mid not in cat.models else None
    if config is not None:  # a local model: vLLM is given the folder that holds its config.json
        base["checkpoint"] = str(config.parent.resolve())
    plans = plans_for(req, int(hw["gpus_per_node"]), int(hw["nodes"]))
    frame = pd.DataFrame([base]).merge(plans, how="cross")
    if "explicit" in frame:
        check_plan(frame.iloc[0])
        return frame.drop(columns=["explicit"])
    return compressed_plans(resolve_plans(frame.assign(pp_nodes=frame["plan"] == "tp-pp")), model)


def compressed_plans(frame: pd.DataFrame, model: Model) -> pd.DataFrame:
    """The candidate plans kept for DeepSeek-V4 (all of them for other models): tensor parallelism alone
    (no pipeline stages, no expert parallelism, and no data-parallel replicas, across which vLLM splits
    the experts of an MoE model without expert parallelism, ``fused_moe/config.py``
    ``flatten_tp_across_dp_and_pcp``), at sizes modelled (:func:`compressed_problem`)."""
    if model.compressed_attention is None:
        return frame
    shape = d4.shape_of(model)
    modelled = np.array([d4.tp_problem(shape, int(tp)) is None for tp in frame["tp"]], dtype=bool)
    single = (frame["pp"] == 1) & (frame["dp"] == 1) & ~frame["expert_parallel"].astype(bool)
    return frame[single & modelled]


def settled(cat: Catalog, req: Settings) -> Settings:
    """``req`` with an unset --gpu-memory-utilization at the catalog's value (what the engine sizes with)."""
    return replace(req, gpu_memory_utilization=gpu_memory_utilization(cat, req.gpu_memory_utilization))


def estimate_frame(cat: Catalog, req: Settings) -> pd.DataFrame:
    """Every plan considered for ``req``, computed; the recommended row has ``chosen`` set."""
    version = req.vllm_version or str(cat.assume("vllm_version"))
    rules = rules_for(version)
    frame = consolidated(apply_settings(request_frame(cat, req), rules, settled(cat, req)))
    if frame.empty:
        raise UsageError(
            "no valid parallel plan: TP must divide the attention and KV heads and the GPUs per node"
        )
    if req.max_model_len and req.max_model_len > int(frame["max_context"].iloc[0]):
        raise UsageError(
            f"--max-model-len {req.max_model_len} exceeds the model's context "
            f"{int(frame['max_context'].iloc[0])}"
        )
    out = as_text(finish(frame.reset_index(drop=True), cat, rules)).copy()  # one block per dtype
    out["draft_weights_bytes"] = out["w_draft"] / out["tp"]
    out.attrs["vllm_version"] = version
    return out


def memory_estimate(cat: Catalog, req: Settings) -> pd.Series:
    """The memory columns only (weights, budget, blocks, tokens, concurrency, fits) of an explicit plan.

    The same column rules as :func:`estimate`, without plan choice, advice and service metrics; for
    callers that need many cases fast (calibration: see :func:`memory_estimates`). The request must
    name its parallel sizes.
    """
    return memory_estimates(cat, [req])[0]


def memory_estimates(cat: Catalog, reqs: Sequence[Settings]) -> list[pd.Series]:
    """:func:`memory_estimate` of each request, in order: the requests of one vLLM release are computed as
    one frame (the column rules are row-wise, so each row is what it would be alone)."""
    framed = [_settled_frame(cat, req) for req in reqs]
    rows: dict[int, pd.Series] = {}
    for rules in dict.fromkeys(r for r, _ in framed):
        at = [i for i, (r, _) in enumerate(framed) if r == rules]
        frame = pd.concat([framed[i][1] for i in at], ignore_index=True)
        done = memory.compute(frame, rules, coefficients(cat))
        rows.update((i, done.iloc[k]) for k, i in enumerate(at))
    return [rows[i] for i in range(len(reqs))]


def _settled_frame(cat: Catalog, req: Settings) -> tuple[Rules, pd.DataFrame]:
    """The release rules of an explicit-plan request and its one-row case frame with its settings."""
    if not req.tensor_parallel_size:
        raise UsageError("memory_estimate needs an explicit --tensor-parallel-size")
    rules = rules_for(req.vllm_version or str(cat.assume("vllm_version")))
    return rules, consolidated(apply_settings(request_frame(cat, req), rules, settled(cat, req)))


def consolidated(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of a request's (small) frame in one block per dtype: the memory columns and the advice
    add a hundred more, and pandas warns about, and slows down on, a frame of many blocks."""
    return frame.copy()


def refuse_unsupported(row: pd.Series) -> None:
    """Stop with one line (exit status 2) where vLLM has no kernel for the row's weight format, or no
    attention backend for its FP8 KV cache, on its GPU (:mod:`sizing.engine.capability`): vLLM stops at
    start-up there, whatever the memory."""
    if not bool(row.get("unsupported", False)):
        return
    sm, need = int(row["arch_sm"]), int(row["min_sm"])
    if bool(row.get("float32", False)) and sm >= need:
        raise UsageError(
            f"{row['checkpoint']} ({row['precision']}) is not supported on GPU {row['gpu']}: vLLM refuses "
            "float16 for this model type and the GPU has no bfloat16 (compute capability "
            f"{sm // 10}.{sm % 10}"
            " < 8.0), so it runs in float32, which no quantisation method takes; pick the BF16 checkpoint"
        )
    if sm < need:
        raise UsageError(
            f"{row['checkpoint']} ({row['precision']}) is not supported on GPU {row['gpu']}: vLLM has "
            f"no kernel for {row['precision']} below compute capability {need // 10}.{need % 10} "
            f"(this GPU: {sm // 10}.{sm % 10}); pick a BF16 or GPTQ checkpoint"
        )
    raise UsageError(
        f"--kv-cache-dtype {row['kv_cache_dtype']} is not supported on GPU {row['gpu']}: vLLM has no "
        f"attention backend for an FP8 KV cache below compute capability 8.0 "
        f"(this GPU: {sm // 10}.{sm % 10}); use --kv-cache-dtype auto"
    )


def refuse_dtype(row: pd.Series, dtype: str) -> None:
    """Stop with one line where vLLM refuses ``--dtype float16``/``half`` for the model type
    (``fp16_refused``, ``_check_valid_dtype`` in ``vllm/config/model.py``: "The model type ... does not
    support float16"), or where ``--dtype float32`` is asked for a case the engine does not size in
    float32: it models float32 only where vLLM's ``--dtype auto`` picks it
    (:func:`sizing.engine.capability.runs_float32`)."""
    if dtype in ("float16", "half") and bool(row.get("fp16_refused", False)):
        raise UsageError(
            f"--dtype {dtype}: vLLM refuses float16 for {row['model']} (numerical instability); "
            "use --dtype auto (bfloat16 from compute capability 8.0, float32 below it)"
        )
    if dtype in ("float", "float32") and not bool(row.get("float32", False)):
        raise UsageError(
            f"--dtype {dtype}: the sizing engine models float32 only where vLLM's --dtype auto runs it "
            "(a model type that refuses float16, on a GPU without bfloat16); "
            f"{row['model']} on GPU {row['gpu']} runs in 16 bits: use --dtype auto"
        )


def compressed_problem(row: pd.Series, req: Settings, m: Model, version: str) -> str | None:
    """What of a DeepSeek-V4 request is not modelled (None when all of it is, or for other models): the
    supported release on NVIDIA compute capability 9 or 10 (FlashMLA; 12 and ROCm take other backends
    and layouts), its FP8 KV cache (``fp8_ds_mla``), tensor parallelism alone (:func:`compressed_plans`)
    at a size that needs no
    padding (:func:`sizing.engine.dsv4_weights.tp_problem`), no draft model, the checkpoint's own formats
    and the kernels' own block sizes (:mod:`sizing.engine.dsv4_kv`)."""
    if m.compressed_attention is None:
        return None
    sm = int(row["arch_sm"])
    checks = (
        (version != SUPPORTED, f"vLLM {version} (modelled: the supported release, {SUPPORTED})"),
        (bool(row.get("rocm", False)), f"AMD GPU {row['gpu']}"),
        (sm // 10 not in (9, 10), f"compute capability {sm // 10}.{sm % 10} (modelled: 9.x and 10.x)"),
        (req.kv_cache_dtype in ("bfloat16", "float16"), f"--kv-cache-dtype {req.kv_cache_dtype}"),
        (req.speculative_config is not None, "speculative decoding"),
        (int(row["pp"]) > 1, "--pipeline-parallel-size above 1"),
        (int(row["dp"]) > 1, "--data-parallel-size above 1"),
        (bool(row.get("expert_parallel", False)), "expert parallelism"),
        (req.block_size is not None, "--block-size (its kernels fix the block sizes)"),
        (req.quantization is not None, "--quantization (the checkpoint's FP8 and MXFP4 are modelled)"),
    )
    named = next((what for bad, what in checks if bad), None)
    return named or d4.tp_problem(d4.shape_of(m), int(row["tp"]))


def refuse_compressed(row: pd.Series, req: Settings, m: Model, version: str) -> None:
    """Stop with one line naming what of a DeepSeek-V4 request is not modelled
    (:func:`compressed_problem`)."""
    problem = compressed_problem(row, req, m, version)
    if problem:
        raise UsageError(
            f"{row['model']}: DeepSeek-V4 is modelled on NVIDIA H100/H200/B200-class GPUs "
            f"(compute capability 9 and 10) with the supported release only; not with {problem}"
        )


def estimate(cat: Catalog, req: Settings) -> pd.Series:
    """The recommended row for ``req`` (with ``vllm_version`` attached)."""
    frame = estimate_frame(cat, req)
    row = frame[frame["chosen"]].iloc[0].copy()
    refuse_unsupported(row)
    refuse_dtype(row, req.dtype)
    refuse_compressed(row, req, find_model(cat, req.model)[1], frame.attrs["vllm_version"])
    row["vllm_version"] = frame.attrs["vllm_version"]
    row["dtype"], row["serve_host"], row["serve_port"] = req.dtype, req.host, req.port
    row["max_num_seqs_set"] = req.max_num_seqs is not None  # printed as given (sizing.launch.commands)
    row["max_num_batched_tokens_set"] = req.max_num_batched_tokens is not None
    return row
