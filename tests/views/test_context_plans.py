"""Tests for sizing.views.context_plans: each published context counted, judged and launched on its own plan,
over the whole matrix of the repository's catalog."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from sizing.engine.cases import COMBINATION
from sizing.views import context_plans as cp
from sizing.views.verdict import STARTS

KEYS = ["model", "checkpoint", "precision", "kv_cache_dtype"]


@pytest.fixture(scope="module")
def rows(real_ctx) -> pd.DataFrame:
    """The recommended rows of the repository's catalog, with their verdicts."""
    return cp.recommended_rows(real_ctx)


def node_pairs(rows: pd.DataFrame) -> list[tuple[str, str]]:
    """(multi-node server, the single-node server of its GPUs) for every multi-node server of ``rows``."""
    servers = rows[["server", "gpu", "gpus_per_node", "nodes"]].drop_duplicates("server")
    single = servers[servers["nodes"] == 1]
    pairs = []
    for server in servers[servers["nodes"] > 1].itertuples():
        same = single[(single["gpu"] == server.gpu) & (single["gpus_per_node"] == server.gpus_per_node)]
        pairs += [(str(server.server), str(same["server"].iloc[0]))] if len(same) else []
    return pairs


def test_no_multi_node_row_holds_fewer_sequences_than_its_single_node(rows, real_ctx) -> None:
    """Assert that at every context, every multi-node row holds at least the sequences of the same case on
    one node of its GPUs (each context on its own plan)."""
    pairs = node_pairs(rows)
    assert pairs, "the catalog has multi-node servers with a single-node twin"
    for multi, single in pairs:
        joined = rows[rows["server"] == multi].merge(
            rows[rows["server"] == single], on=KEYS, suffixes=("", "_one"), validate="one_to_one"
        )
        assert len(joined)
        for c in real_ctx.contexts:
            worse = joined[joined[f"sequences_{c}"] < joined[f"sequences_{c}_one"]]
            assert worse.empty, (multi, c, worse[KEYS].head(3).to_dict("records"))


def test_a_context_that_starts_on_any_plan_counts_sequences(rows, real_ctx) -> None:
    """Assert that wherever some plan of a combination starts at a context (one request or more, the 4K launch
    among them), the recommended row holds sequences there."""
    frame = real_ctx.frame
    for c in real_ctx.contexts:
        starts = (frame[f"sequences_{c}"] >= 1).groupby([frame[k] for k in COMBINATION]).any()
        held = rows.set_index(COMBINATION)[f"sequences_{c}"]
        missing = starts.reindex(held.index).to_numpy() & (held.to_numpy() < 1)
        assert not missing.any(), (c, held.index[missing][:3].tolist())


def test_the_verdict_names_the_longest_context_that_starts(rows, real_ctx) -> None:
    """Assert that a row that starts somewhere reads fits/tight (or borderline at its own length) and names
    the longest published context that starts (its own length when that is longer and starts)."""
    states = np.column_stack([rows[f"state_{c}"].isin(STARTS) for c in real_ctx.contexts])
    longest = np.max(np.where(states, real_ctx.contexts, 0), axis=1)
    starting = rows["verdict"].isin(STARTS).to_numpy()
    assert (rows["verdict_context"].to_numpy()[starting] >= longest[starting]).all()
    assert (longest[~starting & (rows["verdict"] != "borderline").to_numpy()] == 0).all()
    launch = rows["max_model_len"].to_numpy()
    named = rows["verdict_context"].to_numpy()
    assert ((named == longest) | (named == launch))[starting].all()


def test_each_context_reads_its_own_plan_row(rows, real_ctx) -> None:
    """Assert every per-context figure of a recommended row is that of the plan marked ``chosen_<c>`` of its
    combination, and at the catalog's length that plan is the chosen one."""
    frame = real_ctx.frame
    for c in real_ctx.contexts:
        own = frame[frame[f"chosen_{c}"]].set_index(COMBINATION)
        at = rows.set_index(COMBINATION)
        assert (own.loc[at.index, f"sequences_{c}"].to_numpy() == at[f"sequences_{c}"].to_numpy()).all()
        assert (own.loc[at.index, "plan"].to_numpy() == at[f"plan_{c}"].to_numpy()).all()
    length = int(real_ctx.catalog.assume("max_model_len"))
    same = rows[rows["max_model_len"] == length]
    assert (same[f"plan_{length}"] == same["plan"]).all() and (same[f"tp_{length}"] == same["tp"]).all()


def test_some_contexts_change_plan_and_plan_at_launches_it(rows, real_ctx) -> None:
    """Assert the catalog has rows whose 4K or 128K plan differs, and :func:`plan_at` gives that plan's sizes
    and the context as ``--max-model-len``."""
    short, long = min(real_ctx.contexts), max(real_ctx.contexts)
    changed = [r for r in rows.to_dict("records") if cp.differs_at(r, short) or cp.differs_at(r, long)]
    assert changed
    row = changed[0]
    c = short if cp.differs_at(row, short) else long
    launched = cp.plan_at(row, c)
    assert (launched["plan"], launched["tp"], launched["max_model_len"]) == (
        row[f"plan_{c}"],
        row[f"tp_{c}"],
        c,
    )


def test_a_frame_without_context_choices_gives_its_chosen_rows() -> None:
    """Assert a hand-made frame without ``chosen_<c>`` columns gives its chosen rows, verdicts left out."""
    df = pd.DataFrame({"chosen": [True, False], "verdict": ["fits", "no-fit"], "sequences_4096": [2.0, 0.0]})
    out = cp.recommended(df)
    assert list(out.columns) == ["chosen", "sequences_4096"] and len(out) == 1
