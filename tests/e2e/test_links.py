"""Link check of the assembled site: every internal href/src, #anchor and cross-language link resolves.

A single MkDocs build cannot check links between languages (``/zh/`` is outside its site), so this
walks the assembled site as a browser served from http://127.0.0.1:8000/ would see it. External
http(s) links, mailto: and similar schemes are ignored.
"""

from __future__ import annotations

from functools import cache
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import pytest

BASE = "http://127.0.0.1:8000/"
LINK_ATTRIBUTES = {"href", "src"}


class _PageParser(HTMLParser):
    """Collects the link targets and the element ids of one HTML page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        """Record ``id``/``name`` anchors and ``href``/``src`` targets."""
        for name, value in attrs:
            if value is None:
                continue
            if name == "id" or (tag == "a" and name == "name"):
                self.ids.add(value)
            elif name in LINK_ATTRIBUTES:
                self.links.append(value)


@cache
def _parse(page: Path) -> _PageParser:
    """The parsed page (each page is read once however often it is linked to)."""
    parser = _PageParser()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def _target_file(site: Path, path: str) -> Path | None:
    """The file the server would answer for URL ``path``, or None."""
    candidate = site / unquote(path).lstrip("/")
    if candidate.is_dir():
        candidate = candidate / "index.html"
    return candidate if candidate.is_file() else None


def _broken_link(site: Path, page: Path, link: str) -> str | None:
    """Why ``link`` on ``page`` does not resolve, or None if it does or is external."""
    page_url = urljoin(BASE, page.relative_to(site).as_posix())
    url = urlsplit(urljoin(page_url, link))
    if url.scheme not in ("http", "https") or f"{url.scheme}://{url.netloc}/" != BASE:
        return None
    target = _target_file(site, url.path)
    if target is None:
        return f"{link!r}: no file for {url.path}"
    if "=" in url.fragment:  # an explorer state (#model=…&ctx=…), read by explorer.js, not an id
        return (
            None if target.parent.name == "explorer" else f"{link!r}: a state fragment outside the explorer"
        )
    if url.fragment and target.suffix == ".html" and unquote(url.fragment) not in _parse(target).ids:
        return f"{link!r}: no id {url.fragment!r} in {target.relative_to(site)}"
    return None


def _html_pages(site: Path) -> list[Path]:
    """Every HTML page of the site."""
    return sorted(site.rglob("*.html"))


def test_every_internal_link_resolves(built_site: Path) -> None:
    """Assert each internal href/src of each page, including #anchors, points at something real."""
    broken = [
        f"{page.relative_to(built_site)}: {problem}"
        for page in _html_pages(built_site)
        for link in _parse(page).links
        if (problem := _broken_link(built_site, page, link))
    ]
    assert broken == []


@pytest.mark.parametrize("prefix", ["", "zh/", "ru/"])
def test_language_selector_reaches_every_language(built_site: Path, prefix: str) -> None:
    """Assert each language's pages link to the home page of all three languages."""
    page = built_site / prefix / "methodology" / "index.html"
    targets = {
        urlsplit(urljoin(urljoin(BASE, f"{prefix}methodology/"), link)).path for link in _parse(page).links
    }
    assert {"/", "/zh/", "/ru/"} <= targets


def test_checker_reports_missing_pages_and_anchors(built_site: Path) -> None:
    """Assert the checker itself flags a missing page and a missing anchor, and ignores externals."""
    page = built_site / "zh" / "index.html"
    assert _broken_link(built_site, page, "../no-such-page/") is not None
    assert _broken_link(built_site, page, "../ru/methodology/#no-such-id") is not None
    assert _broken_link(built_site, page, "../ru/methodology/#calibration") is None
    assert _broken_link(built_site, page, "/fit-tables/#by-server") is None
    assert _broken_link(built_site, page, "https://example.org/x") is None
    assert _broken_link(built_site, page, "mailto:someone@example.org") is None
