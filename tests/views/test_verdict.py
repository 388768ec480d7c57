"""Tests for sizing.views.verdict: the one rule, and every surface (fit tables, explorer, CLI, prose)
agreeing on it."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from sizing.catalog.settings import Settings
from sizing.engine.estimate import estimate
from sizing.render.explain import verdict_line
from sizing.render.table_specs import fit_spec
from sizing.render.tables import html_rows_table
from sizing.review.report import record
from sizing.site import context as site
from sizing.views import explorer_data as xd
from sizing.views import table_rows as tr
from sizing.views import verdict as v
from sizing.views.explorer import neutral_payload
from sizing.views.rows import rows_of


@pytest.fixture(scope="module")
def ctx() -> site.SiteContext:
    """The real catalog's site context."""
    return site.context()


def frame(**columns: list) -> pd.DataFrame:
    """Hand-made rows at a 32K launch, contexts 4K and 32K, one replica each."""
    base = {
        "fits": [True],
        "fits_optimistic": [True],
        "max_concurrency": [9.0],
        "dp": [1],
        "max_model_len": [32768],
        "max_context": [131072],
        "sequences_4096": [70.0],
        "sequences_32768": [9.0],
        "starts_optimistic_4096": [True],
        "starts_optimistic_32768": [True],
    }
    base.update(columns)
    return pd.DataFrame(base)


@pytest.mark.parametrize(
    ("columns", "expected"),
    [
        ({}, ("fits", 32768)),
        ({"max_concurrency": [3.0], "sequences_32768": [3.0]}, ("tight", 32768)),
        (
            {
                "fits": [False],
                "fits_optimistic": [False],
                "max_concurrency": [0.9],
                "sequences_32768": [0.0],
                "starts_optimistic_32768": [False],
            },
            ("fits", 4096),
        ),
        (
            {
                "fits": [False],
                "fits_optimistic": [False],
                "max_concurrency": [0.9],
                "sequences_32768": [0.0],
                "starts_optimistic_32768": [False],
                "sequences_4096": [2.0],
            },
            ("tight", 4096),
        ),
        (
            {
                "fits": [False],
                "fits_optimistic": [False],
                "max_concurrency": [0.0],
                "sequences_32768": [0.0],
                "sequences_4096": [0.0],
                "starts_optimistic_32768": [False],
            },
            ("borderline", 4096),
        ),
        (
            {"fits": [False], "max_concurrency": [0.0], "sequences_32768": [0.0], "sequences_4096": [2.0]},
            ("borderline", 32768),
        ),
        (
            {
                "fits": [False],
                "fits_optimistic": [False],
                "max_concurrency": [0.0],
                "sequences_32768": [0.0],
                "sequences_4096": [0.0],
                "starts_optimistic_4096": [False],
                "starts_optimistic_32768": [False],
            },
            ("no-fit", 0),
        ),
    ],
)
def test_the_rule(columns: dict, expected: tuple[str, int]) -> None:
    """Assert each verdict and the context it names: the launch state, else the longest shorter context."""
    got = v.verdicts(frame(**columns), [4096, 32768], 4)
    assert (got["verdict"].iloc[0], int(got["verdict_context"].iloc[0])) == expected


def test_fits_names_the_longest_context_that_starts() -> None:
    """Assert a row that starts at 128K reads "fits up to 128K" and that context's state is computed too."""
    df = frame(sequences_131072=[2.0], starts_optimistic_131072=[True])
    got = v.verdicts(df, [4096, 32768, 131072], 4)
    assert got["verdict_context"].tolist() == [131072] and got["state_131072"].tolist() == ["tight"]


def test_beyond_the_models_context() -> None:
    """Assert a context longer than the model's is 'beyond', never counted as starting."""
    got = v.verdicts(frame(max_context=[8192], max_model_len=[8192], sequences_32768=[0.0]), [4096, 32768], 4)
    assert got["state_32768"].tolist() == ["beyond"] and got["verdict_context"].tolist() == [8192]


def test_4k_counts_wherever_a_4k_launch_starts(ctx: site.SiteContext) -> None:
    """Assert the issue's tiers: 32B 4-bit on one 24 GB card, 70B 4-bit on one 48 GB card hold 4K requests."""
    df = ctx.frame[ctx.frame["chosen"] & (ctx.frame["kv_cache_dtype"] == "fp8")]
    cases = (("Qwen/Qwen3-32B", "ref-1x-rtx-4090d"), ("meta-llama/Llama-3.3-70B-Instruct", "ref-1x-l20"))
    for model, server in cases:
        row = df[(df["model"] == model) & (df["server"] == server) & (df["precision"] == "int4-awq")].iloc[0]
        assert row["sequences_4096"] >= 1 and row["verdict"] in v.STARTS and row["verdict_context"] == 4096
    every = ctx.frame
    starts = (every["concurrency_4096"] >= 1) & ~every["unsupported"]  # no kernel: holds nothing
    assert (every.loc[starts, "sequences_4096"] >= every.loc[starts, "dp"]).all()


