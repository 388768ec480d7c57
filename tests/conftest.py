"""Shared fixtures: the repository's catalog, matrix and prepared site context, and one assembled site per
engine for the whole test run.

The site is built once per engine and run (``scripts/docs.py build``), also under ``pytest -n 2``: the
workers share one folder and a file lock, so the first worker to ask builds and the other waits for it and
reads the result. Tests that use a built site or a browser are marked ``site`` / ``browser`` from the
fixtures they ask for (``make test-fast`` deselects them). They are not pinned to one worker: the browser
visits are most of the run's work, and split over the workers they keep the cores busy. (xdist 3.8's
``--dist loadgroup`` would not pin them anyway under pytest 9.2: it renames ``item._nodeid``, which pytest
9.2 no longer reads.)

The builds start as soon as collection ends, in a background thread of each process whose selected tests
read a shared site (:func:`pytest_collection_finish`): the first site test then finds its site built, or
nearly, instead of waiting the whole build while the other worker runs out of tests. Each process asks for
the engines in another order, so two workers build both engines at once; the lock keeps it one build each.

The repository catalog is prepared once per run (``scripts/docs.py prepare``, :func:`_prepared_once`): both
builds, the failed-build tests and :func:`prepared_ctx` load that saved context instead of evaluating again.
"""

from __future__ import annotations

import fcntl
import functools
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

from scripts.docs import CONTEXT_FILE, SITE_MARKER  # noqa: E402
from scripts.engines import ENGINES  # noqa: E402

SITE_FIXTURES = frozenset({"built_site", "zensical_site", "engine_site", "session_build"})
BROWSER_FIXTURES = frozenset({"browser", "chromium", "page", "site_url", "engine_url", "desktop"})
STALE = "stale.html"
"""A file put into the site folder before the session build: a successful build must remove it."""


