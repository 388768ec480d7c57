"""The fit tables' speed and cost cells: users within the speed target and USD per million output tokens.

Both come from :func:`sizing.views.throughput.fit_speed` (the cautious end of the band, chat workload); a row
without a figure shows a dash with the reason in the page's language, a row that does not fit a bare dash.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sizing.render.i18n import fmt_money, fmt_number, t

REASON_FIELD = {"users": "speed_reason", "usd": "cost_reason"}
"""The row field that says why a cell of each kind has no figure
(:func:`sizing.views.throughput.fit_speed`)."""

USD_DECIMALS = 3
"""Digits after the point of a cost per million tokens (as the Throughput and cost page's ladder)."""


def is_missing(value: Any) -> bool:
    """None or NaN."""
    return value is None or value != value


def speed_cell(kind: str, value: Any, row: Mapping[str, Any], lang: str, dash: str) -> str:
    """The text of a ``users`` or ``usd`` cell: the figure (users ``≥ n`` when the ladder's top step meets the
    target), else ``dash`` and the translated reason (bare ``dash`` when the row does not fit, has no reason,
    or the users cell beside it gives the same one)."""
    if not is_missing(value):
        if kind == "users":
            return ("≥\u00a0" if row.get("speed_top") else "") + fmt_number(int(value), lang)
        return fmt_money(float(value), "USD", lang, USD_DECIMALS)
    reason = str(row.get(REASON_FIELD[kind]) or "")
    said = kind == "usd" and reason == row.get(REASON_FIELD["users"])
    if not reason or said or row.get("verdict") == "no-fit":
        return dash
    return f"{dash} {t(lang, 'speed_reason_' + reason.replace('-', '_'))}"
