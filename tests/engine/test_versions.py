"""Release lines of vLLM and their accounting rules; unmodelled releases are refused with one line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sizing.engine.versions import refusal, rules_for
from sizing.errors import UsageError


@pytest.mark.parametrize(
    ("version", "line", "block", "cudagraphs"),
    [
        ("0.6.4.post1", "V0 0.6.4–0.7", 16, False),
        ("0.7.3", "V0 0.6.4–0.7", 16, False),
        ("0.9.2", "V1 0.8–0.9", 16, False),
        ("0.10.1.1", "V1 0.10–0.19", 16, False),
        ("0.19.0", "V1 0.10–0.19", 16, False),
        ("0.20.2", "V1 0.20–0.33", 16, True),
        ("0.34.0", "V1 ≥ 0.34", 64, True),
    ],
)
def test_rules_for(version, line, block, cudagraphs):
    rules = rules_for(version)
    assert (rules.line, rules.block_size, rules.cudagraphs_budgeted) == (line, block, cudagraphs)


def test_rules_carry_the_minor_release():
    assert rules_for("0.14.1").minor == 14 and rules_for("0.11.2").line == rules_for("0.14.1").line


def test_bad_version_is_a_usage_error():
    with pytest.raises(UsageError, match="--vllm-version"):
        rules_for("latest")


def test_release_facts_live_in_versions() -> None:
    """Assert the capture-size limit by SM and the MLA block sizes of the current line (vLLM 0.34)."""
    from sizing.engine.versions import BATCH_DEFAULTS, max_capture_size, rules_for

    assert [max_capture_size(sm) for sm in (0, 80, 89, 90, 100, 120)] == [512, 512, 512, 512, 1024, 512]
    rules = rules_for("0.34.0")
    assert (rules.mla_block_size_sm100, rules.mla_min_block_size_sm90, rules.extensible_activation_share) == (
        128,
        64,
        0.75,
    )
    assert (BATCH_DEFAULTS.big_gib, BATCH_DEFAULTS.large_gib, BATCH_DEFAULTS.small_tokens) == (160, 70, 2048)


@pytest.mark.parametrize(
    ("version", "words"),
    [("0.6.3", "before 0.6.4"), ("0.5.0", "before 0.6.4"), ("0.35.0", "newer than"), ("1.0.0", "newer than")],
)
def test_unmodelled_releases_are_refused_with_one_line(version, words):
    message = refusal(version)
    assert message is not None and words in message and "\n" not in message
    with pytest.raises(UsageError, match=words):
        rules_for(version)


def test_modelled_releases_are_not_refused():
    assert [refusal(v) for v in ("0.6.4", "0.8.0", "0.34.0")] == [None, None, None]


def test_one_supported_release_for_catalog_flags_and_bounds(catalog) -> None:
    """Assert the catalog's vllm_version, the flag lists and the newest modelled line are one release."""
    from sizing.engine.versions import NEWEST, SUPPORTED, parse_version
    from sizing.launch.vllm_flags import VLLM_VERSION, known_flags

    assert catalog.assume("vllm_version") == SUPPORTED == VLLM_VERSION
    assert parse_version(SUPPORTED) == NEWEST and refusal(SUPPORTED) is None
    assert "--gpu-memory-utilization" in known_flags(SUPPORTED)


def test_release_cutoffs_name_the_rules() -> None:
    """Assert the scoped weight split starts at its cut-off and never applies to V0."""
    from sizing.engine.versions import SCOPED_SPLIT_MINOR

    assert SCOPED_SPLIT_MINOR == 21
    assert [rules_for(v).scoped_weight_split for v in ("0.6.4", "0.20.2", "0.21.0", "0.34.0")] == [
        False,
        False,
        True,
        True,
    ]


def test_the_supported_release_is_written_in_versions_only() -> None:
    """Assert no module of ``sizing/`` or ``scripts/`` but ``engine/versions.py`` writes the supported
    release (``0.X`` or ``0.X.Y`` of its line), in code, docstrings or comments: file names are built from
    ``SUPPORTED`` and prose says "the supported release (``versions.SUPPORTED``)". The flag-list data files
    are not modules."""
    from sizing.engine.versions import NEWEST

    root = Path(__file__).resolve().parents[2]
    line = re.compile(rf"(?<![\d.]){NEWEST[0]}\.{NEWEST[1]}(?![\d])")
    found = [
        f"{path.relative_to(root)}:{number}"
        for path in sorted([*root.glob("sizing/**/*.py"), *root.glob("scripts/**/*.py")])
        if path != root / "sizing" / "engine" / "versions.py"
        for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if line.search(text)
    ]
    assert found == []
