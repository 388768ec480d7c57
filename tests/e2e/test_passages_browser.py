"""The passages readers check first (issue 23): the 70B, 671B and H20 sections, in every language.

Each section — from its heading to the next heading of the same level — is saved as a screenshot at 1366
and 390 px under ``test-artifacts/screenshots/passages/`` with its text beside it (MkDocs build), so a
reviewer can re-read it in
en, zh and ru side by side; and its text is checked: no negative memory figure, no literal tag and no
untranslated English sentence on the zh/ru pages.
"""

from __future__ import annotations

import re

import pytest
from test_browser import (  # noqa: F401 - fixtures used by these tests
    PREFIXES,
    SCREENSHOT_MS,
    SCREENSHOTS,
    browser,
    chromium,
    open_tab,
    site_url,
    visit,
)
from test_explorer_browser import WIDTHS

SHOTS = SCREENSHOTS / "passages"
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


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("lang", PREFIXES)
def test_passages_read_true_in_every_language(
    browser: object,  # noqa: F811
    site_url: str,  # noqa: F811
    engine: str,
    lang: str,
    width: str,
) -> None:
    """Assert each passage has no negative memory figure, no literal tag and (zh/ru) no English
    sentence; save its screenshot (MkDocs build)."""
    tab = open_tab(browser, *WIDTHS[width])
    SHOTS.mkdir(parents=True, exist_ok=True)
    for name, (path, anchor) in PASSAGES.items():
        visit(tab, f"{site_url}{PREFIXES[lang]}{path}")
        section = tab.evaluate(SECTION_JS, anchor)
        text = section["text"]
        assert not NEGATIVE_MEMORY.search(text), f"{lang}/{name}: {NEGATIVE_MEMORY.search(text)}"
        assert not LITERAL_TAG.search(text), f"{lang}/{name}: {LITERAL_TAG.search(text)}"
        if lang != "en":
            prose = re.sub(r"`[^`]*`|\$ [^\n]*|vllm serve[^\n]*|--[a-z-]+", "", text)
            assert not ENGLISH_SENTENCE.search(prose), f"{lang}/{name}: {ENGLISH_SENTENCE.search(prose)}"
        if engine == "mkdocs":
            (SHOTS / f"{lang}-{name}.txt").write_text(text, encoding="utf-8")
            clip = {k: section[k] for k in ("x", "y", "width", "height")}
            tab.screenshot(
                path=str(SHOTS / f"{lang}-{name}-{WIDTHS[width][0]}.png"),
                clip=clip,
                full_page=True,
                timeout=SCREENSHOT_MS,
            )
    assert tab.problems.items == []
    tab.context.close()
