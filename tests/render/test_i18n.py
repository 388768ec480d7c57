"""Tests for sizing.render.i18n: message files, translation lookup and locale-aware formatting."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import pytest
from babel import Locale

from sizing.render import i18n
from sizing.render.i18n import MessageError, fmt_gib, fmt_kib, fmt_money, fmt_number, fmt_percent, t

NBSP = "\u00a0"
RU_GROUP = Locale.parse("ru").number_symbols["latn"]["group"]


# --- numbers ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "lang", "decimals", "expected"),
    [
        (250000, "en", 0, "250,000"),
        (250000, "zh", 0, "250,000"),
        (250000, "ru", 0, f"250{RU_GROUP}000"),
        (0.9, "en", 2, "0.90"),
        (0.9, "zh", 2, "0.90"),
        (0.9, "ru", 2, "0,90"),
        (1234567.891, "en", 1, "1,234,567.9"),
        (1234567.891, "ru", 1, f"1{RU_GROUP}234{RU_GROUP}567,9"),
        (999.5, "en", 0, "1,000"),
        (-1500, "en", 0, "-1,500"),
        (-0.001, "ru", 2, "0,00"),
    ],
)
def test_fmt_number(value: float, lang: str, decimals: int, expected: str) -> None:
    """Assert digits, grouping and decimal mark follow the language."""
    assert fmt_number(value, lang, decimals) == expected


def test_russian_grouping_is_babels_no_break_space() -> None:
    """Assert the Russian group separator is exactly U+00A0, as Babel's CLDR data says."""
    assert RU_GROUP == NBSP
    assert fmt_number(250000, "ru") == "250\u00a0000"


def test_fmt_number_rounds_like_python_format() -> None:
    """Assert rounding matches format(value, '.Nf'), so tables and snapshots agree."""
    for value in (0.125, 2.675, 14.925, 1.005):
        assert fmt_number(value, "en", 2) == format(value, ".2f")


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), True])
def test_fmt_number_rejects_non_numbers(bad: float) -> None:
    """Assert NaN, infinities and booleans are refused rather than printed."""
    with pytest.raises(ValueError, match="cannot format"):
        fmt_number(bad, "en")


def test_fmt_number_rejects_negative_decimals() -> None:
    """Assert a negative number of decimals is an error."""
    with pytest.raises(ValueError, match="decimals"):
        fmt_number(1.0, "en", -1)


@pytest.mark.parametrize(
    ("lang", "expected"),
    [("en", "14.93\u00a0GiB"), ("zh", "14.93\u00a0GiB"), ("ru", "14,93\u00a0ГиБ")],
)
def test_fmt_gib(lang: str, expected: str) -> None:
    """Assert bytes are shown in GiB (2^30) with the translated unit."""
    assert fmt_gib(16_031_612_928, lang) == expected


def test_fmt_gib_uses_binary_units() -> None:
    """Assert one GiB is 2^30 bytes, not 10^9."""
    assert fmt_gib(2**30, "en", 0) == "1\u00a0GiB"
    assert fmt_gib(10**9, "en") == "0.93\u00a0GiB"


@pytest.mark.parametrize(
    ("bytes_", "lang", "decimals", "expected"),
    [(81920, "en", 0, "80\u00a0KiB"), (81920, "ru", 0, "80\u00a0КиБ"), (70272, "zh", 1, "68.6\u00a0KiB")],
)
def test_fmt_kib(bytes_: int, lang: str, decimals: int, expected: str) -> None:
    """Assert per-token KV sizes are shown in KiB (2^10)."""
    assert fmt_kib(bytes_, lang, decimals) == expected


@pytest.mark.parametrize(
    ("fraction", "lang", "decimals", "expected"),
    [
        (0.9, "en", 0, "90%"),
        (0.9, "zh", 0, "90%"),
        (0.9, "ru", 0, "90\u00a0%"),
        (0.875, "ru", 1, "87,5\u00a0%"),
    ],
)
def test_fmt_percent(fraction: float, lang: str, decimals: int, expected: str) -> None:
    """Assert fractions become percentages in each language's style."""
    assert fmt_percent(fraction, lang, decimals) == expected