def _badges(html: str) -> list[str]:
    return re.findall(r"sz-badge--([a-z-]+)", html)


def test_every_surface_agrees_over_the_whole_matrix(ctx: site.SiteContext) -> None:
    """Assert the fit tables (cells and badges), the explorer's statuses and payload, the CLI record and the
    prose give one verdict for every recommended row of every server."""
    explorer = xd.explorer_rows(ctx)
    payload = neutral_payload(ctx, explorer)
    statuses = {
        (r["checkpoint"], r["precision"], r["server"], r["kv_cache_dtype"]): [
            r[f"status_{c}"] for c in ctx.contexts
        ]
        for r in explorer.to_dict("records")
    }
    decoded = [[payload["statuses"][int(d)] for d in row[5]] for row in payload["rows"]]
    assert decoded == list(statuses.values())
    for server in ctx.catalog.servers:
        rows = tr.fit_rows(ctx, server)
        spec = fit_spec(server, ctx.contexts)
        assert _badges(html_rows_table(spec.columns, rows_of(rows), "en")) == rows["verdict"].tolist()
        for r in rows.to_dict("records"):
            seen = statuses[(r["checkpoint"], r["precision"], r["server"], r["kv_cache_dtype"])]
            at = {c: s for c, s in zip(ctx.contexts, seen)}
            judged_at = r["max_model_len"] if r["fits"] or r["fits_optimistic"] else r["verdict_context"]
            if judged_at in at:
                assert at[judged_at] == r["verdict"]
            if r["verdict"] == "no-fit":
                assert not set(seen) & {"fits", "tight", "borderline"}
            words = {
                "fits": "Fits",
                "tight": "Tight",
                "borderline": "Borderline",
                "no-fit": "Does not fit",
                "unsupported": "Not supported on this GPU",
            }
            assert verdict_line(r, "en").split(" ", 1)[1].startswith(words[r["verdict"]])


def test_the_cli_record_gives_the_launch_state(ctx: site.SiteContext) -> None:
    """Assert ``estimate --json``'s verdict is the state at its own length, equal to the tables' where it
    starts there, over every recommended row with the summary KV cache type."""
    df = ctx.frame[ctx.frame["chosen"] & (ctx.frame["kv_cache_dtype"] == "fp8")]
    launch = v.launch_state(df, v.tight_below(ctx.catalog.assume))
    assert set(launch) <= set(v.STATES)
    same = np.isin(launch, v.STARTS) | (launch == "borderline")
    assert (df["verdict"].to_numpy()[same] == launch[same]).all()
    for (_, row), state in list(zip(df.iterrows(), launch))[::40]:
        rec = record(row, ctx.catalog)
        assert rec["verdict"] == state
        assert rec["advice"] is None or rec["advice"]["kind"] == row["change"]


@pytest.mark.parametrize(
    ("model", "server", "length"),
    [
        ("Qwen/Qwen3-32B-AWQ", "ref-1x-rtx-4090d", 4096),
        ("deepseek-ai/DeepSeek-V3", "ref-8x-h20", 32768),
    ],
)
def test_an_estimate_agrees_with_the_tables(
    ctx: site.SiteContext, model: str, server: str, length: int
) -> None:
    """Assert a real ``estimate`` at one context gives the state the fit tables show for that row there."""
    f = ctx.frame
    row = f[
        f["chosen"] & (f["checkpoint"] == model) & (f["server"] == server) & (f["kv_cache_dtype"] == "fp8")
    ]
    expected = row[f"state_{length}"].iloc[0]
    rec = record(
        estimate(
            ctx.catalog, Settings(model=model, server=server, max_model_len=length, kv_cache_dtype="fp8")
        ),
        ctx.catalog,
    )
    assert rec["verdict"] == expected
    if expected == "no-fit":
        assert rec["advice"]["kind"] == "gpu-memory-utilization" and rec["advice"]["target"]["tp"] == 8


def test_a_format_without_a_kernel_is_unsupported_at_every_context_not_no_fit() -> None:
    """Assert a row the engine marks ``unsupported`` reads so in its verdict and every context, whatever it
    holds."""
    out = v.verdicts(frame(unsupported=[True]), [4096, 32768], 4)
    assert out.iloc[0].to_dict() == {
        "verdict": "unsupported",
        "verdict_context": 0,
        "state_4096": "unsupported",
        "state_32768": "unsupported",
    }
    assert v.launch_verdict(frame(unsupported=[True]).iloc[0], 4) == "unsupported"
    assert v.verdicts(frame(unsupported=[False]), [4096, 32768], 4)["verdict"].iloc[0] == "fits"
