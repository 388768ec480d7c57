"""Tests for `scripts/docs.py build`: the assembled trilingual site, and safe replacement of site/."""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from scripts.bench_pages import TARGETS, site_sizes
from scripts.docs import SITE_MARKER, lunr_files
from scripts.engines import ENGINES
from sizing.render.i18n import t
from tests.conftest import STALE, engines_read

ROOT = Path(__file__).resolve().parents[2]
PREFIXES = {"en": "", "zh": "zh/", "ru": "ru/"}
PAGES = ("choosing-a-gpu-server", "deployment-hardware", "fit-tables", "throughput", "methodology", "catalog")
_IGNORED = shutil.ignore_patterns(
    ".git",
    ".venv",
    "__pycache__",
    ".pytest_cache",
    ".hypothesis",
    ".site-build-*",
    "test-artifacts",
    "node_modules",
)


def COPY_IGNORE(folder: str, names: list[str]) -> set[str]:  # noqa: N802 - used like the constant it was
    """What copying the repository skips: caches anywhere; build output (site/, build/) at the root only."""
    skipped = set(_IGNORED(folder, names))
    if Path(folder).resolve() == ROOT:
        skipped |= {"site", "build"} & set(names)
    return skipped


def _html_files(site: Path) -> list[Path]:
    """Every HTML file of the assembled site."""
    return sorted(site.rglob("*.html"))


@pytest.mark.parametrize("lang", PREFIXES)
def test_every_page_is_built_in_every_language(built_site: Path, lang: str) -> None:
    """Assert the home page and the five other pages exist under each language root."""
    root = built_site / PREFIXES[lang]
    assert (root / "index.html").is_file()
    for page in PAGES:
        assert (root / page / "index.html").is_file(), f"{lang}: {page}"


@pytest.mark.parametrize("lang", PREFIXES)
def test_html_lang_matches_the_language_root(built_site: Path, lang: str) -> None:
    """Assert every page under a language root declares that language on <html>."""
    root = built_site / PREFIXES[lang]
    pages = [root / "index.html", *(root / page / "index.html" for page in PAGES)]
    for page in pages:
        match = re.search(r"<html[^>]*\blang=\"([^\"]+)\"", page.read_text(encoding="utf-8"))
        assert match and match.group(1) == lang, page


def test_no_unrendered_macros_or_macro_errors(built_site: Path) -> None:
    """Assert no HTML page contains literal {{ or a mkdocs-macros error block."""
    for page in _html_files(built_site):
        text = page.read_text(encoding="utf-8")
        assert "{{" not in text, page
        assert "Macro Rendering Error" not in text, page


@pytest.mark.parametrize("lang", PREFIXES)
def test_site_assets_are_local(built_site: Path, lang: str) -> None:
    """Assert pages load the vendored scripts and site CSS, and no script or stylesheet from a CDN."""
    root = built_site / PREFIXES[lang]
    html = (root / "fit-tables" / "index.html").read_text(encoding="utf-8")
    for asset in (
        "tablesort.min.js",
        "tablesort.number.min.js",
        "tablesort-init.js",
        "table-filter.js",
        "table-scroll.js",
        "sizing.css",
    ):
        assert f"assets/{'javascripts' if asset.endswith('.js') else 'stylesheets'}/{asset}" in html
        assert list(root.glob(f"assets/*/{asset}")), asset
    assert _external_resources(html) == []


def _external_resources(html: str) -> list[str]:
    """Scripts, stylesheets, fonts and preconnects the page would fetch from another host."""
    found = []
    for tag in re.findall(r"<(?:script|link)\b[^>]*>", html):
        if re.search(r"\brel=\"(canonical|alternate)\"", tag):
            continue
        url = re.search(r"\b(?:src|href)=\"([^\"]*)\"", tag)
        if url and re.match(r"(https?:)?//", url.group(1)):
            found.append(url.group(1))
    return found


SEARCH_INDEX = {"mkdocs": "search/search_index.json", "zensical": "search.json"}
"""Each engine's search index (scripts/engines.py difference "search-index")."""


def _search_config(built_site: Path, lang: str, engine: str = "mkdocs") -> dict:
    """The search index header of one language."""
    index = built_site / PREFIXES[lang] / SEARCH_INDEX[engine]
    return json.loads(index.read_text(encoding="utf-8"))


