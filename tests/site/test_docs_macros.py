"""Tests for sizing.site.docs_macros: the define_env shim, driven by a stand-in macros environment."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from sizing.errors import UsageError
from sizing.site import docs_macros


class FakeEnv:
    """The part of the mkdocs-macros environment the shim uses: ``macro`` and ``conf``."""

    def __init__(self, language: str) -> None:
        self.conf: dict[str, Any] = {"theme": {"language": language}}
        self.macros: dict[str, Callable[..., Any]] = {}

    def macro(self, function: Callable[..., Any], name: str = "") -> Callable[..., Any]:
        """Record ``function`` under ``name``, as mkdocs-macros does."""
        self.macros[name or function.__name__] = function
        return function


def test_define_env_registers_sz_t() -> None:
    """Assert sz_t returns the label in the language of the page being rendered."""
    env = FakeEnv("ru")
    docs_macros.define_env(env)
    assert "sz_t" in env.macros and all(name.startswith("sz_") for name in env.macros)
    assert env.macros["sz_t"]("col_model") == "Модель"


def test_macros_read_the_language_at_call_time() -> None:
    """Assert a macro defined under one language follows a later change of theme.language."""
    env = FakeEnv("en")
    docs_macros.define_env(env)
    env.conf["theme"]["language"] = "zh"
    assert env.macros["sz_t"]("col_server") == "服务器"
    assert env.macros["sz_t"]("col_sequences_at", context="4K") == "4K 序列数"


def test_register_requires_the_sz_prefix() -> None:
    """Assert a macro name without the sz_ prefix is refused."""
    with pytest.raises(ValueError, match="sz_"):
        docs_macros._register(FakeEnv("en"), "fit_table", lambda lang: lang)


def _both_engines() -> tuple[FakeEnv, Any]:
    """The macros registered on a fake MkDocs env and on Zensical's own macro env (English pages)."""
    from zensical.extensions.macros import MacroEnv  # requirements-zensical.txt; imported where used

    mkdocs = FakeEnv("en")
    docs_macros.define_env(mkdocs)
    zensical = MacroEnv(conf={"theme": {"language": "en"}})
    docs_macros.define_env(zensical)
    return mkdocs, zensical


def test_downloads_links_follow_the_engine() -> None:
    """Assert MkDocs gets links relative to the page URL, Zensical (which rewrites raw HTML links
    against the source file) links relative to the source's folder; both reach the language root."""
    mkdocs, zensical = _both_engines()
    assert 'href="../downloads/fits.csv"' in mkdocs.macros["sz_downloads"]("fit-tables/")
    assert 'href="downloads/fits.csv"' in zensical.macros["sz_downloads"]("fit-tables/")
    assert 'href="../downloads/fits.csv"' in zensical.macros["sz_downloads"]("guides/fit-tables/")
    assert 'href="downloads/fits.csv"' in zensical.macros["sz_downloads"]("")


def test_fit_table_explorer_links_follow_the_engine() -> None:
    """Assert the other servers' explorer links are relative like the downloads links (the page URL
    under MkDocs, the source's folder under Zensical)."""
    mkdocs, zensical = _both_engines()
    assert 'href="../explorer/#server=' in mkdocs.macros["sz_fit_tables"]("fit-tables/")
    assert 'href="explorer/#server=' in zensical.macros["sz_fit_tables"]("fit-tables/")


def test_constants_reach_the_page_from_the_code() -> None:
    """Assert the band's percentiles and the sampler's bytes per logit come from the constants the
    calibration and the engine use, worded per language."""
    from sizing.catalog.loader import load_catalog
    from sizing.engine import overhead

    pages = {lang: FakeEnv(lang) for lang in ("en", "zh", "ru")}
    for env in pages.values():
        docs_macros.define_env(env)
    low, high = (round(q * 100) for q in load_catalog().assume("kv_band_quantiles"))
    assert pages["zh"].macros["sz_band_percentile"]("low") == str(low)
    assert pages["ru"].macros["sz_band_percentile"]("high") == str(high)
    tp_low, _ = (round(q * 100) for q in load_catalog().assume("throughput_band_quantiles"))
    assert pages["zh"].macros["sz_band_percentile"]("low", "throughput") == str(tp_low)
    with pytest.raises(UsageError):
        pages["en"].macros["sz_band_percentile"]("low", "power")
    assert pages["en"].macros["sz_logit_bytes"]("v1") == f"{overhead.SAMPLER_BYTES_PER_LOGIT} bytes"
    assert pages["ru"].macros["sz_logit_bytes"]("v2") == f"{overhead.V2_SAMPLER_BYTES_PER_LOGIT} байта"
    with pytest.raises(KeyError):
        pages["en"].macros["sz_logit_bytes"]("v3")
