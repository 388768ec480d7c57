"""What a reader sees on a loaded page (issue 25): no emoji verdict, no clipped formula, no copy button on
a formula, chart text of at least 11 px on screen. ``test_explorer_browser.test_page_is_clean`` runs these
checks in the same visit as its own (one visit per engine, language, page and width), and saves the first
screen of the pages it does not keep whole under ``test-artifacts/screenshots/reader/``."""

from __future__ import annotations

import re

from test_browser import SCREENSHOT_MS, SCREENSHOTS

SHOTS = SCREENSHOTS / "reader"
EMOJI = re.compile("[\u2705\u274c\u2714\u2716]")
FORMULAS = """() => Array.from(document.querySelectorAll('.language-text pre')).map(p =>
    [p.scrollWidth > p.clientWidth + 1, !!p.closest('.highlight').querySelector('.md-code__nav')
     && getComputedStyle(p.closest('.highlight').querySelector('.md-code__nav')).display !== 'none'])"""
"""Per formula block: [clipped, shows a copy button]."""
CHART_TEXT_PX = """() => Array.from(document.querySelectorAll('.sz-chart svg text'))
    .filter(x => x.getBoundingClientRect().width > 0)
    .map(x => parseFloat(getComputedStyle(x).fontSize)
    * x.ownerSVGElement.getBoundingClientRect().width / x.ownerSVGElement.viewBox.baseVal.width)"""
"""The on-screen size (px) of every visible chart text."""


def check_reading(tab: object, where: str) -> None:
    """Assert the loaded page ``tab`` (named ``where`` in messages) reads as issue 25 asks."""
    assert not EMOJI.search(tab.inner_text("article")), f"{where}: emoji in the text"
    formulas = tab.evaluate(FORMULAS)
    assert all(not clipped and not copy for clipped, copy in formulas), f"{where}: {formulas}"
    sizes = tab.evaluate(CHART_TEXT_PX)
    assert all(size >= 11 for size in sizes), f"{where}: chart text {min(sizes, default=0):.1f} px"


def save_first_screen(tab: object, name: str) -> None:
    """Keep the first screen of the page as ``reader/<name>``."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(SHOTS / name), timeout=SCREENSHOT_MS)
