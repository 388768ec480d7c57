"""Case frames: one row per deployment, with every input column :func:`sizing.engine.memory.compute` needs.

Rows are built from small per-entity column dicts (one per model × checkpoint, one per server)
joined with pandas cross joins, so the number of Python calls grows with the catalog's entries,
not with the number of combinations.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from sizing.catalog.loader import Catalog
from sizing.catalog.schema import Checkpoint, Gpu, Model, PrecisionSpec, Server
from sizing.engine import dsv4_kv
from sizing.engine import dsv4_weights as d4
from sizing.engine.capability import refuses_float16
from sizing.engine.frames import Grouping
from sizing.engine.profile_columns import profile_columns
from sizing.engine.versions import max_capture_size
from sizing.engine.weights import part_sizes, rope_cache_bytes, split_of
from sizing.units import MiB


def model_columns(m: Model) -> dict[str, object]:
    """Architecture columns of one model (counts, sizes, flags)."""
    la, sw, moe = m.linear_attention, m.sliding_window, m.moe
    inter = (
        (
            moe.experts_per_token * moe.expert_intermediate_size
            + moe.shared_experts * moe.shared_intermediate_size
        )
        if moe
        else m.intermediate_size
    )
    special = (sw.layers if sw else 0) + (la.layers if la else 0) + m.mlp_only_layers
    return {
        "layers": m.layers,
        "hidden_size": m.hidden_size,
        "vocab_size": m.vocab_size,
        "attention_heads": m.attention_heads,
        "kv_heads": m.kv_heads,
        "head_dim": m.head_dim,
        "is_mla": m.mla is not None,
        "mla_dim": (m.mla.kv_lora_rank + m.mla.qk_rope_head_dim) if m.mla else 0,
        "index_head_dim": (m.mla.index_head_dim or 0) if m.mla else 0,
        **cache_layer_columns(m, special),
        "window": sw.window if sw else 0,
        "linear_layers": la.layers if la else 0,
        "la_key_heads": la.num_key_heads if la else 0,
        "la_value_heads": la.num_value_heads if la else 0,
        "la_key_dim": la.key_head_dim if la else 0,
        "la_value_dim": la.value_head_dim if la else 0,
        "la_conv_kernel": la.conv_kernel if la else 1,
        **linear_state_columns(m),
        "inter_per_token": inter,
        "max_context": m.max_context,
        "w_rank_buffers": rope_cache_bytes(m),
        "model_dtype_bytes": 2,
        "fp16_refused": refuses_float16(m.architecture),
        "is_moe": moe is not None,
        "experts": moe.experts if moe else 0,
        "active_share": _active_share(m),
        "expert_intermediate": moe.expert_intermediate_size if moe else 0,
        "expert_matrices": (3 if m.gated_mlp else 2) if moe else 0,
        "expert_in_dim": (moe.latent_size or m.hidden_size) if moe else 0,
        **profile_columns(m),
        **vision_columns(m),
        **compressed_columns(m),
    }


def compressed_columns(m: Model) -> dict[str, int]:
    """DeepSeek-V4's KV layout (:func:`sizing.engine.dsv4_kv.layout_columns`), its sliding window and its
    top-k index buffer per batched token (:func:`sizing.engine.dsv4_weights.topk_bytes_per_token`); all 0
    for other models."""
    ca = m.compressed_attention
    if ca is None:
        return dict.fromkeys(dsv4_kv.CSA_COLUMNS, 0)
    return {
        **dsv4_kv.layout_columns(ca.compress_ratios, ca.window, ca.index_head_dim),
        "csa_window": ca.window,
        "csa_topk_bytes_per_token": d4.topk_bytes_per_token(d4.shape_of(m)),
    }


FP32_BYTES = 4


def linear_state_columns(m: Model) -> dict[str, object]:
    """How the linear layers' state is stored: temporal-state element bytes, and whether key heads
    are Mamba-2 groups that vLLM widens to the TP size (:func:`sizing.engine.kvcache.mamba2_groups`)."""
    la = m.linear_attention
    ssm = FP32_BYTES if la is not None and la.kind == "kda" else la.ssm_dtype_bytes if la else 2
    return {"la_ssm_bytes": ssm, "la_widen_groups": la is not None and la.kind == "mamba2"}


def vision_columns(m: Model) -> dict[str, int]:
    """The vision tower's profile geometry (all 0 for a text-only model)."""
    v = m.vision
    return {
        "vision_tokens": v.max_tokens_per_item if v else 0,
        "vision_hidden": v.hidden_size if v else 0,
        "vision_inter": v.intermediate_size if v else 0,
        "vision_merge": v.merge_size * v.pooling_size if v else 1,
        "vision_out": v.out_hidden_size if v else 0,
    }


