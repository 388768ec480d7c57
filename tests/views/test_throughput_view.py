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
