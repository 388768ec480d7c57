"""Parity of the two builds: MkDocs + Material and Zensical publish the same computed content.

Both sites are the session's builds (``conftest.site_of``, built once per engine and shared with the
other site tests). For every page of every language, the content is extracted from the HTML of each
build and compared: headings with their anchors, every table cell, every code block (the ``vllm
serve`` commands), every chart's SVG, every link and the article's visible text (which holds the
worked examples' values). What still differs is listed once, in ``scripts.engines.DIFFERENCES``.

Each build evaluates the catalog in a prepare process of its own, so equal tables and charts here also
show that two builds give identical tables and charts (determinism across processes).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from test_browser import PAGES as BROWSER_PAGES
from test_browser import PREFIXES

from scripts.engines import DIFFERENCES, ENGINES, difference

PAGES = (*BROWSER_PAGES, "404.html")
ARTICLE = re.compile(r"<article\b[^>]*>(.*?)</article>", re.S)
HEADING = re.compile(r"<h([1-6])\b([^>]*)>(.*?)</h\1>", re.S)
ID = re.compile(r'\bid="([^"]*)"')
TABLE = re.compile(r"<table\b.*?</table>", re.S)
ROW = re.compile(r"<tr\b.*?</tr>", re.S)
CELL = re.compile(r"<t[hd]\b[^>]*>(.*?)</t[hd]>", re.S)
CODE = re.compile(r"<pre\b[^>]*>(.*?)</pre>", re.S)
SVG = re.compile(r"<svg\b.*?</svg>", re.S)
HREF = re.compile(r'\bhref="([^"]*)"')
SKIP_ANCHOR = '<a id="__skip" tabindex="-1"></a>'
"""Zensical's template puts the skip-link target inside the article (difference "theme-markup")."""


def text_of(fragment: str) -> str:
    """Visible text of an HTML fragment, whitespace collapsed, permalink marks dropped."""
    text = html.unescape(re.sub(r"<[^>]+>", " ", fragment)).replace("¶", " ")
    return " ".join(text.split())


@dataclass(frozen=True)
class PageContent:
    """What a page computes and says, independent of the theme's markup."""

    title: str
    headings: list[tuple[int, str, str]]
    """(level, anchor id, text) of every heading, in order."""
    tables: list[list[list[str]]]
    code: list[str]
    charts: list[str]
    links: list[str]
    text: str


def page_content(page_html: str) -> PageContent:
    """The content of one built page: its title and what its article holds."""
    match = ARTICLE.search(page_html)
    assert match, "no <article> in the page"
    article = match.group(1).replace(SKIP_ANCHOR, "")
    headings = [
        (int(level), (ID.search(attrs) or [None, ""])[1], text_of(body))
        for level, attrs, body in HEADING.findall(article)
    ]
    tables = [
        [[text_of(cell) for cell in CELL.findall(row)] for row in ROW.findall(t)]
        for t in TABLE.findall(article)
    ]
    title = text_of(re.search(r"<title>(.*?)</title>", page_html, re.S).group(1))
    return PageContent(
        title,
        headings,
        tables,
        [text_of(c) for c in CODE.findall(article)],
        SVG.findall(article),
        HREF.findall(article),
        text_of(article),
    )


@pytest.fixture(scope="module")
def sites(built_site: Path, zensical_site: Path) -> dict[str, Path]:
    """Both engines' sites (the same builds the other site tests use)."""
    return {"mkdocs": built_site, "zensical": zensical_site}


def _file(site: Path, lang: str, path: str) -> Path:
    """The HTML file of ``path`` (a page folder or a file) under a language root."""
    target = site / PREFIXES[lang] / path
    return target if path.endswith(".html") else target / "index.html"


def contents(sites: dict[str, Path], lang: str, path: str) -> tuple[PageContent, PageContent]:
    """The page's content in the MkDocs build and in the Zensical build."""
    mkdocs, zensical = (_file(sites[e], lang, path).read_text(encoding="utf-8") for e in ENGINES)
    return page_content(mkdocs), page_content(zensical)


PARAMS = [
    pytest.param(lang, path, id=f"{lang}-{path.strip('/') or 'home'}") for lang in PREFIXES for path in PAGES
]


@pytest.mark.parametrize(("lang", "path"), PARAMS)
def test_computed_content_is_identical(sites: dict[str, Path], lang: str, path: str) -> None:
    """Assert headings and anchors, table cells, commands, charts and links are the same in both builds."""
    mkdocs, zensical = contents(sites, lang, path)
    assert zensical.headings == mkdocs.headings
    assert zensical.tables == mkdocs.tables
    assert zensical.code == mkdocs.code
    assert zensical.charts == mkdocs.charts
    assert zensical.links == mkdocs.links


@pytest.mark.parametrize(("lang", "path"), PARAMS)
def test_text_and_title_are_identical(sites: dict[str, Path], lang: str, path: str) -> None:
    """Assert the article's visible text (worked-example values included) and the page title agree."""
    mkdocs, zensical = contents(sites, lang, path)
    if path == "":  # difference "home-title": Zensical prefixes the nav title on the home page
        assert zensical.title.endswith(f" - {mkdocs.title}") and difference("home-title")
    else:
        assert zensical.title == mkdocs.title
    assert zensical.text == mkdocs.text


def test_the_comparison_sees_the_content(sites: dict[str, Path]) -> None:
    """Assert the extraction finds real content: fit tables with cells, commands, charts and anchors."""
    content = contents(sites, "en", "fit-tables/")[0]
    assert len(content.tables) >= 5 and sum(len(t) for t in content.tables) > 50
    assert content.charts and any("by-server" == anchor for _, anchor, _ in content.headings)
    commands = contents(sites, "ru", "choosing-a-gpu-server/")[1].code
    assert any(code.startswith("vllm serve") for code in commands)


def test_the_comparison_catches_a_changed_cell(sites: dict[str, Path]) -> None:
    """Assert a single changed table cell makes the contents differ."""
    page = _file(sites["zensical"], "zh", "fit-tables/").read_text(encoding="utf-8")
    cell = re.search(r"<td\b[^>]*>([^<]*\d[^<]*)</td>", page)
    changed = page[: cell.start(1)] + cell.group(1) + "0" + page[cell.end(1) :]
    assert page_content(changed).tables != page_content(page).tables


def test_every_page_of_both_builds_is_compared(sites: dict[str, Path]) -> None:
    """Assert the builds have the same HTML files and the test compares each of them."""
    files = {e: sorted(p.relative_to(s).as_posix() for p in s.rglob("*.html")) for e, s in sites.items()}
    assert files["zensical"] == files["mkdocs"]
    compared = {_file(Path(), lang, path).as_posix() for lang in PREFIXES for path in PAGES}
    assert set(files["mkdocs"]) == compared


def test_no_difference_blocks_the_switch() -> None:
    """Assert no listed difference is marked as a blocker for making Zensical the default."""
    assert [d.key for d in DIFFERENCES if d.status == "blocker"] == []
