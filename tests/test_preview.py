"""scripts/preview.py and scripts/preview_hook.py: the live preview's config, cache and shared files."""

from __future__ import annotations

from pathlib import Path

import yaml
from mkdocs.structure.files import Files

from scripts import preview, preview_hook


def test_preview_config_inherits_the_language_and_adds_the_hook(tmp_path: Path) -> None:
    """Assert the written config serves one language at the root, with absolute paths and the hook."""
    path = preview.preview_config("zh", 8123, tmp_path)
    config = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert config["INHERIT"] == str(preview.ROOT / "mkdocs.zh.yml")
    assert (
        config["docs_dir"] == str(preview.ROOT / "docs" / "zh")
        and config["site_url"] == "http://127.0.0.1:8123/"
    )
    assert config["hooks"] == [str(preview.ROOT / "scripts" / "preview_hook.py")]
    assert config["theme"]["custom_dir"] == str(preview.ROOT / "overrides")


def test_prepared_context_is_reused_while_the_catalog_is_unchanged(tmp_path: Path, monkeypatch) -> None:
    """Assert a preview folder with a context stamped with today's catalog is not prepared again, and a
    folder the preview did not make is never deleted."""
    work = tmp_path / "preview"
    work.mkdir()
    (work / "context.pickle").write_bytes(b"saved")
    (work / "catalog.sha256").write_text(preview.fingerprint(preview.ROOT / "catalog"), encoding="utf-8")
    monkeypatch.setattr(
        preview.subprocess, "run", lambda *a, **k: (_ for _ in ()).throw(AssertionError("ran"))
    )
    assert preview.prepared(work) == work and (work / "context.pickle").read_bytes() == b"saved"
    (work / "catalog.sha256").write_text("stale", encoding="utf-8")
    try:
        preview.prepared(work)
    except SystemExit as exc:
        assert "was not made by the preview" in str(exc)
    assert (work / "context.pickle").is_file()


def test_hook_serves_the_staged_files_at_the_root(tmp_path: Path, monkeypatch) -> None:
    """Assert the hook adds data/ and downloads/ from the staged folder at the same paths."""
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "explorer.json").write_text("{}", encoding="utf-8")
    (tmp_path / "downloads").mkdir()
    (tmp_path / "downloads" / "fits.csv").write_text("a\n", encoding="utf-8")
    monkeypatch.setenv(preview_hook.STAGED_VAR, str(tmp_path))
    files = preview_hook.on_files(Files([]), {"site_dir": str(tmp_path / "site")})
    assert sorted(f.dest_uri for f in files) == ["data/explorer.json", "downloads/fits.csv"]
