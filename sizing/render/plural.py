"""Plural forms after computed numbers, chosen by CLDR rules (Babel), never by concatenation.

A plural message in ``docs/messages/<lang>.yaml`` lists one form per CLDR category the language
uses, separated by ``|``::

    plural_tokens: "one: {n} токен | few: {n} токена | many: {n} токенов | other: {n} токена"

:func:`plural` picks the form for a number (Babel's ``Locale.plural_form``: Russian 1 / 21 -> one,
2 / 22 -> few, 5 / 11 -> many, 22.5 -> other) and fills ``{n}`` with the number as already
formatted for the page. English uses ``one``/``other``; Chinese ``other`` only. The message key
must start with ``plural_``; every language's form list must cover the categories its CLDR rule
can return (:func:`missing_categories`).
"""

from __future__ import annotations

import functools
from decimal import Decimal

from babel import Locale
from babel.lists import format_list

from sizing.render.i18n import MessageError, fmt_number, messages

__all__ = ["categories", "forms", "missing_categories", "plural", "plural_keys"]

CATEGORIES = ("zero", "one", "two", "few", "many", "other")


@functools.cache
def _locale(lang: str) -> Locale:
    return Locale.parse(lang)


def categories(lang: str) -> frozenset[str]:
    """The CLDR plural categories ``lang`` distinguishes (always including ``other``)."""
    return frozenset(_locale(lang).plural_form.tags | {"other"})


def forms(lang: str, key: str) -> dict[str, str]:
    """The forms of the plural message ``key`` in ``lang``, by CLDR category.

    Raises:
        MessageError: naming file and key when an entry is not ``category: text``.
    """
    text = messages(lang).get(key)
    if text is None or not key.startswith("plural_"):
        raise MessageError(f"docs/messages/{lang}.yaml: {key}: no such plural message")
    out: dict[str, str] = {}
    for part in text.split("|"):
        category, sep, form = part.strip().partition(":")
        if not sep or category.strip() not in CATEGORIES:
            raise MessageError(f"docs/messages/{lang}.yaml: {key}: write forms as `one: … | other: …`")
        out[category.strip()] = form.strip()
    return out


def missing_categories(lang: str, key: str) -> list[str]:
    """The CLDR categories of ``lang`` that the message ``key`` has no form for."""
    return sorted(categories(lang) - set(forms(lang, key)))


def plural(lang: str, key: str, number: float | Decimal, shown: str) -> str:
    """The form of ``key`` for ``number`` in ``lang``, with ``{n}`` replaced by ``shown``.

    ``shown`` is the number as the page prints it (``313 792``, ``52,9``); ``number`` decides the
    form, so pass the value that was formatted (rounded the same way).
    """
    table = forms(lang, key)
    category = _locale(lang).plural_form(number if number >= 0 else -number)
    return table.get(category, table["other"]).replace("{n}", shown)


def plural_keys(lang: str = "en") -> list[str]:
    """Every plural message key (the same in every language)."""
    return sorted(k for k in messages(lang) if k.startswith("plural_"))


def join_names(names: list[str], lang: str) -> str:
    """A list of names in ``lang``'s style (Babel's CLDR list pattern); in Chinese, ``和`` gets a
    space on each side, as Latin names around it need (``Qwen3 32B、GLM-4.5 和 Mixtral 8x7B``)."""
    if lang == "zh" and len(names) > 1:
        return "、".join(names[:-1]) + " 和 " + names[-1]
    return format_list(names, locale=lang) if names else ""


EN_ORDINAL = {"one": "st", "two": "nd", "few": "rd", "other": "th"}
"""English ordinal suffixes by CLDR ordinal category (1st, 2nd, 3rd, 10th)."""


def percentile(lang: str, quantile: float) -> str:
    """A quantile (0 < ``quantile`` < 1) as the percentile prose names: ``10th`` in English (CLDR ordinal
    rule), the bare number in zh and ru, whose pages write the ordinal around it (第 10, 10-м)."""
    number = round(quantile * 100)
    if lang == "en":
        return f"{number}{EN_ORDINAL[Locale.parse('en').ordinal_form(number)]}"
    return fmt_number(number, lang)
