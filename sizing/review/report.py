"""Turn one evaluated row into the language-neutral record the CLI prints and the pages show.

Memory in GiB (2^30), per-token KV in bytes and KiB, figures per GPU (one TP/PP rank) the way
vLLM prints them at start-up.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

from sizing.catalog.loader import Catalog
from sizing.engine.versions import rules_for
from sizing.launch.commands import vllm_command
from sizing.units import GiB, KiB
from sizing.views.advice import suggestion
from sizing.views.verdict import STARTS, launch_verdict, row_verdict, tight_below


def _num(value: Any, digits: int = 4) -> float | int | None:
    """A JSON-safe number: NaN -> None, integers kept, floats rounded to ``digits``."""
    value = float(value)
    if not math.isfinite(value):
        return None
    return int(value) if value.is_integer() and abs(value) < 2**53 else round(value, digits)


def _gib(row: Mapping[str, Any], key: str) -> float | None:
    return _num(float(row[key]) / GiB)


def record(row: Mapping[str, Any], cat: Catalog) -> dict[str, Any]:
    """The estimate record of ``row`` (the ``estimate --json`` object)."""
    contexts = [int(str(k).rsplit("_", 1)[1]) for k in row.keys() if str(k).startswith("concurrency_")]
    return {
        "model": row["model"],
        "checkpoint": row["checkpoint"],
        "precision": row["precision"],
        "server": row["server"],
        "gpu": row["gpu"],
        "gpus": int(row["server_gpus"]),
        "plan": row["plan"],
        "tensor_parallel_size": int(row["tp"]),
        "pipeline_parallel_size": int(row["pp"]),
        "data_parallel_size": int(row["dp"]),
        "vllm_version": row.get("vllm_version"),
        "gpu_memory_utilization": _num(row["gpu_memory_utilization"]),
        "max_model_len": int(row["max_model_len"]),
        "kv_cache_dtype": row["kv_cache_dtype"],
        "max_num_batched_tokens": int(row["max_num_batched_tokens"]),
        "max_num_seqs": int(row["max_num_seqs"]),
        "block_size": int(row["block_size"]),
        "total_memory_gib": _gib(row, "total_bytes"),
        "budget_gib": _gib(row, "budget_bytes"),
        "weights_gib": _gib(row, "weights_bytes"),
        "activation_peak_gib": _gib(row, "activation_bytes"),
        "non_torch_gib": _gib(row, "nontorch_bytes"),
        "cuda_graphs_gib": _gib(row, "cudagraph_bytes"),
        "available_kv_gib": _gib(row, "available_kv_bytes"),
        "kv_cache_gib": _gib(row, "kv_cache_bytes"),
        "available_kv_gib_low": _gib(row, "available_kv_low_bytes"),
        "available_kv_gib_high": _gib(row, "available_kv_high_bytes"),
        "kv_bytes_per_token": int(row["kv_bytes_per_token"]),
        "kv_kib_per_token": _num(row["kv_bytes_per_token"] / KiB),
        "kv_cache_groups": int(row["kv_groups"]),
        "bytes_per_block": int(row["bytes_per_block"]),
        "num_gpu_blocks": int(row["num_gpu_blocks"]),
        "blocks_per_request": int(row["blocks_per_request"]),
        "kv_cache_tokens": int(row["kv_cache_tokens"]),
        "max_concurrency": _num(row["max_concurrency"]),
        "concurrency": {str(c): _num(row[f"concurrency_{c}"], 2) for c in contexts},
        "longest_context": int(row["longest_context"]),
        "fits": bool(row["fits"]),
        "reason": row["reason"],
        "change": row["change"] or None,
        "change_value": row["change_value"] or None,
        "change_plan": row.get("change_plan") or None,
        **verdict_fields(row, cat, contexts),
        "decode_tokens_per_s_ceiling": _num(row["decode_tps_ceiling"], 1),
        "speculative_config": speculative_record(row),
        "hybrid_block_size": hybrid_block_size(row, cat),
        "vllm_command": vllm_command(row, cat),
    }


def hybrid_block_size(row: Mapping[str, Any], cat: Catalog) -> int | None:
    """The attention block size vLLM announces for a hybrid (Mamba or linear-attention) model, tokens.

    vLLM logs "Setting attention block size to N tokens to ensure that attention page size is >= mamba
    page size." when it raises the block so one attention page holds a layer's recurrent state
    (``vllm/model_executor/models/config.py`` ``HybridAttentionMambaModelConfig.verify_and_update_config``
    up to 0.18, ``vllm/platforms/interface.py`` ``Platform._align_hybrid_block_size`` after): only where
    ``--block-size`` is unset or smaller, and from the releases whose V1 KV-cache manager groups
    layers (the ``groups`` and ``concurrency`` token rules). None when it prints no such line.
    """
    raised = float(row.get("linear_state_bytes") or 0) > 0 and int(row["block_size"]) != int(
        row.get("block_size_override") or 0
    )
    version = str(row.get("vllm_version") or cat.assume("vllm_version"))  # matrix rows: the catalog's release
    if not raised or rules_for(version).token_rule == "blocks":
        return None
    return int(row["block_size"])


def verdict_fields(row: Mapping[str, Any], cat: Catalog, contexts: list[int]) -> dict[str, Any]:
    """``verdict`` at the row's own ``--max-model-len`` (``fits``, ``tight``, ``borderline``, ``no-fit``:
    :mod:`sizing.views.verdict`), ``starts_up_to`` (the longest context that starts, tokens; 0 if none) and
    ``advice`` (:func:`sizing.views.advice.suggestion`: what to try where it does not start)."""
    threshold = tight_below(cat.assume)
    verdict, context = row_verdict(row, contexts, threshold)
    return {
        "verdict": launch_verdict(row, threshold),
        "starts_up_to": context if verdict in STARTS else 0,
        "tight_below_sequences": threshold,
        "advice": suggestion(row, cat),
    }


def speculative_record(row: Mapping[str, Any]) -> dict[str, Any] | None:
    """The drafter of ``row`` (method, draft tokens, draft model, its weights and KV layers), None without
    one."""
    method = str(row.get("spec_method") or "")
    if not method:
        return None
    return {
        "method": method,
        "num_speculative_tokens": int(row["spec_tokens"]),
        "model": str(row.get("spec_draft") or "") or None,
        "draft_weights_gib": _gib(row, "draft_weights_bytes"),
        "draft_kv_layers": int(row["draft_kv_layers"]),
    }
