#!/usr/bin/env python3
"""Benchmark the site build: the cost of computing, evaluation throughput, peak memory.

    python -m scripts.bench [--out benchmarks/build.md] [--repeats 3]

1. Build time of all three languages (``scripts/docs.py build --site DIR``) with the macros, against
   the same pages with every ``{{ sz_… }}`` call replaced by fixed text: the very Markdown the macro
   renders, pasted in (a copy of the working tree in a temporary folder). Both builds then render,
   index and write the same pages, so the difference is the cost of computing; the target is judged
   on it. Both variants also run the build's once-only step (``scripts/docs.py prepare``: evaluate
   the catalog, run the calibration, write the downloads); it is timed on its own and reported, with
   the share computing would have if it were counted too.
2. Evaluation throughput of the full, 10× and 100× matrix (``scripts/bench_sizing.py`` catalogs).
3. Peak memory of a full build: ``resource.getrusage(RUSAGE_CHILDREN).ru_maxrss`` (the largest
   single process) and the sampled peak of the summed RSS of the build's process tree (the three
   languages build in parallel).

4. MkDocs + Material against Zensical (``scripts/bench_engines.py``): full build, one-language build and
   live-preview rebuild of each engine, written to ``benchmarks/engines.md`` (``--engines-only``: just that).

Targets: computing adds under 15 % to the build; the 100× catalog evaluates in under 1 s; the
build's peak memory stays under 500 MB. The report says whether each is met.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from scripts.bench_engines import compare_engines, engines_report, load_note
from scripts.bench_sizing import SCALES, best_of, machine, scaled
from sizing import safeio

ROOT = Path(__file__).resolve().parent.parent

MACRO = re.compile(r"\{\{-?\s*sz_\w+\s*\(.*?\)\s*-?\}\}", re.S)
"""One ``{{ sz_…(…) }}`` call in a page (arguments may span lines)."""
TARGETS = {"overhead": 0.15, "eval_100x": 1.0, "peak_mb": 500.0}
MB = 1024 * 1024

# ---------------------------------------------------------------------------------------------
# builds with and without computing
# ---------------------------------------------------------------------------------------------


def build_seconds(repo: Path, site: Path) -> float:
    """Wall time of ``scripts/docs.py build --site SITE`` in ``repo``; raises if the build fails."""
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "scripts.docs", "build", "--site", str(site)],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - started
    if result.returncode != 0:
        raise RuntimeError(f"build in {repo} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return seconds


def working_tree_files() -> list[str]:
    """Tracked and untracked, not ignored, files of the working tree (what a build reads)."""
    listing = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode("utf-8")
    return [name for name in listing.split("\0") if name and (ROOT / name).is_file()]


class _Env:
    """The part of the mkdocs-macros environment ``sizing.site.docs_macros.define_env`` uses."""

    def __init__(self, lang: str) -> None:
        self.conf: dict[str, Any] = {"theme": {"language": lang}}
        self.macros: dict[str, Any] = {}

    def macro(self, function: Any, name: str = "") -> Any:
        """Record ``function`` under ``name``."""
        self.macros[name or function.__name__] = function
        return function


def render_macros(page: Path, lang: str) -> tuple[str, int]:
    """The page with every macro call replaced by the text it renders; and how many calls there were."""
    import jinja2  # noqa: PLC0415 - a dependency of mkdocs-macros

    from sizing.site.docs_macros import define_env  # noqa: PLC0415

    env = _Env(lang)
    define_env(env)
    text = page.read_text(encoding="utf-8")
    url = "" if page.stem == "index" else f"{page.stem}/"
    rendered = jinja2.Environment(undefined=jinja2.StrictUndefined).from_string(text)  # noqa: S701 - Markdown, as mkdocs-macros renders it
    return rendered.render(page=SimpleNamespace(url=url), **env.macros), len(MACRO.findall(text))


def macro_free_copy(dest: Path) -> int:
    """Copy the working tree to ``dest`` with every page macro call replaced by its output; return how
    many."""
    for name in working_tree_files():
        (dest / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, dest / name)
    replaced = 0
    for page in (dest / "docs").glob("*/*.md"):
        text, count = render_macros(ROOT / page.relative_to(dest), page.parent.name)
        page.write_text(text, encoding="utf-8")
        replaced += count
    return replaced


def downloads_seconds(work: Path) -> float:
    """Wall time of the build's once-only step, ``scripts/docs.py prepare`` (a process of its own)."""
    work.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "scripts.docs", "prepare", str(work)],
        cwd=ROOT,
        capture_output=True,
        check=True,
    )
    return time.perf_counter() - started


