"""The nearest change of a row (:mod:`sizing.engine.advice`) as data: its kind, value and suggested case.

The suggested case is given by the ids the explorer and the CLI take (model, checkpoint, precision, server,
KV cache type, ``--max-model-len``, ``--gpu-memory-utilization`` and the plan), so a page can link each
suggestion to the case it suggests and ``estimate`` can be run on it.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

from sizing.catalog.loader import Catalog

_PLAN_FIELDS = ("plan", "tp", "pp", "dp")


def _plan(row: Mapping[str, Any]) -> dict[str, Any]:
    """The plan fields of a row or of an engine ``change_plan`` (``tp-tp8-pp1-dp1``)."""
    text = str(row.get("change_plan") or "")
    if text:
        plan, tp, pp, dp = text.rsplit("-", 3)
        return {"plan": plan, "tp": int(tp[2:]), "pp": int(pp[2:]), "dp": int(dp[2:])}
    return {k: (str(row[k]) if k == "plan" else int(row[k])) for k in _PLAN_FIELDS}


def larger_server(cat: Catalog, gpu: str, gpus: int) -> str | None:
    """The catalog server with the fewest GPUs of type ``gpu`` that has at least ``gpus`` of them, if any."""
    fitting = [
        (s.gpus_per_node * s.nodes, sid)
        for sid, s in cat.servers.items()
        if s.gpu == gpu and s.gpus_per_node * s.nodes >= gpus
    ]
    return min(fitting)[1] if fitting else None


def suggestion(row: Mapping[str, Any], cat: Catalog) -> dict[str, Any] | None:
    """``{"kind", "value", "target"}`` of the row's nearest change, None when it has none. ``target`` holds
    the suggested case's ids (None for ``more-gpus`` when no catalog server has that many of these GPUs)."""
    kind, value = str(row.get("change") or ""), str(row.get("change_value") or "")
    if not kind:
        return None
    target: dict[str, Any] = {
        "model": str(row["model"]),
        "checkpoint": str(row["checkpoint"]),
        "precision": str(row["precision"]),
        "server": str(row["server"]),
        "kv_cache_dtype": str(row["kv_cache_dtype"]),
        "max_model_len": int(row["max_model_len"]),
        "gpu_memory_utilization": float(row["gpu_memory_utilization"]),
        **_plan(row),
    }
    if kind == "gpu-memory-utilization":
        target["gpu_memory_utilization"] = float(value)
    elif kind == "max-model-len":
        target["max_model_len"] = int(value)
    elif kind == "kv-fp8":
        target["kv_cache_dtype"] = "fp8"
    elif kind == "checkpoint":
        checkpoint, _, precision = value[:-1].rpartition(" (")
        target.update(checkpoint=checkpoint, precision=precision_id(cat, precision))
    elif kind == "more-gpus":
        server = larger_server(cat, str(row["gpu"]), int(value))
        target = {**target, "server": server} if server else {}
    return {"kind": kind, "value": _value(kind, value), "target": target or None}
    return {"kind": kind, "value": _value(kind, value), "target": target}


def precision_id(cat: Catalog, text: str) -> str:
    """A precision id, given its id or the name a table shows
    (:func:`sizing.views.table_rows.named_checkpoint_change`)."""
    if text in cat.precisions:
        return text
    named = {p.name.replace(" (", " ").replace(")", ""): pid for pid, p in cat.precisions.items()}
    return named.get(text, text)


def _value(kind: str, value: str) -> Any:
    """The change's argument as a number where it is one (utilisation, tokens, GPUs)."""
    if kind == "gpu-memory-utilization":
        return float(value)
    if kind in ("max-model-len", "more-gpus"):
        number = float(value)
        return int(number) if math.isfinite(number) else None
    return value
