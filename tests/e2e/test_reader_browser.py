"""Real-browser checks of what a reader sees (issue 25), in every language at 1366 and 390 px.

Uses the Chromium, served site and page fixtures of :mod:`tests.test_browser`. Checks: the fit-table filter
is on the first screen at 1366×900 and 390×844 and stays in view; no fit table is wider than its box at
1366 px; a tall box says how many rows it holds; the explorer shows no literal tag, links its suggestion to
the case it names, marks the heatmap cell it answers and scrolls the answer into view; a server-only link
keeps the model last shown. The checks of every page (no emoji verdict, no clipped formula, no copy button
on a formula, chart text of at least 11 px, a first-screen screenshot in
``test-artifacts/screenshots/reader/``) are :mod:`page_reading`'s, run by
``test_explorer_browser.test_page_is_clean`` in its own visit of each page.
"""

from __future__ import annotations

import re

import pytest
from test_browser import (  # noqa: F401 - fixtures used by these tests
    PAGES,
    PREFIXES,
    SCREENSHOT_MS,
    SCREENSHOTS,
    browser,
    chromium,
    engine_langs,
    site_url,
    tabs,
    visit,
)
from test_explorer_browser import WIDTHS, explorer_ready

from sizing.render.i18n import t

LLAMA = "meta-llama/Llama-3.3-70B-Instruct"
NO_FIT = f"model={LLAMA}&checkpoint={LLAMA}&precision=bf16&server=gpu-l40s&kv=fp8&ctx=32768"


@pytest.mark.parametrize(("engine", "lang"), engine_langs(), scope="session")
def test_fit_tables_filter_first_and_tables_fit(tabs, site_url: str, lang: str) -> None:  # noqa: F811
    """Assert at 1366×900 the filter is on the first screen and stays there, no fit table is wider than
    its box, and a table taller than its box says how many rows it has."""
    tab = tabs(1366, 900)
    visit(tab, f"{site_url}{PREFIXES[lang]}fit-tables/")
    assert tab.eval_on_selector("input.sz-filter", "i => i.getBoundingClientRect().bottom") < 900
    widths = tab.evaluate("""() => Array.from(document.querySelectorAll('#sz-fit-tables table'))
        .map(t => t.scrollWidth - t.closest('.md-typeset__scrollwrap').clientWidth)""")
    assert widths and max(widths) <= 0
    tab.evaluate("() => window.scrollTo(0, 4000)")
    top = tab.eval_on_selector("input.sz-filter", "i => i.getBoundingClientRect().top")
    assert 0 < top < 200
    tab.locator("#sz-fit-tables .md-typeset__scrollwrap").first.scroll_into_view_if_needed()
    hint = tab.locator(".sz-rows-hint").first
    hint.wait_for()
    assert re.search(r"\d", hint.text_content() or "")
    assert tab.problems.items == []


@pytest.mark.parametrize(("engine", "lang"), engine_langs(), scope="session")
def test_fit_tables_filter_first_on_a_phone(tabs, site_url: str, lang: str) -> None:  # noqa: F811
    """Assert at 390×844 the filter box is on the first screen and stays under the header once the
    tables scroll by (the box is sticky)."""
    tab = tabs(*WIDTHS["phone"])
    visit(tab, f"{site_url}{PREFIXES[lang]}fit-tables/")
    assert (
        tab.eval_on_selector("input.sz-filter", "i => i.getBoundingClientRect().bottom") < WIDTHS["phone"][1]
    )
    tab.evaluate("() => window.scrollTo(0, 4000)")
    top = tab.eval_on_selector("input.sz-filter", "i => i.getBoundingClientRect().top")
    assert 0 < top < 200
    assert tab.problems.items == []


@pytest.mark.parametrize(("engine", "lang"), engine_langs(), scope="session")
def test_explorer_suggestion_is_a_link_without_tags(tabs, site_url: str, lang: str) -> None:  # noqa: F811
    """Assert a case that does not fit says what was tried, shows no literal tag, and its suggestion is a
    link that opens a case that fits; the answer states its KV type and context."""
    tab = tabs(1366, 900)
    visit(tab, f"{site_url}{PREFIXES[lang]}explorer/#{NO_FIT}")
    explorer_ready(tab)
    text = tab.inner_text(".sz-explorer__result")
    assert "<code>" not in text and "</code>" not in text
    assert tab.locator(".sz-explorer__facts dt").first.inner_text().strip() == t(lang, "explorer_tried")
    assert t(lang, "explorer_kv") in tab.inner_text(".sz-explorer__settings")
    link = tab.locator("a.sz-explorer__suggestion")
    link.click()
    tab.wait_for_function("() => location.hash.includes('server=ref-')")
    explorer_ready(tab)
    assert tab.locator(".sz-explorer__result .sz-badge").inner_text().strip() in (
        t(lang, "verdict_fits"),
        t(lang, "verdict_tight"),
    )
    assert tab.problems.items == []


@pytest.mark.parametrize("width", WIDTHS)
def test_heatmap_click_selects_and_shows_the_answer(tabs, site_url: str, width: str) -> None:  # noqa: F811
    """Assert a heatmap click marks its cell and server column and brings the answer into view."""
    tab = tabs(*WIDTHS[width])
    visit(tab, f"{site_url}explorer/")
    explorer_ready(tab)
    cell = tab.locator(".sz-heatmap tbody tr").nth(12).locator("td a").nth(4)
    cell.scroll_into_view_if_needed()
    cell.click()
    tab.wait_for_function("() => document.querySelector('.sz-heatmap td[aria-current=true]')")
    assert tab.evaluate(
        "() => document.querySelector('.sz-heatmap td[aria-current=true] a').getAttribute('href')"
        " === location.hash"
    )
    assert tab.locator(".sz-heatmap th.sz-heat-col").count() == 1
    top = tab.eval_on_selector(".sz-explorer__result", "r => r.getBoundingClientRect().top")
    assert 0 <= top < WIDTHS[width][1] / 2


def test_server_link_keeps_the_model_last_shown(tabs, site_url: str) -> None:  # noqa: F811
    """Assert a "#server=…" link (the fit tables' Other servers) opens that server with the model shown
    before."""
    tab = tabs(1366, 900)
    visit(tab, f"{site_url}explorer/#{NO_FIT}")
    explorer_ready(tab)
    tab.evaluate("() => { location.hash = '#server=ref-8x-h100'; }")
    tab.wait_for_function("() => document.querySelector(\"select[name='server']\").value === 'ref-8x-h100'")
    assert tab.eval_on_selector("select[name='model']", "s => s.value") == LLAMA
