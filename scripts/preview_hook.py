"""MkDocs hooks of the live preview (``scripts/preview.py``, ``make preview``); not used by the build.

- ``on_files``: the files the build's prepare step staged once for the site root (the explorer's
  ``data/`` and the ``downloads/``) are served from the preview's root, where the pages link to them.
- ``on_pre_build``: when a YAML file of the catalog changed since the last build, the cached context is
  dropped, so the next page macro evaluates the catalog again (a page edit reuses it).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

from sizing.site import context

STAGED_VAR = "SIZING_PREVIEW_STAGED"
_seen: dict[str, str] = {}


def on_files(files: Files, config: Any) -> Files:
    """Add every staged shared file at its path from the site root."""
    staged = Path(os.environ.get(STAGED_VAR, ""))
    if not staged.is_dir():
        return files
    for path in sorted(p for p in staged.rglob("*") if p.is_file()):
        files.append(File(path.relative_to(staged).as_posix(), str(staged), config["site_dir"], False))
    return files


def on_pre_build(config: Any) -> None:
    """Forget the evaluated catalog when its YAML changed (compared by
    :func:`sizing.site.context.fingerprint`)."""
    folder = context.active_dir().resolve()
    stamp = context.fingerprint(folder)
    if _seen.get(str(folder), stamp) != stamp:
        context.refresh()
    _seen[str(folder)] = stamp
