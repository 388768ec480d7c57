"""Tests for sizing.kvdtypes: the one KV-cache dtype vocabulary, checked against vLLM's own choices."""

from __future__ import annotations

import json
from pathlib import Path

from sizing import cli
from sizing.kvdtypes import CATALOG_KV_DTYPES, KV_CACHE_DTYPE_BYTES
from sizing.launch.vllm_flags import VLLM_VERSION

DATA = Path(__file__).resolve().parent.parent / "sizing" / "launch" / "data"


def vllm_kv_choices() -> set[str]:
    """The ``--kv-cache-dtype`` choices of the pinned vLLM release (extracted from its source)."""
    spec = json.loads((DATA / f"vllm_choices-{VLLM_VERSION}.json").read_text(encoding="utf-8"))
    return set(spec["options"]["--kv-cache-dtype"]["choices"])


def test_every_value_we_accept_is_one_vllm_accepts() -> None:
    """Assert our vocabulary is a subset of vLLM's choices, and the catalog's a subset of ours."""
    assert set(KV_CACHE_DTYPE_BYTES) <= vllm_kv_choices()
    assert set(CATALOG_KV_DTYPES) <= set(KV_CACHE_DTYPE_BYTES)


def test_bytes_per_element() -> None:
    """Assert 16-bit types take 2 bytes, fp8 variants 1 (auto is the catalog's bf16 checkpoints)."""
    assert [KV_CACHE_DTYPE_BYTES[k] for k in ("auto", "bfloat16", "float16")] == [2, 2, 2]
    assert [KV_CACHE_DTYPE_BYTES[k] for k in ("fp8", "fp8_e4m3", "fp8_e5m2")] == [1, 1, 1]


def test_the_command_line_offers_exactly_the_vocabulary() -> None:
    """Assert --kv-cache-dtype's choices are the vocabulary (no second list)."""
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    action = next(a for a in sub.choices["estimate"]._actions if a.dest == "kv_cache_dtype")
    assert tuple(action.choices) == tuple(KV_CACHE_DTYPE_BYTES)
