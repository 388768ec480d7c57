"""MkDocs + Material against Zensical, side by side: what a writer waits for with each engine.

Run by ``python scripts/bench.py`` (or ``--engines-only``), which writes ``benchmarks/engines.md``:

1. Full build of the three languages: ``scripts/docs.py build --engine E`` (the catalog evaluated once,
   the languages in parallel, the assembled site).
2. One-language build: the engine's strict build of the English config alone (it evaluates the
   catalog itself, as a writer's one-language build does).
3. Live preview: ``mkdocs serve`` / ``zensical serve`` of the English config on 127.0.0.1 (a free
   port), in a copy of the working tree; one page is edited, and the time until the served page shows
   the edit is the rebuild time. Every wait is bounded; the server is stopped by its process id.

Target: the one-language preview rebuild under 3 s (what writers asked for).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from scripts.engines import ENGINES

ROOT = Path(__file__).resolve().parent.parent

PREVIEW_TARGET_S = 3.0
EDITED_PAGE = "docs/en/methodology.md"
EDITED_URL = "methodology/"
WAIT_S = 180.0
"""Longest wait for a server to start or for one rebuild to show."""
CHILD_ENV = {"NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}


def _timed(command: list[str], cwd: Path) -> float:
    """Wall time of ``command``; raises with its output if it fails."""
    started = time.perf_counter()
    result = subprocess.run(
        command,
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **CHILD_ENV},
        timeout=600,
    )
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{result.stdout[-2000:]}\n{result.stderr[-2000:]}")
    return time.perf_counter() - started


def full_build(engine: str, site: Path) -> float:
    """Seconds of ``python -m scripts.docs build --engine ENGINE`` (all languages, assembled), run from the
    repository as the Makefile runs it (``scripts`` is a package, so the file cannot run on its own)."""
    return _timed(
        [sys.executable, "-m", "scripts.docs", "build", "--engine", engine, "--site", str(site)], ROOT
    )


def one_language_build(engine: str, work: Path) -> float:
    """Seconds of the engine's strict build of the English site alone (staging included)."""
    started = time.perf_counter()
    _timed(ENGINES[engine].command("mkdocs.yml", work, "en"), ROOT)
    return time.perf_counter() - started


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def serve_command(engine: str, port: int) -> list[str]:
    """The live-preview server of the English site on 127.0.0.1:PORT."""
    address = f"127.0.0.1:{port}"
    if engine == "zensical":
        return [sys.executable, "-m", "zensical", "serve", "-f", "mkdocs.yml", "-a", address]
    return [sys.executable, "-m", "mkdocs", "serve", "-f", "mkdocs.yml", "-a", address]


def fetch(url: str) -> str:
    """The body of ``url`` ("" when it cannot be read yet)."""
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.read().decode("utf-8", errors="replace")
    except OSError:
        return ""


def wait_for(url: str, text: str, started: float) -> float:
    """Seconds from ``started`` until ``url`` contains ``text``; raises after :data:`WAIT_S`."""
    while time.perf_counter() - started < WAIT_S:
        if text in fetch(url):
            return time.perf_counter() - started
        time.sleep(0.05)
    raise TimeoutError(f"{url} did not show {text!r} within {WAIT_S:.0f} s")


def preview_rebuilds(engine: str, tree: Path, edits: int) -> dict[str, Any]:
    """Start the engine's preview server in ``tree``; seconds to first page and to each edit shown."""
    port, page = free_port(), tree / EDITED_PAGE
    original = page.read_text(encoding="utf-8")
    server = subprocess.Popen(
        serve_command(engine, port),
        cwd=tree,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, **CHILD_ENV},
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}/{EDITED_URL}"
    try:
        first = wait_for(url, "</html>", time.perf_counter())
        rebuilds = []
        for i in range(edits):
            marker = f"bench-edit-{engine}-{i}-{time.time_ns()}"
            time.sleep(1.1)  # a new mtime second: watchers and caches compare whole seconds
            started = time.perf_counter()
            page.write_text(f"{original}\n\n{marker}\n", encoding="utf-8")
            rebuilds.append(wait_for(url, marker, started))
        return {"first": first, "rebuilds": rebuilds}
    finally:
        page.write_text(original, encoding="utf-8")
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


