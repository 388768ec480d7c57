"""The nearest launch that starts, for a request whose estimate says vLLM will not start.

The change is the one the fit tables advise (:func:`sizing.engine.advice.add_nearest_change`: a shorter
``--max-model-len``, an FP8 KV cache, a smaller checkpoint, more GPUs), computed on the same
variants the tables compare: every checkpoint of the model (published and online) with the
requested KV dtype and with FP8, on the requested hardware. The change is applied to the request and
estimated again; a change that is impossible on the hardware given (more GPUs than a server has)
ends the search with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import pandas as pd

from sizing.catalog.loader import Catalog
from sizing.catalog.settings import Settings
from sizing.engine.advice import add_nearest_change
from sizing.engine.cases import checkpoints_of
from sizing.engine.estimate import estimate, estimate_frame, find_model, hardware
from sizing.engine.evaluate import coefficients
from sizing.engine.versions import rules_for
from sizing.errors import UsageError

MAX_STEPS = 3


@dataclass(frozen=True)
class Outcome:
    """A fitting row (None when nothing fits), the request that gives it, and the changes made, as flags."""

    row: pd.Series | None
    request: Settings
    changes: tuple[str, ...]
    reason: str = ""


def variants(cat: Catalog, req: Settings) -> list[Settings]:
    """The request itself first, then every other checkpoint × KV dtype the tables compare it with."""
    mid, model, _ = find_model(cat, req.model)
    if mid not in cat.models:  # a config.json: only the request itself
        return [req]
    kv_dtypes = list(dict.fromkeys([req.kv_cache_dtype, "fp8"]))
    out = [req]
    for ckpt, online in checkpoints_of(cat, model):
        name, quant = (mid, ckpt.precision) if online else (ckpt.id, None)
        out += [replace(req, model=name, quantization=quant, kv_cache_dtype=kv) for kv in kv_dtypes]
    return out


def advised(cat: Catalog, req: Settings) -> pd.Series:
    """The request's chosen row with ``change``/``change_value`` as the tables compute them."""
    frames: list[pd.DataFrame] = []
    for variant in variants(cat, req):
        try:
            frame = estimate_frame(cat, variant)
        except UsageError:  # a variant these flags cannot take (e.g. a shorter context): not compared
            if not frames:
                raise
            continue
        frames.append(frame.assign(variant=len(frames)))
    df = pd.concat(frames, ignore_index=True).drop_duplicates(
        ["model", "checkpoint", "precision", "kv_cache_dtype", "plan", "tp", "pp", "dp"]
    )
    add_nearest_change(
        df,
        coefficients(cat),
        rules_for(req.vllm_version or str(cat.assume("vllm_version"))),
        float(cat.assume("gpu_memory_utilization_max")),
    )
    return df[(df["variant"] == 0) & df["chosen"]].iloc[0]


def applied(
    cat: Catalog, req: Settings, change: str, value: str, plan: str = ""
) -> tuple[Settings, str] | str:
    """(changed request, the change as flags), or the reason the change cannot be made here.

    ``plan``: the suggested case's plan (``change_plan``, ``tp-tp8-pp1-dp1``) when it differs from the
    row's."""
    if change == "gpu-memory-utilization":
        return _utilization(req, float(value), plan)
    if change == "max-model-len":
        return replace(req, max_model_len=int(value)), f"--max-model-len {value}"
    if change == "kv-fp8":
        return replace(req, kv_cache_dtype="fp8"), "--kv-cache-dtype fp8"
    if change == "checkpoint":
        ckpt, precision = value.rsplit(" (", 1)
        precision = precision.rstrip(")")
        mid = find_model(cat, req.model)[0]
        native = cat.models[mid].checkpoints[0]
        if ckpt == native.id and precision != native.precision:
            return replace(req, model=mid, quantization=precision), f"--quantization {precision} (online)"
        return replace(req, model=ckpt, quantization=None), f"the checkpoint {ckpt}"
    return _more_gpus(cat, req, int(value))


def _utilization(req: Settings, value: float, plan: str) -> tuple[Settings, str]:
    """The request at ``--gpu-memory-utilization value``, on the plan ``plan`` when one is given."""
    flags = f"--gpu-memory-utilization {value:.2f}"
    if not plan:
        return replace(req, gpu_memory_utilization=value), flags
    kind, tp, pp, dp = plan.rsplit("-", 3)
    changed = replace(
        req,
        gpu_memory_utilization=value,
        enable_expert_parallel=kind == "dp-ep",
        tensor_parallel_size=int(tp[2:]),
        pipeline_parallel_size=int(pp[2:]),
        data_parallel_size=int(dp[2:]),
    )
    return changed, f"{flags} -tp {int(tp[2:])} -pp {int(pp[2:])}"


def _more_gpus(cat: Catalog, req: Settings, gpus: int) -> tuple[Settings, str] | str:
    hw = hardware(cat, req)
    if gpus > 64:
        return "it needs more than 64 of these GPUs"
    if req.server and gpus > int(hw["server_gpus"]):
        return f"it needs {gpus} GPUs and server {hw['server']} has {int(hw['server_gpus'])}"
    plan = replace(
        req, gpus=gpus, tensor_parallel_size=None, pipeline_parallel_size=None, data_parallel_size=None
    )
    return plan, f"{gpus} GPUs"


def nearest_launch(cat: Catalog, req: Settings) -> Outcome:
    """The request's own row if it fits, else the nearest launch that does (or the reason there is none)."""
    changes: list[str] = []
    for _ in range(MAX_STEPS + 1):
        try:
            row = estimate(cat, req)
        except UsageError as exc:  # the request's own flags are checked by the caller's first estimate
            if not changes:
                raise
            return Outcome(None, req, tuple(changes), str(exc))
        if bool(row["fits"]):
            return Outcome(row, req, tuple(changes))
        advice = advised(cat, req)
        change, value, plan = (str(advice[k]) for k in ("change", "change_value", "change_plan"))
        step = applied(cat, req, change, value, plan)
        if isinstance(step, str):
            return Outcome(None, req, tuple(changes), step)
        req, change = step
        changes.append(change)
    return Outcome(None, req, tuple(changes), "no change the tables advise makes it fit")


def describe(row: pd.Series) -> str:
    """``model on N × GPU`` for notes and errors."""
    return f"{row['checkpoint']} on {int(row['server_gpus'])} × {row['gpu']}"
