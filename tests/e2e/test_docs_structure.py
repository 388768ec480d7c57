"""Tests for the page-structure parity rules (scripts/i18n_checks.py) and the pages themselves."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from scripts import i18n_checks
from scripts.i18n_checks import CONFIGS, PageStructure, nav_files, page_structure

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
LANGS = ("en", "zh", "ru")
PAGES = (
    "index.md",
    "explorer.md",
    "choosing-a-gpu-server.md",
    "deployment-hardware.md",
    "fit-tables.md",
    "throughput.md",
    "methodology.md",
    "catalog.md",
)

SAMPLE = """# Title

Intro {{ sz_t("col_model") }} and {{sz_t( "col_gpu" )}}.

## First { #first }

{% if true %}yes{% endif %}

```bash
# not a heading { #inside-fence }
vllm serve {{ model }}
```

## Second {: #second .wide }

~~~~
plain
~~~~

### Third { .note #third }
"""


# --- the extraction rules --------------------------------------------------------------------


def test_page_structure_extracts_ids_jinja_and_fences() -> None:
    """Assert ids come from headings only, Jinja is whitespace-normalised, fences keep their tags."""
    assert page_structure(SAMPLE) == PageStructure(
        heading_ids=["first", "second", "third"],
        jinja=[
            '{{ sz_t("col_model") }}',
            '{{sz_t( "col_gpu" )}}',
            "{% if true %}",
            "{% endif %}",
            "{{ model }}",
        ],
        fences=["bash", ""],
    )


def test_page_structure_normalises_whitespace_inside_expressions() -> None:
    """Assert line breaks and runs of spaces inside {{ … }} do not count as differences."""
    split = page_structure('{{ sz_fit_table(\n    server="l40s") }}')
    assert split.jinja == ['{{ sz_fit_table( server="l40s") }}']


def test_heading_without_id_is_not_counted() -> None:
    """Assert a heading with no { #id } contributes nothing to the id sequence."""
    assert page_structure("## Plain heading\n## With id { #x }\n").heading_ids == ["x"]


def _copy_docs(tmp_path: Path) -> Path:
    """A scratch copy of docs/ to break on purpose."""
    return Path(shutil.copytree(DOCS, tmp_path / "docs"))


def test_page_problems_reports_a_changed_translation(tmp_path: Path) -> None:
    """Assert an extra heading id, a different macro call and a missing page are all reported."""
    docs = _copy_docs(tmp_path)
    page = docs / "ru" / "methodology.md"
    page.write_text(
        page.read_text(encoding="utf-8") + "\n## Лишний { #extra }\n\n{{ sz_t('x') }}\n", encoding="utf-8"
    )
    (docs / "zh" / "catalog.md").unlink()
    problems = "\n".join(i18n_checks.page_problems(docs))
    assert "docs/zh/catalog.md: missing" in problems
    assert "docs/ru/methodology.md: heading_ids" in problems
    assert "docs/ru/methodology.md: jinja" in problems


def test_page_problems_reports_a_jinja_comment_id(tmp_path: Path) -> None:
    """Assert {#id}, which mkdocs-macros reads as a Jinja comment, is reported."""
    docs = _copy_docs(tmp_path)
    page = docs / "zh" / "index.md"
    page.write_text(page.read_text(encoding="utf-8") + "\n## 错误 {#wrong}\n", encoding="utf-8")
    assert any("{#id} opens a Jinja comment" in p for p in i18n_checks.page_problems(docs))


def test_nav_problems_reports_a_reordered_nav(tmp_path: Path) -> None:
    """Assert a language nav listing the pages in another order is reported."""
    for name in CONFIGS.values():
        shutil.copy(ROOT / name, tmp_path / name)
    ru = tmp_path / CONFIGS["ru"]
    text = ru.read_text(encoding="utf-8")
    ru.write_text(
        text.replace("fit-tables.md", "TMP")
        .replace("methodology.md", "fit-tables.md")
        .replace("TMP", "methodology.md"),
        encoding="utf-8",
    )
    assert [p.split(":")[0] for p in i18n_checks.nav_problems(tmp_path)] == ["mkdocs.ru.yml"]


# --- the site's pages ------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_every_page_exists_in_every_language(lang: str) -> None:
    """Assert each language has exactly the nav pages, no more and no fewer."""
    pages = sorted(p.relative_to(DOCS / lang).as_posix() for p in (DOCS / lang).rglob("*.md"))
    assert pages == sorted(PAGES)


@pytest.mark.parametrize("lang", ["zh", "ru"])
@pytest.mark.parametrize("page", PAGES)
def test_translation_has_the_english_structure(lang: str, page: str) -> None:
    """Assert heading ids, Jinja expressions and fenced blocks match the English page."""
    english = page_structure((DOCS / "en" / page).read_text(encoding="utf-8"))
    translated = page_structure((DOCS / lang / page).read_text(encoding="utf-8"))
    assert translated.heading_ids == english.heading_ids
    assert translated.jinja == english.jinja
    assert translated.fences == english.fences


@pytest.mark.parametrize("page", PAGES)
def test_every_section_has_an_explicit_id(page: str) -> None:
    """Assert every H2/H3 of the English page carries a { #id }, so deep links survive a language switch."""
    lines = (DOCS / "en" / page).read_text(encoding="utf-8").splitlines()
    sections = [line for line in lines if line.startswith(("## ", "### "))]
    assert sections and len(page_structure("\n".join(sections)).heading_ids) == len(sections)


def test_every_nav_lists_the_same_files() -> None:
    """Assert the three configs list the same pages in the same order, and every page is listed."""
    navs = {lang: nav_files(ROOT / name) for lang, name in CONFIGS.items()}
    assert navs["en"] == navs["zh"] == navs["ru"]
    assert sorted(navs["en"]) == sorted(PAGES)


def test_check_i18n_is_clean(run_docs) -> None:
    """Assert `scripts/docs.py check-i18n` finds nothing in the repository as committed."""
    result = run_docs("check-i18n")
    assert result.returncode == 0, result.stderr
    assert "agree" in result.stdout
