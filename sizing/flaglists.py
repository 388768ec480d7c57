"""Read the committed flag lists of vLLM and SGLang releases (``sizing/launch/data/``): a foundation.

The catalog (``--quantization`` names), the launch commands and their tests all need the same vocabulary,
so the reader sits below every layer and imports nothing from ``sizing``; callers name the release
(``sizing.launch.vllm_flags`` defaults to the supported one). The files are written by
``python -m scripts.flags vllm|sglang VERSION``.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

from sizing import safeio


class FlagListMissing(LookupError):
    """No flag list is committed for the requested release."""


def _data_text(name: str) -> str:
    """Read ``sizing/launch/data/<name>``; raise FlagListMissing if it is not there."""
    path = resources.files("sizing.launch").joinpath("data", name)
    if not path.is_file():
        raise FlagListMissing(
            f"no committed list sizing/launch/data/{name}; generate it with "
            "python -m scripts.flags vllm|sglang VERSION"
        )
    return path.read_text(encoding="utf-8")


def _parse_flags(text: str) -> frozenset[str]:
    """Flags of a list file: every non-blank line that is not a ``#`` comment."""
    lines = (line.strip() for line in text.splitlines())
    return frozenset(line for line in lines if line and not line.startswith("#"))


@lru_cache(maxsize=None)
def known_flags(version: str) -> frozenset[str]:
    """Option strings accepted by ``vllm serve`` of vLLM ``version``.

    Long options, their short aliases (``-tp``, ``-pp``, ``-dp``, ``-q``...) and
    the generated negations of booleans (``--no-enforce-eager``,
    ``--disable-prefix-caching``...). Raises FlagListMissing for a release
    with no committed list.
    """
    return _parse_flags(_data_text(f"vllm_flags-{version}.txt"))


@lru_cache(maxsize=None)
def known_sglang_flags(version: str) -> frozenset[str]:
    """Option strings registered by SGLang ``version``'s server parser."""
    return _parse_flags(_data_text(f"sglang_flags-{version}.txt"))


@lru_cache(maxsize=None)
def vllm_option_specs(version: str) -> dict[str, dict]:
    """Per long option of ``vllm serve``: ``kind``, ``aliases`` and, if any, ``choices``.

    ``kind`` is how vLLM parses the value: ``bool`` (bare flag, ``--no-`` form),
    ``flag`` (store_true), ``int``, ``float``, ``str``, ``human_readable_int``
    (``32k``, ``1G``), ``human_readable_int_or_auto`` (also ``-1``/``auto``),
    ``choice``, ``multi`` (several values after one flag), ``json``...
    ``choices_enforced_by_argparse`` is false where vLLM validates later.
    """
    name = f"vllm_choices-{version}.json"
    return safeio.parse_json(_data_text(name), f"sizing/launch/data/{name}")["options"]


def quantization_methods(version: str) -> list[str]:
    """Every ``--quantization`` value vLLM ``version`` accepts (its parser's choices)."""
    return list(vllm_option_specs(version)["--quantization"].get("choices", []))


def canonical_option(flag: str, flags: frozenset[str]) -> str | None:
    """The option argparse would match for ``flag`` (``--opt`` or ``--opt=value``).

    An exact match wins; otherwise argparse (``allow_abbrev``, the default in
    vLLM and SGLang) accepts a unique prefix of a long option, which is how
    SGLang's ``--tp`` reaches ``--tp-size``. Returns None if unknown or ambiguous.
    """
    name = flag.split("=", 1)[0] if flag.startswith("--") else flag
    if name in flags:
        return name
    matches = [f for f in flags if name.startswith("--") and f.startswith(name)]
    return matches[0] if len(matches) == 1 else None
