"""Throughput views: the ladders, chart points and worked-example steps the pages show (language-neutral).

Computed once per site context (:func:`throughput_view`, cached by the context's identity), from the
evaluated matrix and the examples: each offer server's ladder for the chat workload, over the models its
concurrency chart shows (:func:`sizing.views.series.chosen_rows`), and the worked example's breakdown.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
import pandas as pd

from sizing.catalog.loader import DEFAULT_DIR
from sizing.catalog.workloads import ClassConstants, Workload, load_constants, load_workloads
from sizing.engine import throughput as tp
from sizing.engine.throughput_frame import Shape, Target, ladder, users_within_target, workload_shapes
from sizing.engine.throughput_inputs import inputs
from sizing.views.bundle import SiteContext
from sizing.views.series import chosen_rows
from sizing.views.steps import Quantity, Step

PAGE_WORKLOAD = "chat"
"""The workload the per-server ladders and charts show."""


@dataclass(frozen=True, eq=False)
class ThroughputView:
    """Everything the throughput macros read: ladders by offer server, the constants and the workloads."""

    ladders: Mapping[str, pd.DataFrame]
    constants: Mapping[str, ClassConstants]
    workloads: Mapping[str, Workload]
    target: Target


def _workloads(ctx: SiteContext) -> dict[str, Workload]:
    return load_workloads(ctx.catalog_dir or DEFAULT_DIR)


@functools.lru_cache(maxsize=4)
def throughput_view(ctx: SiteContext) -> ThroughputView:
    """The view of ``ctx``: for every offer server, the chat ladder of its chart's models (chosen plans)."""
    cat, constants, workloads = ctx.catalog, load_constants(), _workloads(ctx)
    target = Target.of(cat)
    shapes = [s for s in workload_shapes(workloads) if s.workload == PAGE_WORKLOAD]
    ladders = {
        sid: ladder(chosen_rows(cat, ctx.frame, sid), cat, constants, shapes, target)
        for sid, server in cat.servers.items()
        if server.kind == "offer"
    }
    return ThroughputView(ladders, constants, workloads, target)


@functools.lru_cache(maxsize=4)
def chosen_ladders(ctx: SiteContext) -> pd.DataFrame:
    """The chat ladder of every recommended plan (``ctx.frame``'s chosen rows, in the matrix's order), each
    row's :data:`PAGE_WORKLOAD` concurrencies contiguous: what the fit tables and the explorer show."""
    view = throughput_view(ctx)
    shapes = [s for s in workload_shapes(view.workloads) if s.workload == PAGE_WORKLOAD]
    return ladder(ctx.frame[ctx.frame["chosen"]], ctx.catalog, dict(view.constants), shapes, view.target)


SPEED_KEY = ("checkpoint", "precision", "server", "kv_cache_dtype", "plan", "tp", "pp", "dp")
"""The columns that name one recommended plan (a fit-table row)."""


def speed_reason(frame: pd.DataFrame) -> pd.Series:
    """Why a ladder row has no published figure: ``no-peak`` (no dense peak for the GPU), ``no-start`` (no KV
    cache), ``roofline`` (an uncalibrated class: the bound only), else ""."""
    refused = frame["refused"].astype(str)
    reason = np.where(refused.str.startswith("no dense"), "no-peak", np.where(refused != "", "no-start", ""))
    return pd.Series(np.where((reason == "") & ~frame["calibrated"], "roofline", reason), index=frame.index)


