"""Tests for sizing.views.ladder_rows: a server's chat ladder as records, grouped by checkpoint."""

from __future__ import annotations

from sizing.site import context as site
from sizing.views.ladder_rows import by_checkpoint, server_ladder
from sizing.views.throughput import throughput_view


def test_a_server_ladder_is_the_views_rows_in_order(real_ctx: site.SiteContext) -> None:
    """Assert the records are the view's ladder rows of that server, in order; none for an unknown one."""
    server, frame = next(iter(throughput_view(real_ctx).ladders.items()))
    rows = server_ladder(real_ctx, server)
    assert [r["concurrency"] for r in rows] == frame["concurrency"].tolist()
    assert server_ladder(real_ctx, "no-such-server") == []


def test_groups_keep_first_seen_order() -> None:
    """Assert rows group by checkpoint, groups in the order their first row comes."""
    rows = [{"checkpoint": "b", "i": 0}, {"checkpoint": "a", "i": 1}, {"checkpoint": "b", "i": 2}]
    assert [[r["i"] for r in g] for g in by_checkpoint(rows)] == [[0, 2], [1]]
