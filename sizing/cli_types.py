"""Command-line value types that refuse what vLLM would refuse, before anything is computed.

Each type turns the text of one flag into a value or raises :class:`argparse.ArgumentTypeError`
with one line saying what is accepted. Numbers are written as vLLM's own parser reads them: whole
numbers in decimal digits (no ``1e30``, ``0_9``; ``--max-model-len`` also takes vLLM's ``32K``, ``32k`` and
``auto``, :func:`max_model_len`), fractions as decimals; NaN, infinities,
zero, negative and absurdly large values are refused (upper bounds keep every product of sizes within
64-bit integers). :class:`OneLineParser` prints any argparse error as one line, exit status 2.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from typing import Callable, NoReturn

from sizing.engine.versions import SUPPORTED
from sizing.launch.address import valid_host

WHOLE = re.compile(r"[+-]?\d+")
DECIMAL = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)")
BLOCK_SIZES = (1, 8, 16, 32, 64, 128, 256)
"""``--block-size`` values vLLM accepts (``vllm/config/cache.py``, ``BlockSize``)."""
LIMITS = {"tokens": 2**31 - 1, "gpus": 4096, "seqs": 2**20, "mib": 16 * 2**20, "bytes": 2**50}
"""Upper bounds per kind of count: tokens, GPUs/parallel sizes, sequences, MiB per GPU, bytes per GPU."""


def count(kind: str) -> Callable[[str], int]:
    """A type for a whole number from 1 to ``LIMITS[kind]``."""
    limit = LIMITS[kind]

    def parse(text: str) -> int:
        if not WHOLE.fullmatch(text.strip()):
            raise argparse.ArgumentTypeError(f"must be a whole number written in digits, got {text!r}")
        value = int(text)
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be greater than 0, got {value}")
        if value > limit:
            raise argparse.ArgumentTypeError(f"must be at most {limit}, got {_short(text)}")
        return value

    parse.__name__ = f"{kind} count"
    return parse


AUTO = -1
"""``--max-model-len auto`` (or ``-1``): vLLM sizes the context to what the KV cache holds."""
HUMAN = re.compile(r"(\d+(?:\.\d+)?)([kKmMgGtT])")
DECIMAL_SUFFIX = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
BINARY_SUFFIX = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def max_model_len(text: str) -> int:
    """A type for ``--max-model-len`` read as the supported vLLM release (:data:`SUPPORTED`) reads it
    (``human_readable_int_or_auto`` in ``vllm/utils/argparse_utils.py``; ``sizing/launch/data/
    vllm_choices-<SUPPORTED>.json`` records the parser):
    ``auto`` or ``-1`` -> :data:`AUTO`; ``32K`` -> 32768 (binary suffix, whole numbers only); ``32k`` ->
    32000 and ``25.6k`` -> 25600 (decimal suffix); plain digits; then 1 to ``LIMITS["tokens"]``."""
    value = text.strip()
    if value == "-1" or value.lower() == "auto":
        return AUTO
    match = HUMAN.fullmatch(value)
    if not match:
        return count("tokens")(value)
    number, suffix = match.groups()
    if suffix in BINARY_SUFFIX and "." in number:
        raise argparse.ArgumentTypeError(
            f"decimals are not allowed with the binary suffix {suffix} (vLLM "
            f"refuses them); did you mean {number}{suffix.lower()}?"
        )
    tokens = (
        int(number) * BINARY_SUFFIX[suffix]
        if suffix in BINARY_SUFFIX
        else int(float(number) * DECIMAL_SUFFIX[suffix])
    )
    return count("tokens")(str(tokens))


def _short(text: str) -> str:
    return text if len(text) <= 24 else f"{text[:20]}… ({len(text)} digits)"


def fraction(text: str) -> float:
    """A type for a decimal in (0, 1], as ``--gpu-memory-utilization`` takes."""
    if not DECIMAL.fullmatch(text.strip()):
        raise argparse.ArgumentTypeError(f"must be a decimal number such as 0.90, got {text!r}")
    value = float(text)
    if not math.isfinite(value) or not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be greater than 0 and at most 1, got {text}")
    return value


def block_size(text: str) -> int:
    """A type for ``--block-size``: one of :data:`BLOCK_SIZES`."""
    value = count("tokens")(text)
    if value not in BLOCK_SIZES:
        raise argparse.ArgumentTypeError(f"must be one of {', '.join(map(str, BLOCK_SIZES))}, got {value}")
    return value


def port(text: str) -> int:
    """A type for a TCP port, 1–65535."""
    if not WHOLE.fullmatch(text.strip()) or not 0 < int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"must be a port number from 1 to 65535, got {text!r}")
    return int(text)


def host(text: str) -> str:
    """A type for a host name or IP address to bind (:func:`valid_host`)."""
    if not valid_host(text):
        raise argparse.ArgumentTypeError(f"must be a host name or an IP address, got {text[:40]!r}")
    return text


RELEASE = re.compile(r"\d{1,4}\.\d{1,4}(\.\d{1,4})?")


def release(text: str) -> str:
    """A type for a release number such as ``1.2.3`` (``--vllm-version``): never empty."""
    if not RELEASE.fullmatch(text):
        raise argparse.ArgumentTypeError(f"must be a release number such as {SUPPORTED}, got {text[:40]!r}")
    return text


def ident(text: str) -> str:
    """A type for an id or a path (``--model``, ``--server``, ``--gpu``, ``-q``): not empty or blank, no
    control characters, at most 4096 characters."""
    if not text.strip() or not text.isprintable() or len(text) > 4096:
        raise argparse.ArgumentTypeError(
            f"must be a non-empty id without control characters, got {text[:40]!r}"
        )
    return text


def limit(text: str) -> int:
    """A type for a count that may be 0 (``--limit 0`` = no limit)."""
    if not WHOLE.fullmatch(text.strip()) or int(text) < 0 or int(text) > LIMITS["tokens"]:
        raise argparse.ArgumentTypeError(f"must be a whole number, 0 or more, got {text!r}")
    return int(text)


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line on stderr (``error: …; see --help``), exit status 2."""

    def error(self, message: str) -> NoReturn:
        """Print ``message`` on one line and exit with status 2."""
        line = " ".join(message.split())
        print(f"error: {line} (`{self.prog} --help` lists the options)", file=sys.stderr)
        raise SystemExit(2)
