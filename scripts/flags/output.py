"""What the flag extractors write: the committed flag-list text, and write-or-check of the outputs."""

from __future__ import annotations

import difflib
import sys
from pathlib import Path

from scripts.flags import pypi

__all__ = ["ARGPARSE_HELP", "DATA_DIR", "REPO_ROOT", "flag_file", "write_or_check"]

REPO_ROOT = Path(__file__).resolve().parents[2]
DATA_DIR = REPO_ROOT / "sizing" / "launch" / "data"
ARGPARSE_HELP = ("-h", "--help")
"""The option strings argparse adds to every parser."""


def flag_file(title: str, release: pypi.ReleaseFile, flags: list[str], package: str, version: str) -> str:
    """Text of a committed flag list: header comments (what, source, how to regenerate), then the flags."""
    header = [
        f"# {title} ({len(flags)} option strings)",
        f"# source: {release.filename} sha256:{release.sha256}",
        f"# extracted statically ({package} is not imported) by scripts/flags/{package}.py",
        f"# regenerate: python -m scripts.flags {package} {version} [--check]",
    ]
    return "\n".join(header + flags) + "\n"


def write_or_check(outputs: dict[Path, str], check: bool) -> int:
    """Write the outputs, or with ``check`` compare them and return 1 on a difference."""
    status = 0
    for path, text in outputs.items():
        current = path.read_text() if path.exists() else ""
        if check and current != text:
            sys.stdout.writelines(
                difflib.unified_diff(
                    current.splitlines(True), text.splitlines(True), str(path), "regenerated"
                )
            )
            status = 1
        elif not check and current != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            print(f"wrote {path.relative_to(REPO_ROOT)}")
    return status
