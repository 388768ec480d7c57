"""Tests for sizing.review.downloads: the matrix as ``fits.csv`` and ``fits.json``."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import pandas as pd

from sizing.review import downloads
from sizing.views.bundle import SiteContext
from tests.review.gitrepo import ROOT, git


def test_matrix_ids_are_unique_and_sorted(repo_ctx: SiteContext) -> None:
    """Assert every matrix row has its own id (online-quantised variants included), sorted."""
    frame = downloads.matrix_frame(repo_ctx)
    assert frame["id"].is_unique and list(frame["id"]) == sorted(frame["id"])
    online = frame[frame["id"].str.contains("|fp8|", regex=False)]
    assert len(online)


def test_write_downloads(tmp_path: Path, repo_ctx: SiteContext) -> None:
    """Assert fits.csv and fits.json are written, the JSON naming the revision and the vLLM version."""
    ctx = repo_ctx
    paths = downloads.write_downloads(tmp_path / "zh", ctx)
    assert [p.relative_to(tmp_path).as_posix() for p in paths] == [
        "zh/downloads/fits.csv",
        "zh/downloads/fits.json",
    ]
    data = json.loads(paths[1].read_text(encoding="utf-8"))
    assert data["catalog_revision"] == git(ROOT, "rev-parse", "HEAD").strip()
    assert data["vllm_version"] == ctx.catalog.assume("vllm_version")
    assert data["row_count"] == len(ctx.frame) and all(
        len(v) == len(ctx.frame) for v in data["columns"].values()
    )
    assert paths[0].read_text(encoding="utf-8") == downloads.matrix_csv(ctx, with_id=False)
    assert all(
        v is None or not (isinstance(v, float) and math.isnan(v)) for v in data["columns"]["seq_131072"]
    )


def test_json_download_decodes_to_the_csv_rows(repo_ctx: SiteContext) -> None:
    """Assert decoding fits.json as its page says (text columns through their string tables) gives
    the CSV's columns and rows: the two downloads hold the same data."""
    texts = downloads.download_texts(repo_ctx)
    data = json.loads(texts["fits.json"])
    frame = pd.DataFrame(
        {
            name: [data["strings"][name][i] for i in values] if name in data["strings"] else values
            for name, values in data["columns"].items()
        }
    )
    csv = pd.read_csv(io.StringIO(texts["fits.csv"]), keep_default_na=False, na_values=[""])
    assert list(frame.columns) == list(csv.columns) and "id" not in csv.columns
    assert frame["checkpoint"].tolist() == csv["checkpoint"].tolist()
    assert frame["fits"].tolist() == csv["fits"].tolist()
    assert (frame["weights_gib"] - csv["weights_gib"]).abs().max() < 1e-9
    assert frame["seq_131072"].isna().tolist() == csv["seq_131072"].isna().tolist()
    assert frame["verdict"].tolist() == csv["verdict"].tolist()
    assert set(data["strings"]) == {
        "model",
        "checkpoint",
        "precision",
        "server",
        "kv_cache_dtype",
        "plan",
        "verdict",
        "change",
        "change_value",
        "change_plan",
    }


def test_whole_floats_are_written_as_integers() -> None:
    """Assert the JSON writes 170.0 as 170, keeps 5 significant digits (GiB to 0.01, as vLLM prints them)
    and turns NaN into null."""
    assert downloads.DIGITS == 5
    values = (170.0, 214.22637, float("nan"), -0.5, 1234.567)
    assert [downloads._json_value(v) for v in values] == [170, 214.23, None, -0.5, 1234.6]


def test_revision_outside_git_has_a_fallback(tmp_path: Path) -> None:
    """Assert a folder outside any repository gets a readable placeholder, not an error."""
    assert downloads.catalog_revision(tmp_path).startswith("unknown")
