"""A server's chat ladder as plain records, what the throughput renderers format (no pandas in render).

The ladders are computed once per context by :func:`sizing.views.throughput.throughput_view`; these are
look-ups in them: one record per concurrency step of each chart model, in the view's order.
"""

from __future__ import annotations

from typing import Any

from sizing.views.bundle import SiteContext
from sizing.views.throughput import throughput_view

LadderRow = dict[str, Any]
"""One concurrency step: raw figures (tokens/s, seconds, USD), ids and flags."""


def server_ladder(ctx: SiteContext, server: str) -> list[LadderRow]:
    """The ladder rows of ``server``'s chart models, in the view's order; [] when it has none."""
    frame = throughput_view(ctx).ladders.get(server)
    return [] if frame is None else frame.to_dict("records")


def by_checkpoint(rows: list[LadderRow]) -> list[list[LadderRow]]:
    """``rows`` grouped by checkpoint (one chart line each), groups in first-seen order."""
    groups: dict[str, list[LadderRow]] = {}
    for row in rows:
        groups.setdefault(str(row["checkpoint"]), []).append(row)
    return list(groups.values())
