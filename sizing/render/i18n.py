"""Translated labels and locale-aware number formatting for the three site languages.

Labels live in ``docs/messages/<lang>.yaml``: flat ``key: text`` maps that must hold the same keys,
with the same ``{placeholders}``, in every language. Nothing here lists the keys; the files are
compared with each other, so adding a key means adding it to all three files.

Numbers are formatted with Babel (CLDR) for the page language: ``250,000`` / ``0.90`` in English
and Chinese, ``250 000`` / ``0,90`` in Russian (the group separator is Babel's U+00A0). Memory
is shown in GiB (2^30 bytes), per-token KV cache in KiB (2^10 bytes); a unit is joined to its
number by a no-break space so the two never wrap apart.

The page language is read from the MkDocs config at macro call time (:func:`page_lang`); never
cache a language-dependent value when macros are defined.
"""

from __future__ import annotations

import copy
import functools
import math
import re
import string
import time
from collections.abc import Mapping
from decimal import Decimal
from pathlib import Path
from types import MappingProxyType
from typing import Any

from babel import Locale
from babel.numbers import NumberPattern, get_currency_precision, is_currency, parse_pattern

from sizing import safeio
from sizing.errors import CatalogError
from sizing.units import GiB, KiB

__all__ = [
    "LANGS",
    "MESSAGES_DIR",
    "MessageError",
    "fmt_gib",
    "fmt_kib",
    "fmt_money",
    "fmt_number",
    "fmt_percent",
    "load_messages",
    "messages",
    "page_lang",
    "t",
]

LANGS: tuple[str, ...] = ("en", "zh", "ru")
"""The site languages; English is the reference every other file is compared with."""

MESSAGES_DIR = Path(__file__).resolve().parents[2] / "docs" / "messages"
"""Where ``<lang>.yaml`` message files live."""

NBSP = "\u00a0"
_KEY = re.compile(r"[a-z][a-z0-9_]*")


class MessageError(ValueError):
    """A message file is unreadable, malformed or out of step with the others.

    The text always names the file and the key, as
    ``docs/messages/zh.yaml: col_model: missing (present in en.yaml)``.
    """


# ---------------------------------------------------------------------------------------------
# Message files
# ---------------------------------------------------------------------------------------------


def _shown(path: Path) -> str:
    """``path`` relative to the repository when it lies inside it, for readable messages."""
    try:
        return path.resolve().relative_to(MESSAGES_DIR.parent.parent).as_posix()
    except ValueError:
        return str(path)


def _placeholders(text: str, where: str) -> frozenset[str]:
    """The named ``{fields}`` of ``text``; positional or malformed fields are an error."""
    try:
        names = [field for _, field, _, _ in string.Formatter().parse(text) if field is not None]
    except ValueError as err:
        raise MessageError(f"{where}: malformed placeholder: {err}") from None
    for name in names:
        if not name.isidentifier():
            raise MessageError(f"{where}: placeholder {{{name}}} must be a name, as {{value}}")
    return frozenset(names)


def _read_file(path: Path) -> dict[str, str]:
    """Read one flat ``key: text`` file, checking every key and value."""
    try:
        data = safeio.read_yaml(path, _shown(path))
    except CatalogError as err:
        raise MessageError(str(err)) from None
    if not isinstance(data, dict):
        raise MessageError(f"{_shown(path)}: must be a flat map of `key: text`")
    for key, text in data.items():
        if not isinstance(key, str) or not _KEY.fullmatch(key):
            raise MessageError(f"{_shown(path)}: {key!r}: keys are snake_case names (quote yes/no)")
        if not isinstance(text, str) or not text.strip():
            raise MessageError(f"{_shown(path)}: {key}: must be non-empty text, got {text!r}")
        _placeholders(text, f"{_shown(path)}: {key}")
    return data


def _missing_problems(directory: Path, tables: Mapping[str, Mapping[str, str]]) -> list[str]:
    """One problem per key that some language has and another lacks."""
    problems = []
    for key in sorted(set().union(*tables.values())):
        holders = ", ".join(f"{lang}.yaml" for lang in tables if key in tables[lang])
        for lang in (lang for lang in tables if key not in tables[lang]):
            shown = _shown(directory / f"{lang}.yaml")
            problems.append(f"{shown}: {key}: missing (present in {holders})")
    return problems


