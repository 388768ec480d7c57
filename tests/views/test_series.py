"""Tests of :mod:`sizing.views.series`: the concurrency chart follows each published context's plan."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from sizing.views import context_plans as cp
from sizing.views import series as sv


def test_the_chart_passes_through_the_tables_count_at_every_published_context(real) -> None:
    """Assert, on every server of the repository catalog, each line's value at a published context is that
    context's plan's concurrency × its DP replicas, the figure the tables floor into sequences."""
    rec = cp.recommended_rows(real)
    rec = rec[rec["fits"] & (rec["kv_cache_dtype"] == sv.summary_kv(real.catalog.assume("kv_cache_dtypes")))]
    rec = rec.set_index(["checkpoint", "server", "precision"])
    precision = {spec.name: pid for pid, spec in real.catalog.precisions.items()}
    checked = 0
    for server in real.catalog.servers:
        for line in sv.concurrency_series(real.catalog, real.frame, server):
            row = rec.loc[(line.checkpoint, server, precision[line.precision])]
            for c in set(line.contexts) & set(real.contexts):
                expected = float(row[f"concurrency_{c}"]) * int(row[f"dp_{c}"])
                assert math.isclose(line.values[line.contexts.index(c)], expected, rel_tol=1e-9), (server, c)
                checked += 1
    assert checked > 500


def test_a_line_names_the_plan_it_changes_to() -> None:
    """Assert the plan changes name each point where the drawn plan changes, and only those."""
    assert sv.plan_changes(["TP 2"] * 3, [4096, 32768, 131072]) == ()
    assert sv.plan_changes(["", "", "TP 2"], [4096, 65536, 131072]) == ((131072, "TP 2"),)


def test_a_frame_without_context_choices_draws_its_chosen_row() -> None:
    """Assert every point of a row is drawn from that row where the frame has no ``chosen_<c>`` column."""
    df = pd.DataFrame({"chosen": [True, True]})
    assert sv.point_rows(df, np.array([0, 1]), [[1024, 2048], [1024]]).tolist() == [0, 0, 1]
