"""Real-browser quality gates: the built site in headless Chromium, driven by Playwright.

The site of each engine is built once per run (``engine_site``) and served on 127.0.0.1 from a
background thread. Debian's Chromium is used (Playwright's own browser download is not available);
``make setup`` installs it (``/usr/bin/chromium``).

Checks, against both engines' builds (a test run in several languages on MkDocs runs in one on Zensical,
:func:`engine_langs`): the language selector keeps the reader on the same page; search
finds words in each language; fit tables sort on a header click and filter through their filter box;
code blocks carry Material's copy button. That every page loads without console errors or failed
requests is checked with the layout checks of :mod:`test_explorer_browser`. A failing browser test
leaves a full-page screenshot of its page under ``test-artifacts/failures/`` (``tests/e2e/conftest.py``).
"""

from __future__ import annotations

import atexit
import functools
import re
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from scripts.engines import ENGINES

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
PREFIXES = {"en": "", "zh": "zh/", "ru": "ru/"}
PAGES = (
    "",
    "explorer/",
    "choosing-a-gpu-server/",
    "deployment-hardware/",
    "fit-tables/",
    "throughput/",
    "methodology/",
    "catalog/",
)
TIMEOUT_MS = 15_000
SCREENSHOT_MS = 120_000
"""Full-page PNGs of the long fit-table pages take several seconds each."""


