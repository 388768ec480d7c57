"""Throughput views: the offer servers' ladders and the worked example's steps, on the test catalog."""

from __future__ import annotations

from pathlib import Path

import pytest

from sizing.site import context as site
from sizing.views.throughput import example_breakdown, throughput_steps, throughput_view

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "site_catalog"


@pytest.fixture()
def ctx(monkeypatch: pytest.MonkeyPatch) -> site.SiteContext:
    monkeypatch.setenv(site.ENV_VAR, str(FIXTURE))
    return site.active_context()


def test_every_offer_server_has_a_chat_ladder(ctx: site.SiteContext) -> None:
    view = throughput_view(ctx)
    assert set(view.ladders) == {"gpu-l40s", "gpu-rtx-pro"}
    frame = view.ladders["gpu-l40s"]
    assert set(frame["workload"]) == {"chat"} and list(frame["concurrency"].unique()) == [1, 4, 16, 64, 256]
    for _, rows in frame.groupby("checkpoint"):
        assert rows["output_tps"].is_monotonic_increasing and rows["tpot_s"].is_monotonic_increasing
    assert throughput_view(ctx) is view  # computed once per context


def test_worked_example_steps_add_up(ctx: site.SiteContext) -> None:
    b = example_breakdown(ctx, "example-1", 16)
    steps = {s.id: s for s in throughput_steps(b, 730.0, 979.0)}
    assert steps["tp_running"].result[0].value == 16
    memory = (b["weights_bytes"] / b["eta_bw"] + b["cache_bytes"] / b["eta_kv"]) / b["bandwidth"]
    assert steps["tp_memory"].result[0].value == pytest.approx(memory)
    assert steps["tp_user"].result[0].value == pytest.approx(1 / steps["tp_tpot"].result[0].value)
    tps = steps["tp_cautious"].result[0].value
    assert steps["tp_cost"].result[0].value == pytest.approx(979.0 / (tps * 730 * 3600) * 1e6)
    assert tps < steps["tp_server"].result[0].value  # the cautious end is below the estimate


def test_fit_speed_equals_the_engine_ladder(ctx: site.SiteContext) -> None:
    """Users within the target and the cautious cost are the engine's own ladder figures, row by row."""
    from sizing.engine.throughput_frame import Target, ladder, workload_shapes
    from sizing.views.throughput import chosen_ladders, fit_speed

    speed = fit_speed(ctx).set_index(["checkpoint", "server", "kv_cache_dtype"])
    row = ctx.frame[
        ctx.frame["chosen"]
        & (ctx.frame["checkpoint"] == "Qwen/Qwen3-14B-FP8")
        & (ctx.frame["server"] == "gpu-l40s")
        & (ctx.frame["kv_cache_dtype"] == "fp8")
    ]
    view = throughput_view(ctx)
    shapes = [s for s in workload_shapes(view.workloads) if s.workload == "chat"]
    own = ladder(row, ctx.catalog, dict(view.constants), shapes, Target.of(ctx.catalog))
    served = own[own["within_target"]].iloc[-1]
    got = speed.loc[("Qwen/Qwen3-14B-FP8", "gpu-l40s", "fp8")]
    assert got["speed_users"] == served["concurrency"] > 0 and got["speed_reason"] == ""
    assert got["speed_usd"] == pytest.approx(served["usd_per_mtok_high"])
    assert got["speed_usd"] > served["usd_per_mtok"]  # the cautious end costs more than the estimate
    assert len(chosen_ladders(ctx)) == 5 * int(ctx.frame["chosen"].sum())


def test_fit_speed_says_why_a_figure_is_missing(ctx: site.SiteContext) -> None:
    from sizing.views.throughput import fit_speed

    speed = fit_speed(ctx).set_index(["checkpoint", "server", "kv_cache_dtype"])
    slow = speed.loc[("Qwen/Qwen3-32B-FP8", "gpu-l40s", "fp8")]  # 32 GB of weights read per step at 864 GB/s
    assert (
        slow["speed_users"] == 0 and slow["cost_reason"] == "slow" and slow["speed_usd"] != slow["speed_usd"]
    )
    unpriced = speed.loc[("Qwen/Qwen3-14B-FP8", "ref-8x-h100", "fp8")]
    assert unpriced["speed_users"] > 0 and unpriced["cost_reason"] == "no-price"
    big = speed.loc[("deepseek-ai/DeepSeek-V3", "gpu-l40s", "fp8")]
    assert (
        big["speed_reason"] == big["cost_reason"] == "no-start" and big["speed_users"] != big["speed_users"]
    )