def compare_builds(repeats: int, work: Path) -> dict[str, Any]:
    """Best build times with and without macros (alternating runs), and the downloads step."""
    copy = work / "no-macros"
    replaced = macro_free_copy(copy)
    with_macros, without = [], []
    for i in range(repeats):
        with_macros.append(build_seconds(ROOT, work / f"site-macros-{i}"))
        without.append(build_seconds(copy, work / f"site-fixed-{i}"))
        print(
            f"build {i + 1}/{repeats}: {with_macros[-1]:.1f} s with macros, {without[-1]:.1f} s without",
            flush=True,
        )
    return {
        "with": min(with_macros),
        "without": min(without),
        "all_with": with_macros,
        "all_without": without,
        "replaced": replaced,
        "downloads": downloads_seconds(work / "downloads"),
    }


# ---------------------------------------------------------------------------------------------
# evaluation throughput, memory
# ---------------------------------------------------------------------------------------------


def evaluation_throughput(repeats: int) -> list[dict[str, Any]]:
    """Rows, best time and rows/s of ``evaluate`` at every scale."""
    from sizing.catalog.loader import load_catalog  # noqa: PLC0415
    from sizing.engine.evaluate import evaluate  # noqa: PLC0415

    base, results = load_catalog(ROOT / "catalog"), []
    for label, copies in SCALES.items():
        cat = scaled(base, *copies)
        seconds, frame = best_of(repeats, lambda cat=cat: evaluate(cat))
        results.append(
            {"catalog": label, "rows": len(frame), "seconds": seconds, "rows_per_s": len(frame) / seconds}
        )
        print(f"evaluate {label}: {len(frame):,} rows in {seconds:.3f} s", flush=True)
    return results