def test_chinese_search_is_segmented(engine_site: Path, engine: str) -> None:
    """Assert jieba split the Chinese text with U+200B and the separator splits on it (Zensical: the
    index is for zh, which its search segments in the browser)."""
    index = _search_config(engine_site, "zh", engine)
    if engine == "zensical":
        assert index["config"]["lang"] == ["zh"]
        return
    assert "\\u200b" in index["config"]["separator"]
    assert any("\u200b" in doc["text"] for doc in index["docs"])


def test_russian_search_uses_russian_stemming(engine_site: Path, engine: str) -> None:
    """Assert the Russian index is built for Russian (and, with Material, English terms)."""
    expected = ["ru"] if engine == "zensical" else ["ru", "en"]  # difference "search-lang"
    assert _search_config(engine_site, "ru", engine)["config"]["lang"] == expected


def test_chinese_search_keeps_gpu_names_whole(engine_site: Path, engine: str) -> None:
    """Assert the zh index does not stem (the English stemmer cut "L40S" to "l40"); Zensical's index has
    no pipeline setting (difference "search-index"), its browser search is checked by the browser tests."""
    config = _search_config(engine_site, "zh", engine)["config"]
    assert "stemmer" not in config.get("pipeline", [])


@pytest.mark.parametrize("lang", PREFIXES)
def test_table_bodies_and_charts_are_not_indexed(engine_site: Path, engine: str, lang: str) -> None:
    """Assert computed tables and charts are left out of the search index; their headings stay in. A table's
    header row would be indexed as its labels one after the other (prose may name a single column)."""
    index = _search_config(engine_site, lang, engine)
    docs = index["items" if engine == "zensical" else "docs"]
    row = "".join(t(lang, "col_sequences_at", context=c) for c in ("4K", "32K")).replace(" ", "")
    assert not [d["location"] for d in docs if row in re.sub(r"[\s\u200b]", "", html.unescape(d["text"]))]
    assert any("fit-gpu-l40s" in d["location"] for d in docs)


def test_downloads_are_written_once_at_the_site_root(built_site: Path) -> None:
    """Assert fits.csv/fits.json exist at the root only, and every language's fit tables link there."""
    assert sorted(p.name for p in (built_site / "downloads").iterdir()) == ["fits.csv", "fits.json"]
    assert [p for p in built_site.rglob("fits.csv") if p.parent != built_site / "downloads"] == []
    for lang, prefix in PREFIXES.items():
        page = built_site / prefix / "fit-tables" / "index.html"
        for href in re.findall(r'href="([^"]+fits\.csv)"', page.read_text(encoding="utf-8")):
            assert (page.parent / href).resolve() == (built_site / "downloads" / "fits.csv").resolve(), lang
    assert list(built_site.rglob("*.map")) == []


@pytest.mark.parametrize("lang", PREFIXES)
def test_fit_tables_page_weighs_under_its_target(built_site: Path, lang: str) -> None:
    """Assert each language's fit-tables HTML is under issue 11's 400,000 bytes (bytes are
    deterministic: the same catalog gives the same page; the load time is benchmarked, not tested)."""
    size = (built_site / PREFIXES[lang] / "fit-tables" / "index.html").stat().st_size
    assert size < TARGETS["fit_tables_html"], f"{lang}: fit-tables/ is {size:,} bytes"


def test_whole_site_weighs_under_its_target(built_site: Path) -> None:
    """Assert the assembled site (every file, all languages) is under issue 11's 15,000,000 bytes."""
    sizes = site_sizes(built_site)
    assert sizes["total"] < TARGETS["site_bytes"], (
        f"{sizes['total']:,} bytes; largest: {sizes['largest'][:3]}"
    )


@pytest.mark.parametrize("lang", ["zh", "ru"])
def test_search_indexes_are_utf8_text(built_site: Path, lang: str) -> None:
    """Assert Material's search index of a language keeps its script as UTF-8 text, not ``\\u`` escapes
    (scripts/docs.py rewrites it; the search test proves the worker still reads it)."""
    text = (built_site / lang / "search" / "search_index.json").read_text(encoding="utf-8")
    word = {"zh": "显存", "ru": "память"}[lang]
    assert word in text and not re.search(r"(?<!\\)\\u(?!00)[0-9a-fA-F]{4}", text)  # control characters only