@pytest.mark.parametrize(
    ("amount", "lang", "decimals", "expected"),
    [
        (2199, "en", 0, "$2,199"),
        (2199, "zh", 0, "US$2,199"),
        (2199, "ru", 0, "2\u00a0199\u00a0$"),
        (11.449, "en", None, "$11.45"),
        (11.449, "ru", None, "11,45\u00a0$"),
    ],
)
def test_fmt_money(amount: float, lang: str, decimals: int | None, expected: str) -> None:
    """Assert prices use the currency's symbol, position and precision for the language."""
    assert fmt_money(amount, "USD", lang, decimals) == expected


def test_fmt_money_rejects_unknown_currency() -> None:
    """Assert a currency code that ISO 4217 does not know is refused."""
    with pytest.raises(ValueError, match="XYZ"):
        fmt_money(1, "XYZ", "en")


def test_unknown_language_is_an_error() -> None:
    """Assert formatting in a language the site does not have fails, naming the choices."""
    with pytest.raises(MessageError, match="en, zh, ru"):
        fmt_number(1, "de")


# --- messages --------------------------------------------------------------------------------


def test_site_message_files_have_the_same_keys() -> None:
    """Assert en, zh and ru message files hold exactly the same keys, all non-empty."""
    keys = {lang: set(i18n.messages(lang)) for lang in i18n.LANGS}
    assert keys["en"] == keys["zh"] == keys["ru"]
    assert all(text.strip() for lang in i18n.LANGS for text in i18n.messages(lang).values())


def test_site_message_files_cover_the_units_and_headers() -> None:
    """Assert the keys the formatting functions and tables rely on exist."""
    needed = {
        "unit_gib",
        "unit_kib",
        "word_yes",
        "word_no",
        "verdict_fits",
        "col_model",
        "col_server",
        "col_precision",
        "col_weights_per_gpu",
        "col_kv_cache_per_gpu",
        "col_sequences_at",
        "col_gpu",
        "col_gpus",
        "col_memory",
        "col_bandwidth",
        "col_price",
    }
    assert needed <= set(i18n.messages("en"))


def test_messages_are_cached_and_read_only() -> None:
    """Assert messages() returns the same read-only mapping on every call."""
    table = i18n.messages("zh")
    assert i18n.messages("zh") is table
    with pytest.raises(TypeError):
        table["col_model"] = "x"  # type: ignore[index]


def test_t_translates_and_fills_placeholders() -> None:
    """Assert t() picks the language's text and fills named placeholders."""
    assert t("en", "col_model") == "Model"
    assert t("zh", "col_model") == "模型"
    assert t("ru", "col_model") == "Модель"
    assert t("en", "col_sequences_at", context="32K") == "Sequences at 32K"
    assert t("ru", "col_with_unit", label="Веса", unit="ГиБ") == "Веса, ГиБ"


def test_t_names_file_and_key_when_the_key_is_unknown() -> None:
    """Assert an unknown key is an error naming the message file and the key."""
    with pytest.raises(MessageError, match=r"docs/messages/ru\.yaml: no_such_key: no such key"):
        t("ru", "no_such_key")


def test_t_requires_every_placeholder() -> None:
    """Assert a placeholder left unfilled is an error, not literal braces on the page."""
    with pytest.raises(MessageError, match=r"col_sequences_at: placeholder \{context\} not given"):
        t("en", "col_sequences_at")


def _write(directory: Path, **files: str) -> Path:
    """Write message files named by language into ``directory`` and return it."""
    for lang, text in files.items():
        (directory / f"{lang}.yaml").write_text(text, encoding="utf-8")
    return directory


GOOD = {"en": "a: A\nb: 'B {n}'\n", "zh": "a: 甲\nb: '乙 {n}'\n", "ru": "a: А\nb: 'Б {n}'\n"}


