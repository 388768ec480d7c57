"""Tests for sizing.review.export: ``export`` writes and checks the snapshots in ``generated/``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from sizing.review import export
from sizing.views.bundle import SiteContext
from tests.review.gitrepo import ROOT, run

GPU = "l40s"


def test_export_check_fails_when_stale_and_passes_after_export(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Assert --check exits 1 with a diff and the fix after a catalog change, and 0 once exported (the small
    test catalog; ``test_committed_snapshots_are_up_to_date`` checks the repository's)."""
    shutil.copytree(ROOT / "tests" / "data" / "site_catalog", tmp_path / "catalog")
    catalog, generated = str(tmp_path / "catalog"), str(tmp_path / "generated")
    assert run(capsys, "--catalog", catalog, "export", "--out", generated)[0] == 0
    assert run(capsys, "--catalog", catalog, "export", "--check", "--out", generated)[0] == 0
    path = tmp_path / "catalog" / "gpus.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data[GPU]["bandwidth_gbs"] += 1
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    status, out, _ = run(capsys, "--catalog", catalog, "export", "--check", "--out", generated)
    assert status == 1
    assert "--- a/generated/catalog-gpus.md" in out and "run `python -m sizing export`" in out.lower()
    assert run(capsys, "--catalog", catalog, "export", "--out", generated)[0] == 0
    assert run(capsys, "--catalog", catalog, "export", "--check", "--out", generated)[0] == 0


def test_export_removes_snapshots_of_tables_that_no_longer_exist(tmp_path: Path) -> None:
    """Assert a snapshot without a table (a removed server) is reported stale and deleted; files that are not
    snapshots (no banner, not text) are left alone."""
    out = tmp_path / "generated"
    out.mkdir()
    (out / "fit-gone.md").write_text(f"{export.BANNER}\n\n# fit-gone\n", encoding="utf-8")
    (out / "notes.md").write_text("mine\n", encoding="utf-8")
    (out / ".DS_Store").write_bytes(b"\x00\xff")
    files = {"a.md": "a\n"}
    assert set(export.stale_files(out, files)) == {"a.md", "fit-gone.md"}
    assert sorted(export.write_snapshots(out, files)) == ["a.md", "fit-gone.md"]
    assert sorted(p.name for p in out.iterdir()) == [".DS_Store", "a.md", "notes.md"]


def test_snapshots_are_english_markdown_with_a_banner(repo_ctx: SiteContext) -> None:
    """Assert each table snapshot starts with the banner, has one line per row and no padding (the committed
    files, which ``test_committed_snapshots_are_up_to_date`` proves equal to what export writes)."""
    ctx = repo_ctx
    files = {p.name: p.read_text(encoding="utf-8") for p in (ROOT / "generated").iterdir() if p.is_file()}
    text = files["price-per-gb.md"]
    assert text.startswith(export.BANNER + "\n\n# price-per-gb\n\n| Server |")
    offers = [s for s in ctx.catalog.servers.values() if s.price]
    assert len([line for line in text.splitlines() if line.startswith("| ")]) == len(offers) + 1
    assert set(files) >= {"README.md", "fits.csv", "what-fits.md"} | {
        f"fit-{s}.md" for s in ctx.catalog.servers
    }


def test_committed_snapshots_are_up_to_date(capsys: pytest.CaptureFixture[str]) -> None:
    """Assert generated/ matches the catalog (otherwise run `python -m sizing export` and commit)."""
    status, out, _ = run(capsys, "export", "--check")
    assert status == 0, out[-3000:]


# --- the matrix and the downloads ------------------------------------------------------------
