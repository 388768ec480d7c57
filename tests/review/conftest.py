"""Fixtures of the review tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sizing.views.bundle import SiteContext
from tests.review.gitrepo import ROOT, git


@pytest.fixture(scope="session")
def repo_ctx(real_ctx: SiteContext) -> SiteContext:
    """``build_context`` of this repository's catalog, as ``export`` and the downloads compute it: the run's
    :func:`real_ctx` (the same context plus chart series, which neither reads; a context is read-only)."""
    return real_ctx


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A git repository holding a copy of this repository's tracked files, one commit."""
    target = tmp_path_factory.mktemp("repo")
    for name in git(ROOT, "ls-files", "-z").split("\0"):
        if name and (ROOT / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, target / name)
    git(target, "init", "-q")
    git(target, "add", "-A")
    git(target, "commit", "-q", "-m", "base")
    return target