def tree_rss(root: int) -> int:
    """Summed resident memory (bytes) of the descendants of process ``root`` (not ``root`` itself)."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            parents[int(stat.parent.name)] = int(fields[1])
        except (OSError, IndexError, ValueError):
            continue
    found, frontier = set(), {root}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return sum(_rss(pid) for pid in found)


def _rss(pid: int) -> int:
    """Resident memory of one process in bytes (0 if it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


RUSAGE_WRAPPER = (
    "import json, resource, subprocess, sys; code = subprocess.run(sys.argv[1:]).returncode;"
    "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss;"
    "print(json.dumps({'code': code, 'maxrss_kb': peak}))"
)


def build_memory(work: Path) -> dict[str, float]:
    """Peak memory of one full build: largest process (getrusage) and sampled whole-tree peak, MB."""
    command = [
        sys.executable,
        "-c",
        RUSAGE_WRAPPER,
        sys.executable,
        "-m",
        "scripts.docs",
        "build",
        "--site",
        str(work / "site-memory"),
    ]
    process = subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    peak = 0
    while process.poll() is None:
        peak = max(peak, tree_rss(process.pid))
        time.sleep(0.05)
    report = safeio.parse_json(process.stdout.read().strip().splitlines()[-1], "the memory build's report")
    if report["code"] != 0:
        raise RuntimeError("the memory build failed")
    return {"largest_process_mb": report["maxrss_kb"] / 1024, "tree_peak_mb": peak / MB}


def evaluation_memory() -> float:
    """Peak RSS (MB) of a fresh process that evaluates the 100× catalog."""
    label = list(SCALES)[-1]
    code = (
        "import resource, sys; from scripts.bench_sizing import SCALES, scaled;"
        "from sizing.catalog.loader import load_catalog; from sizing.engine.evaluate import evaluate;"
        f"evaluate(scaled(load_catalog('catalog'), *SCALES[{label!r}]));"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    return int(out.strip().splitlines()[-1]) / 1024


# ---------------------------------------------------------------------------------------------
# report
# ---------------------------------------------------------------------------------------------


def verdict(ok: bool) -> str:
    """``met`` or ``NOT met``."""
    return "met" if ok else "**NOT met**"


def build_section(b: dict[str, Any]) -> list[str]:
    """The build-time table and the computing share (the target is judged as the issue defines it)."""
    pages_cost = b["with"] - b["without"]
    share = pages_cost / b["without"]
    with_step = (pages_cost + b["downloads"]) / (b["without"] - b["downloads"])
    return [
        "## Build time, all three languages",
        "",
        "| Build | Best (s) | Runs (s) |",
        "|---|---:|---|",
        f"| With macros (the site as published) | {b['with']:.1f} | "
        f"{', '.join(f'{x:.1f}' for x in b['all_with'])} |",
        f"| Same pages, {b['replaced']} macro calls replaced by fixed text | {b['without']:.1f} | "
        f"{', '.join(f'{x:.1f}' for x in b['all_without'])} |",
        "",
        f"- Computing (the macros, against the same pages with their output as fixed text) adds "
        f"{pages_cost:.1f} s ({share:.1%}) to the build. Target under {TARGETS['overhead']:.0%}: "
        f"{verdict(share < TARGETS['overhead'])}.",
        f"- Both builds also run the build's once-only step (validate and evaluate the catalog, run the "
        "calibration, compute the chart series, write fits.csv/fits.json; its own process): "
        f"{b['downloads']:.2f} s measured alone, "
        f"Python start-up included. Counted as computing too, computing would add {with_step:.1%}.",
        "",
    ]


def evaluation_section(rows: list[dict[str, Any]], eval_mb: float) -> list[str]:
    """The throughput table and its target."""
    last = rows[-1]
    return [
        "## Evaluation throughput (`sizing.engine.evaluate.evaluate`)",
        "",
        "| Catalog | Rows | Best (s) | Rows/s |",
        "|---|---:|---:|---:|",
        *(f"| {r['catalog']} | {r['rows']:,} | {r['seconds']:.3f} | {r['rows_per_s']:,.0f} |" for r in rows),
        "",
        f"- 100× catalog: {last['seconds']:.2f} s. Target under {TARGETS['eval_100x']:.0f} s: "
        f"{verdict(last['seconds'] < TARGETS['eval_100x'])}.",
        f"- Peak memory of a process evaluating the 100× catalog: {eval_mb:,.0f} MB.",
        "",
    ]


def memory_section(m: dict[str, float]) -> list[str]:
    """The build memory figures and their target."""
    return [
        "## Peak memory of a full build",
        "",
        "- Largest single process (`getrusage(RUSAGE_CHILDREN).ru_maxrss`): "
        f"{m['largest_process_mb']:.0f} MB.",
        "- Whole build, summed over its process tree (sampled every 50 ms; language builds in "
        "parallel, one per core): "
        f"{m['tree_peak_mb']:.0f} MB.",
        f"- Target under {TARGETS['peak_mb']:.0f} MB (whole build): "
        f"{verdict(m['tree_peak_mb'] < TARGETS['peak_mb'])}; "
        f"per process: {verdict(m['largest_process_mb'] < TARGETS['peak_mb'])}.",
        "",
    ]


def report(b: dict[str, Any], rows: list[dict[str, Any]], m: dict[str, float], eval_mb: float) -> str:
    """The whole Markdown report."""
    info = machine()
    return "\n".join(
        [
            "# Benchmark: site build",
            "",
            "Generated by `python scripts/bench.py`; do not edit by hand.",
            "",
            *build_section(b),
            *evaluation_section(rows, eval_mb),
            *memory_section(m),
            "## Machine",
            "",
            *(f"- {k}: {v}" for k, v in info.items()),
            "",
        ]
    )


def write_engines(repeats: int, out: Path) -> None:
    """Measure both engines side by side and write their report to ``out``."""
    before = load_note()
    results = compare_engines(repeats, working_tree_files())
    load = f"at the start, {before}; at the end, {load_note()}"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(engines_report(results, machine(), load), encoding="utf-8")
    print(f"wrote {out}")


def main(argv: list[str] | None = None) -> int:
    """Run every measurement and write the report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "build.md")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--engines-out", type=Path, default=ROOT / "benchmarks" / "engines.md")
    parser.add_argument("--engines-only", action="store_true", help="only compare MkDocs and Zensical")
    args = parser.parse_args(argv)
    write_engines(args.repeats, args.engines_out)
    if args.engines_only:
        return 0
    with tempfile.TemporaryDirectory(prefix="sizing-bench-") as tmp:
        builds = compare_builds(args.repeats, Path(tmp))
        memory = build_memory(Path(tmp))
    rows, eval_mb = evaluation_throughput(args.repeats), evaluation_memory()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(report(builds, rows, memory, eval_mb), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