def _placeholder_problems(directory: Path, tables: Mapping[str, Mapping[str, str]]) -> list[str]:
    """One problem per translation whose ``{placeholders}`` differ from the English text's."""
    problems = []
    for key, english in sorted(tables["en"].items()):
        reference = _placeholders(english, key)
        for lang in (lang for lang in tables if key in tables[lang]):
            found = _placeholders(tables[lang][key], key)
            if found != reference:
                shown = _shown(directory / f"{lang}.yaml")
                problems.append(
                    f"{shown}: {key}: placeholders {sorted(found)} differ from en.yaml's {sorted(reference)}"
                )
    return problems


def load_messages(directory: Path = MESSAGES_DIR) -> dict[str, Mapping[str, str]]:
    """Read and cross-check every language's message file in ``directory``.

    Raises:
        MessageError: listing every problem found, one per line, each naming file and key.
    """
    tables: dict[str, Mapping[str, str]] = {}
    problems: list[str] = []
    for lang in LANGS:
        try:
            tables[lang] = MappingProxyType(_read_file(directory / f"{lang}.yaml"))
        except MessageError as err:
            problems.append(str(err))
    if not problems:
        problems = _missing_problems(directory, tables) + _placeholder_problems(directory, tables)
    if problems:
        raise MessageError("\n".join(problems))
    return tables


_LAST_STAMP: list = [float("-inf"), None, ()]
STAMP_INTERVAL_S = 1.0
"""How often the message files' modification times are looked at again (``mkdocs serve`` reloads)."""


def _stamp() -> tuple[str | int, ...]:
    """The modification times of the site's message files (0 for a missing one), at most once a second."""
    now = time.monotonic()
    if now - _LAST_STAMP[0] >= STAMP_INTERVAL_S or _LAST_STAMP[1] != MESSAGES_DIR:
        paths = (MESSAGES_DIR / f"{lang}.yaml" for lang in LANGS)
        times = tuple(p.stat().st_mtime_ns if p.exists() else 0 for p in paths)
        _LAST_STAMP[:] = [now, MESSAGES_DIR, (str(MESSAGES_DIR), *times)]
    return _LAST_STAMP[2]


@functools.lru_cache(maxsize=1)
def _site_messages(stamp: tuple[str | int, ...]) -> dict[str, Mapping[str, str]]:
    """The site's message files, read again only when one changed (``mkdocs serve`` reloads)."""
    return load_messages(MESSAGES_DIR)


def _check_lang(lang: str) -> str:
    """Return ``lang`` if it is a site language, else fail naming the choices."""
    if lang not in LANGS:
        raise MessageError(f"unknown language {lang!r}; expected one of {', '.join(LANGS)}")
    return lang


def messages(lang: str) -> Mapping[str, str]:
    """All labels of ``lang`` as a read-only mapping (cached until a message file changes).

    Raises:
        MessageError: if ``lang`` is unknown or any message file is broken or incomplete.
    """
    return _site_messages(_stamp())[_check_lang(lang)]


def t(lang: str, key: str, **fmt: object) -> str:
    """The ``lang`` text of ``key``, with its ``{placeholders}`` filled from ``fmt``.

    Raises:
        MessageError: if the key does not exist or a placeholder is not given.
    """
    table = messages(lang)
    if key not in table:
        raise MessageError(f"{_shown(MESSAGES_DIR / f'{lang}.yaml')}: {key}: no such key")
    try:
        return table[key].format_map(fmt)
    except KeyError as err:
        where = f"{_shown(MESSAGES_DIR / f'{lang}.yaml')}: {key}"
        raise MessageError(f"{where}: placeholder {{{err.args[0]}}} not given") from None


# ---------------------------------------------------------------------------------------------
# Page language
# ---------------------------------------------------------------------------------------------


def page_lang(env: Any) -> str:
    """The language of the page being rendered, read from the MkDocs config at call time.

    ``env`` is the mkdocs-macros environment (anything with ``conf["theme"]["language"]``).
    """
    return _check_lang(str(env.conf["theme"]["language"]))


# ---------------------------------------------------------------------------------------------
# Numbers
# ---------------------------------------------------------------------------------------------


