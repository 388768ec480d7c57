"""Tests for sizing.views.explorer_data: the explorer's status rule and its best row per model and server."""

from __future__ import annotations

import pytest

from sizing.site import context as site
from sizing.views import explorer_data as xd


@pytest.fixture(scope="module")
def ctx() -> site.SiteContext:
    """The real catalog's site context."""
    return site.context()


@pytest.fixture(scope="module")
def rows(ctx: site.SiteContext):
    """The explorer rows of the real catalog."""
    return xd.explorer_rows(ctx)


def test_status_is_the_verdicts_state_at_each_context(ctx: site.SiteContext, rows) -> None:
    """Assert the explorer's status at a context is sizing.views.verdict's state there (one rule)."""
    for c in ctx.contexts:
        assert rows[f"status_{c}"].tolist() == rows[f"state_{c}"].tolist()


def test_rows_are_every_recommended_plan_with_a_status_per_context(ctx: site.SiteContext, rows) -> None:
    """Assert one row per recommended plan (both KV types), each with a known status at every context."""
    assert len(rows) == int(ctx.frame["chosen"].sum())
    assert set(rows["kv_cache_dtype"]) == set(ctx.catalog.assume("kv_cache_dtypes"))
    for c in ctx.contexts:
        assert set(rows[f"status_{c}"]) <= set(xd.STATUSES)
        fitting = rows[rows[f"status_{c}"].isin(["fits", "tight"])]
        assert (fitting[f"sequences_{c}"] >= 1).all()
    total = rows["weights_bytes"] + rows["overhead_bytes"] + rows["kv_cache_bytes"].clip(lower=0)
    assert (total[rows["fits"]] <= rows["budget_bytes"][rows["fits"]] * 1.0001).all()


def test_best_row_holds_the_most_sequences(rows) -> None:
    """Assert the heatmap's row for (model, server) holds at least as many sequences as any that fits."""
    best = xd.best_rows(rows, 32768)
    assert len(best) == len(rows.drop_duplicates(["model", "server"]))
    for (model, server), index in list(best.items())[:200]:
        group = rows[(rows["model"] == model) & (rows["server"] == server)]
        fitting = group[group["status_32768"].isin(["fits", "tight"])]
        if len(fitting):
            assert rows.loc[index, "sequences_32768"] == fitting["sequences_32768"].max()
        else:
            assert index == group.index[0]
