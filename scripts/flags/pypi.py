"""Download one release file of a PyPI project and read its Python sources.

Shared by the flag extractors (:mod:`scripts.flags.vllm`,
:mod:`scripts.flags.sglang`). Nothing is installed or imported: the
archive is streamed into a temporary directory, its sha256 is checked against
the digest PyPI publishes, and the ``.py`` members of the package are returned
as text.
"""

from __future__ import annotations

import hashlib
import tarfile
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path

from sizing import safeio

PYPI_JSON = "https://pypi.org/pypi/{path}/json"
CHUNK = 1 << 20


@dataclass(frozen=True)
class ReleaseFile:
    """One file of a PyPI release: its name, absolute URL and sha256 digest."""

    filename: str
    url: str
    sha256: str
    packagetype: str


MAX_JSON_BYTES = 64 * 2**20
"""Largest PyPI JSON answer read (the project endpoint lists every release's files)."""


def _get_json(url: str) -> dict | None:
    """Return the JSON document at ``url``, or None when PyPI answers 404."""
    try:
        with urllib.request.urlopen(url, timeout=120) as response:
            body = response.read(MAX_JSON_BYTES + 1)
            if len(body) > MAX_JSON_BYTES:
                raise SystemExit(f"{url}: answer larger than {MAX_JSON_BYTES} bytes")
            return safeio.parse_json(safeio.decode(body, url), url, finite=False)
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            return None
        raise


def release_files(project: str, version: str) -> list[ReleaseFile]:
    """List the files of ``project==version`` from PyPI's JSON API.

    The per-version endpoint is tried first; some mirrors only serve the
    project endpoint, whose ``releases`` map is used as a fallback.
    """
    for path, key in ((f"{project}/{version}", "urls"), (project, "releases")):
        url = PYPI_JSON.format(path=path)
        data = _get_json(url)
        if data is None:
            continue
        records = data[key] if key == "urls" else data[key].get(version, [])
        return [_to_release_file(url, rec) for rec in records]
    raise SystemExit(f"{project} {version} is not on PyPI")


def _to_release_file(base_url: str, record: dict) -> ReleaseFile:
    """Build a ReleaseFile from one PyPI file record (URLs may be relative)."""
    return ReleaseFile(
        filename=record["filename"],
        url=urllib.parse.urljoin(base_url, record["url"]),
        sha256=record["digests"]["sha256"],
        packagetype=record["packagetype"],
    )


def pick_file(files: list[ReleaseFile]) -> ReleaseFile:
    """Choose the sdist if there is one, else a pure wheel, else an x86_64 wheel.

    Ties are broken by file name so the choice is deterministic.
    """

    def rank(f: ReleaseFile) -> tuple[int, str]:
        if f.packagetype == "sdist":
            return (0, f.filename)
        if f.filename.endswith("-none-any.whl"):
            return (1, f.filename)
        return (2 if f.filename.endswith("x86_64.whl") else 3, f.filename)

    if not files:
        raise SystemExit("the release has no files")
    return min(files, key=rank)


def download(release: ReleaseFile, dest_dir: Path) -> Path:
    """Stream ``release`` into ``dest_dir`` and verify its sha256 digest."""
    target = dest_dir / release.filename
    digest = hashlib.sha256()
    with urllib.request.urlopen(release.url, timeout=300) as response, target.open("wb") as out:
        while chunk := response.read(CHUNK):
            digest.update(chunk)
            out.write(chunk)
    if digest.hexdigest() != release.sha256:
        raise SystemExit(f"sha256 mismatch for {release.filename}")
    return target


def _package_path(member: str, package: str) -> str | None:
    """Map an archive member to ``package/...`` or None if it lies elsewhere.

    Wheels hold ``package/...`` at the root; sdists hold ``name-ver/package/...``
    or ``name-ver/python/package/...``.
    """
    parts = member.split("/")
    for skip in (0, 1, 2):
        if len(parts) > skip and parts[skip] == package and (skip < 2 or parts[1] == "python"):
            return "/".join(parts[skip:])
    return None


def read_sources(archive: Path, package: str) -> dict[str, str]:
    """Return ``{"package/x/y.py": text}`` for every Python file of ``package``."""
    sources: dict[str, str] = {}
    if archive.name.endswith(".whl"):
        with zipfile.ZipFile(archive) as zf:
            for name in zf.namelist():
                path = _package_path(name, package)
                if path and path.endswith(".py"):
                    sources[path] = zf.read(name).decode("utf-8")
        return sources
    with tarfile.open(archive, "r:*") as tf:
        for member in tf:
            path = _package_path(member.name, package)
            if member.isfile() and path and path.endswith(".py"):
                sources[path] = tf.extractfile(member).read().decode("utf-8")
    return sources
