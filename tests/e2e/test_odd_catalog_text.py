"""Odd-but-valid catalog text: table pipes, HTML, Jinja, backticks, right-to-left and CJK scripts in names and
notes must come out of the CLI intact and, in Markdown and on built pages (marker ``site``), escaped.

Uses the catalog copies and the in-process CLI of :mod:`test_hostile_catalog`.
"""

from __future__ import annotations

import csv
import html
import io
import json
import re
from pathlib import Path

import pytest
from test_hostile_catalog import build_english, cli, draft_of

ODD_NAME = "Odd | <script>alert(1)</script> {{ config }} {% raw %} `tick` مرحبا שלום 显存"
ODD_ID = "odd|org/<script>alert(2)</script>{{ config }}`x` مرحبا שלום 显存"
ODD_NOTES = "Notes | <b>bold</b> {{ 7 * 7 }} {% endraw %} ``two`` السلام עברית 服务器 память"


def odd_catalog(tmp_path: Path) -> tuple[Path, str]:
    """A valid catalog with odd text in the first server's name and notes and in an added model.

    The added model is a copy of the first one whose id (shown by the CLI table), name and notes
    (shown on the site) are odd; its checkpoint id is plain because checkpoint ids have a pattern.
    """
    draft = draft_of(tmp_path)
    server = draft.first("servers")
    draft.edit("servers", server, "name", ODD_NAME)
    draft.edit("servers", server, "notes", ODD_NOTES)
    models = draft.data("models")
    odd = dict(next(iter(models.values())), name=ODD_NAME, notes=ODD_NOTES)
    odd["checkpoints"] = [{"id": "odd-org/odd-model", "precision": odd["checkpoints"][0]["precision"]}]
    draft.save("models", {**models, ODD_ID: odd})
    return draft.folder, server


def markdown_cells(line: str) -> list[str]:
    """The cells of one Markdown table row, splitting on unescaped pipes only."""
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip().strip("|"))]


def test_odd_text_round_trips_through_json_and_csv(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Assert JSON and CSV tables carry the odd names exactly as written in the catalog."""
    folder, server = odd_catalog(tmp_path)
    as_json = cli(capsys, folder, "table", "--model", ODD_ID, "--server", server, "--format", "json")
    assert as_json.returncode == 0, as_json.stderr
    rows = json.loads(as_json.stdout)
    assert rows and {row["model"] for row in rows} == {ODD_ID}
    as_csv = cli(capsys, folder, "table", "--model", ODD_ID, "--server", server, "--format", "csv")
    assert as_csv.returncode == 0, as_csv.stderr
    table = list(csv.DictReader(io.StringIO(as_csv.stdout)))
    assert len(table) == len(rows) and {row["model"] for row in table} == {ODD_ID}


def test_odd_text_is_escaped_in_markdown_tables(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Assert the Markdown table keeps one cell per column, escapes HTML, pipes and braces, keeps the text."""
    folder, server = odd_catalog(tmp_path)
    result = cli(capsys, folder, "table", "--server", server, "--format", "markdown")
    assert result.returncode == 0, result.stderr
    rows = [line for line in result.stdout.splitlines() if line.startswith("|")]
    assert len(rows) >= 3
    widths = {len(markdown_cells(row)) for row in rows}
    assert len(widths) == 1, f"rows with different cell counts: {widths}"
    assert "<script>" not in result.stdout and "{{" not in result.stdout and "`x`" not in result.stdout
    odd_rows = [row for row in rows if ODD_ID in html.unescape(row.replace("\\|", "|"))]
    assert odd_rows, "the odd model id is not in the table"


@pytest.mark.site
def test_built_page_shows_odd_text_escaped(tmp_path: Path) -> None:
    """Assert built pages show the odd name escaped: no injected script, no Jinja run, intact tables."""
    folder, _ = odd_catalog(tmp_path)
    result = build_english(folder, tmp_path / "site")
    assert result.returncode == 0, result.stdout + result.stderr
    pages = {p: p.read_text(encoding="utf-8") for p in (tmp_path / "site").rglob("*.html")}
    assert not any("<script>alert(1)</script>" in text for text in pages.values())
    escaped = html.escape("<script>alert(1)</script>", quote=False)
    showing = [p for p, text in pages.items() if escaped in text]
    assert showing, "no page shows the odd server or model name"
    for page in showing:
        text = pages[page]
        assert "{{ config }}" in html.unescape(text), f"{page}: Jinja was evaluated"
        if "&lt;b&gt;bold" in text:
            assert "{{ 7 * 7 }}" in html.unescape(text), f"{page}: Jinja in notes was evaluated"
        assert_table_rows_intact(text, page)


def row_width(row: str) -> int:
    """Columns a table row spans: its cells (a row header ``<th scope="row">`` too), each by its colspan."""
    return sum(int(span or 1) for span in re.findall(r'<t[dh]\b(?:[^>]*?\bcolspan="(\d+)")?', row))


def assert_table_rows_intact(text: str, page: Path) -> None:
    """Assert every row of every table on the page spans as many columns as its first header row."""
    for table in re.findall(r"<table\b.*?</table>", text, flags=re.S):
        rows = re.findall(r"<tr\b.*?</tr>", table, flags=re.S)
        header = row_width(rows[0])
        for row in rows[1:]:
            cells = row_width(row)
            assert cells == header, f"{page}: a row has {cells} cells, the header {header}"
