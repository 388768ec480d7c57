"""Tests for .github/workflows/docs.yml: it parses, and everything it runs exists in this repository."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import yaml

from sizing.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github" / "workflows" / "docs.yml"


@pytest.fixture(scope="module")
def workflow() -> dict:
    """The workflow as data (PyYAML reads the key ``on`` as True)."""
    data = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    data["on"] = data.pop(True, data.get("on"))
    return data


def run_lines(workflow: dict) -> list[str]:
    """Every shell line of every ``run:`` step."""
    scripts = [step["run"] for job in workflow["jobs"].values() for step in job["steps"] if "run" in step]
    return [line.strip() for script in scripts for line in script.splitlines() if line.strip()]


def test_triggers_and_jobs(workflow: dict) -> None:
    """Assert PRs run the checks and pushes to main deploy Pages, each job gated on its event."""
    assert "pull_request" in workflow["on"] and workflow["on"]["push"]["branches"] == ["main"]
    assert "pull_request" in workflow["jobs"]["pull-request"]["if"]
    deploy = workflow["jobs"]["deploy"]
    assert "refs/heads/main" in deploy["if"] and deploy["permissions"]["pages"] == "write"
    assert [s["uses"].split("@")[0] for s in deploy["steps"] if "uses" in s][-2:] == [
        "actions/upload-pages-artifact",
        "actions/deploy-pages",
    ]


def test_pull_requests_fetch_history_for_the_diff(workflow: dict) -> None:
    """Assert the PR checkout has the base branch's history, which `sizing diff` reads."""
    checkout = workflow["jobs"]["pull-request"]["steps"][0]
    assert checkout["uses"].startswith("actions/checkout@") and checkout["with"]["fetch-depth"] == 0


def test_every_sizing_command_exists(workflow: dict) -> None:
    """Assert each `python -m sizing X` the workflow runs is a subcommand of the CLI."""
    commands = build_parser()._subparsers._group_actions[0].choices
    used = [
        m.group(1)
        for line in run_lines(workflow)
        if (m := re.search(r"-m sizing (?:--\S+ \S+ )*(\S+)", line))
    ]
    assert used and set(used) <= set(commands)


def test_every_make_target_exists(workflow: dict) -> None:
    """Assert each `make X` the workflow runs is a target of the Makefile."""
    targets = set(re.findall(r"^([\w-]+):", (ROOT / "Makefile").read_text(encoding="utf-8"), re.M))
    used = {shlex.split(line)[1] for line in run_lines(workflow) if line.startswith("make ")}
    assert used == {"test", "check-generated", "build"} and used <= targets


def test_every_local_path_exists(workflow: dict) -> None:
    """Assert the interpreter and scripts the workflow calls by path are the Makefile's or the repo's."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for line in run_lines(workflow):
        for word in shlex.split(line):
            if word.startswith(".venv/"):
                assert "VENV := .venv" in makefile and word == ".venv/bin/python"
            elif re.fullmatch(r"(scripts|\.ci)/[\w./-]+", word):
                assert (ROOT / word).is_file(), word
