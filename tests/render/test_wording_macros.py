"""Tests for sizing.render.wording_macros: numbers put into sentences (percentiles, byte counts)."""

from __future__ import annotations

import dataclasses
import re

import pandas as pd
import pytest

from sizing.render.wording_macros import byte_count, percentile, verdict
from sizing.site import context as site


@pytest.mark.parametrize(
    ("quantile", "expected"),
    [
        (0.1, "10th"),
        (0.9, "90th"),
        (0.01, "1st"),
        (0.02, "2nd"),
        (0.03, "3rd"),
        (0.11, "11th"),
        (0.21, "21st"),
    ],
)
def test_english_percentiles_take_their_ordinal_suffix(quantile: float, expected: str) -> None:
    assert percentile("en", quantile) == expected


def test_zh_and_ru_percentiles_are_bare_numbers() -> None:
    """The zh and ru pages write the ordinal around the number (第 10, 10-м)."""
    assert (percentile("zh", 0.1), percentile("ru", 0.9)) == ("10", "90")


@pytest.mark.parametrize(
    ("lang", "n", "expected"),
    [
        ("en", 1, "1 byte"),
        ("en", 14, "14 bytes"),
        ("zh", 38, "38 字节"),
        ("ru", 1, "1 байт"),
        ("ru", 2, "2 байта"),
        ("ru", 6, "6 байт"),
        ("ru", 38, "38 байт"),
        ("ru", 22, "22 байта"),
    ],
)
def test_byte_counts_agree_with_the_number(lang: str, n: int, expected: str) -> None:
    assert byte_count(lang, n) == expected


NEGATIVE_GIB = re.compile(r"(?<![\w\-/])[-−]\d+(?:[.,]\d+)?(?:\s|\u00a0|\u202f)?(?:GiB|ГиБ)")
"""A negative memory figure (a subtraction has a space after its sign, a hyphenated id a word before it)."""


def _as(ctx: site.SiteContext, row: pd.Series) -> site.SiteContext:
    """``ctx`` with ``row`` as its example ``x``."""
    return dataclasses.replace(ctx, examples={**ctx.examples, "x": row})


@pytest.mark.parametrize("lang", ["en", "zh", "ru"])
def test_every_verdict_sentence_reads_without_a_negative_figure_and_names_what_to_try(
    real_ctx: site.SiteContext, lang: str
) -> None:
    """Assert the worked examples' verdicts, and a borderline case whose band starts short of memory (70B BF16
    on two 80 GB GPUs as the issue saw it), read as shortfalls and spares, never as a negative GiB figure, and
    a case that may not start says what to try."""
    texts = [verdict(lang, real_ctx, eid) for eid in real_ctx.examples]
    row = real_ctx.examples["dh-70b-bf16-2x80"].copy()
    row[["fits", "fits_optimistic", "change", "change_value"]] = [
        False,
        True,
        "gpu-memory-utilization",
        "0.95",
    ]
    for name, gib in (("available_kv", -0.44), ("available_kv_low", -1.10), ("available_kv_high", 0.3)):
        row[f"{name}_bytes"] = gib * 2**30
    row["kv_cache_bytes"] = -1.8 * 2**30
    border = verdict(lang, _as(real_ctx, row), "x")
    assert "1.10" in border.replace(",", ".") and "0.30" in border.replace(",", ".") and "0.95" in border
    assert not [text for text in (*texts, border) if NEGATIVE_GIB.search(text)]
    assert NEGATIVE_GIB.search("short by -0.44 GiB") and not NEGATIVE_GIB.search("a100-80GB, 3 − 1 GiB")
