#!/usr/bin/env python3
"""Benchmark the test commands of the README: wall-clock and CPU time of ``make test-fast`` and ``make test``.

    python -m scripts.bench_tests [--only NAME] [--out benchmarks/tests.md]  # NAME: a key of COMMANDS
    python -m scripts.bench_tests --report     # rewrite the report from benchmarks/tests.json

Runs each command once from the repository root (``test-fast-serial`` is ``make test-fast WORKERS=0``:
pytest in one process, to see what the two workers of ``-n 2`` gain; ``fresh-clone`` is what CI runs: a clone
of ``HEAD`` in a new temporary folder, venv set-up included, then ``bash .ci/run``, the folder removed after)
(``make test`` builds the site and drives Chromium: run it on a quiet machine, and not often) and measures its
wall time, the CPU time of every process it waited for (user + system, from ``getrusage(RUSAGE_CHILDREN)``;
Chromium's renderers are not among them) and the busy time of the whole machine (``/proc/stat``: Chromium
included, and whatever else ran). CPU time is the figure to compare when other work shares the cores: wall
time then grows with the load, CPU time hardly does. Results are kept by command in
``benchmarks/tests.json`` (a run of one command keeps the other's last result) and written, with the
measurements from before this benchmark existed (:data:`BEFORE`), to ``benchmarks/tests.md``.

Targets (issue 26): ``make test`` under 5 minutes and ``make test-fast`` under 90 seconds on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import time
from pathlib import Path
from typing import Any

from scripts.bench_engines import load_note
from scripts.bench_sizing import machine
from sizing.safeio import read_json

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = {
    "test-fast": ["make", "test-fast"],
    "test-fast-serial": ["make", "test-fast", "WORKERS=0"],
    "test": ["make", "test"],
    "fresh-clone": [
        "bash",
        "-c",
        'work=$(mktemp -d) && git clone -q . "$work/repo" && (cd "$work/repo" && bash .ci/run); '
        'status=$?; rm -rf "$work"; exit $status',
    ],
}
LABELS = {"fresh-clone": "bash .ci/run on a fresh clone of HEAD (venv set-up included)"}
"""How the report names a command that is not a plain ``make`` line."""
TARGETS_S = {"test-fast": 90.0, "test": 300.0, "fresh-clone": 300.0}
"""Wall-time targets of issue 26 (the serial run is a comparison, without a target)."""
BEFORE = [
    {
        "command": "make test (fresh clone, 9311fe3: session 21's starting point)",
        "wall": 420.0,
        "cpu": None,
        "summary": "2084 tests, about 7 minutes (the coordinator's measurement: wall time only)",
    },
    {
        "command": "make test-fast (9311fe3)",
        "wall": 110.0,
        "cpu": 195.0,
        "summary": "1720 passed (the coordinator's measurement)",
    },
    {
        "command": "pytest -q -n 2 -m 'not site and not browser' (9311fe3; load average 1-3)",
        "wall": 134.7,
        "cpu": 191.8,
        "summary": "1720 passed in 133.79s",
    },
    {
        "command": "pytest -q -n 2 -m 'not site and not browser' (9311fe3; load average 7-9)",
        "wall": 567.7,
        "cpu": 212.6,
        "summary": "1720 passed in 566.23s (per-file CPU below)",
    },
]
"""Measured at the start of session 21 (commit 9311fe3, this machine, other sessions sharing its cores)."""
CPU_BY_FILE = [
    ("tests/test_cli.py", 112, 28.4),
    ("tests/review/test_diff_report.py", 6, 22.5),
    ("tests/engine/test_properties.py", 9, 20.0),
    ("tests/render/test_explorer_render.py", 9, 17.8),
    ("tests/review/test_export.py", 4, 16.4),
    ("tests/e2e/test_hostile_inputs.py", 46, 14.2),
    ("tests/e2e/test_hostile_catalog.py", 74, 11.1),
    ("tests/render/test_charts.py", 18, 10.1),
    ("collection (both workers)", 0, 7.0),
    ("tests/render/test_explorer_ladder.py", 6, 6.6),
    ("tests/review/test_downloads.py", 5, 6.4),
    ("tests/render/test_macros.py", 25, 5.1),
]
"""The most expensive files of ``make test-fast`` at 9311fe3: CPU seconds of setup + call + teardown of
each test (``getrusage`` of the worker and its waited children), summed per file, load average 7-9."""
HISTORY = [
    {
        "command": "make test (CI: .ci/run on a fresh clone, 780d437)",
        "wall": 1349.0,
        "cpu": None,
        "summary": "1,375 tests (CI log: wall time only)",
    },
    {
        "command": "ruff + mypy + pytest -q tests --ignore=tests/e2e "
        "(780d437, fresh clone; what test-fast runs)",
        "wall": 100.0,
        "cpu": 96.9,
        "summary": "1 failed, 859 passed (calibration/results.json float noise)",
    },
    {
        "command": "pytest -q -n 2 --dist worksteal, what make test runs "
        "(bab6bee, before merging main at 2635e9a)",
        "wall": 618.7,
        "cpu": 235.7,
        "summary": "1300 passed in 617.84s (load average 7-11)",
    },
    {
        "command": "pytest -q -n 2 -m 'not site and not browser' (bab6bee; load average 9-11)",
        "wall": 315.5,
        "cpu": 113.0,
        "summary": "1013 passed",
    },
    {
        "command": "pytest -q -n 0 -m 'not site and not browser' (bab6bee + 5 tests; load average 6-9)",
        "wall": 432.9,
        "cpu": 106.8,
        "summary": "1018 passed",
    },
]
"""Session 20's measurements (before the test commands were first sped up; two workers against one)."""
NOTES = [
    "- Session 22 started from `make test` at 406 s on CI's fresh clone (03b368e) and 385 s of pytest on idle"
    " cores (c2c797b); CI measured its end (d270133) at 356 s. Both runs were CPU-bound, about half of "
    "their CPU Chromium's page loads (1.6-1.8 s of CPU a visit, which `getrusage` does not see: the CPU "
    "column leaves it out; the machine column counts it).",
    "- Session 22 changed: one browser visit per page, engine, language and width; the catalog prepared once "
    "per run; tests of a mechanism on the small catalog; `diff` formats only the rows that moved; the "
    "throughput fit's leave-one-out fits one process per core; `pip --no-compile`.",
    "- Session 23 changed: browser tests reuse one tab per size and worker (storage cleared, `about:blank` "
    "between tests; a failing test's tab is closed): a visit in a warm renderer costs Chromium 0.85 s of "
    "CPU against 1.78 s in a new context. Zensical's pages are loaded once per language and narrowed from "
    "1366 to 390 px for the second width, and a test MkDocs runs in several languages runs in Russian on "
    "Zensical (`test_engine_parity` proves the content equal): 37 page loads fewer, every page, language "
    "and width still checked in both builds. `diff` of two equal catalogs evaluates neither; the throughput "
    "fit reads its columns as arrays (its check 30 -> 22 s of CPU); pytest runs on three workers. Machine "
    "CPU of the pytest run: 590 -> 413 s.",
]
"""Lines printed under the results: what a reader needs to weigh them (written with the measurement)."""
SUMMARY = re.compile(r"\d+ (passed|failed|errors?)\b.* in [\d.]+s")
"""pytest's last line: ``3 failed, 1400 passed, 282 deselected in 538.12s (0:08:58)``."""


