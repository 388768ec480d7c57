#!/usr/bin/env python3
"""Benchmark the built site's pages: bytes, DOM size and load times in headless Chromium.

    python -m scripts.bench_pages [--site DIR] [--out benchmarks/pages.md] [--repeats 3]

Builds the site into a temporary folder unless ``--site`` names a built one, serves it on
127.0.0.1, and opens every page of every language ``--repeats`` times, each in a fresh browser
context (cold cache). Per page: HTML bytes, bytes of everything the page fetched, DOM nodes, and the
median first contentful paint, DOMContentLoaded and load (Performance API navigation timing). Also
the whole site's size and its largest files. Writes ``benchmarks/pages.md`` and ``pages.json``.

Targets (issue 11): ``fit-tables/`` under 400 KB of HTML per language and under 1 s to
DOMContentLoaded locally; the whole site under 15 MB. The report says whether each is met.
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import subprocess
import sys
import tempfile
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from scripts.bench_sizing import machine

ROOT = Path(__file__).resolve().parent.parent

PREFIXES = {"en": "", "zh": "zh/", "ru": "ru/"}
PAGES = (
    "",
    "explorer/",
    "choosing-a-gpu-server/",
    "deployment-hardware/",
    "fit-tables/",
    "methodology/",
    "catalog/",
)
TARGETS = {"fit_tables_html": 400_000, "fit_tables_dcl_ms": 1000.0, "site_bytes": 15_000_000}
CHROMIUM = "/usr/bin/chromium"
TIMING = """() => { const n = performance.getEntriesByType('navigation')[0];
  const p = performance.getEntriesByName('first-contentful-paint')[0];
  const r = performance.getEntriesByType('resource').reduce(
      (s, e) => s + (e.transferSize || e.encodedBodySize || 0), 0);
  return {dcl: n.domContentLoadedEventEnd, load: n.loadEventEnd, fcp: p ? p.startTime : null,
          nodes: document.getElementsByTagName('*').length, resources: r}; }"""


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        """Log nothing."""


def serve(site: Path) -> tuple[ThreadingHTTPServer, str]:
    """Serve ``site`` on a free port from a daemon thread; (server, base URL)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def measure(browser: Any, url: str, repeats: int) -> dict[str, float]:
    """Median timings of ``url`` over ``repeats`` cold loads, plus its DOM nodes and fetched bytes."""
    runs = []
    for _ in range(repeats):
        context = browser.new_context(viewport={"width": 1366, "height": 768})
        page = context.new_page()
        page.goto(url, wait_until="networkidle")
        runs.append(page.evaluate(TIMING))
        context.close()
    median = {k: statistics.median(r[k] for r in runs if r[k] is not None) for k in ("dcl", "load", "fcp")}
    return {**median, "nodes": runs[0]["nodes"], "resources": runs[0]["resources"]}


def page_rows(site: Path, repeats: int) -> list[dict[str, Any]]:
    """One measured row per page and language."""
    from playwright.sync_api import sync_playwright  # noqa: PLC0415 - only when benchmarking

    server, base = serve(site)
    rows = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
            for lang, prefix in PREFIXES.items():
                for path in PAGES:
                    html = (site / prefix / path / "index.html").stat().st_size
                    rows.append(
                        {
                            "page": f"/{prefix}{path}",
                            "lang": lang,
                            "path": path,
                            "html": html,
                            **measure(browser, base + prefix + path, repeats),
                        }
                    )
            browser.close()
    finally:
        server.shutdown()
    return rows


def site_sizes(site: Path) -> dict[str, Any]:
    """Total bytes of the site and its ten largest files."""
    files = [(p.stat().st_size, p.relative_to(site).as_posix()) for p in site.rglob("*") if p.is_file()]
    return {
        "total": sum(s for s, _ in files),
        "files": len(files),
        "largest": sorted(files, reverse=True)[:10],
    }


def verdicts(rows: list[dict[str, Any]], sizes: dict[str, Any]) -> dict[str, bool]:
    """Whether each target is met."""
    fit = [r for r in rows if r["path"] == "fit-tables/"]
    return {
        "fit_tables_html": all(r["html"] < TARGETS["fit_tables_html"] for r in fit),
        "fit_tables_dcl_ms": all(r["dcl"] < TARGETS["fit_tables_dcl_ms"] for r in fit),
        "site_bytes": sizes["total"] < TARGETS["site_bytes"],
    }


def report(rows: list[dict[str, Any]], sizes: dict[str, Any], met: dict[str, bool], repeats: int) -> str:
    """The Markdown report."""
    ok = {True: "met", False: "NOT met"}
    lines = [
        "# Page weights and load times",
        "",
        "Written by `python -m scripts.bench_pages`; localhost, no network "
        f"latency, median of {repeats} cold loads in headless Chromium at 1366×768.",
        "",
        "| Machine | |",
        "|---|---|",
        *(f"| {k} | {v} |" for k, v in machine().items()),
        "",
        "## Targets",
        "",
        f"- `fit-tables/` HTML under {TARGETS['fit_tables_html']:,} bytes in every language: "
        f"{ok[met['fit_tables_html']]}",
        f"- `fit-tables/` DOMContentLoaded under {TARGETS['fit_tables_dcl_ms']:.0f} ms: "
        f"{ok[met['fit_tables_dcl_ms']]}",
        f"- whole site under {TARGETS['site_bytes']:,} bytes: {ok[met['site_bytes']]} "
        f"({sizes['total']:,} bytes in {sizes['files']} files)",
        "",
        "## Pages",
        "",
        "| Page | HTML bytes | Fetched bytes | DOM nodes | FCP ms | DOMContentLoaded ms | load ms |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    lines += [
        f"| {r['page']} | {r['html']:,} | {r['resources']:,} | {r['nodes']:,} | {r['fcp']:.0f} | "
        f"{r['dcl']:.0f} | {r['load']:.0f} |"
        for r in rows
    ]
    lines += ["", "## Largest files", "", "| File | Bytes |", "|---|---:|"]
    lines += [f"| {name} | {size:,} |" for size, name in sizes["largest"]]
    return "\n".join(lines) + "\n"


def built(site: Path | None, work: Path) -> Path:
    """``site`` if given, else a fresh build into ``work``."""
    if site:
        return site
    target = work / "site"
    subprocess.run(
        [sys.executable, "-m", "scripts.docs", "build", "--site", str(target)], cwd=ROOT, check=True
    )
    return target


def main(argv: list[str] | None = None) -> int:
    """Measure, write the report and its JSON, print the verdicts; 1 if a target is missed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, help="a built site (default: build one into a temporary folder)")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "pages.md")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as work:
        site = built(args.site, Path(work))
        rows, sizes = page_rows(site, args.repeats), site_sizes(site)
    met = verdicts(rows, sizes)
    args.out.write_text(report(rows, sizes, met, args.repeats), encoding="utf-8")
    data = {"machine": machine(), "targets": TARGETS, "met": met, "site": sizes, "pages": rows}
    args.out.with_suffix(".json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(met))
    return 0 if all(met.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
