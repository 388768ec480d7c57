"""``python -m sizing list models|gpus|servers|precisions``: the catalog's ids with what tells them apart.

One row per catalog entry, in file order, as plain values (text, counts, GiB); the CLI prints them
as a terminal table, JSON or CSV. Memory of a GPU is the total ``nvidia-smi`` reports, in GiB.
"""

from __future__ import annotations

from typing import Any, Callable

from sizing.catalog.loader import Catalog
from sizing.units import GiB, MiB

Row = dict[str, Any]


def model_rows(cat: Catalog) -> list[Row]:
    """Models: id, name, total parameters (billions), max context (tokens), checkpoints (id: precision)."""
    return [
        {
            "id": mid,
            "name": m.name,
            "params_b": m.total_params_b,
            "max_context": m.max_context,
            "checkpoints": " ".join(f"{c.id}:{c.precision}" for c in m.checkpoints),
        }
        for mid, m in cat.models.items()
    ]


def gpu_rows(cat: Catalog) -> list[Row]:
    """GPUs: id, name, nominal GB, total GiB as nvidia-smi reports it, FP8 and FP4 support."""
    return [
        {
            "id": gid,
            "name": g.name,
            "memory_gb": g.memory_gb,
            "total_gib": round(g.memory_mib * MiB / GiB, 2),
            "fp8": g.fp8,
            "fp4": g.fp4,
        }
        for gid, g in cat.gpus.items()
    ]


def server_rows(cat: Catalog) -> list[Row]:
    """Servers: id, name, GPU id, GPUs per node, nodes, kind."""
    return [
        {
            "id": sid,
            "name": s.name,
            "gpu": s.gpu,
            "gpus_per_node": s.gpus_per_node,
            "nodes": s.nodes,
            "kind": s.kind,
        }
        for sid, s in cat.servers.items()
    ]


def precision_rows(cat: Catalog) -> list[Row]:
    """Precisions: id, name, weight bits, hardware needed, vLLM's --quantization name (online or loaded)."""
    return [
        {
            "id": pid,
            "name": p.name,
            "weight_bits": p.weight_bits,
            "needs_hw": p.needs_hw or "",
            "vllm_quantization": p.vllm_quantization or "",
        }
        for pid, p in cat.precisions.items()
    ]


KINDS: dict[str, Callable[[Catalog], list[Row]]] = {
    "models": model_rows,
    "gpus": gpu_rows,
    "servers": server_rows,
    "precisions": precision_rows,
}
