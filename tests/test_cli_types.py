"""sizing.cli_types: flag values checked as vLLM reads them."""

from __future__ import annotations

import argparse

import pytest

from sizing import cli_types as ty


@pytest.mark.parametrize("text", ["0", "-1", "32k", "1e3", "4.5", "1_000", "nan", "", "9" * 31])
def test_counts_refuse_what_is_not_a_positive_whole_number_in_range(text):
    with pytest.raises(argparse.ArgumentTypeError):
        ty.count("tokens")(text)


def test_counts_accept_digits_up_to_the_limit():
    assert ty.count("gpus")("8") == 8 and ty.count("gpus")(str(ty.LIMITS["gpus"])) == ty.LIMITS["gpus"]


@pytest.mark.parametrize("text", ["nan", "inf", "0", "1.5", "-0.5", "0_9", "9e-1"])
def test_fractions_refuse_non_finite_and_out_of_range(text):
    with pytest.raises(argparse.ArgumentTypeError):
        ty.fraction(text)


def test_fractions_ports_and_block_sizes():
    assert ty.fraction("0.9") == 0.9 and ty.fraction("1") == 1.0
    assert ty.port("8000") == 8000
    assert ty.block_size("16") == 16
    for bad, parse in (("0", ty.port), ("65536", ty.port), ("7", ty.block_size), ("a b", ty.host)):
        with pytest.raises(argparse.ArgumentTypeError):
            parse(bad)


def test_parser_errors_are_one_line(capsys):
    parser = ty.OneLineParser(prog="demo")
    parser.add_argument("--n", type=ty.count("gpus"))
    with pytest.raises(SystemExit) as exit_info:
        parser.parse_args(["--n", "x"])
    assert exit_info.value.code == 2 and capsys.readouterr().err.count("\n") == 1


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("32768", 32768),
        ("32K", 32768),
        ("32k", 32000),
        ("25.6k", 25600),
        ("1M", 2**20),
        (" 128K ", 131072),
        ("auto", ty.AUTO),
        ("AUTO", ty.AUTO),
        ("-1", ty.AUTO),
    ],
)
def test_max_model_len_reads_what_vllm_reads(text, tokens):
    """vLLM 0.34's human_readable_int_or_auto: binary upper-case suffixes, decimal lower-case, auto/-1."""
    assert ty.max_model_len(text) == tokens


@pytest.mark.parametrize("text", ["1.5K", "32x", "0", "-2", "0k", "3T", "k"])
def test_max_model_len_refuses_what_vllm_refuses_or_we_cannot_size(text):
    with pytest.raises(argparse.ArgumentTypeError):
        ty.max_model_len(text)


@pytest.mark.parametrize(
    "text",
    [
        "10.0.0.10",
        "0.0.0.0",  # noqa: S104
        "::",
        "fe80::1",
        "localhost",
        "gpu-01.example.org",
        "node_1",
        "example.org.",
    ],
)
def test_hosts_accept_names_and_addresses(text):
    assert ty.host(text) == text


@pytest.mark.parametrize(
    "text", ["", "a;id", "$(id)", "`id`", "two words", "-x", "a..b", "x" * 64, "é.org", "a\nb", "host:80"]
)
def test_hosts_refuse_what_a_shell_would_read(text):
    with pytest.raises(argparse.ArgumentTypeError, match="host name or an IP address"):
        ty.host(text)


@pytest.mark.parametrize("text", ["", " ", "a\nb", "l40s\x1b[31m", "x" * 4097])
def test_ids_refuse_empty_and_control_characters(text):
    with pytest.raises(argparse.ArgumentTypeError, match="non-empty id"):
        ty.ident(text)


def test_ids_keep_paths_with_spaces():
    assert ty.ident("my models/Qwen 3") == "my models/Qwen 3"


@pytest.mark.parametrize(
    "text, ok",
    [("0.34.0", True), ("0.8", True), ("", False), ("abc", False), ("0.34.0\n", False), ("1.2.3.4", False)],
)
def test_releases_are_numbers(text, ok):
    if ok:
        assert ty.release(text) == text
    else:
        with pytest.raises(argparse.ArgumentTypeError, match="release number"):
            ty.release(text)
