"""Tests for sizing.review.revisions: the catalog as it was at a git revision."""

from __future__ import annotations

from pathlib import Path

import pytest

from sizing.errors import UsageError
from sizing.review.revisions import catalog_at, repo_of
from tests.review.gitrepo import ROOT, git


def test_catalog_at_head_is_the_committed_catalog() -> None:
    """Assert HEAD's catalog reads back with the models ``git show`` holds (no checkout)."""
    cat = catalog_at(ROOT / "catalog", "HEAD")
    assert repo_of(ROOT / "catalog")[1] == "catalog"
    assert set(cat.models) and all(
        f"\n{m}:" in "\n" + git(ROOT, "show", "HEAD:catalog/models.yaml") for m in cat.models
    )


def test_unknown_revision_and_no_repository_are_usage_errors(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="unknown revision 'no-such-rev'"):
        catalog_at(ROOT / "catalog", "no-such-rev")
    with pytest.raises(UsageError, match="not inside a git repository"):
        repo_of(tmp_path)
