"""What a reader sees on a loaded page, checked in ``test_explorer_browser.test_page_is_clean``'s visits
(MkDocs: one per language, page and width; Zensical: one per language and page, checked at each width):

- issue 25: no emoji verdict, no clipped formula, no copy button on a formula, chart text of at least 11 px
  on screen; the first screen of the pages not kept whole goes to ``test-artifacts/screenshots/reader/``;
- issue 23: the passages readers check first (the 70B, 671B and H20 sections): each section, from its
  heading to the next heading of the same level, has no negative memory figure, no literal tag and (zh/ru)
  no untranslated English sentence; it is saved as a screenshot at 1366 and 390 px with its text beside it
  under ``test-artifacts/screenshots/passages/`` (MkDocs build), so a reviewer can re-read it in en, zh and
  ru side by side.
"""

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


PASSAGE_SHOTS = SCREENSHOTS / "passages"
PASSAGES = {
    "two-gpus-70b": ("choosing-a-gpu-server/", "example-two-gpus"),
    "two-gpus-70b-fp8": ("choosing-a-gpu-server/", "example-two-gpus-fp8"),
    "dense-70b": ("deployment-hardware/", "dense-70b-model"),
    "large-moe-671b-h20": ("deployment-hardware/", "large-moe-model"),
}
"""Passage name → (page, heading id). The H20 case is part of the large-MoE section."""
NEGATIVE_MEMORY = re.compile(r"(?<![\w.)\]])[-−‑]\d[\d\s.,]*\s?(GiB|ГиБ|GB|ГБ|MiB|МиБ)")
LITERAL_TAG = re.compile(r"</?(code|a|span|div|strong|em)\b[^>]*>")
ENGLISH_SENTENCE = re.compile(r"\b(the|does not|fits|should|between)\s+[a-z]+\s+[a-z]+\b")

SECTION_JS = """(id) => {
  const h = document.getElementById(id);
  const level = Number(h.tagName[1]);
  let end = null;
  for (let n = h.nextElementSibling; n; n = n.nextElementSibling) {
    if (/^H[1-6]$/.test(n.tagName) && Number(n.tagName[1]) <= level) { end = n; break; }
  }
  const top = h.getBoundingClientRect().top + window.scrollY;
  const bottom = end ? end.getBoundingClientRect().top + window.scrollY
                     : h.parentElement.getBoundingClientRect().bottom + window.scrollY;
  const box = h.parentElement.getBoundingClientRect();
  let text = '';
  for (let n = h; n && n !== end; n = n.nextElementSibling) {
    text += n.innerText + '\\n';
  }
  return {x: box.left + window.scrollX, y: top, width: box.width, height: bottom - top, text};
}"""


def check_passages(tab: object, lang: str, path: str, keep: str | None) -> None:
    """Assert each passage of the loaded page ``path`` reads true (see the module); ``keep``: the width
    label of its saved screenshot and text (None: check only)."""
    for name, (page, anchor) in PASSAGES.items():
        if page != path:
            continue
        section = tab.evaluate(SECTION_JS, anchor)
        text = section["text"]
        assert not NEGATIVE_MEMORY.search(text), f"{lang}/{name}: {NEGATIVE_MEMORY.search(text)}"
        assert not LITERAL_TAG.search(text), f"{lang}/{name}: {LITERAL_TAG.search(text)}"
        if lang != "en":
            prose = re.sub(r"`[^`]*`|\$ [^\n]*|vllm serve[^\n]*|--[a-z-]+", "", text)
            assert not ENGLISH_SENTENCE.search(prose), f"{lang}/{name}: {ENGLISH_SENTENCE.search(prose)}"
        if keep:
            save_section(tab, section, f"{lang}-{name}", keep)


def save_section(tab: object, section: dict, stem: str, width: str) -> None:
    """Keep one section's text (``<stem>.txt``) and its screenshot (``<stem>-<width>.png``)."""
    PASSAGE_SHOTS.mkdir(parents=True, exist_ok=True)
    (PASSAGE_SHOTS / f"{stem}.txt").write_text(section["text"], encoding="utf-8")
    clip = {k: section[k] for k in ("x", "y", "width", "height")}
    tab.screenshot(
        path=str(PASSAGE_SHOTS / f"{stem}-{width}.png"), clip=clip, full_page=True, timeout=SCREENSHOT_MS
    )