def cpu_seconds() -> float:
    """User + system CPU seconds of every finished child process of this one."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def machine_busy_seconds() -> float:
    """CPU seconds every core of this machine has spent busy since boot (``/proc/stat``: all but idle and
    I/O wait), counting processes this one never waits for (Chromium's) and other work on the machine."""
    fields = [int(v) for v in Path("/proc/stat").read_text(encoding="ascii").split("\n")[0].split()[1:]]
    idle = fields[3] + fields[4]
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def measure(name: str) -> dict[str, Any]:
    """Run COMMANDS[NAME] once: its wall, CPU and machine-busy seconds, exit status, pytest's summary and the
    load."""
    load_before, cpu, busy, started = load_note(), cpu_seconds(), machine_busy_seconds(), time.perf_counter()
    result = subprocess.run(COMMANDS[name], cwd=ROOT, capture_output=True, text=True, check=False)
    wall, cpu, busy = time.perf_counter() - started, cpu_seconds() - cpu, machine_busy_seconds() - busy
    summaries = [m.group(0) for m in SUMMARY.finditer(result.stdout)]
    return {
        "command": LABELS.get(name, " ".join(COMMANDS[name])),
        "wall": round(wall, 1),
        "cpu": round(cpu, 1),
        "machine_cpu": round(busy, 1),
        "status": result.returncode,
        "summary": summaries[-1] if summaries else result.stderr.strip()[-200:],
        "load": f"start: {load_before}; end: {load_note()}",
        "machine": machine(),
    }


def row(entry: dict[str, Any]) -> str:
    """One Markdown table row: command, wall, CPU, pytest's summary."""
    cpu = "n/a" if entry["cpu"] is None else f"{entry['cpu']:.0f}"
    return f"| `{entry['command']}` | {entry['wall']:.0f} | {cpu} | {entry['summary']} |"


def verdicts(results: dict[str, dict[str, Any]]) -> list[str]:
    """Whether each measured command met its target (wall time) and passed."""
    out = []
    for name, entry in results.items():
        target = TARGETS_S.get(name)
        met = (
            ""
            if target is None
            else f"; target under {target:.0f} s: " + ("met" if entry["wall"] < target else "**NOT met**")
        )
        status = "passed" if entry["status"] == 0 else f"**failed (exit {entry['status']})**"
        busy = entry.get("machine_cpu")
        machine_cpu = "" if busy is None else f" ({busy:.0f} s of the machine's CPU, Chromium included)"
        out.append(
            f"- `{entry['command']}`: {entry['wall']:.0f} s wall, {entry['cpu']:.0f} s CPU{machine_cpu}, "
            f"{status}{met}. Load: {entry['load']}."
        )
    return out


def report(results: dict[str, dict[str, Any]]) -> str:
    """The Markdown report: before, after, verdicts and the machine of the last run."""
    head = "| Command | Wall (s) | CPU (s) | Result |\n|---|---:|---:|---|"
    last = max(results.values(), key=lambda e: e["machine"]["Date (UTC)"])["machine"]
    return "\n".join(
        [
            "# Benchmark: the test commands",
            "",
            "Generated by `python -m scripts.bench_tests`; do not edit by hand. CPU is user + system time of "
            "every process the command waited for; wall time grows with the machine's load, CPU time hardly. "
            "The machine's two cores are shared with other sessions: compare CPU times, not wall times.",
            "",
            "## Before",
            "",
            head,
            *map(row, BEFORE),
            "",
            "## After",
            "",
            head,
            *(row(e) for e in results.values()),
            "",
            *verdicts(results),
            "",
            "Where `make test-fast`'s CPU went before (per file, the twelve most expensive):",
            "",
            "| File | Tests | CPU (s) |\n|---|---:|---:|",
            *(f"| `{name}` | {count} | {cpu:.1f} |" for name, count, cpu in CPU_BY_FILE),
            "",
            *NOTES,
            "",
            "## History (session 20)",
            "",
            head,
            *map(row, HISTORY),
            "",
            "## Machine",
            "",
            *(f"- {key}: {value}" for key, value in last.items()),
            "",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    """Measure the chosen commands, keep them in ``tests.json`` and write the report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", choices=list(COMMANDS))
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "tests.md")
    parser.add_argument("--report", action="store_true", help="rewrite the report from tests.json only")
    args = parser.parse_args(argv)
    store = args.out.with_suffix(".json")
    results = read_json(store) if store.is_file() else {}
    for name in [] if args.report else [args.only] if args.only else list(COMMANDS):
        results[name] = measure(name)
        print(row(results[name]), flush=True)
    store.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    args.out.write_text(report(results), encoding="utf-8")
    return 0 if all(e["status"] == 0 for e in results.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
