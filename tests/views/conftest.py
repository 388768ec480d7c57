"""Fixtures of the view tests: the test catalog's and the repository catalog's site contexts."""

from __future__ import annotations

from pathlib import Path

import pytest

from sizing.site import context as site

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "site_catalog"


@pytest.fixture(scope="module")
def ctx() -> site.SiteContext:
    """The test catalog's context (a test module may define its own ``ctx``)."""
    return site.context(FIXTURE)


@pytest.fixture(scope="module")
def real(real_ctx: site.SiteContext) -> site.SiteContext:
    """The repository catalog's context (the seeds' targets and the 671B checkpoints live there)."""
    return real_ctx