# ---------------------------------------------------------------------------------------------
# fixtures: Chromium, the served site, a browser
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def chromium() -> str:
    """The path of Debian's Chromium, which ``make setup`` installs (fails, naming the fix, when missing)."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run `make setup` as root (it installs chromium with apt-get)")
    return CHROMIUM


SITE_URL = "http://127.0.0.1:8000/"
"""The configured ``site_url`` (mkdocs.yml); sitemaps carry it in every ``<loc>``."""


class SiteHandler(SimpleHTTPRequestHandler):
    """Static files, no log line per request, and sitemaps pointing at the origin actually served.

    Material's language selector looks the current page up in the target language's sitemap and
    only fixes the host name, not the port; serving on a free port, the sitemaps are rewritten so
    the site behaves as it does when served at its ``site_url``.
    """

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        """Log nothing."""

    def do_GET(self) -> None:
        """Serve ``*/sitemap.xml`` with this server's origin, everything else unchanged."""
        path = Path(self.translate_path(self.path))
        if not path.name == "sitemap.xml" or not path.is_file():
            super().do_GET()
            return
        origin = f"http://{self.headers.get('Host', '127.0.0.1')}/"
        body = path.read_text(encoding="utf-8").replace(SITE_URL, origin).encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "application/xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def serve(site: Path) -> Iterator[str]:
    """``http://127.0.0.1:PORT/`` serving ``site`` from a background thread on a free port, until closed."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(SiteHandler, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def site_url(engine_site: Path) -> Iterator[str]:
    """The site of each engine (``engine``) served on a free port: every browser test runs once per engine
    (the two builds share their content, but each engine ships its own theme scripts)."""
    yield from serve(engine_site)


_SHARED: dict[str, object] = {}
"""The one Playwright and Chromium of the process (Playwright's sync API allows one at a time)."""


def shared_browser(chromium: str) -> object:
    """A headless Chromium launched through Playwright once per process, shared by every browser test
    module (tests/test_explorer_browser.py imports the fixture) and closed when the process exits."""
    if "browser" not in _SHARED:
        from playwright.sync_api import sync_playwright

        manager = sync_playwright()
        playwright = manager.start()
        _SHARED["browser"] = playwright.chromium.launch(
            executable_path=chromium, headless=True, args=CHROMIUM_ARGS
        )
        atexit.register(manager.__exit__, None, None, None)
        atexit.register(_SHARED["browser"].close)
    return _SHARED["browser"]


@pytest.fixture(scope="session")
def browser(chromium: str) -> Iterator[object]:
    """A headless Chromium launched through Playwright (see :func:`shared_browser`)."""
    yield shared_browser(chromium)


@dataclass
class Problems:
    """Console errors, uncaught exceptions and failed or erroneous requests seen by one page during one test.
    A request cancelled because the test moved on (``net::ERR_ABORTED``: a search worker or lunr file still
    loading when the next page opens) is not a failure; a missing file answers 404 first and is recorded."""

    items: list[str] = field(default_factory=list)

    def failed(self, request: object) -> None:
        """Record a request that failed for another reason than being cancelled."""
        if request.failure != "net::ERR_ABORTED":
            self.items.append(f"request failed: {request.url} {request.failure}")


def watch(tab: object) -> None:
    """Record every problem ``tab`` reports from now on in its current ``tab.problems`` (each test that takes
    the tab gives it a new one)."""
    tab.on("console", lambda msg: msg.type == "error" and tab.problems.items.append(f"console: {msg.text}"))
    tab.on("pageerror", lambda exc: tab.problems.items.append(f"page error: {exc}"))
    tab.on("requestfailed", lambda request: tab.problems.failed(request))
    tab.on(
        "response",
        lambda res: res.status >= 400 and tab.problems.items.append(f"HTTP {res.status}: {res.url}"),
    )


OPEN_TABS: list[object] = []
"""The pages the running test took (``tests/e2e/conftest.py`` screenshots them when it fails and marks them
``broken``, so they are closed, not reused)."""
FREE_TABS: dict[tuple[object, ...], list[object]] = {}
"""This process's pages no test holds, by viewport and context options. The next test of that size takes one
instead of a new context: navigating the same renderer with a warm cache costs Chromium about half the CPU of
a fresh context (0.85 against 1.78 s a page visit, scripts/bench_tests.py)."""
CLEAR_STORAGE = "() => { try { sessionStorage.clear(); localStorage.clear(); } catch (e) {} }"


def open_tab(browser: object, width: int, height: int, **options: object) -> object:
    """A light-mode page of the given size, on ``about:blank`` with empty storage and no problems recorded:
    a free one of this process (:data:`FREE_TABS`), or a new one. :func:`close_tabs` gives it back."""
    key = (width, height, *sorted(options.items()))
    free = FREE_TABS.setdefault(key, [])
    tab = free.pop() if free else new_tab(browser, width, height, **options)
    tab.key, tab.broken, tab.problems = key, False, Problems()
    OPEN_TABS.append(tab)
    return tab


def new_tab(browser: object, width: int, height: int, **options: object) -> object:
    """A page in a context of its own (viewport, light colour scheme, ``options``) with :func:`watch` on."""
    context = browser.new_context(
        viewport={"width": width, "height": height}, color_scheme="light", **options
    )
    tab = context.new_page()
    tab.set_default_timeout(TIMEOUT_MS)
    watch(tab)
    return tab


def close_tabs() -> None:
    """Give back every page the test took: cleared (:func:`reset`) into :data:`FREE_TABS`, or closed when the
    test failed with it open or it does not reset."""
    while OPEN_TABS:
        tab = OPEN_TABS.pop()
        if tab.broken or not reset(tab):
            tab.context.close()
        else:
            FREE_TABS[tab.key].append(tab)


def reset(tab: object) -> bool:
    """Leave ``tab`` as a new one is: the storage of the site it shows cleared (the explorer keeps its state
    in ``sessionStorage``), on ``about:blank``, at its own size, no cookies. False when any step fails."""
    try:
        tab.evaluate(CLEAR_STORAGE)
        tab.goto("about:blank")
        tab.set_viewport_size({"width": tab.key[0], "height": tab.key[1]})
        tab.context.clear_cookies()
    except Exception:  # a page that no longer answers is closed instead
        return False
    tab.problems = Problems()
    return True


def failure_name(nodeid: str, index: int) -> str:
    """The file of the ``index``-th page a failing test had open: ``test_browser-test_x-mkdocs-en-1.png``."""
    path, _, test = nodeid.partition("::")
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", f"{Path(path).stem}-{test}").strip("-") + f"-{index}.png"


@pytest.fixture
def tabs(browser: object) -> Iterator[functools.partial[object]]:
    """``tabs(width, height)`` takes a page of that size (:func:`open_tab`); every page it took is given back
    after the test (:func:`close_tabs`)."""
    yield functools.partial(open_tab, browser)
    close_tabs()


@pytest.fixture
def page(tabs) -> object:
    """A light-mode page (1280×900, en-US) whose problems are collected in ``page.problems``."""
    return tabs(1280, 900, locale="en-US")


ZENSICAL_LANG = "ru"
"""The one language of Zensical's runs of a test that MkDocs runs in several languages (see
:func:`engine_langs`): the longest words of the three, the likeliest to break a layout."""


def engine_langs(cases: Iterable[str | tuple[str, ...]] = PREFIXES) -> list[object]:
    """``(engine, lang, ...)`` parameters of a browser test that checks our own scripts in several languages:
    each case (a language, or a tuple that starts with one) on the MkDocs build, the cases in
    :data:`ZENSICAL_LANG` on the Zensical build. A page carries the same content in both builds
    (``test_engine_parity``), so what the Zensical runs add is its theme around our scripts, which one
    language shows. Parametrize with ``scope="session"`` (``engine`` selects the session's site)."""
    rows = [case if isinstance(case, tuple) else (case,) for case in cases]
    return [
        pytest.param(engine, *row, id="-".join((engine, *row)))
        for engine in ENGINES
        for row in rows
        if engine == "mkdocs" or row[0] == ZENSICAL_LANG
    ]


def visit(page: object, url: str) -> None:
    """Open ``url`` and wait until it loaded, Material's scripts ran and its fonts are ready (a test that
    needs data fetched later waits for what it needs, e.g. the explorer's answer)."""
    page.goto(url, wait_until="load")
    page.wait_for_function("() => typeof document$ !== 'undefined' && document.fonts.status === 'loaded'")


# ---------------------------------------------------------------------------------------------
# language selector, search
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["zh", "ru"])
def test_language_selector_keeps_the_page(page: object, site_url: str, lang: str) -> None:
    """Assert choosing a language on /fit-tables/ lands on the same page in that language."""
    visit(page, f"{site_url}fit-tables/")
    page.wait_for_load_state("networkidle")  # the selector needs every language's sitemap first
    page.hover(".md-header__option .md-select")
    page.click(f"a.md-select__link[hreflang='{lang}']")
    page.wait_for_url(f"{site_url}{lang}/**")
    assert page.url == f"{site_url}{lang}/fit-tables/"
    assert page.problems.items == []