@functools.cache
def _locale(lang: str) -> Locale:
    """The Babel locale of a site language."""
    return Locale.parse(_check_lang(lang))


def _require_decimals(decimals: int) -> None:
    """Raise :class:`ValueError` unless ``decimals`` is a usable number of fraction digits (>= 0)."""
    if decimals < 0:
        raise ValueError(f"decimals must be >= 0, got {decimals}")


def _fixed(pattern: NumberPattern, decimals: int) -> NumberPattern:
    """A copy of ``pattern`` that always shows exactly ``decimals`` fraction digits."""
    _require_decimals(decimals)
    fixed = copy.copy(parse_pattern(pattern))
    fixed.frac_prec = (decimals, decimals)
    return fixed


def _rounded(value: float, decimals: int) -> Decimal:
    """``value`` rounded exactly as ``format(value, f".{decimals}f")`` does, without a minus zero."""
    if isinstance(value, bool) or not math.isfinite(value):
        raise ValueError(f"cannot format {value!r} as a number")
    _require_decimals(decimals)
    rounded = Decimal(f"{value:.{decimals}f}")
    return abs(rounded) if rounded == 0 else rounded


def fmt_number(value: float, lang: str, decimals: int = 0) -> str:
    """``value`` with ``decimals`` fraction digits and the grouping of ``lang``.

    >>> fmt_number(250000, "ru"), fmt_number(0.9, "ru", 2), fmt_number(250000, "zh")
    ('250\\xa0000', '0,90', '250,000')
    """
    return _formatted(_rounded(value, decimals), lang, decimals)


@functools.lru_cache(maxsize=1 << 16)
def _formatted(rounded: Decimal, lang: str, decimals: int) -> str:
    """:func:`fmt_number` of an already rounded value (cached: the explorer's rows repeat their figures)."""
    locale = _locale(lang)
    return _minus(_fixed(locale.decimal_formats[None], decimals).apply(rounded, locale), lang)


TYPESET_MINUS = frozenset({"ru"})
"""Languages whose typography wants a real minus sign (U+2212) where CLDR gives a hyphen-minus."""


def _minus(text: str, lang: str) -> str:
    """``text`` with a leading hyphen-minus set as U+2212 in :data:`TYPESET_MINUS` languages."""
    return "\u2212" + text[1:] if lang in TYPESET_MINUS and text.startswith("-") else text


def _with_unit(number: str, lang: str, unit_key: str) -> str:
    """``number``, a no-break space and the translated unit label ``unit_key``."""
    return f"{number}{NBSP}{t(lang, unit_key)}"


def fmt_gib(bytes_: float, lang: str, decimals: int = 2) -> str:
    """A byte count shown in GiB (2^30), e.g. ``14.93 GiB`` (with a no-break space)."""
    return _with_unit(fmt_number(bytes_ / GiB, lang, decimals), lang, "unit_gib")


def fmt_kib(bytes_: float, lang: str, decimals: int = 0) -> str:
    """A byte count shown in KiB (2^10), as used for KV cache per token, e.g. ``80 KiB``."""
    return _with_unit(fmt_number(bytes_ / KiB, lang, decimals), lang, "unit_kib")


def fmt_percent(fraction: float, lang: str, decimals: int = 0) -> str:
    """A fraction shown as a percentage in ``lang``'s style: 0.9 -> ``90%`` (ru ``90 %``)."""
    locale = _locale(lang)
    pattern = _fixed(locale.percent_formats[None], decimals)
    return _minus(pattern.apply(_rounded(fraction * 100, decimals) / 100, locale), lang)


def fmt_money(amount: float, currency: str, lang: str, decimals: int | None = None) -> str:
    """An amount of ``currency`` (ISO 4217) in ``lang``'s style: ``$2,199.00``, ru ``2 199,00 $``.

    ``decimals`` defaults to the currency's own precision (2 for USD); pass 0 for whole prices.
    """
    if not is_currency(currency):
        raise ValueError(f"unknown ISO 4217 currency code {currency!r}")
    locale = _locale(lang)
    digits = get_currency_precision(currency) if decimals is None else decimals
    pattern = _fixed(locale.currency_formats["standard"], digits)
    return pattern.apply(_rounded(amount, digits), locale, currency=currency, currency_digits=False)
