"""Tests for sizing.render.wording_macros: numbers put into sentences (percentiles, byte counts)."""

from __future__ import annotations

import pytest

from sizing.render.wording_macros import byte_count, percentile


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
