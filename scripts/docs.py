#!/usr/bin/env python3
"""Build, serve and check the trilingual site. Every command is idempotent.

    python -m scripts.docs build [--site DIR]     # all languages, strict; replaces DIR (site/) whole
                 [--engine mkdocs|zensical]       # the site generator (default: MkDocs + Material)
    python -m scripts.docs serve [--site DIR] [--port 8000]
    python -m scripts.docs check-i18n             # message keys, page structure and nav parity

``build`` runs ``python -m mkdocs build --strict`` (or, with ``--engine zensical``, Zensical's strict
build; see scripts/engines.py) for each language into a temporary folder next to the site folder.
Only when every language built cleanly are they assembled (English at the root, Chinese under
``zh/``, Russian under ``ru/``) and swapped in for the old site folder by renames; a failed build
prints the engine's output, exits non-zero and leaves the old site folder as it was.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

from scripts.engines import ENGINES, INSTALL_HINT, Engine
from scripts.i18n_checks import CONFIGS, all_problems
from sizing import safeio
from sizing.cli_types import port as port_number
from sizing.errors import CatalogError
from sizing.safeio import may_write_into
from sizing.site.context import SNAPSHOT_VAR

ROOT = Path(__file__).resolve().parent.parent

CONTEXT_FILE = "context.pickle"
"""The catalog evaluated once by the build, loaded by every language's mkdocs process."""
STAGED = "staged"
"""Folder of the build's work area where the shared files are written once, then put at the site root."""

