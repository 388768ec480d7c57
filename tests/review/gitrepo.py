"""Shared helpers of the review tests: git in a throw-away copy of this repository, the CLI in process."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml

from sizing.cli import main

ROOT = Path(__file__).resolve().parents[2]


def git(repo: Path, *args: str) -> str:
    """Run git in ``repo`` (with a fixed identity) and return its output."""
    command = ["git", "-C", str(repo), "-c", "user.name=test", "-c", "user.email=test@example.invalid", *args]
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``python -m sizing argv`` in-process: (exit status, stdout, stderr)."""
    status = main(list(argv))
    out = capsys.readouterr()
    return status, out.out, out.err


def commit_change(repo: Path, stem: str, edit, message: str) -> None:
    """Edit ``catalog/<stem>.yaml`` as data and commit it."""
    path = repo / "catalog" / f"{stem}.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    edit(data)
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    git(repo, "commit", "-q", "-am", message)
