"""Text for a terminal: tables and labelled summaries laid out by `rich <https://rich.readthedocs.io>`_.

Render layer: every function takes values already computed (rows, records, formatted cells) and
returns text wrapped to ``width`` columns (default: the terminal's, 100 when output is not a
terminal). No colours or markup are emitted, so the text is the same in a pipe and in a file.
"""

from __future__ import annotations

import io
import shutil
from typing import Iterable, Sequence

from rich.console import Console
from rich.table import Table

PIPE_WIDTH = 100
MIN_WIDTH = 40
MAX_WIDTH = 400
"""The widest layout, in columns: a larger ``COLUMNS`` (``99999999``) is taken as this."""
SHORT_CELL = 12
"""Text cells up to this long are never broken; longer ones fold to share the rest."""
FOLDED_MIN = 16


def width_of(width: int | None = None) -> int:
    """``width``, else the terminal's width (``COLUMNS`` honoured), else :data:`PIPE_WIDTH`; always within
    :data:`MIN_WIDTH`–:data:`MAX_WIDTH`."""
    chosen = width or shutil.get_terminal_size((PIPE_WIDTH, 24)).columns
    return min(max(chosen, MIN_WIDTH), MAX_WIDTH)


def render(*items: object, width: int | None = None) -> str:
    """The plain text of rich renderables (tables, strings), ``width`` columns wide."""
    buffer = io.StringIO()
    console = Console(
        file=buffer,
        width=width_of(width),
        color_system=None,
        force_terminal=False,
        emoji=False,
        markup=False,
        highlight=False,
        soft_wrap=False,
    )
    for item in items:
        console.print(item)
    return "\n".join(line.rstrip() for line in buffer.getvalue().splitlines()) + "\n"


def grid_table(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    numeric: Sequence[bool] = (),
    first_width: int | None = None,
    whole: Sequence[bool] = (),
    widths: Sequence[int] | None = None,
    show_header: bool = True,
) -> Table:
    """A table without a box: numbers right-aligned and never broken (headers wrap at spaces instead);
    longer text (advice) folded to share what width is left. The first column and those flagged
    ``whole`` (ids) are kept whole, the first unless ``first_width`` is given; then it folds at that width."""
    table = Table(
        box=None,
        show_edge=False,
        pad_edge=False,
        header_style="",
        expand=True,
        padding=(0, 1),
        show_header=show_header,
    )
    for i, name in enumerate(headers):
        right = i < len(numeric) and numeric[i]
        cells, ident = [r[i] for r in rows], i == 0 or (i < len(whole) and whole[i])
        fixed = right or ident or max((len(c) for c in cells), default=0) <= SHORT_CELL
        least = first_width if i == 0 and first_width else _min_width(name, cells, right, ident)
        if widths is not None:  # shared by several tables (grouped_text): every column as given
            least, fixed = widths[i], fixed or i < len(headers) - 1
        table.add_column(
            name,
            justify="right" if right else "left",
            overflow="fold",
            min_width=least,
            width=least if fixed else None,
            ratio=None if fixed else 1,
        )
    for row in rows:
        table.add_row(*row)
    return table


def _min_width(header: str, cells: Sequence[str], numeric: bool, first: bool = False) -> int:
    """The narrowest a column may be: whole numbers, ids (the first column) and short text, the longest
    header word; FOLDED_MIN for other text."""
    longest = max((len(c) for c in cells), default=0)
    word = max((len(w) for w in header.split()), default=0)
    return max(longest if numeric or first or longest <= SHORT_CELL else min(longest, FOLDED_MIN), word)


def _needs(
    headers: Sequence[str], rows: Sequence[Sequence[str]], numeric: Sequence[bool], whole: Sequence[bool] = ()
) -> list[int]:
    """Every column's :func:`_min_width` (``whole`` columns, like the first, at their longest cell)."""
    return [
        _min_width(
            h, [r[i] for r in rows], i < len(numeric) and numeric[i], i == 0 or (i < len(whole) and whole[i])
        )
        for i, h in enumerate(headers)
    ]


def fitting_columns(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    numeric: Sequence[bool],
    drop_order: Sequence[str],
    width: int,
    whole: Sequence[bool] = (),
) -> list[int]:
    """Indexes of the columns kept at ``width``: columns named in ``drop_order`` go first, in that order."""
    keep, need = list(range(len(headers))), _needs(headers, rows, numeric, whole)
    for name in drop_order:
        if sum(need[i] + 2 for i in keep) <= width or name not in headers:
            continue
        keep.remove(headers.index(name))
    return keep