SEARCHES = {"en": "L40S", "zh": "显存", "ru": "память"}
SEARCH_UI = {
    "mkdocs": ("", "input.md-search__input", ".md-search-result__item"),
    "zensical": (
        ".md-search__button",
        "dialog input[role='combobox']",
        "ol[role='listbox'] a[role='option']",
    ),
}
"""Per engine: what opens the search, its input, one result. Zensical's search is a dialog in a shadow root,
which Playwright's CSS selectors pierce (scripts/engines.py difference "search-index")."""


@pytest.mark.parametrize("lang", SEARCHES)
def test_search_finds_a_word_in_each_language(page: object, site_url: str, engine: str, lang: str) -> None:
    """Assert typing a word into the theme's search box lists results that contain it."""
    word, (opener, box, result) = SEARCHES[lang], SEARCH_UI[engine]
    visit(page, f"{site_url}{PREFIXES[lang]}")
    if opener:
        page.click(opener)
    page.fill(box, word)
    page.press(box, "End")  # Material searches on key events; an IME ends with one too
    page.wait_for_selector(result)
    results = page.locator(result)
    assert results.count() > 0
    assert word.lower() in results.first.inner_text().lower()
    assert page.problems.items == []


# ---------------------------------------------------------------------------------------------
# fit tables: sorting and filtering; code blocks: copy button
# ---------------------------------------------------------------------------------------------

SORTABLE = "table.sz-sortable, .sz-sortable table"


def column_values(page: object, table: object, index: int) -> list[str]:
    """The sort keys (``data-sort`` or text) of column ``index`` in the table's visible body rows."""
    return table.evaluate(
        """(t, i) => Array.from(t.tBodies[0].rows).filter(r => !r.hidden).map(r => {
               const c = r.cells[i];
                   return c ? (c.getAttribute('data-sort') ?? c.textContent.trim()) : ''; })""",
        index,
    )


def is_monotonic(values: list[str]) -> bool:
    """Whether ``values`` are sorted either way (as numbers when they all are, else as text)."""
    try:
        keys: list[object] = [float(v) for v in values]
    except ValueError:
        keys = [v.lower() for v in values]
    return keys == sorted(keys) or keys == sorted(keys, reverse=True)


HEADER_ROW = "thead tr:last-child th"
"""The header cells tablesort sorts by: its last header row (a fit table's first row groups the contexts)."""