def test_lunr_files_follow_the_search_languages() -> None:
    """Assert the build keeps only what Material's search worker loads for an index's languages."""
    assert lunr_files(["en"]) == set()
    assert lunr_files(["ru", "en"]) == {
        "min/lunr.ru.min.js",
        "min/lunr.multi.min.js",
        "min/lunr.stemmer.support.min.js",
    }
    assert lunr_files(["th"]) == {"wordcut.js", "min/lunr.th.min.js", "min/lunr.stemmer.support.min.js"}


def test_unused_search_languages_are_not_shipped(engine_site: Path, engine: str) -> None:
    """Assert no language ships lunr's segmenters it never loads (Material: Russian keeps its stemmer)."""
    assert list(engine_site.rglob("wordcut.js")) == [] or engine == "zensical"
    if engine == "mkdocs":
        assert (engine_site / "ru" / "assets" / "javascripts" / "lunr" / "min" / "lunr.ru.min.js").is_file()
        assert not (engine_site / "assets" / "javascripts" / "lunr" / "min" / "lunr.ru.min.js").exists()


def test_build_replaces_an_existing_site(engine_site: Path) -> None:
    """Assert a successful build replaced the old site whole (the session's build went over a site folder an
    earlier build wrote, holding a stale page), marked the new one and left no work folder behind."""
    site = engine_site
    assert not (site / STALE).exists() and (site / SITE_MARKER).is_file()
    assert (site / "zh" / "index.html").is_file()
    assert sorted(p.name for p in site.parent.iterdir() if p.name.startswith(".")) == []


def _snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` with its content."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def _repository_with_a_broken_page(tmp_path: Path) -> Path:
    """A copy of the repository whose pages (every language) open with an undefined macro."""
    repo = Path(shutil.copytree(ROOT, tmp_path / "repo", ignore=COPY_IGNORE))
    for lang in PREFIXES:
        page = repo / "docs" / lang / "index.md"
        page.write_text("{{ sz_no_such_macro() }}\n" + page.read_text(encoding="utf-8"), encoding="utf-8")
    return repo


@pytest.mark.site
@pytest.mark.parametrize("engine", ENGINES)
def test_failed_build_leaves_the_site_untouched(
    run_docs, prepared_build_env: dict[str, str], engine: str, tmp_path: Path
) -> None:
    """Assert a page with an undefined macro fails the build (with either engine), shows why and keeps the
    old site. The macro opens every language's home page, so it stops each language build at its first
    page. The copy's catalog is the repository's, so its prepare step loads the run's prepared context."""
    repo = _repository_with_a_broken_page(tmp_path)
    site = tmp_path / "published" / "site"
    site.mkdir(parents=True)
    (site / SITE_MARKER).write_text("", encoding="utf-8")  # a site an earlier build wrote
    (site / "index.html").write_text('<html lang="en">previous site</html>', encoding="utf-8")
    before = _snapshot(site)
    result = run_docs("build", "--engine", engine, "--site", str(site), repo=repo, env=prepared_build_env)
    assert result.returncode != 0
    assert "sz_no_such_macro" in result.stderr and "left unchanged" in result.stderr
    assert _snapshot(site) == before
    assert sorted(p.name for p in site.parent.iterdir()) == ["site"]


def test_the_early_builds_are_the_engines_the_selected_tests_read() -> None:
    """Assert the builds started after collection are those the selected tests read, in the order they first
    need them, and none for tests that read no shared site (``make test-fast``)."""

    def item(*names: str, engine: str | None = None) -> SimpleNamespace:
        params = {} if engine is None else {"engine": engine}
        return SimpleNamespace(fixturenames=list(names), callspec=SimpleNamespace(params=params))

    browser = item("engine", "engine_site", "site_url", engine="zensical")
    assert engines_read([item("tmp_path"), browser, item("built_site")]) == ["zensical", "mkdocs"]
    assert engines_read([item("zensical_site"), item("built_site", "zensical_site")]) == [
        "zensical",
        "mkdocs",
    ]
    assert engines_read([item("tmp_path"), item("engine", engine="mkdocs"), SimpleNamespace()]) == []