def copy_tree(dest: Path, files: list[str]) -> Path:
    """A copy of the working tree's ``files`` under ``dest`` (edited by the preview benchmark)."""
    for name in files:
        (dest / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, dest / name)
    return dest


def compare_engines(repeats: int, files: list[str]) -> dict[str, dict[str, Any]]:
    """Every measurement for every engine, the engines alternating run by run."""
    results: dict[str, dict[str, Any]] = {e: {"full": [], "one": []} for e in ENGINES}
    with tempfile.TemporaryDirectory(prefix="sizing-bench-engines-") as tmp:
        work = Path(tmp)
        for i in range(repeats):
            for engine in ENGINES:
                results[engine]["full"].append(full_build(engine, work / f"{engine}-site-{i}" / "site"))
                results[engine]["one"].append(one_language_build(engine, work / f"{engine}-one-{i}"))
                print(
                    f"{engine} run {i + 1}/{repeats}: full {results[engine]['full'][-1]:.1f} s, "
                    f"one language {results[engine]['one'][-1]:.1f} s",
                    flush=True,
                )
        for engine in ENGINES:
            tree = copy_tree(work / f"{engine}-tree", files)
            results[engine]["preview"] = preview_rebuilds(engine, tree, repeats)
            print(f"{engine} preview rebuilds: {results[engine]['preview']['rebuilds']}", flush=True)
    return results


def _runs(values: list[float]) -> str:
    """``4.1, 4.3, 4.0``."""
    return ", ".join(f"{v:.1f}" for v in values)


def engines_report(results: dict[str, dict[str, Any]], machine: dict[str, str], load: str) -> str:
    """The Markdown report of :func:`compare_engines`."""
    rows, verdicts = [], []
    for engine, r in results.items():
        full, one, preview = r["full"], r["one"], r["preview"]
        rebuild = min(preview["rebuilds"])
        rows.append(
            f"| {engine} | {min(full):.1f} ({_runs(full)}) | {min(one):.1f} ({_runs(one)}) "
            f"| {preview['first']:.1f} | {rebuild:.1f} ({_runs(preview['rebuilds'])}) |"
        )
        verdict = "met" if rebuild < PREVIEW_TARGET_S else "**NOT met**"
        verdicts.append(
            f"- {engine}: one-language preview rebuild {rebuild:.1f} s; "
            f"target under {PREVIEW_TARGET_S:.0f} s: {verdict}."
        )
    return "\n".join(
        [
            "# Benchmark: MkDocs + Material against Zensical",
            "",
            "Generated by `python scripts/bench.py` (`--engines-only` runs this part alone); "
            "do not edit by hand.",
            "",
            "| Engine | Full build, 3 languages (s) | One-language build, English (s) | Preview: first "
            "page (s) "
            "| Preview: rebuild after editing one page (s) |",
            "|---|---:|---:|---:|---:|",
            *rows,
            "",
            "Best of the runs, every run in brackets. Full build: `scripts/docs.py build --engine E`. "
            "One language: the engine's strict build of `mkdocs.yml` alone. "
            "Preview: `mkdocs serve` / `zensical serve` of the "
            f"English site on 127.0.0.1, `{EDITED_PAGE}` edited, timed until the served page shows the edit.",
            "",
            *verdicts,
            "",
            "## Machine",
            "",
            *(f"- {k}: {v}" for k, v in machine.items()),
            f"- Engines: {versions()}",
            f"- Load: {load}",
            "",
        ]
    )


def versions() -> str:
    """The installed versions of both engines."""
    from importlib.metadata import version  # noqa: PLC0415

    return (
        f"mkdocs {version('mkdocs')} + mkdocs-material {version('mkdocs-material')}; "
        f"zensical {version('zensical')}"
    )


def load_note() -> str:
    """The load average at the start of the run, and what it means for the figures."""
    one, five, _ = os.getloadavg()
    cores = os.cpu_count() or 1
    busy = "loaded (other work shared the cores; times are pessimistic and vary from run to run)"
    state = busy if five > cores / 2 else "idle"
    return f"load average {one:.1f} / {five:.1f} (1 / 5 min) on {cores} cores: {state}"