def unsorted_column(page: object, table: object) -> int:
    """The first column whose body is not already in order (so a click must change the row order)."""
    headers = table.locator(HEADER_ROW).count()
    for index in range(headers):
        if not is_monotonic(column_values(page, table, index)):
            return index
    pytest.fail("every column of the first sortable table is already sorted")


def test_clicking_a_header_sorts_the_fit_table(page: object, site_url: str) -> None:
    """Assert a header click puts the rows in that column's order, and a second click reverses it."""
    visit(page, f"{site_url}fit-tables/")
    table = page.locator(SORTABLE).first
    table.wait_for()
    assert table.locator("tbody tr").count() >= 3, "the first sortable table has fewer than three rows"
    index = unsorted_column(page, table)
    before = column_values(page, table, index)
    table.locator(HEADER_ROW).nth(index).click()
    first = column_values(page, table, index)
    table.locator(HEADER_ROW).nth(index).click()
    second = column_values(page, table, index)
    assert first != before and is_monotonic(first) and sorted(first) == sorted(before)
    assert second == first[::-1] or (is_monotonic(second) and second != first)
    assert page.problems.items == []


def test_filter_box_hides_rows_without_the_text(page: object, site_url: str) -> None:
    """Assert typing into the filter box leaves only rows containing the text, and clearing restores all."""
    visit(page, f"{site_url}fit-tables/")
    box = page.locator("input.sz-filter").first
    box.wait_for()
    target = page.locator(f"#{box.get_attribute('data-target')}")
    rows = target.locator("tbody tr")
    total = rows.count()
    last = target.locator("table").first.locator("tbody tr").last  # a model name (no heading has it)
    word = last.locator("td").first.text_content().split()[0]
    box.fill(word)
    shown = target.locator("tbody tr:not([hidden])")
    assert 0 < shown.count() < total, f"filtering on {word!r} kept {shown.count()} of {total} rows"
    assert all(word.lower() in text.lower() for text in shown.all_text_contents())
    box.fill("")
    assert target.locator("tbody tr:not([hidden])").count() == total


COPY_BUTTON = "button.md-code__button[data-md-type='copy'], button.md-clipboard, button.sz-copy"
"""Material 9.8's copy button (older releases: ``.md-clipboard``); the explorer's command has its own."""


def test_code_blocks_have_a_copy_button(page: object, site_url: str) -> None:
    """Assert the first page with a code block shows Material's copy-to-clipboard button on it."""
    for path in PAGES:
        visit(page, f"{site_url}{path}")
        blocks = page.locator("pre > code")
        if blocks.count():
            assert page.locator(COPY_BUTTON).count() >= 1, f"/{path}: code block without copy button"
            return
    pytest.fail("no English page has a code block")


def test_failure_screenshots_are_named_by_test_and_page() -> None:
    """Assert each page of each failing test gets its own plain file name."""
    nodeid = "tests/e2e/test_browser.py::test_search_finds_a_word_in_each_language[zensical-zh]"
    names = {failure_name(nodeid, 1), failure_name(nodeid, 2), failure_name(nodeid.replace("zh]", "ru]"), 1)}
    assert len(names) == 3
    assert (
        failure_name(nodeid, 1) == "test_browser-test_search_finds_a_word_in_each_language-zensical-zh-1.png"
    )


@pytest.mark.parametrize("engine", ["mkdocs"], scope="session")
def test_a_tab_given_back_is_clean_for_the_next_test(tabs, site_url: str) -> None:
    """Assert a tab given back comes to the next test on ``about:blank``, at its own size, with no problem
    recorded and the last site's ``sessionStorage`` (the explorer's state) gone; a tab marked ``broken`` (a
    failing test had it open) is closed instead."""
    tab = tabs(1366, 768)
    visit(tab, f"{site_url}explorer/")
    tab.evaluate("() => sessionStorage.setItem('sz-test', 'left over')")
    tab.set_viewport_size({"width": 500, "height": 500})
    tab.problems.items.append("a problem of the last test")
    close_tabs()
    again = tabs(1366, 768)
    assert again is tab and again.url == "about:blank" and again.problems.items == []
    assert again.viewport_size == {"width": 1366, "height": 768}
    visit(again, f"{site_url}explorer/")
    assert again.evaluate("() => sessionStorage.getItem('sz-test')") is None
    again.broken = True
    close_tabs()
    assert again.is_closed() and again not in FREE_TABS[again.key]