def test_load_messages_accepts_consistent_files(tmp_path: Path) -> None:
    """Assert three consistent files load as three mappings."""
    tables = i18n.load_messages(_write(tmp_path, **GOOD))
    assert dict(tables["ru"]) == {"a": "А", "b": "Б {n}"}


@pytest.mark.parametrize(
    ("lang", "text", "expected"),
    [
        ("zh", "a: 甲\n", r"zh\.yaml: b: missing \(present in en\.yaml, ru\.yaml\)"),
        ("ru", "a: А\nb: 'Б {n}'\nc: В\n", r"en\.yaml: c: missing \(present in ru\.yaml\)"),
        ("ru", "a: А\nb: 'Б {m}'\n", r"ru\.yaml: b: placeholders \['m'\] differ from en\.yaml's \['n'\]"),
        ("ru", "a: А\nb: 'Б {}'\n", r"ru\.yaml: b: placeholder \{\} must be a name"),
        ("ru", "a: А\nb: 'Б {n'\n", r"ru\.yaml: b: malformed placeholder"),
        ("zh", "a: 甲\nb: '乙 {n}'\nyes: 是\n", r"zh\.yaml: True: keys are snake_case"),
        ("zh", "a: no\nb: '乙 {n}'\n", r"zh\.yaml: a: must be non-empty text, got False"),
        ("zh", "a: ''\nb: '乙 {n}'\n", r"zh\.yaml: a: must be non-empty text"),
        ("zh", "a: 甲\na: 乙\nb: '乙 {n}'\n", r"zh\.yaml: .*line 2: YAML error: duplicate key 'a'"),
        ("zh", "- a\n", r"zh\.yaml: must be a flat map"),
        ("zh", "a: {x: 1}\nb: '乙 {n}'\n", r"zh\.yaml: a: must be non-empty text"),
    ],
)
def test_load_messages_names_file_and_key(tmp_path: Path, lang: str, text: str, expected: str) -> None:
    """Assert each kind of broken message file is reported with its file and key."""
    _write(tmp_path, **{**GOOD, lang: text})
    with pytest.raises(MessageError, match=expected):
        i18n.load_messages(tmp_path)


def test_load_messages_reports_a_missing_file(tmp_path: Path) -> None:
    """Assert a language without a message file is reported by file name."""
    _write(tmp_path, en=GOOD["en"], zh=GOOD["zh"])
    with pytest.raises(MessageError, match=r"ru\.yaml: .*file is missing"):
        i18n.load_messages(tmp_path)


# --- page language ---------------------------------------------------------------------------


def test_page_lang_reads_the_config_at_call_time() -> None:
    """Assert page_lang follows theme.language as it is when called, not when first seen."""
    env = SimpleNamespace(conf={"theme": {"language": "zh"}})
    assert i18n.page_lang(env) == "zh"
    env.conf["theme"]["language"] = "ru"
    assert i18n.page_lang(env) == "ru"


def test_page_lang_rejects_a_language_without_messages() -> None:
    """Assert a theme language the site has no message file for is an error."""
    with pytest.raises(MessageError, match="'fr'"):
        i18n.page_lang(SimpleNamespace(conf={"theme": {"language": "fr"}}))


def test_messages_are_read_again_after_a_file_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Assert an edited message file is picked up without restarting (as under mkdocs serve)."""
    monkeypatch.setattr(i18n, "MESSAGES_DIR", _write(tmp_path, **GOOD))
    monkeypatch.setattr(i18n, "STAMP_INTERVAL_S", 0.0)  # look at the files on every call
    assert "c" not in i18n.messages("en")
    _write(tmp_path, **{lang: text + f"c: {lang.upper()}\n" for lang, text in GOOD.items()})
    for path in tmp_path.iterdir():
        os.utime(path, ns=(1, path.stat().st_mtime_ns + 10**9))
    assert i18n.messages("ru")["c"] == "RU"