def cache_layer_columns(m: Model, special: int) -> dict[str, int]:
    """Full and sliding layers that own a KV cache (KV-sharing layers own none), and the full layers'
    geometry."""
    shared = m.kv_sharing
    shared_sliding = shared.sliding_layers if shared else 0
    shared_full = shared.layers - shared_sliding if shared else 0
    ga = m.global_attention
    return {
        "full_layers": m.layers - special - shared_full,
        "sliding_layers": (m.sliding_window.layers if m.sliding_window else 0) - shared_sliding,
        "full_kv_heads": ga.kv_heads if ga else m.kv_heads,
        "full_head_dim": ga.head_dim if ga else m.head_dim,
    }


def _active_share(m: Model) -> float:
    """Share of routed-expert weights one decode step reads for one sequence (1.0 for dense)."""
    return m.moe.experts_per_token / m.moe.experts if m.moe else 1.0


def checkpoint_columns(m: Model, ckpt: Checkpoint, spec: PrecisionSpec, online: bool) -> dict[str, object]:
    """Weight-byte columns of one checkpoint (whole model, before TP/PP division)."""
    sized = part_sizes(m, ckpt, spec)
    split = split_of(sized)
    experts = sum(size for part, size in sized if part.name == "experts")
    vision = sum(size for part, size in sized if part.name == "vision_tower")
    return {
        "checkpoint": ckpt.id,
        "precision": ckpt.precision,
        "online_quantization": online,
        "w_layer_sharded": split.layer_sharded,
        "w_layer_replicated": split.layer_replicated,
        "w_embeddings": split.embeddings,
        "w_lm_head": split.lm_head,
        "w_total": split.total,
        "w_experts": experts,
        "w_vision": vision,
        "needs_hw": spec.needs_hw or "",
        "min_sm": spec.min_sm or 0,
        "w_tensor_bytes": spec.weight_bits / 8,
    }


def sm_version(gpu: Gpu) -> int:
    """Compute capability as an integer (``sm_90`` -> 90), 0 when the architecture names none."""
    match = re.search(r"sm_(\d+)", gpu.architecture)
    return int(match[1]) if match else 0


def gpu_columns(gpu_id: str, gpu: Gpu) -> dict[str, object]:
    """Columns of one GPU type."""
    return {
        "gpu": gpu_id,
        "total_bytes": gpu.memory_mib * MiB,
        "memory_gb": gpu.memory_gb,
        "bandwidth_gbs": gpu.bandwidth_gbs,
        "is_a100": "A100" in gpu.name,
        "hw_fp8": gpu.fp8,
        "hw_fp4": gpu.fp4,
        "arch_sm": sm_version(gpu),
        "max_capture_size": max_capture_size(sm_version(gpu)),
        "interconnect": gpu.interconnect.kind,
        "nvswitch": "NVSwitch" in gpu.interconnect.generation,
        "rocm": "gfx" in gpu.architecture,
    }


