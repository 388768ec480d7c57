"""Catalog texts in the page language: one translation per English text, kept in one file.

The catalog states things once, in English (an interconnect, a location, an assumption's reason).
``docs/messages/catalog.yaml`` maps each such English text to its Chinese and Russian wording
(optionally an English display form), so the catalog stays the one source of the fact and the
translation file the one source of the words. :func:`shown_texts` lists every catalog text a
page shows, and the language tests fail on one that has no translation.

Server names are composed, not translated: ``2 nodes × 8× H100 80GB`` becomes
``2 节点 × 8× H100 80GB`` / ``2 узла × 8× H100 80GB`` through the plural message ``plural_nodes``.
Sources are shown as the references a reader can follow (links, repositories, files), with the
kind of document named in the page language.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

from sizing import safeio
from sizing.errors import CatalogError
from sizing.render.i18n import MESSAGES_DIR, MessageError, fmt_number, t
from sizing.render.plural import plural

__all__ = ["CATALOG_TEXTS", "server_name", "source_links", "source_refs", "translate", "translations"]

CATALOG_TEXTS = MESSAGES_DIR / "catalog.yaml"
_NODES = re.compile(r"^(\d+) nodes × (.+)$")
_URL = re.compile(r"https?://[^\s;,()]+")
_REPO = re.compile(r"\b([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)@([0-9a-f]{7,40}):([^\s;()]+)")


@functools.lru_cache(maxsize=1)
def _load(path: Path, stamp: int) -> dict[str, dict[str, str]]:
    try:
        data = safeio.read_yaml(path, path.name) or {}
    except CatalogError as err:
        raise MessageError(str(err)) from None
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise MessageError(f"{path.name}: must map each English text to {{zh: …, ru: …}}")
    return {str(k): {str(lang): str(text) for lang, text in v.items()} for k, v in data.items()}


def translations(path: Path = CATALOG_TEXTS) -> dict[str, dict[str, str]]:
    """English catalog text -> {lang: text} (re-read when the file changes)."""
    return _load(path, path.stat().st_mtime_ns)


def translate(lang: str, text: str) -> str:
    """``text`` (English, from the catalog) in ``lang``; unchanged when no translation is recorded."""
    entry = translations().get(text, {})
    return entry.get(lang, text)


def server_name(lang: str, name: str) -> str:
    """A catalog server name in ``lang``: the ``N nodes ×`` prefix through ``plural_nodes``."""
    match = _NODES.match(name)
    if not match:
        return name
    nodes = int(match.group(1))
    return f"{plural(lang, 'plural_nodes', nodes, fmt_number(nodes, lang))} × {match.group(2)}"


def _ref(part: str, lang: str) -> str:
    """One readable reference of a source part: URL, repository and file, or the kind of document."""
    if url := _URL.search(part):
        return url.group(0).rstrip(".")
    if repo := _REPO.search(part):
        return f"github.com/{repo.group(1)}/blob/{repo.group(2)[:12]}/{repo.group(3)}"
    lowered = part.lower()
    if "nvidia-smi" in lowered:
        return t(lang, "source_smi_logs")
    if "datasheet" in lowered or "spec page" in lowered:
        return t(lang, "source_datasheet")
    return ""


def source_refs(lang: str, source: Any) -> str:
    """The references of a catalog ``source`` field, ``; ``-separated, in words of ``lang``."""
    refs = [_ref(part, lang) for part in re.split(r";\s*", str(source or ""))]
    return "; ".join(dict.fromkeys(r for r in refs if r))


def _link(ref: str) -> tuple[str, str | None]:
    """(short label, URL or None) of one reference from :func:`_ref`: a repository is named
    ``owner/name``, another web page by its host; a document kind stays text."""
    if ref.startswith("github.com/"):
        owner_repo = "/".join(ref.split("/")[1:3])
        return owner_repo, "https://" + ref
    if url := _URL.match(ref):
        host = url.group(0).split("/")[2]
        parts = url.group(0).split("/")
        label = "/".join(parts[3:5]) if host == "github.com" and len(parts) > 4 else host
        return label, url.group(0)
    return ref, None


def source_links(lang: str, source: Any) -> list[tuple[str, str | None]]:
    """The references of a catalog ``source`` field as (short label, URL or None), for links on the
    site (:func:`source_refs` gives the same references as text)."""
    refs = [_ref(part, lang) for part in re.split(r";\s*", str(source or ""))]
    return [_link(r) for r in dict.fromkeys(r for r in refs if r)]
