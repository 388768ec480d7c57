"""Tests for scripts.tokens_per_char: what counts as prose (the tokenizers themselves are not installed
here)."""

from __future__ import annotations

from scripts.tokens_per_char import pages, prose


def test_prose_drops_code_macros_tables_tags_and_markup() -> None:
    page = (
        '---\ntitle: x\n---\n# Заголовок { #id }\n\nТекст `--flag 1` и {{ sz_value("a", "b") }} '
        "[ссылка](other.md).\n\n```sh\nvllm serve x\n```\n\n| a | b |\n|---|---|\n\n<span "
        'class="x">да</span>\n'
        "[Кнопка](x.md){ .md-button }\n"
    )
    assert prose(page) == "Заголовок Текст и ссылка . да Кнопка"


def test_every_language_has_the_same_pages() -> None:
    names = {lang: [p.name for p in pages(lang)] for lang in ("zh", "ru", "en")}
    assert names["zh"] == names["ru"] == names["en"] and "index.md" in names["en"]
