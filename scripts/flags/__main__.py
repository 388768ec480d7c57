"""``python -m scripts.flags {vllm,sglang} VERSION [--check]``: write or check a release's flag lists."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from scripts.flags import sglang, vllm
from scripts.flags.output import write_or_check
from sizing.engine.versions import SUPPORTED

EXTRACTORS: dict[str, tuple[Callable[[str], dict[Path, str]], str]] = {
    "vllm": (vllm.extract, SUPPORTED),
    "sglang": (sglang.extract, "0.5.23"),
}
"""Each engine's extractor and an example release."""


def main(argv: list[str] | None = None) -> int:
    """Parse ``ENGINE VERSION [--check]``, extract, then write (or compare, exit 1 on a difference)."""
    parser = argparse.ArgumentParser(prog="python -m scripts.flags", description=__doc__.splitlines()[0])
    parser.add_argument("engine", choices=sorted(EXTRACTORS))
    parser.add_argument(
        "version", help="release, e.g. " + ", ".join(f"{e} {v}" for e, (_, v) in EXTRACTORS.items())
    )
    parser.add_argument("--check", action="store_true", help="exit 1 if the committed files differ")
    args = parser.parse_args(argv)
    extract, _ = EXTRACTORS[args.engine]
    return write_or_check(extract(args.version), args.check)


if __name__ == "__main__":
    raise SystemExit(main())