CHILD_ENV = {"NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}
"""Added to the environment of every mkdocs run: silence the MkDocs 2 / Material banner."""

HOST = "127.0.0.1"

# ---------------------------------------------------------------------------------------------
# build
# ---------------------------------------------------------------------------------------------


class Interrupted(Exception):
    """SIGINT (Ctrl+C) or SIGTERM arrived during a build; the argument is the signal's name."""


CHILDREN: list[subprocess.Popen[bytes]] = []
"""The build's running child processes, each the leader of its own process group."""
SIGNALS = (signal.SIGINT, signal.SIGTERM)


SPAWNING: dict[str, str | bool] = {"now": False, "pending": ""}
"""While a child is being started, a signal is held (``pending``) until it is in :data:`CHILDREN`."""


def _on_signal(signum: int, _frame: object) -> None:
    if SPAWNING["now"]:
        SPAWNING["pending"] = signal.Signals(signum).name
        return
    raise Interrupted(signal.Signals(signum).name)


def _spawn(command: list[str], **options: Any) -> subprocess.Popen[bytes]:
    """Start ``command`` in the repository as the leader of a new process group (so the whole group can be
    ended, and a Ctrl+C in the terminal reaches only this script, which ends them). A signal that arrives
    while it starts is raised once the child is recorded, so no child escapes :func:`stop_children`."""
    SPAWNING["now"] = True
    try:
        child = subprocess.Popen(command, cwd=ROOT, start_new_session=True, **options)
        CHILDREN.append(child)
    finally:
        SPAWNING["now"] = False
    if SPAWNING["pending"]:
        name, SPAWNING["pending"] = str(SPAWNING["pending"]), ""
        raise Interrupted(name)
    return child


def stop_children(grace: float = 5.0) -> None:
    """End every process group the build started: SIGTERM, then SIGKILL after ``grace`` seconds."""
    for child in CHILDREN:
        if child.poll() is None:
            _kill_group(child.pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    for child in CHILDREN:
        try:
            child.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            _kill_group(child.pid, signal.SIGKILL)
            child.wait()
    CHILDREN.clear()


def _kill_group(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


def _start_build(lang: str, work: Path, engine: Engine) -> subprocess.Popen[bytes]:
    """Start the engine's strict build of one language (pages in ``engine.output``), logging to a file."""
    command = engine.command(CONFIGS[lang], work, lang)
    log = (work / f"{lang}.log").open("wb")
    env = {**os.environ, **CHILD_ENV, SNAPSHOT_VAR: str(work / CONTEXT_FILE)}
    with log:
        return _spawn(command, env=env, stdout=log, stderr=subprocess.STDOUT)


def _run_builds(work: Path, engine: Engine) -> dict[str, int]:
    """Build the languages, as many at once as there are CPU cores; their exit codes by language."""
    waiting, running, codes = list(CONFIGS), {}, {}
    while waiting or running:
        while waiting and len(running) < max(1, os.cpu_count() or 1):
            lang = waiting.pop(0)
            running[lang] = _start_build(lang, work, engine)
        lang = next(iter(running))
        codes[lang] = running.pop(lang).wait()
    return codes


def _collect(work: Path, engine: Engine) -> None:
    """Move each language's pages from where the engine wrote them to ``work/<lang>``."""
    for lang in CONFIGS:
        if engine.output(work, lang) != work / lang:
            engine.output(work, lang).rename(work / lang)


def _build_languages(work: Path, engine: Engine) -> list[str]:
    """Build every language into ``work/<lang>``; return the languages that failed, after showing why."""
    started = time.monotonic()
    failed = [lang for lang, code in _run_builds(work, engine).items() if code != 0]
    for lang in failed:
        log = (work / f"{lang}.log").read_text(encoding="utf-8", errors="replace")
        print(f"--- {engine.name} output for {lang} ({CONFIGS[lang]}) ---\n{log}", file=sys.stderr)
    if not failed:
        _collect(work, engine)
        print(f"Built {', '.join(CONFIGS)} with {engine.name} in {time.monotonic() - started:.1f} s")
    return failed


def _prepare(work: Path) -> bool:
    """Validate and evaluate the catalog once, in a process of its own that exits before the language
    builds start (so its memory is gone): it saves the context and stages the downloads. False (after
    the catalog's one-line message) when the catalog is broken."""
    return _spawn([sys.executable, "-m", "scripts.docs", "prepare", str(work)]).wait() == 0


def prepare(work: Path) -> int:
    """The ``prepare`` step: context saved to ``work``; downloads and explorer data to ``work/staged``."""
    from sizing.render.explorer_render import explorer_files  # noqa: PLC0415
    from sizing.review.downloads import write_downloads  # noqa: PLC0415
    from sizing.site.context import active_context, prepare, save_context  # noqa: PLC0415 - heavy; only this process

    try:
        ctx = prepare(active_context())
    except CatalogError as exc:
        print(exc, file=sys.stderr)
        return 2
    save_context(ctx, work / CONTEXT_FILE)
    write_downloads([work / STAGED], ctx)
    (work / STAGED / "data").mkdir(parents=True)
    for name, text in explorer_files(ctx).items():
        (work / STAGED / "data" / name).write_text(text, encoding="utf-8")
    return 0


def _place_shared(work: Path) -> None:
    """Put the staged shared files (downloads/, data/) once at the site root, i.e. in the English
    build that becomes it; every language links there (:func:`sizing.render.macros.root_prefix`)."""
    for folder in (work / STAGED).iterdir():
        shutil.copytree(folder, work / "en" / folder.name)


def _drop_source_maps(work: Path) -> None:
    """Delete the theme's ``*.map`` files (source maps for debugging its bundle, 1.3 MB a language)."""
    for lang in CONFIGS:
        for path in (work / lang).rglob("*.map"):
            path.unlink()


LUNR = Path("assets/javascripts/lunr")
"""Material's lunr language files (segmenters and stemmers for some thirty languages, 0.9 MB a language)."""


def lunr_files(langs: list[str]) -> set[str]:
    """The files under :data:`LUNR` Material's search worker loads for an index in ``langs`` (its
    rule: ``tinyseg.js`` for ja, ``wordcut.js`` for hi and th, ``min/lunr.<lang>.min.js`` for every
    language but en, ``lunr.multi`` for several, and the stemmer support whenever any is loaded)."""
    wanted = {f"min/lunr.{lang}.min.js" for lang in langs if lang != "en"}
    wanted |= {"tinyseg.js" for lang in langs if lang == "ja"} | {
        "wordcut.js" for lang in langs if lang in ("hi", "th")
    }
    wanted |= {"min/lunr.multi.min.js"} if len(langs) > 1 else set()
    return wanted | ({"min/lunr.stemmer.support.min.js"} if wanted else set())


def _drop_unused_lunr(work: Path) -> None:
    """Delete the lunr files no page of a language loads (its Material index names its languages);
    a build without Material's index (Zensical) is left as it is."""
    for lang in CONFIGS:
        index, folder = work / lang / "search" / "search_index.json", work / lang / LUNR
        if not index.is_file() or not folder.is_dir():
            continue
        keep = lunr_files(list(safeio.read_json(index, finite=False)["config"]["lang"]))
        for path in folder.rglob("*.js"):
            if path.relative_to(folder).as_posix() not in keep:
                path.unlink()


def _compact_search_indexes(work: Path) -> None:
    """Rewrite each language's Material search index as UTF-8 text (MkDocs writes every non-ASCII
    character as a ``\\uXXXX`` escape: the Russian index is 2.5 times, the Chinese 1.8 times its UTF-8
    size); the same JSON value, parsed the same by the search worker. Zensical's index is UTF-8 already."""
    for lang in CONFIGS:
        index = work / lang / "search" / "search_index.json"
        if index.is_file():
            data = safeio.read_json(index, finite=False)
            index.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")


def _assemble(work: Path) -> Path:
    """Put English at the root of ``work/site`` and every other language in its subfolder."""
    site = work / "site"
    (work / "en").rename(site)
    for lang in CONFIGS:
        if lang == "en":
            continue
        if (site / lang).exists():
            raise RuntimeError(f"the English site already has a '{lang}' folder")
        (work / lang).rename(site / lang)
    return site


def _swap(new: Path, site: Path, trash: Path) -> None:
    """Replace ``site`` by ``new`` with two renames, restoring ``site`` if the second fails."""
    if site.exists():
        site.rename(trash)
    try:
        new.rename(site)
    except OSError:
        if trash.exists():
            trash.rename(site)
        raise


SITE_MARKER = ".gpu-sizing-site"
"""Written at the root of every site ``build`` assembles: the mark of a folder it may replace."""
MARKER_TEXT = "Built by `python -m scripts.docs build`; the next build replaces this folder whole.\n"


def owns_site(folder: Path) -> bool:
    """Whether ``build`` may replace ``folder``: new, empty, or a site it built (:data:`SITE_MARKER`). The
    repository's own ``site/`` (ignored by git, removed by ``make clean``) is always its output, marked or
    not (a site built before the marker existed)."""
    if folder == ROOT / "site" and not folder.is_symlink():
        return True
    return may_write_into(folder, lambda d: (d / SITE_MARKER).is_file())


@contextlib.contextmanager
def _signals_deferred(folder: Path) -> Iterator[None]:
    """Hold SIGINT/SIGTERM and an exclusive lock on ``folder`` (two builds swap one after the other) while
    the body runs; a signal that arrives meanwhile is dropped, as the build is then complete."""
    signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
        for sig in SIGNALS:
            signal.signal(sig, signal.SIG_IGN)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, SIGNALS)


def _assemble_into(work: Path, site: Path) -> None:
    """Put the built languages together and swap them in for ``site`` (under the lock, signals held)."""
    _place_shared(work)
    _drop_source_maps(work)
    _drop_unused_lunr(work)
    _compact_search_indexes(work)
    new = _assemble(work)
    (new / SITE_MARKER).write_text(MARKER_TEXT, encoding="utf-8")
    with _signals_deferred(site.parent):
        if not owns_site(site):
            raise OSError(f"{site} changed during the build and is no longer a site folder")
        _swap(new, site, work / "previous")


def build(site: Path, engine: str = "mkdocs") -> int:
    """Build all languages with ``engine`` and, only if all succeed, replace ``site`` with the result.

    ``site`` must be new, empty, or a site this command built (:func:`owns_site`); anything else is refused
    with one line, exit 2, before anything is touched. SIGINT/SIGTERM end every child process, remove the
    work folder and keep the old site (exit 130/143).
    """
    site = site.absolute()  # a symbolic link is refused as it is, not followed
    if not owns_site(site):
        print(
            f"--site {site}: holds files the build did not write (no {SITE_MARKER}); give a new or empty "
            "folder, or a site folder built before. Nothing was changed.",
            file=sys.stderr,
        )
        return 2
    if not ENGINES[engine].installed():
        print(f"{engine} is not installed: {INSTALL_HINT}", file=sys.stderr)
        return 1
    site.parent.mkdir(parents=True, exist_ok=True)
    previous = {sig: signal.signal(sig, _on_signal) for sig in SIGNALS}
    work = Path(tempfile.mkdtemp(prefix=f".{site.name}-build-", dir=site.parent))
    try:
        return _build_into(work, site, engine)
    except Interrupted as why:
        for sig in SIGNALS:
            signal.signal(sig, signal.SIG_IGN)
        stop_children()
        print(
            f"Build interrupted ({why}): child processes ended, work folder removed, {site} left unchanged.",
            file=sys.stderr,
        )
        return 130 if str(why) == "SIGINT" else 143
    finally:
        stop_children()
        shutil.rmtree(work, ignore_errors=True)
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _build_into(work: Path, site: Path, engine: str) -> int:
    failed = _build_languages(work, ENGINES[engine]) if _prepare(work) else ["catalog"]
    if failed:
        print(f"Build failed for {', '.join(failed)}; {site} left unchanged.", file=sys.stderr)
        return 1
    _assemble_into(work, site)
    print(f"Site ready in {site}")
    return 0


# ---------------------------------------------------------------------------------------------
# serve
# ---------------------------------------------------------------------------------------------


class _SiteHandler(SimpleHTTPRequestHandler):
    """Static files from the site folder, answering unknown paths with the site's 404 page."""

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """Send the built ``404.html`` for a missing page, else the standard error."""
        page = Path(self.directory) / "404.html"
        if code != 404 or not page.is_file():
            super().send_error(code, message, explain)
            return
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


def serve(site: Path, port: int) -> int:
    """Serve the assembled ``site`` on http://127.0.0.1:PORT/ until interrupted."""
    if not (site / "index.html").is_file():
        print(f"No built site in {site}; run `python -m scripts.docs build` first.", file=sys.stderr)
        return 1
    handler = functools.partial(_SiteHandler, directory=str(site))
    try:
        server = ThreadingHTTPServer((HOST, port), handler)
    except OSError as err:
        print(
            f"Cannot listen on {HOST}:{port}: {err.strerror}; choose another port with --port N "
            f"(make serve PORT=N)",
            file=sys.stderr,
        )
        return 1
    print(f"Serving {site} on http://{HOST}:{port}/ (English), /zh/, /ru/; Ctrl+C stops.")
    with server:
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            print()
    return 0


# ---------------------------------------------------------------------------------------------
# check-i18n
# ---------------------------------------------------------------------------------------------


def check_i18n() -> int:
    """Print every translation drift problem; exit 1 if there is any."""
    problems = all_problems(ROOT)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"check-i18n: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print(f"check-i18n: messages, pages and nav agree in {', '.join(CONFIGS)}")
    return 0


# ---------------------------------------------------------------------------------------------
# command line
# ---------------------------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    """The command-line interface."""
    parser = argparse.ArgumentParser(prog="python -m scripts.docs", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    for name, text in (
        ("build", "build all languages and replace the site folder"),
        ("serve", "serve the built site folder"),
    ):
        command = commands.add_parser(name, help=text)
        command.add_argument("--site", type=Path, default=ROOT / "site", help="site folder (site/)")
    commands.choices["build"].add_argument(
        "--engine",
        choices=ENGINES,
        default=next(iter(ENGINES)),
        help="site generator (mkdocs: MkDocs + Material)",
    )
    commands.choices["serve"].add_argument("--port", type=port_number, default=8000, help="port (8000)")
    commands.add_parser("check-i18n", help="check message files, page structure and nav parity")
    commands.add_parser("prepare", help="(internal) evaluate the catalog once for a build").add_argument(
        "work", type=Path
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command and return its exit status."""
    args = _parser().parse_args(argv)
    if args.command == "build":
        return build(args.site, args.engine)
    if args.command == "serve":
        return serve(args.site, args.port)
    if args.command == "prepare":
        return prepare(args.work)
    return check_i18n()


if __name__ == "__main__":
    sys.exit(main())