def _run_docs(
    *args: str, repo: Path = ROOT, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m scripts.docs`` of the repository at ``repo`` and capture its output."""
    command = [sys.executable, "-m", "scripts.docs", *args]
    return subprocess.run(
        command,
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env={**os.environ, **(env or {})},
    )


def pytest_configure(config: pytest.Config) -> None:
    """Register the project's markers."""
    config.addinivalue_line(
        "markers", "site: builds the site or reads the session's build (not in make test-fast)"
    )
    config.addinivalue_line("markers", "browser: drives Chromium (not in make test-fast)")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark tests by the fixtures they use: ``browser`` (Chromium), ``site`` (a built site, or a browser)."""
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        if names & BROWSER_FIXTURES:
            item.add_marker(pytest.mark.browser)
        if names & (BROWSER_FIXTURES | SITE_FIXTURES) and not item.get_closest_marker("site"):
            item.add_marker(pytest.mark.site)


def engines_read(items: list[pytest.Item]) -> list[str]:
    """The engines whose shared build ``items`` read (``built_site``, ``zensical_site``, ``engine_site``), in
    the order the items first need them."""
    needed: dict[str, None] = {}
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        callspec = getattr(item, "callspec", None)
        if "built_site" in names:
            needed["mkdocs"] = None
        if "zensical_site" in names:
            needed["zensical"] = None
        if "engine_site" in names and callspec is not None and "engine" in callspec.params:
            needed[str(callspec.params["engine"])] = None
    return list(needed)


def _build_in_background(engines: list[str], root: Path) -> None:
    """Build the shared sites of ``engines`` (:func:`_build_once`); the fixtures report a failed build."""
    for engine in engines:
        _build_once(engine, root)


EARLY_BUILDS: list[threading.Thread] = []
"""The background threads of :func:`pytest_collection_finish` (joined when the session ends)."""


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start the shared site builds the selected tests read, in a background thread: worker ``gwN`` asks for
    the engines rotated by N, so two workers build two engines at once."""
    engines = engines_read(session.items)
    if not engines or session.config.option.collectonly:
        return
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    shift = int(worker[2:]) % len(engines) if worker[2:].isdigit() else 0
    root = shared_root(session.config._tmp_path_factory) / "assembled"  # type: ignore[attr-defined]
    order = engines[shift:] + engines[:shift]
    thread = threading.Thread(target=_build_in_background, args=(order, root), daemon=True)
    thread.start()
    EARLY_BUILDS.append(thread)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Wait for a background build still running (a run stopped early), so no build outlives the session."""
    for thread in EARLY_BUILDS:
        thread.join()


@pytest.fixture(scope="session")
def run_docs() -> Callable[..., subprocess.CompletedProcess[str]]:
    """``run_docs(*args, repo=ROOT, env=None)`` runs a repository's ``scripts/docs.py`` with ``args``."""
    return _run_docs


def shared_root(factory: pytest.TempPathFactory) -> Path:
    """A folder every xdist worker of this run sees (the run's temporary root), or the session's own."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def _prepared_once(root: Path) -> Path | None:
    """The repository catalog's context, prepared once per run by ``scripts/docs.py prepare`` into
    ``root/prepared`` (the first thread or process to take the lock prepares, the others wait): the saved
    file, or None when the step failed (a build then prepares on its own and reports why)."""
    folder = root / "prepared"
    folder.mkdir(parents=True, exist_ok=True)
    with (root / "prepared.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / "status").exists():
            code = _run_docs("prepare", str(folder)).returncode
            (folder / "status").write_text(str(code), encoding="utf-8")
    ok = (folder / "status").read_text(encoding="utf-8") == "0"
    return folder / CONTEXT_FILE if ok else None


def prepared_env(root: Path) -> dict[str, str]:
    """The environment that lets a build of this catalog (or a byte-identical copy) load the run's prepared
    context instead of evaluating the catalog again (:func:`sizing.site.context.load_saved`)."""
    from sizing.site.context import SNAPSHOT_VAR

    path = _prepared_once(root)
    return {SNAPSHOT_VAR: str(path)} if path else {}


def _build_once(engine: str, root: Path) -> Path:
    """Build with ``scripts/docs.py build --engine ENGINE`` into ``root/ENGINE/site`` unless this run did: the
    first thread or process to take the lock builds (over a folder holding a stale file), the others wait.
    Returns the folder holding the build's ``output.txt`` (exit status, then its output)."""
    folder = root / engine
    folder.mkdir(parents=True, exist_ok=True)
    with (root / f"{engine}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / "built").exists():
            (folder / "site").mkdir(exist_ok=True)
            (folder / "site" / SITE_MARKER).write_text("", encoding="utf-8")  # a site an earlier build wrote
            (folder / "site" / STALE).write_text("old", encoding="utf-8")
            site = str(folder / "site")
            result = _run_docs("build", "--engine", engine, "--site", site, env=prepared_env(root))
            (folder / "output.txt").write_text(
                f"{result.returncode}\n{result.stdout}\n{result.stderr}", encoding="utf-8"
            )
            (folder / "built").touch()
    return folder


@pytest.fixture(scope="session")
def prepared_build_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """:func:`prepared_env` of the run: for builds of a copy of this repository with its catalog unchanged."""
    return prepared_env(shared_root(tmp_path_factory) / "assembled")


@functools.cache
def _site(engine: str, root: Path) -> Path:
    """The site of :func:`_build_once`, once per run; fails the asking test when the build failed."""
    folder = _build_once(engine, root)
    code, output = (folder / "output.txt").read_text(encoding="utf-8").split("\n", 1)
    if code != "0":
        pytest.fail(f"scripts/docs.py build --engine {engine} failed:\n{output}")
    return folder / "site"


def site_of(engine: str, factory: pytest.TempPathFactory) -> Path:
    """The run's site built with ``engine`` (shared by every fixture, test and xdist worker that asks)."""
    return _site(engine, shared_root(factory) / "assembled")


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The MkDocs site (``scripts/docs.py build --site <tmp>``), built once per run. The content tests read
    it; ``tests/e2e/test_engine_parity.py`` proves the Zensical build publishes the same content."""
    return site_of("mkdocs", tmp_path_factory)


@pytest.fixture(scope="session")
def zensical_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Zensical site, built once per run (parity and the per-engine checks)."""
    return site_of("zensical", tmp_path_factory)


@pytest.fixture(scope="session", params=list(ENGINES))
def engine(request: pytest.FixtureRequest) -> str:
    """The site generator: a test asking for it runs once per engine (what differs between engines)."""
    return request.param


@pytest.fixture(scope="session")
def engine_site(engine: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site built with ``engine`` (see :func:`engine`)."""
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


@pytest.fixture(scope="session")
def real_ctx():
    """The repository catalog's site context (matrix and examples), as every page macro reads it: the cached
    :func:`sizing.site.context.context`, so tests and in-process helpers share one evaluation."""
    from sizing.site import context as site

    return site.context(ROOT / "catalog")


@pytest.fixture(scope="session")
def prepared_ctx(real_ctx, tmp_path_factory: pytest.TempPathFactory):
    """:func:`real_ctx` prepared as the build prepares it (chart series, calibration, explorer files): the
    run's one ``scripts/docs.py prepare``, loaded from its saved file (computed here if that step failed)."""
    from sizing.site import context as site

    path = _prepared_once(shared_root(tmp_path_factory) / "assembled")
    return (path and site.load_saved(path, ROOT / "catalog")) or site.prepare(real_ctx)
