"""The review commands of ``python -m sizing``: ``export`` (snapshots in ``generated/``) and ``diff``.

The command line registers them; :mod:`sizing.review.export` and :mod:`sizing.review.diff_report` do the work.
"""

from __future__ import annotations

import argparse

from sizing.cli_types import count as cli_count
from sizing.cli_types import limit as cli_limit
from sizing.review.diff_report import MAX_CHARS, cmd_diff
from sizing.review.export import cmd_export


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``export`` and ``diff`` to ``python -m sizing``."""
    export = sub.add_parser("export", help="write generated/ (table snapshots and fits.csv)")
    export.add_argument("--check", action="store_true", help="exit 1 with a diff when generated/ is stale")
    export.add_argument("--out", help="snapshot folder (default: generated/ next to the catalog folder)")
    export.set_defaults(handler=cmd_export)
    diff = sub.add_parser("diff", help="what a catalog change does to the published tables")
    diff.add_argument("rev", metavar="REV", help="base revision, e.g. origin/main")
    diff.add_argument("rev2", metavar="REV2", nargs="?", help="head revision (default: the working tree)")
    diff.add_argument("--format", choices=("markdown", "json"), default="markdown")
    diff.add_argument("--limit", type=cli_limit, default=100, help="changed cells listed per table (0 = all)")
    diff.add_argument(
        "--max-chars",
        type=cli_count("tokens"),
        default=MAX_CHARS,
        help="cut the Markdown report at this size",
    )
    diff.set_defaults(handler=cmd_diff)
