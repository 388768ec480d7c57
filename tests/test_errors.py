"""sizing.errors: every message is one line, whatever the id or value it quotes."""

from __future__ import annotations

from sizing.errors import CatalogError, UsageError, one_line


def test_control_characters_are_escaped():
    assert one_line("a\nb\tc\x1b[31m\u2028") == "a\\nb\\tc\\x1b[31m\\u2028"
    assert one_line("кэш 显存 'x' \"y\"") == "кэш 显存 'x' \"y\""


def test_a_catalog_error_quoting_a_newline_stays_on_one_line():
    error = CatalogError("catalog/gpus.yaml", "l40s\nerror: fake", "memory_mib", "must be greater than 0")
    assert str(error) == "catalog/gpus.yaml: l40s\\nerror: fake.memory_mib: must be greater than 0"
    assert error.entry == "l40s\nerror: fake"  # the fields keep the raw value


def test_a_usage_error_stays_on_one_line():
    assert str(UsageError("--model 'a\nb': unknown")) == "--model 'a\\nb': unknown"
