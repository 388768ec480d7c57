"""The fit tables' speed and cost cells: figures, ≥ at the ladder's top, dashes with a translated reason."""

from __future__ import annotations

import math

from sizing.render.speed_cells import speed_cell


def test_figures_are_formatted_for_the_language() -> None:
    row = {"speed_top": False, "verdict": "fits"}
    assert speed_cell("users", 64.0, row, "ru", "—") == "64"
    assert speed_cell("usd", 0.1984, row, "en", "—") == "$0.198"
    assert speed_cell("usd", 0.1984, row, "ru", "—") == "0,198\xa0$"
    assert speed_cell("users", 256.0, {**row, "speed_top": True}, "en", "—") == "≥\xa0256"


def test_a_missing_figure_gives_its_reason_once() -> None:
    row = {"verdict": "fits", "speed_reason": "no-peak", "cost_reason": "no-peak"}
    assert speed_cell("users", math.nan, row, "en", "—") == "— (no peak TFLOP/s)"
    assert speed_cell("users", math.nan, row, "zh", "—") == "— （无峰值算力）"
    assert speed_cell("usd", math.nan, row, "en", "—") == "—"  # said in the users cell beside it
    slow = {"verdict": "fits", "speed_reason": "", "cost_reason": "slow"}
    assert speed_cell("usd", math.nan, slow, "ru", "—") == "— (слишком медленно)"
    assert speed_cell("users", math.nan, {**row, "verdict": "no-fit"}, "en", "—") == "—"