def server_columns(sid: str, s: Server, gpu: Gpu) -> dict[str, object]:
    """Columns of one server (GPU columns included)."""
    return {
        "server": sid,
        "gpus_per_node": s.gpus_per_node,
        "nodes": s.nodes,
        "server_gpus": s.gpus_per_node * s.nodes,
        "server_kind": s.kind,
        "price_monthly": s.price.monthly if s.price else np.nan,
        "currency": s.price.currency if s.price else "",
        "nvme_read_gbs": s.nvme.read_gbs if s.nvme else np.nan,
        "ram_gb": s.ram_gb or np.nan,
        **gpu_columns(s.gpu, gpu),
    }


def checkpoints_of(cat: Catalog, m: Model) -> list[tuple[Checkpoint, bool]]:
    """Published checkpoints of ``m`` plus online-quantised variants vLLM can make at load time.

    An online variant (``--quantization fp8`` on the native checkpoint) is added for each
    precision that declares ``online_from`` the native precision and has no published checkpoint.
    """
    native = m.checkpoints[0]
    have = {c.precision for c in m.checkpoints}
    online = [
        (Checkpoint(id=native.id, precision=pid, keeps_bf16=["embeddings", "lm_head"]), True)
        for pid, spec in cat.precisions.items()
        if spec.online_from == native.precision and pid not in have and spec.vllm_quantization
    ]
    return [(c, False) for c in m.checkpoints] + online


def model_frame(cat: Catalog) -> pd.DataFrame:
    """One row per model × checkpoint (published and online)."""
    rows = []
    for mid, m in cat.models.items():
        shared = {"model": mid, **model_columns(m)}
        rows += [
            {**shared, **checkpoint_columns(m, c, cat.precisions[c.precision], online)}
            for c, online in checkpoints_of(cat, m)
        ]
    return pd.DataFrame(rows)


def server_frame(cat: Catalog) -> pd.DataFrame:
    """One row per server."""
    return pd.DataFrame([server_columns(sid, s, cat.gpus[s.gpu]) for sid, s in cat.servers.items()])


def plan_frame(max_gpus_per_node: int, max_nodes: int) -> pd.DataFrame:
    """Candidate plans: data parallel, tensor parallel within a node, data-parallel attention with
    expert parallelism (``dp-ep``: MoE models, across every node of the server), TP × pipeline across nodes.

    ``rank`` orders plans by how simple they are to run; ``expert_parallel`` marks ``dp-ep``.
    """
    rows = [{"plan": "dp", "tp": 1, "pp_nodes": False, "rank": 0, "expert_parallel": False}]
    size, rank = 2, 1
    while size <= max_gpus_per_node:
        rows.append({"plan": "tp", "tp": size, "pp_nodes": False, "rank": rank, "expert_parallel": False})
        size, rank = size * 2, rank + 1
    if max_gpus_per_node > 1:
        rows.append({"plan": "dp-ep", "tp": 1, "pp_nodes": False, "rank": rank, "expert_parallel": True})
        rank += 1
    if max_nodes > 1:
        rows.append({"plan": "tp-pp", "tp": 0, "pp_nodes": True, "rank": rank, "expert_parallel": False})
    return pd.DataFrame(rows)


COMBINATION = ["model", "checkpoint", "precision", "server", "kv_cache_dtype"]
"""The keys of one combination: the rows of its plans, among which one is chosen."""
CHECKPOINT_SERVER = ["model", "checkpoint", "precision", "server"]
MODEL_SERVER_KV = ["model", "server", "kv_cache_dtype"]


@dataclass(frozen=True)
class Groups:
    """The groupings plan choice and advice reduce over: :data:`COMBINATION`, :data:`CHECKPOINT_SERVER`
    and :data:`MODEL_SERVER_KV`."""

    combination: Grouping
    checkpoint_server: Grouping
    model_server_kv: Grouping

    @classmethod
    def of(cls, df: pd.DataFrame) -> Groups:
        """The groupings of any case frame, from its key columns."""
        return cls(*(Grouping.of(df, keys) for keys in (COMBINATION, CHECKPOINT_SERVER, MODEL_SERVER_KV)))
