"""Shared fixtures: the repository's catalog and matrix, and one assembled site per test session."""

from __future__ import annotations

import functools
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

from scripts.engines import ENGINES  # noqa: E402


def _run_docs(*args: str, repo: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """Run ``python -m scripts.docs`` of the repository at ``repo`` and capture its output."""
    command = [sys.executable, "-m", "scripts.docs", *args]
    return subprocess.run(command, cwd=repo, capture_output=True, text=True, timeout=300, check=False)


def pytest_configure(config: pytest.Config) -> None:
    """Register the project's markers."""
    config.addinivalue_line("markers", "site: builds the site (slow; a few representative cases)")


@pytest.fixture(scope="session")
def run_docs() -> Callable[..., subprocess.CompletedProcess[str]]:
    """``run_docs(*args, repo=ROOT)`` runs a repository's ``scripts/docs.py`` with ``args``."""
    return _run_docs


@pytest.fixture(scope="session", params=list(ENGINES))
def engine(request: pytest.FixtureRequest) -> str:
    """The site generator (``scripts/docs.py build --engine``): every site test runs once per engine."""
    return request.param


@functools.cache
def _site(engine: str, root: Path) -> Path:
    """The site assembled by ``scripts/docs.py build --engine ENGINE`` under ``root``, built once."""
    site = root / engine / "site"
    result = _run_docs("build", "--engine", engine, "--site", str(site))
    if result.returncode != 0:
        pytest.fail(f"scripts/docs.py build --engine {engine} failed:\n{result.stdout}\n{result.stderr}")
    return site


def site_of(engine: str, factory: pytest.TempPathFactory) -> Path:
    """The session's site built with ``engine`` (shared by every fixture and test that asks for it)."""
    return _site(engine, factory.getbasetemp() / "assembled")


@pytest.fixture(scope="session")
def built_site(engine: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site assembled by ``scripts/docs.py build --engine ENGINE --site <tmp>``, once per session."""
    return site_of(engine, tmp_path_factory)


@pytest.fixture(scope="session")
def catalog():
    """The repository's validated catalog."""
    from sizing.catalog.loader import load_catalog

    return load_catalog(ROOT / "catalog")


@pytest.fixture(scope="session")
def matrix(catalog):
    """The whole catalog evaluated once (default vLLM release)."""
    from sizing.engine.evaluate import evaluate

    return evaluate(catalog)
