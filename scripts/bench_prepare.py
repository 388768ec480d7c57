#!/usr/bin/env python3
"""Benchmark the build's prepare step (``python -m scripts.docs prepare``) phase by phase.

    python -m scripts.bench_prepare [--out benchmarks/prepare.md] [--repeats 3] [--label after]

Phases, in the order the prepare step runs them: imports (a fresh interpreter importing what the step
imports), the matrix (``evaluate`` + verdicts), the worked examples, the chart series, the calibration
checks and their summaries, the explorer's formatting in every language, saving the context, and the
downloads. Each phase is timed on a fresh context (so the per-context caches start cold), best of
``--repeats`` by wall clock, with the CPU time (user + system) of that run. ``--threads`` adds
``evaluate`` on the real and the 100x catalog (``scripts/bench_sizing.py``) on 1 and 2 gather threads.
The machine is shared, so
the wall clock is pessimistic; the CPU time is the steadier figure. The report prints to stdout, or is
appended as one section to ``--out``.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
IMPORTS = "import sizing.site.context, sizing.review.downloads, sizing.render.explorer_render"


def timed(function: Callable[[], Any]) -> tuple[float, float, Any]:
    """(wall s, CPU user + system s, result) of one call."""
    before, started = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    result = function()
    wall, after = time.perf_counter() - started, resource.getrusage(resource.RUSAGE_SELF)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), result


def import_seconds() -> tuple[float, float]:
    """(wall s, CPU s) of a fresh interpreter importing the prepare step's modules (and starting)."""
    before, started = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run([sys.executable, "-c", IMPORTS], check=True, cwd=ROOT)
    wall, after = time.perf_counter() - started, resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def one_run(work: Path) -> dict[str, tuple[float, float]]:
    """Every phase of one prepare step on a fresh context: ``{phase: (wall s, CPU s)}``."""
    from sizing.catalog.loader import DEFAULT_DIR, load_catalog  # noqa: PLC0415 - timed apart
    from sizing.render.explorer_render import explorer_files, explorer_payloads  # noqa: PLC0415
    from sizing.review.downloads import write_downloads  # noqa: PLC0415
    from sizing.site import context as site  # noqa: PLC0415
    from sizing.views import bundle  # noqa: PLC0415

    out: dict[str, tuple[float, float]] = {}

    def phase(name: str, function: Callable[[], Any]) -> Any:
        wall, cpu, result = timed(function)
        out[name] = (wall, cpu)
        return result

    cat = phase("load catalog", lambda: load_catalog(DEFAULT_DIR))
    ctx = phase(
        "matrix (evaluate + verdicts)",
        lambda: bundle.build_context(cat, Path(DEFAULT_DIR).resolve(), examples=False),
    )
    examples = phase("examples", lambda: MappingProxyType(bundle.evaluate_examples(cat)))
    ctx = dataclasses.replace(ctx, examples=examples)
    ctx = phase("chart series", lambda: site.with_series(ctx))
    ctx = phase("calibration", lambda: site.with_calibration(ctx))
    ctx = phase(
        "explorer formatting",
        lambda: dataclasses.replace(ctx, explorer=MappingProxyType(explorer_payloads(ctx))),
    )
    phase("save context", lambda: site.save_context(ctx, work / "context.pickle"))
    phase(
        "downloads + explorer files", lambda: (write_downloads([work / "staged"], ctx), explorer_files(ctx))
    )
    return out


def best(runs: list[dict[str, tuple[float, float]]]) -> dict[str, tuple[float, float]]:
    """Per phase, the run with the least wall time."""
    return {name: min((run[name] for run in runs), key=lambda t: t[0]) for name in runs[0]}


def section(label: str, phases: dict[str, tuple[float, float]], repeats: int) -> str:
    """One Markdown section: a row per phase and the total."""
    when = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    lines = [
        f"## {label}",
        "",
        f"{when}; {os.cpu_count()} cores; load average {load}; best of {repeats}.",
        "",
        "| Phase | Wall (s) | CPU user + system (s) |",
        "|---|---:|---:|",
    ]
    lines += [f"| {name} | {wall:.2f} | {cpu:.2f} |" for name, (wall, cpu) in phases.items()]
    total_wall, total_cpu = (sum(t[i] for t in phases.values()) for i in (0, 1))
    return "\n".join([*lines, f"| **total** | **{total_wall:.2f}** | **{total_cpu:.2f}** |", ""])


def thread_section(repeats: int) -> str:
    """``evaluate`` on the real and the 100x catalog with the gather on 1 and on 2 threads (best of
    ``repeats``)."""
    from scripts.bench_sizing import scaled  # noqa: PLC0415
    from sizing.catalog.loader import load_catalog  # noqa: PLC0415
    from sizing.engine import frames  # noqa: PLC0415
    from sizing.engine.evaluate import evaluate  # noqa: PLC0415

    real = load_catalog()
    lines = ["| Catalog | Threads | Wall (s) | CPU user + system (s) |", "|---|---:|---:|---:|"]
    for label, cat in (("real", real), ("100x", scaled(real, 10, 10))):
        for threads in (1, 2):
            frames.GATHER_THREADS = threads
            wall, cpu, _ = min((timed(lambda: evaluate(cat)) for _ in range(repeats)), key=lambda t: t[0])
            lines.append(f"| {label} | {threads} | {wall:.3f} | {cpu:.3f} |")
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    title = f"### evaluate: gather threads (load average {load}, best of {repeats})"
    return "\n".join([title, "", *lines, ""])


def main(argv: list[str] | None = None) -> int:
    """Time the prepare step and print (or append) the report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--label", default="prepare step")
    parser.add_argument("--threads", action="store_true", help="also time evaluate on 1 and 2 gather threads")
    args = parser.parse_args(argv)
    imports = min((import_seconds() for _ in range(args.repeats)), key=lambda t: t[0])
    runs = []
    for _ in range(args.repeats):
        with tempfile.TemporaryDirectory(prefix="bench-prepare-") as work:
            runs.append(one_run(Path(work)))
    text = section(args.label, {"imports (fresh interpreter)": imports, **best(runs)}, args.repeats)
    if args.threads:
        text += "\n" + thread_section(max(args.repeats, 3))
    if args.out:
        with args.out.open("a", encoding="utf-8") as handle:
            handle.write("\n" + text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
