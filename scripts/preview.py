#!/usr/bin/env python3
"""Live preview of one language for writers: ``make preview [LANG=en|zh|ru] [PORT=8000]``.

    python -m scripts.preview [--lang en] [--port 8000]

The catalog is evaluated once by the build's own prepare step (``python -m scripts.docs prepare``) into
``build/preview/`` and reused while the catalog's YAML is unchanged (its fingerprint is kept next to it).
Then MkDocs' own server (``mkdocs serve``, live reload) serves that language at
http://127.0.0.1:PORT/ from a config written into ``build/preview/``: it inherits ``mkdocs.<lang>.yml``
and adds :mod:`scripts.preview_hook`, which puts the explorer's data and the downloads at the root and
re-evaluates the catalog when a YAML file of it changes. A page edit is rebuilt and reloaded in the
browser; an edit to ``sizing/`` needs a restart (Python modules are loaded once).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from scripts.i18n_checks import CONFIGS
from sizing.site.context import SNAPSHOT_VAR, fingerprint

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "build" / "preview"
STAGED_VAR = "SIZING_PREVIEW_STAGED"
"""Where the prepare step staged the shared files (data/, downloads/) for :mod:`scripts.preview_hook`."""
HOST = "127.0.0.1"


def prepared(work: Path = WORK) -> Path:
    """``work`` with a context saved for the current catalog (prepared again only when the catalog
    changed)."""
    stamp, context = work / "catalog.sha256", work / "context.pickle"
    current = fingerprint(ROOT / "catalog")
    if context.is_file() and stamp.is_file() and stamp.read_text(encoding="utf-8") == current:
        return work
    if work.exists() and not (work / ".preview").is_file():
        raise SystemExit(f"{work} exists and was not made by the preview; move it away first")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    (work / ".preview").write_text(
        "made by python -m scripts.preview; deleted and remade by it\n", encoding="utf-8"
    )
    done = subprocess.run([sys.executable, "-m", "scripts.docs", "prepare", str(work)], cwd=ROOT, check=False)
    if done.returncode != 0:
        raise SystemExit(done.returncode)
    stamp.write_text(current, encoding="utf-8")
    return work


def preview_config(lang: str, port: int, work: Path = WORK) -> Path:
    """A config inheriting ``mkdocs.<lang>.yml`` that serves it at the root of ``port`` with the preview
    hook; paths the base resolves from its own folder are given absolute."""
    config = {
        "INHERIT": str(ROOT / CONFIGS[lang]),
        "docs_dir": str(ROOT / "docs" / lang),
        "site_dir": str(work / f"site-{lang}"),
        "site_url": f"http://{HOST}:{port}/",
        "theme": {"custom_dir": str(ROOT / "overrides")},
        "hooks": [str(ROOT / "scripts" / "preview_hook.py")],
        "watch": [str(ROOT / "catalog"), str(ROOT / "docs" / "messages")],
    }
    path = work / f"mkdocs.{lang}.yml"
    path.write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    """Prepare (if needed) and run ``mkdocs serve`` for one language until interrupted."""
    parser = argparse.ArgumentParser(prog="python -m scripts.preview", description=__doc__.splitlines()[0])
    parser.add_argument("--lang", choices=list(CONFIGS), default="en", help="language to serve (en)")
    parser.add_argument("--port", type=int, default=8000, help="port on 127.0.0.1 (8000)")
    args = parser.parse_args(argv)
    work = prepared()
    config = preview_config(args.lang, args.port, work)
    env = {
        **os.environ,
        "NO_MKDOCS_2_WARNING": "1",
        "DISABLE_MKDOCS_2_WARNING": "true",
        SNAPSHOT_VAR: str(work / "context.pickle"),
        STAGED_VAR: str(work / "staged"),
    }
    print(f"Previewing {args.lang} on http://{HOST}:{args.port}/ (live reload; Ctrl+C stops)", flush=True)
    command = [
        sys.executable,
        "-m",
        "mkdocs",
        "serve",
        "-f",
        str(config),
        "-a",
        f"{HOST}:{args.port}",
        "--dirty",
    ]
    try:
        return subprocess.run(command, cwd=ROOT, env=env, check=False).returncode
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main())
