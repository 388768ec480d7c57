"""The plan comparison view: every plan of one checkpoint on one server, the chosen one explained."""

from __future__ import annotations

from sizing.site import context as site
from sizing.views.plan_rows import plan_comparison_rows


def test_deepseek_r1_on_8x_h200_lists_tp8_and_dp8_ep_with_the_reason_on_the_winner():
    rows = plan_comparison_rows(site.context(), "671b-8xh200")
    plans = list(zip(rows["plan"], rows["tp"], rows["dp"]))
    assert ("tp", 8, 1) in plans and ("dp-ep", 1, 8) in plans
    assert list(rows["rank"]) == sorted(rows["rank"])
    winner = rows[rows["chosen"]]
    assert (
        len(winner) == 1
        and winner["plan"].iloc[0] == "dp-ep"
        and winner["reason"].iloc[0] == "ep-for-capacity"
    )
    assert (rows.loc[~rows["chosen"], "change"] == "").all() and (rows["kv_cache_bytes"] >= 0).all()
    assert winner["seq_32768"].iloc[0] > rows.loc[rows["plan"] == "tp", "seq_32768"].max()