@functools.lru_cache(maxsize=4)
def fit_speed(ctx: SiteContext) -> pd.DataFrame:
    """Per recommended plan (:data:`SPEED_KEY` columns): ``speed_users``, the most clients of the chat ladder
    whose cautious TPOT and TTFT meet the speed target (0 when none does; ``speed_top`` when that is the
    ladder's top step, so more may be served); ``speed_usd``, the cautious USD per
    million output tokens at that concurrency; NaN where there is no figure, ``speed_reason``
    (:func:`speed_reason`) and ``cost_reason`` (that, or ``slow``: no step meets the target, or ``no-price``:
    the server has no monthly price) saying why."""
    frame = chosen_ladders(ctx)
    frame = frame.assign(speed_reason=speed_reason(frame))
    users = users_within_target(frame).rename("speed_users").reset_index()
    at = frame[frame["within_target"]].drop_duplicates(list(SPEED_KEY), keep="last")
    out = users.merge(at[[*SPEED_KEY, "usd_per_mtok_high"]], on=list(SPEED_KEY), how="left")
    out = out.merge(frame.drop_duplicates(list(SPEED_KEY))[[*SPEED_KEY, "speed_reason"]], on=list(SPEED_KEY))
    shown = out["speed_reason"] == ""
    out["speed_users"] = out["speed_users"].astype(float).where(shown)
    out["speed_usd"] = out.pop("usd_per_mtok_high").where(shown)
    out["speed_top"] = out["speed_users"] == frame["concurrency"].max()
    out["cost_reason"] = np.select(
        [~shown, out["speed_users"] == 0, out["speed_usd"].isna()],
        [out["speed_reason"], "slow", "no-price"],
        "",
    )
    return out[[*SPEED_KEY, "speed_users", "speed_top", "speed_usd", "speed_reason", "cost_reason"]]


LADDER_VALUES = (
    "concurrency",
    "calibrated",
    "within_target",
    "output_tps",
    "output_tps_low",
    "tpot_s",
    "tpot_s_high",
    "ttft_s",
    "ttft_s_high",
    "usd_per_mtok",
    "usd_per_mtok_high",
)
"""The ladder columns a page shows (with ``limited_by`` and ``refused``): equal values, equal ladder."""


Ladder = list[dict[str, Any]]
"""One plan's chat ladder: a row (dict of :data:`sizing.engine.columns.THROUGHPUT` values, with
``speed_reason``) per concurrency step, ascending."""


@functools.lru_cache(maxsize=4)
def ladder_blocks(ctx: SiteContext) -> tuple[dict[str, list[Ladder]], list[int]]:
    """The distinct chat ladders of :func:`chosen_ladders` by server (each server's in order of first
    appearance) and, per recommended plan in the matrix's order, the index of its ladder among its server's:
    the explorer stores each distinct ladder once (plans share one where the figures shown are equal)."""
    frame = chosen_ladders(ctx)
    frame = frame.assign(speed_reason=speed_reason(frame))
    steps = int(frame["concurrency"].nunique())
    codes = [frame["limited_by"].cat.codes, frame["refused"].cat.codes, pd.factorize(frame["server"])[0]]
    values = np.column_stack([frame[list(LADDER_VALUES)].to_numpy(float), *codes])
    blocks = np.nan_to_num(values, nan=-1.0).reshape(-1, steps * values.shape[1])
    _, first, inverse = np.unique(blocks, axis=0, return_index=True, return_inverse=True)
    records = frame.iloc[(first[:, None] * steps + np.arange(steps)).reshape(-1)].to_dict("records")
    by_server: dict[str, list[Ladder]] = {}
    position = np.zeros(len(first), dtype=np.int64)
    for k in np.argsort(first):
        block = records[k * steps : (k + 1) * steps]
        ladders = by_server.setdefault(str(block[0]["server"]), [])
        position[k] = len(ladders)
        ladders.append(block)
    return by_server, [int(p) for p in position[inverse.reshape(-1)]]


def example_breakdown(ctx: SiteContext, example_id: str, concurrency: int) -> dict[str, Any]:
    """The worked example's figures at ``concurrency`` clients of the chat workload: the engine's
    breakdown (:func:`sizing.engine.throughput.breakdown`) plus the inputs and constants it used."""
    view = throughput_view(ctx)
    row = pd.DataFrame([ctx.example(example_id)])
    x = inputs(row, ctx.catalog, dict(view.constants))
    work = view.workloads[PAGE_WORKLOAD]
    shape = Shape(PAGE_WORKLOAD, work.input_len, work.output_len, concurrency)
    b = tp.breakdown(
        x,
        np.array([float(shape.input_len)]),
        np.array([float(shape.output_len)]),
        np.array([float(concurrency)]),
    )
    frame = ladder(row, ctx.catalog, dict(view.constants), [shape], view.target)
    return {
        **{k: float(np.asarray(v)[0]) for k, v in x.items() if np.asarray(v).dtype.kind in "fib"},
        **{k: float(v[0]) for k, v in b.items()},
        "shape": shape,
        "result": frame.iloc[0].to_dict(),
        "layers": float(ctx.example(example_id)["layers"]),
    }


