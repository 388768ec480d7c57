"""No number the catalog can compute is typed into a page.

The Markdown sources are scanned for tokens containing digits outside macro calls, code and HTML
comments. Each such token must be on the allow-list ``tests/data/allowed_digits.txt`` (names like
"70B", version numbers, formula constants), where every entry says why it is not a catalog figure.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted((ROOT / "docs").glob("*/*.md"))
STRIP = [
    re.compile(r"^(`{3,}|~{3,}).*?^\1", re.S | re.M),  # fenced code
    re.compile(r"\{\{.*?\}\}", re.S),  # macro calls
    re.compile(r"\{%.*?%\}", re.S),  # Jinja statements
    re.compile(r"<!--.*?-->", re.S),  # comments
    re.compile(r"`[^`\n]+`"),  # inline code
    re.compile(r"\{\s*#[\w-]+\s*\}"),  # heading ids
    re.compile(r"\]\([^)]*\)"),  # link targets
]
TOKEN = re.compile(r"[^\s|()\[\]{}<>«»“”\"'，。、：；（）]*\d[^\s|()\[\]{}<>«»“”\"'，。、：；（）]*")


def allowed() -> list[str]:
    """Allowed phrases (the text before `` # `` on each non-comment line), longest first."""
    path = ROOT / "tests" / "data" / "allowed_digits.txt"
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    phrases = {line.split(" # ", 1)[0].strip() for line in lines if line.strip() and not line.startswith("#")}
    return sorted(phrases, key=len, reverse=True)


def typed_numbers(text: str, phrases: list[str] | None = None) -> list[str]:
    """Digit-bearing tokens left once macros, code, comments, ids and allowed phrases are removed."""
    for pattern in STRIP:
        text = pattern.sub(" ", text)
    for phrase in phrases or []:
        text = re.sub(rf"(?<![A-Za-z0-9]){re.escape(phrase)}(?![A-Za-z0-9])", " ", text)
    return [token.strip(".,;:!?—–-*_") for token in TOKEN.findall(text)]


def test_the_scanner_finds_a_typed_figure():
    assert typed_numbers("About 21 GB of KV cache {{ sz_value('example-1', 'x') }} `--port 8000`") == ["21"]


def test_allowed_phrases_are_removed_as_whole_tokens():
    assert typed_numbers("the 70B-class model on PCIe 5.0, not 170B", ["70B", "PCIe 5.0"]) == ["170B"]


def test_every_allow_list_entry_has_a_reason():
    path = ROOT / "tests" / "data" / "allowed_digits.txt"
    entries = [
        line for line in path.read_text(encoding="utf-8").splitlines() if line.strip() and line[0] != "#"
    ]
    assert all(" # " in line and line.split(" # ", 1)[1].strip() for line in entries), (
        "each entry: TOKEN  # reason"
    )


@pytest.mark.parametrize("page", PAGES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_number_is_typed_by_hand(page):
    stray = sorted({t for t in typed_numbers(page.read_text(encoding="utf-8"), allowed()) if t})
    assert not stray, f"{page.relative_to(ROOT)} types numbers by hand: {stray}"
