"""The command-line options that the pinned vLLM (or SGLang) release really accepts.

The lists live in ``sizing/launch/data/`` and are generated from the release files on PyPI by
``python -m scripts.flags vllm|sglang VERSION`` (``scripts/flags/``, static ``ast`` analysis, nothing
imported); :mod:`sizing.flaglists` reads them. Tests check every flag the command builders emit against
them, so a renamed or removed option fails a test instead of a deployment. Defaults: the supported release
(:data:`sizing.engine.versions.SUPPORTED`).
"""

from __future__ import annotations

from sizing import flaglists
from sizing.engine.versions import SUPPORTED as VLLM_VERSION
from sizing.flaglists import FlagListMissing, canonical_option

SGLANG_VERSION = "0.5.23"
__all__ = [
    "SGLANG_VERSION",
    "VLLM_VERSION",
    "FlagListMissing",
    "canonical_option",
    "known_flags",
    "known_sglang_flags",
    "quantization_methods",
    "vllm_option_specs",
]


def known_flags(version: str = VLLM_VERSION) -> frozenset[str]:
    """Option strings accepted by ``vllm serve`` of vLLM ``version`` (see :func:`flaglists.known_flags`)."""
    return flaglists.known_flags(version)


def known_sglang_flags(version: str = SGLANG_VERSION) -> frozenset[str]:
    """Option strings registered by SGLang ``version``'s server parser."""
    return flaglists.known_sglang_flags(version)


def vllm_option_specs(version: str = VLLM_VERSION) -> dict[str, dict]:
    """Per long option of ``vllm serve`` of ``version``: ``kind``, ``aliases`` and, if any, ``choices``."""
    return flaglists.vllm_option_specs(version)


def quantization_methods(version: str = VLLM_VERSION) -> list[str]:
    """Every ``--quantization`` value vLLM ``version`` accepts (its parser's choices)."""
    return flaglists.quantization_methods(version)
