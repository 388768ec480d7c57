"""sizing.catalog.ids: ids in any case, suggestions for near misses."""

from __future__ import annotations

import pytest

from sizing.catalog.ids import did_you_mean, resolve, resolve_model, shown, suggestions
from sizing.errors import UsageError


def test_resolve_ignores_case(catalog):
    assert resolve("--gpu", "L40S", catalog.gpus, "GPU") == "l40s"
    assert resolve_model(catalog, "qwen/qwen3-14b-fp8") == "Qwen/Qwen3-14B-FP8"
    assert resolve_model(catalog, "nobody/nothing") is None


def test_unknown_ids_name_the_flag_and_the_closest(catalog):
    with pytest.raises(UsageError, match=r"--server: unknown server 'l40s' \(did you mean gpu-l40s"):
        resolve("--server", "l40s", catalog.servers, "server")


def test_suggestions_prefer_prefixes_then_similar_ids():
    ids = ["h100-80gb", "h100-pcie", "h100-nvl", "h200", "l40s", "l4"]
    assert suggestions("h100", ids) == ["h100-80gb", "h100-pcie", "h100-nvl"]
    assert suggestions("l40", ids)[0] == "l40s"
    assert did_you_mean("zzzzzz", ids) == ""


def test_long_names_are_cut_in_messages():
    assert len(shown("x" * 10_000)) <= 80
