"""Translation drift checks: the three languages must have the same pages, structure and nav.

English is the reference. For every page under ``docs/en`` the same file must exist under
``docs/zh`` and ``docs/ru``, with the same sequence of ``{ #id }`` heading ids, the same sequence of
Jinja expressions (whitespace-normalised) and the same fenced code blocks (by language tag). Every
``mkdocs.<lang>.yml`` must list the same files in its nav, in the same order. The message files are
checked by :func:`sizing.render.i18n.load_messages`. ``scripts/docs.py check-i18n`` runs all of this.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, NamedTuple

from sizing import safeio
from sizing.render.i18n import LANGS, MESSAGES_DIR, MessageError, load_messages

ROOT = Path(__file__).resolve().parent.parent
CONFIGS: dict[str, str] = {"en": "mkdocs.yml", "zh": "mkdocs.zh.yml", "ru": "mkdocs.ru.yml"}
"""The MkDocs config file of each language, relative to the repository root."""

_HEADING_ID = re.compile(r"^#{1,6}\s.*\{[^}]*?(?<![^\s{])#([A-Za-z0-9_-]+)[^}]*\}\s*$")
_JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.S)
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*([^\s`{]*)")
_JINJA_COMMENT_ID = re.compile(r"\{#[A-Za-z]")


class PageStructure(NamedTuple):
    """What must be identical between a page and its translations."""

    heading_ids: list[str]
    jinja: list[str]
    fences: list[str]
    """The language tag of each fenced code block, in order ("" when it has none)."""


def _closes(line: str, opening: str) -> bool:
    """Whether ``line`` closes a block opened by ``opening`` (same character, at least as many)."""
    marker = line.strip()
    return len(marker) >= len(opening) and set(marker) == {opening[0]}


def _fence_tags_and_prose(text: str) -> tuple[list[str], str]:
    """The language tags of the fenced blocks in ``text``, and ``text`` without those blocks."""
    tags: list[str] = []
    prose: list[str] = []
    closing: str | None = None
    for line in text.splitlines():
        match = _FENCE.match(line)
        if closing is None and match:
            closing = match.group(1)
            tags.append(match.group(2))
        elif closing is not None and _closes(line, closing):
            closing = None
        elif closing is None:
            prose.append(line)
    return tags, "\n".join(prose)


def page_structure(text: str) -> PageStructure:
    """Extract the heading ids, Jinja expressions and fenced-block tags of a Markdown page."""
    fences, prose = _fence_tags_and_prose(text)
    ids = [m.group(1) for line in prose.splitlines() if (m := _HEADING_ID.match(line))]
    jinja = [" ".join(expr.split()) for expr in _JINJA.findall(text)]
    return PageStructure(ids, jinja, fences)


def _pages(lang: str, docs: Path) -> list[str]:
    """The Markdown pages of one language, as sorted paths relative to its docs folder."""
    folder = docs / lang
    return sorted(path.relative_to(folder).as_posix() for path in folder.rglob("*.md"))


def page_problems(docs: Path = ROOT / "docs") -> list[str]:
    """Pages missing or extra in a language, and pages whose structure differs from English."""
    reference = _pages("en", docs)
    problems = [
        f"docs/{lang}/{page}: {'missing' if page in reference else 'not in docs/en'}"
        for lang in LANGS[1:]
        for page in sorted(set(reference) ^ set(_pages(lang, docs)))
    ]
    for page in reference:
        problems += _structure_problems(docs, page)
    return problems


def _structure_problems(docs: Path, page: str) -> list[str]:
    """How each translation of ``page`` departs from the English page's structure."""
    english = page_structure((docs / "en" / page).read_text(encoding="utf-8"))
    problems = []
    for lang in LANGS:
        path = docs / lang / page
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        if _JINJA_COMMENT_ID.search(text):
            problems.append(f"docs/{lang}/{page}: write ids as {{ #id }}: {{#id}} opens a Jinja comment")
        for field, found, wanted in zip(PageStructure._fields, page_structure(text), english):
            if found != wanted:
                problems.append(f"docs/{lang}/{page}: {field} {found} differ from English {wanted}")
    return problems


def nav_files(config: Path) -> list[str]:
    """The page files a MkDocs config's ``nav`` lists, in order (empty if it has no nav)."""
    data = safeio.read_yaml(config)
    return list(_flatten_nav(data.get("nav") or []))


def _flatten_nav(items: Any) -> list[str]:
    """The file names in a nav tree, skipping external links."""
    if isinstance(items, str):
        return [] if "://" in items else [items]
    if isinstance(items, dict):
        return [name for value in items.values() for name in _flatten_nav(value)]
    return [name for item in items for name in _flatten_nav(item)]


def nav_problems(root: Path = ROOT) -> list[str]:
    """Configs whose nav is missing or lists other files than the English nav."""
    reference = nav_files(root / CONFIGS["en"])
    problems = [] if reference else [f"{CONFIGS['en']}: no nav"]
    for lang in LANGS[1:]:
        found = nav_files(root / CONFIGS[lang])
        if found != reference:
            problems.append(f"{CONFIGS[lang]}: nav lists {found}, {CONFIGS['en']} lists {reference}")
    return problems


def message_problems(directory: Path = MESSAGES_DIR) -> list[str]:
    """Problems with the message files (missing keys, mismatched placeholders, bad values)."""
    try:
        load_messages(directory)
    except MessageError as err:
        return str(err).splitlines()
    return []


def all_problems(root: Path = ROOT) -> list[str]:
    """Every i18n problem of the repository at ``root``; empty when the languages agree."""
    docs = root / "docs"
    return message_problems(docs / "messages") + page_problems(docs) + nav_problems(root)