def first_column_width(needs: Sequence[int], width: int) -> int | None:
    """The width the first column (ids) folds at when the columns' ``needs`` exceed ``width`` even after
    leaving columns out (None: it stays whole); never under :data:`FOLDED_MIN`."""
    if sum(n + 2 for n in needs) <= width:
        return None
    return max(FOLDED_MIN, min(needs[0], width - sum(n + 2 for n in needs[1:]) - 2))


def text_table(
    headers: Sequence[str],
    rows: Iterable[Sequence[str]],
    numeric: Sequence[bool] = (),
    width: int | None = None,
    drop_order: Sequence[str] = (),
    fold_first: bool = False,
    whole: Sequence[bool] = (),
) -> str:
    """:func:`grid_table` as text; columns of ``drop_order`` are left out (and named) when it is too wide.
    With ``fold_first``, the first column folds when the rest would otherwise be crushed below
    :data:`FOLDED_MIN` (see :func:`first_column_width`); without it the first column stays whole.
    Columns flagged ``whole`` (ids) are never broken."""
    rows, width = [list(r) for r in rows], width_of(width)
    keep = fitting_columns(headers, rows, numeric, drop_order, width, whole)
    left_out = [h for i, h in enumerate(headers) if i not in keep]
    kept = (
        [headers[i] for i in keep],
        [[r[i] for i in keep] for r in rows],
        [numeric[i] if i < len(numeric) else False for i in keep],
    )
    kept_whole = [i < len(whole) and whole[i] for i in keep]
    first = first_column_width(_needs(*kept, kept_whole), width) if fold_first else None
    table = grid_table(*kept, first_width=first, whole=kept_whole)
    note = (
        f"({len(left_out)} column(s) left out at this width: {', '.join(left_out)}; "
        "a wider terminal or --format markdown/csv shows them)"
        if left_out
        else ""
    )
    return render(table, *([note] if note else []), width=width)


def fits_whole(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    numeric: Sequence[bool],
    whole: Sequence[bool],
    essential: Sequence[str],
    width: int | None = None,
) -> bool:
    """Whether the ``essential`` columns (whole ids among them) fit side by side in ``width`` columns."""
    need = _needs(headers, rows, numeric, whole)
    return sum(need[i] + 2 for i, h in enumerate(headers) if h in essential) <= width_of(width)


def grouped_text(
    title: str,
    groups: Sequence[tuple[str, Sequence[Sequence[str]]]],
    headers: Sequence[str],
    numeric: Sequence[bool] = (),
    width: int | None = None,
    drop_order: Sequence[str] = (),
) -> str:
    """Rows in groups, each under a line ``title: name`` (a long id kept whole on its own line), the groups'
    tables sharing one header and the same column widths; ``drop_order`` as in :func:`text_table`."""
    width = width_of(width)
    everything = [list(r) for _, rows in groups for r in rows]
    keep = fitting_columns(headers, everything, numeric, drop_order, width)
    kept_headers = [headers[i] for i in keep]
    kept_numeric = [i < len(numeric) and numeric[i] for i in keep]
    widths = _needs(kept_headers, [[r[i] for i in keep] for r in everything], kept_numeric)
    items: list[object] = []
    for n, (name, rows) in enumerate(groups):
        items.append(f"{title}: {name}")
        items.append(
            grid_table(
                kept_headers,
                [[r[i] for i in keep] for r in rows],
                kept_numeric,
                whole=[True] * len(keep),
                widths=widths,
                show_header=n == 0,
            )
        )
    left_out = [h for i, h in enumerate(headers) if i not in keep]
    if left_out:
        items.append(
            f"({len(left_out)} column(s) left out at this width: {', '.join(left_out)}; "
            "a wider terminal or --format markdown/csv shows them)"
        )
    return render(*items, width=width)


def labelled(pairs: Iterable[tuple[str, str]]) -> Table:
    """Label/value lines: labels in one column, values wrapped beside them."""
    grid = Table.grid(padding=(0, 2))
    grid.add_column(no_wrap=True)
    grid.add_column(overflow="fold")
    for label, value in pairs:
        grid.add_row(label, value)
    return grid


def summary_text(
    title: str,
    sections: Sequence[tuple[str, Sequence[tuple[str, str]]]],
    command: str,
    command_label: str,
    width: int | None = None,
) -> str:
    """A titled summary: sections of labelled values, then the command exactly as it is run."""
    items: list[object] = [title, ""]
    for heading, pairs in sections:
        if heading:
            items.append(heading)
        items += [labelled(pairs), ""]
    text = render(*items, width=width)
    return f"{text}{command_label}\n{command}\n"
