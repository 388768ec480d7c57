"""The explorer's chat ladders: one file per server and language, the Throughput and cost page's cells."""

from __future__ import annotations

import pytest

from sizing.render import explorer_render as xr
from sizing.render.explorer_ladder import STEP_CELLS, file_name, ladder_notes, server_ladders
from sizing.render.throughput_render import ladder_cells
from sizing.site import context as site
from sizing.views.throughput import chosen_ladders, ladder_blocks


@pytest.fixture(scope="module")
def ctx(prepared_ctx: site.SiteContext) -> site.SiteContext:
    """The real catalog's site context, prepared as the build prepares it (the explorer's files too)."""
    return prepared_ctx


def test_every_plan_points_at_its_own_ladder(ctx: site.SiteContext) -> None:
    """Each recommended plan's index finds, in its server's ladders, the engine's figures of that plan."""
    by_server, index = ladder_blocks(ctx)
    frame = chosen_ladders(ctx)
    assert len(index) == int(ctx.frame["chosen"].sum()) == len(frame) // 5
    for plan in (0, len(index) // 3, len(index) - 1):
        own = frame.iloc[plan * 5 : plan * 5 + 5]
        block = by_server[str(own["server"].iloc[0])][index[plan]]
        assert [r["concurrency"] for r in block] == [1, 4, 16, 64, 256]
        assert [r["output_tps_low"] for r in block] == pytest.approx(list(own["output_tps_low"]), nan_ok=True)


@pytest.mark.parametrize("lang", ["en", "zh", "ru"])
def test_ladder_strings_are_the_page_cells_with_the_cautious_note(ctx: site.SiteContext, lang: str) -> None:
    by_server, _ = ladder_blocks(ctx)
    block = by_server["gpu-l40s"][
        next(
            i
            for i, b in enumerate(by_server["gpu-l40s"])
            if b[0]["calibrated"] and b[0]["speed_reason"] == ""
        )
    ]
    strings = server_ladders(ctx, lang)[file_name("gpu-l40s", lang)]
    found = next(s for s in strings if s[1 : 1 + STEP_CELLS] == ladder_cells(lang, block[0])[:STEP_CELLS])
    assert found[0] == ladder_notes(ctx, lang)[0] and len(found) == 1 + 5 * STEP_CELLS
    assert found[1 + 5 * STEP_CELLS - 1] == ladder_cells(lang, block[-1])[STEP_CELLS - 1]  # $ per 1M at 256


def test_a_gpu_without_peaks_has_a_reason_not_a_ladder(ctx: site.SiteContext) -> None:
    strings = server_ladders(ctx, "en")[file_name("ref-1x-rtx-4090", "en")]
    assert strings and all(s == ["— (no peak TFLOP/s)"] for s in strings)


def test_ladder_files_are_small_and_the_page_links_them(ctx: site.SiteContext) -> None:
    """One file per server and language, each a few tens of kB; the page says where they are."""
    files = {k: v for k, v in xr.explorer_files(ctx).items() if k.startswith("ladder.")}
    assert (
        len(files) == 3 * len(ladder_blocks(ctx)[0]) and max(len(v.encode()) for v in files.values()) < 80_000
    )
    assert 'data-ladders="../data/ladder.{server}.ru.json"' in xr.explorer_page(ctx, "ru", "../")
