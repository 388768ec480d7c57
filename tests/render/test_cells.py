"""Tests for sizing.render.cells: escaping, cell formatting per kind and language, plan, change and
verdict labels, headers."""

from __future__ import annotations

import html

import pytest

from sizing.render import cells
from sizing.render.cells import ColumnSpec, escape_cell, format_cell, header
from sizing.render.table_specs import seq_columns
from sizing.units import GB, GiB, KiB

HOSTILE = "Evil | <script>alert(1)</script> `tick` {{ 7 * 7 }} {% if x %} \\| [x](y)\nsecond line"


# --- escaping --------------------------------------------------------------------------------


def test_escape_cell_neutralises_markdown_html_and_jinja() -> None:
    """Assert the escaped text has no pipe, tag, backtick, brace pair or newline, and reads the same."""
    out = escape_cell(HOSTILE)
    for bad in ("|", "<", ">", "`", "{{", "{%", "\n", "\\"):
        assert bad not in out, bad
    assert html.unescape(out) == HOSTILE.replace("\n", " ")
    assert escape_cell("250\u00a0000 \r\n  next") == "250\u00a0000 next"


# --- cells and headers -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "value", "lang", "expected"),
    [
        ("gib", 1.5 * GiB, "en", "1.50"),
        ("gib", 1.5 * GiB, "ru", "1,50"),
        ("kib", 80 * KiB, "en", "80"),
        ("kib", 34.875 * KiB, "en", "34.9"),
        ("gb", 48 * GB, "zh", "48"),
        ("gb", 65.54 * GB, "ru", "65,5"),
        ("int", 250000, "ru", "250\u00a0000"),
        ("float1", 671.0, "en", "671"),
        ("float2", 2 / 3, "en", "0.67"),
        ("fraction", 0.9, "en", "90%"),
    ],
)
def test_numeric_cells(kind: str, value: float, lang: str, expected: str) -> None:
    """Assert numbers are shown in the header's unit with the language's separators."""
    assert format_cell(ColumnSpec("v", "col_value", kind), {"v": value}, lang) == expected


def test_missing_values_show_a_dash() -> None:
    """Assert None, NaN and empty text render as an em dash."""
    col = ColumnSpec("v", "col_value", "gib")
    for missing in (None, float("nan")):
        assert format_cell(col, {"v": missing}, "en") == "—"
    assert format_cell(ColumnSpec("v", "col_value", "text"), {"v": ""}, "en") == "—"


def test_money_uses_the_row_currency() -> None:
    """Assert money cells format the amount in the row's currency for the language."""
    col = ColumnSpec("p", "col_price", "money", decimals=0)
    assert format_cell(col, {"p": 2199, "currency": "USD"}, "en") == "$2,199"
    assert format_cell(col, {"p": 2199, "currency": "EUR"}, "ru") == "2\u00a0199\u00a0€"


def test_verdict_and_bool_cells_are_translated() -> None:
    """Assert verdicts are the translated word (no emoji: it renders as a box without an emoji font)."""
    verdict = ColumnSpec("verdict", "col_verdict", "verdict")
    assert format_cell(verdict, {"verdict": "fits", "verdict_context": 131072}, "en") == "Fits up to 128K"
    tight = {"verdict": "tight", "verdict_context": 4096}
    borderline = {"verdict": "borderline", "verdict_context": 32768}
    assert format_cell(verdict, tight, "ru") == "Впритык (контекст до 4K)"
    assert format_cell(verdict, borderline, "en") == "Borderline at 32K"
    assert format_cell(verdict, {"verdict": "no-fit", "verdict_context": 0}, "zh") == "无法容纳"
    assert format_cell(ColumnSpec("b", "col_fp8", "bool"), {"b": True}, "ru") == "Да"


@pytest.mark.parametrize(
    ("plan", "tp", "pp", "dp", "expected"),
    [
        ("dp", 1, 1, 1, "1 GPU"),
        ("dp", 1, 1, 2, "DP 2"),
        ("tp", 2, 1, 1, "TP 2"),
        ("tp", 4, 1, 2, "TP 4 × DP 2"),
        ("tp-pp", 8, 2, 1, "TP 8 × PP 2"),
        ("", 1, 1, 1, "—"),
    ],
)
def test_plan_labels(plan: str, tp: int, pp: int, dp: int, expected: str) -> None:
    """Assert plans read as vLLM's parallel sizes."""
    assert cells.plan_label({"plan": plan, "tp": tp, "pp": pp, "dp": dp}, "en") == expected


@pytest.mark.parametrize(
    ("code", "value", "expected"),
    [
        ("max-model-len", "26624", "Lower the context: <code>--max-model-len 26624</code>"),
        ("kv-fp8", "fp8", "Use <code>--kv-cache-dtype fp8</code>"),
        ("checkpoint", "Qwen/Qwen3-32B-AWQ (int4-awq)", "Use Qwen/Qwen3-32B-AWQ (int4-awq)"),
        ("more-gpus", "4", "Needs 4 GPUs, more than this server has"),
        ("gpu-memory-utilization", "0.95", "Try <code>--gpu-memory-utilization 0.95</code>"),
        ("", "", ""),
    ],
)
def test_change_labels(code: str, value: str, expected: str) -> None:
    """Assert the nearest change of a non-fitting row reads as an instruction."""
    assert cells.change_label({"change": code, "change_value": value}, "en") == expected


def test_headers_carry_the_unit_in_each_language() -> None:
    """Assert a memory column's header names its unit per the language's pattern."""
    col = ColumnSpec("weights_bytes", "col_weights_per_gpu", "gib")
    assert header(col, "en") == "Weights per GPU (GiB)"
    assert header(col, "ru") == "Веса на GPU, ГиБ"
    seq = seq_columns([32768])[0]
    assert header(seq, "zh") == "32K 序列数"


def test_unknown_column_kind_is_refused() -> None:
    """Assert a column with a kind outside the fixed set cannot be declared."""
    with pytest.raises(ValueError, match="unknown kind"):
        ColumnSpec("x", "col_value", "percentage")


def test_one_gpu_servers_do_not_say_one_copy_per_gpu() -> None:
    """Assert the reason on a one-GPU server says the model fits that GPU, not "one copy per GPU"."""
    row = {"reason": "fits-one-gpu", "server_gpus": 1, "fits": True}
    assert cells.change_label(row, "ru") == "Модель помещается на этот GPU"
    assert cells.change_label({**row, "server_gpus": 2}, "en") == "Fits on one GPU: one copy per GPU"
