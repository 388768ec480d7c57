"""``python -m sizing diff REV [REV2]``: the report of a catalog change, for a pull-request comment.

Evaluates ``catalog/`` as it was at two git revisions (:mod:`sizing.review.revisions`; REV2 defaults to
the working tree) with the current engine, and prints verdict flips first, then per page and table the
rows added or removed and every changed cell, old → new with its relative change
(:mod:`sizing.review.table_diff`).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

from sizing.catalog.loader import Catalog
from sizing.review.revisions import FILLED, catalog_at, repo_of
from sizing.review.table_diff import Report, TableDiff, compare, pages_of_tables
from sizing.views.bundle import build_context

WORKING_TREE = "working tree"
MAX_CHARS = 60_000


def _verdict(fits: bool) -> str:
    return "✅ fits" if fits else "❌ does not fit"


def _md(text: str) -> str:
    """Text for a report table cell."""
    return text.replace("|", "\\|")


def _percent(relative: float | None) -> str:
    return "" if relative is None else f"{relative:+.1%}"


def flips_markdown(flips: list[dict[str, Any]]) -> list[str]:
    """The verdict-flip section."""
    if not flips:
        return ["No verdict changes."]
    lines = [
        "| Model | Checkpoint | Precision | Server | KV cache | Before | After |",
        "|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {f['model']} | {f['checkpoint']} | {f['precision']} | {f['server']} | "
        f"{f['kv_cache_dtype']} | "
        f"{_verdict(f['old'])} | {_verdict(f['new'])} |"
        for f in flips
    ]
    return lines


def table_markdown(diff: TableDiff, limit: int) -> list[str]:
    """One table's section: added rows, removed rows, changed cells (at most ``limit``, 0 = all)."""
    lines = [f"#### `{diff.table}` (`generated/{diff.table}.md`)", ""]
    for label, keys in (("Rows added", diff.added), ("Rows removed", diff.removed)):
        if keys:
            lines += [f"{label} ({len(keys)}):", "", *(f"- {_md(k)}" for k in keys), ""]
    if diff.changed:
        shown = diff.changed if not limit else diff.changed[:limit]
        lines += ["| Row | Column | Before | After | Change |", "|---|---|---:|---:|---:|"]
        lines += [
            f"| {_md(c.row)} | {_md(c.column)} | {_md(c.old)} | {_md(c.new)} | {_percent(c.relative)} |"
            for c in shown
        ]
        if len(shown) < len(diff.changed):
            more = len(diff.changed) - len(shown)
            lines.append(f"\n… and {more} more changed cells (`--limit 0` lists all).")
        lines.append("")
    return lines


def report_markdown(report: Report, limit: int = 100) -> str:
    """The report as Markdown for a pull-request comment."""
    cells = sum(len(d.changed) for d in report.tables)
    rows = sum(len(d.added) + len(d.removed) for d in report.tables)
    lines = [
        f"## Published tables: `{report.base}` → `{report.head}`",
        "",
        f"**{len(report.flips)} verdict flip(s); {len(report.tables)} table(s) changed: "
        f"{rows} row(s) added or removed, {cells} cell(s) changed.**",
        "",
        *(
            f"_`{rev}` predates the assumption(s) {', '.join(f'`{k}`' for k in keys)}; "
            f"evaluated with their current values._\n"
            for rev, keys in report.filled.items()
        ),
        "### Verdict flips",
        "",
        *flips_markdown(report.flips),
        "",
    ]
    if not report.tables:
        lines += ["No published table changes.", ""]
    for page in dict.fromkeys(d.page for d in report.tables):
        lines += [f"### {page}", ""]
        for diff in (d for d in report.tables if d.page == page):
            lines += table_markdown(diff, limit)
    return "\n".join(lines).rstrip() + "\n"


def cut(markdown: str, max_chars: int) -> str:
    """``markdown`` cut after its last whole line within ``max_chars`` (GitHub comments hold 65,536)."""
    if len(markdown) <= max_chars:
        return markdown
    kept = markdown[:max_chars].rsplit("\n", 1)[0]
    return (
        f"{kept}\n\n… report cut at {max_chars:,} characters; run `python -m sizing diff` locally "
        "for all of it.\n"
    )


def report_json(report: Report) -> str:
    """The report as JSON (every change, no limit)."""
    return json.dumps(asdict(report), ensure_ascii=False, indent=2) + "\n"


def revisions_report(catalog_dir: Path, base: str, head: str | None, cat: Catalog) -> Report:
    """The :class:`Report` of the catalog at ``base`` against ``head`` (None: ``cat``, the working tree). Two
    equal catalogs give the same tables: their report is empty without evaluating either."""
    old_cat = catalog_at(catalog_dir, base, cat)
    new_cat = catalog_at(catalog_dir, head, cat) if head else cat
    if old_cat == new_cat:
        return Report(base, head or WORKING_TREE, [], [])
    pages = pages_of_tables(repo_of(catalog_dir)[0] / "docs" / "en")
    return compare(build_context(old_cat), build_context(new_cat), pages, base, head or WORKING_TREE)


def cmd_diff(ns: argparse.Namespace, cat: Catalog) -> int:
    """``diff REV [REV2]``: compare the catalog at two revisions (REV2: the working tree)."""
    report = revisions_report(Path(ns.catalog), ns.rev, ns.rev2, cat)
    report.filled = {rev: FILLED[rev] for rev in (ns.rev, ns.rev2) if rev and FILLED.get(rev)}
    markdown = "" if ns.format == "json" else report_markdown(report, ns.limit)
    text = report_json(report) if ns.format == "json" else cut(markdown, ns.max_chars)
    sys.stdout.write(text)
    return 0
