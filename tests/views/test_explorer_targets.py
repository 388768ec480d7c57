"""Tests of sizing/views/explorer_targets.py: where each explorer suggestion leads, on the real catalog."""

from __future__ import annotations

import pytest

from sizing.site import context as site
from sizing.views import explorer_data as xd
from sizing.views.explorer_targets import Lookup, target, targets

CAT = site.context().catalog


@pytest.fixture(scope="module")
def look() -> Lookup:
    ctx = site.context()
    return Lookup(xd.explorer_rows(ctx), ctx.contexts)


def _index(look: Lookup, checkpoint: str, server: str, kv: str = "fp8") -> int:
    return next(
        i
        for i, r in enumerate(look.records)
        if (r["checkpoint"], r["server"], r["kv_cache_dtype"]) == (checkpoint, server, kv)
    )


def test_more_gpus_leads_to_the_smallest_server_of_that_gpu_that_holds_it(look: Lookup) -> None:
    """Assert Llama 3.3 70B BF16 on one L40S ("needs 4 GPUs") leads to the 4× L40S server at 32K."""
    i = _index(look, "meta-llama/Llama-3.3-70B-Instruct", "gpu-l40s")
    assert look.records[i]["change"] == "more-gpus" and int(look.records[i]["change_value"]) == 4
    to = target(look, CAT, i, 32768)
    assert to is not None and to[1] == 32768
    assert look.records[to[0]]["server"] == "ref-4x-l40s" and look.fits(to[0], 32768)


def test_a_checkpoint_suggestion_leads_to_that_checkpoint_on_the_same_server(look: Lookup) -> None:
    """Assert a "use checkpoint X" row leads to X on the same server and KV type, where X fits."""
    rows = [
        i
        for i, r in enumerate(look.records)
        if r["change"] == "checkpoint"
        and r["status_4096"] == "no-fit"
        and not any(look.fits(i, c) for c in look.contexts)
    ]
    led = [(i, target(look, CAT, i, 4096)) for i in rows]
    hits = [(i, to) for i, to in led if to is not None]
    assert len(hits) > len(rows) / 2
    for i, to in hits:
        a, b = look.records[i], look.records[to[0]]
        assert (b["server"], b["kv_cache_dtype"]) == (a["server"], a["kv_cache_dtype"])
        assert str(a["change_value"]).startswith(f"{b['checkpoint']} (") and look.fits(to[0], 4096)


def test_a_row_that_fits_shorter_leads_to_its_longest_fitting_context(look: Lookup) -> None:
    """Assert a row that starts at 32K (tight: every catalog row fitting at 32K holds 128K on some plan) but
    not at 128K leads to itself at 32K; fitting rows lead nowhere."""
    i = next(
        i
        for i, r in enumerate(look.records)
        if r["fits"] and r["status_32768"] == "tight" and r["status_131072"] == "no-fit"
    )
    assert target(look, CAT, i, 131072) == [i, 32768]
    assert target(look, CAT, i, 32768) is None


def test_every_target_fits_at_its_context(look: Lookup) -> None:
    """Assert no suggestion leads to a case that does not fit."""
    ctx = site.context()
    for per_context in targets(xd.explorer_rows(ctx), ctx.contexts, ctx.catalog):
        for to in per_context:
            assert to is None or look.fits(to[0], to[1])