def _q(value: float, unit: str) -> Quantity:
    return Quantity(float(value), unit)


def _step(key: str, result: Quantity, **terms: Quantity) -> Step:
    """The step ``tp_<key>``: label ``step_tp_<key>``, formula ``formula_tp_<key>`` when it has ``terms``."""
    return Step(
        f"tp_{key}", f"step_tp_{key}", (result,), f"formula_tp_{key}" if terms else "", tuple(terms.items())
    )


def memory_time_steps(b: Mapping[str, Any]) -> list[Step]:
    """Sequences running, bytes one decode step reads on one GPU, and the time that takes."""
    context = b["shape"].input_len + b["shape"].output_len / 2
    weights, cache = _q(b["weights_bytes"], "gb"), _q(b["cache_bytes"], "gb")
    per_token = _q(b["kv_bytes_per_token_layer"] * b["layers"], "kib")
    return [
        _step(
            "running",
            _q(b["running"], "count"),
            clients=_q(b["shape"].concurrency, "count"),
            seqs=_q(b["max_num_seqs"], "count"),
        ),
        _step("weights", weights),
        _step(
            "kv",
            cache,
            seqs=_q(b["running_engine"], "count"),
            context=_q(context, "tokens"),
            per_token=per_token,
        ),
        _step(
            "memory",
            _q(b["memory_s"], "ms"),
            weights=weights,
            eta_w=_q(b["eta_bw"], "plain2"),
            kv=cache,
            eta_kv=_q(b["eta_kv"], "plain2"),
            bandwidth=_q(b["bandwidth"] / 1e9, "gb_per_s"),
        ),
    ]


def step_time_steps(b: Mapping[str, Any]) -> list[Step]:
    """Compute and fixed costs of the decode step, the step, TPOT and speed per user."""
    return [
        _step(
            "compute",
            _q(b["compute_s"], "ms"),
            flops=_q(b["flops"], "tflop"),
            eta_c=_q(b["eta_compute"], "plain2"),
            peak=_q(b["peak_flops"], "tflops"),
        ),
        _step(
            "host",
            _q(b["host_s"] + b["comm_s"], "ms"),
            tau_l=_q(b["tau_layer_s"], "us"),
            layers=_q(b["stage_layers"], "layers"),
            tau_step=_q(b["tau_step_s"], "us"),
            tau_s=_q(b["tau_seq_s"], "us"),
            seqs=_q(b["running_engine"], "count"),
        ),
        Step("tp_step", "step_tp_step", (_q(b["plain_s"], "ms"),), "formula_tp_step"),
        _step("tpot", _q(b["tpot_s"], "ms")),
        _step("user", _q(b["user_tps"], "tokens_per_s"), tpot=_q(b["tpot_s"], "ms")),
    ]


def server_steps(b: Mapping[str, Any], hours: float, price: float) -> list[Step]:
    """TTFT, output tokens/s of the server, its cautious end and the cost per million output tokens."""
    result = b["result"]
    cautious = _q(result["output_tps_low"], "tokens_per_s")
    return [
        _step("ttft", _q(b["ttft_s"], "ms")),
        _step(
            "server",
            _q(b["output_tps"], "tokens_per_s"),
            seqs=_q(b["running"], "count"),
            output=_q(b["shape"].output_len, "count"),
            ttft=_q(b["ttft_s"], "ms"),
            tpot=_q(b["tpot_s"], "ms"),
        ),
        _step("cautious", cautious),
        _step(
            "cost",
            _q(result["usd_per_mtok_high"], "usd"),
            price=_q(price, "usd0"),
            tps=cautious,
            hours=_q(hours, "count"),
        ),
    ]


def throughput_steps(b: Mapping[str, Any], hours: float, price: float) -> list[Step]:
    """The worked example, bytes per step → step time → TPOT → tokens/s → $ per 1M output tokens."""
    return [*memory_time_steps(b), *step_time_steps(b), *server_steps(b, hours, price)]
