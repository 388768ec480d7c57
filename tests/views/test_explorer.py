"""Tests for sizing.views.explorer: the explorer's language-neutral file (strings by use, advice targets)."""

from __future__ import annotations

from sizing.site import context as site
from sizing.views import explorer as ve
from sizing.views import explorer_data as xd


def test_strings_are_ordered_by_use() -> None:
    """Assert the most-used string gets index 0, ties keep their first-seen order."""
    table = {"a": 0, "b": 1, "c": 2}
    assert ve.by_frequency(table, [[0, 1, 2], [2, 1], [2]]) == (["c", "b", "a"], [[2, 1, 0], [0, 1], [0]])


def test_each_suggestion_names_the_case_it_suggests(real_ctx: site.SiteContext) -> None:
    """Assert the explorer's advice gives, for the 8× H20 DeepSeek-V3 row, TP 8 at the highest utilisation
    on the same server, and that every target index points at an explorer list."""
    ctx = real_ctx
    rows = xd.explorer_rows(ctx)
    payload = ve.neutral_payload(ctx, rows)
    assert payload["advice"]
    for index, (kind, _, target) in payload["advice"].items():
        assert kind == rows.loc[int(index), "change"]
        if target is not None:
            assert len(target) == len(ve.ADVICE_TARGET) and target[0] >= 0 and target[3] >= 0
    h20 = rows[
        (rows["model"] == "deepseek-ai/DeepSeek-V3")
        & (rows["precision"] == "fp8")
        & (rows["server"] == "ref-8x-h20")
        & (rows["kv_cache_dtype"] == "fp8")
    ].index[0]
    kind, value, target = payload["advice"][str(h20)]
    highest = float(ctx.catalog.assume("gpu_memory_utilization_max"))
    assert (kind, value) == ("gpu-memory-utilization", highest)
    assert payload["servers"][target[3]] == "ref-8x-h20" and target[7:] == ["tp", 8, 1, 1]
