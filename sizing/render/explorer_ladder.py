"""The explorer's chat ladders: per server and language, each distinct ladder of the server's plans
(:func:`sizing.views.throughput.ladder_blocks`) formatted, in a file of its own (:func:`file_name`, fetched
when an answer shows that server: the explorer's first load does not grow with the ladders).

Each ladder is ``[note, cell, cell, …]`` (the note says the figures are the band's cautious end, or the
roofline bound, and what ✓ marks; then, per concurrency step, the cells of the Throughput and cost page's
table, :func:`sizing.render.throughput_render.ladder_cells`, without its limit) or ``[reason]`` where the
engine gives no figure. explorer.js lays the cells out, :data:`STEP_CELLS` to a row, under :data:`HEAD`.
"""

from __future__ import annotations

from sizing.render.i18n import t
from sizing.render.throughput_render import band_ends, ladder_cells, speed_target
from sizing.views.bundle import SiteContext
from sizing.views.throughput import Ladder, ladder_blocks

HEAD = ("col_tp_users", "col_tp_server", "col_tp_user", "col_tp_ttft", "col_tp_tpot", "col_tp_cost")
"""The ladder's column headers (message keys): concurrency, tokens/s of the server and per user, TTFT, TPOT,
USD per million output tokens."""

STEP_CELLS = len(HEAD)


def ladder_notes(ctx: SiteContext, lang: str) -> tuple[str, str]:
    """The note under a calibrated ladder and under a roofline one, each with the speed target."""
    target = " " + t(lang, "tp_ladder_target_note", target=speed_target(lang, ctx))
    return t(lang, "tp_ladder_note", **band_ends(lang, ctx)) + target, t(
        lang, "tp_ladder_note_roofline"
    ) + target


def ladder_strings(block: Ladder, lang: str, notes: tuple[str, str]) -> list[str]:
    """One ladder's strings: the reason it has no figure, or its note and every step's cells."""
    reason = str(block[0]["speed_reason"])
    if reason in ("no-peak", "no-start"):
        return ["— " + t(lang, "speed_reason_" + reason.replace("-", "_"))]
    cells = [cell for row in block for cell in ladder_cells(lang, row)[:STEP_CELLS]]
    return [notes[reason == "roofline"], *cells]


def file_name(server: str, lang: str) -> str:
    """The data file of ``server``'s ladders in ``lang`` (explorer.js fetches it when the answer shows it)."""
    return f"ladder.{server}.{lang}.json"


def server_ladders(ctx: SiteContext, lang: str) -> dict[str, list[list[str]]]:
    """Per server (by :func:`file_name`), the strings of each of its ladders, in the neutral rows' order."""
    notes = ladder_notes(ctx, lang)
    by_server, _ = ladder_blocks(ctx)
    return {
        file_name(sid, lang): [ladder_strings(b, lang, notes) for b in blocks]
        for sid, blocks in by_server.items()
    }
