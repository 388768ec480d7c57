"""Tests for sizing.review.snapshots: ``export`` (generated/), ``diff REV [REV2]`` and the site downloads.

The diff tests copy the repository's tracked files into a temporary git repository, commit a
catalog change there and compare the report with what the engine itself says changed.
"""

from __future__ import annotations

import io
import json
import math
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

import yaml

from sizing.review import snapshots
from sizing.render import tables
from sizing.catalog.loader import load_catalog
from sizing.cli import main
from sizing.engine.evaluate import evaluate
from sizing.site.context import build_context

ROOT = Path(__file__).resolve().parents[2]
GPU = "l40s"
FIT_TABLE_KV = "fp8"  # sizing.render.table_rows.summary_kv of the real catalog


def git(repo: Path, *args: str) -> str:
    """Run git in ``repo`` (with a fixed identity) and return its output."""
    command = ["git", "-C", str(repo), "-c", "user.name=test", "-c", "user.email=test@example.invalid", *args]
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A git repository holding a copy of this repository's tracked files, one commit."""
    target = tmp_path_factory.mktemp("repo")
    for name in git(ROOT, "ls-files", "-z").split("\0"):
        if name and (ROOT / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, target / name)
    git(target, "init", "-q")
    git(target, "add", "-A")
    git(target, "commit", "-q", "-m", "base")
    return target


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``python -m sizing argv`` in-process: (exit status, stdout, stderr)."""
    status = main(list(argv))
    out = capsys.readouterr()
    return status, out.out, out.err


def commit_change(repo: Path, stem: str, edit, message: str) -> None:
    """Edit ``catalog/<stem>.yaml`` as data and commit it."""
    path = repo / "catalog" / f"{stem}.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    edit(data)
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    git(repo, "commit", "-q", "-am", message)


def report_of(capsys: pytest.CaptureFixture[str], repo: Path, *revs: str) -> dict:
    """The JSON diff report between revisions of ``repo``."""
    status, out, err = run(capsys, "--catalog", str(repo / "catalog"), "diff", *revs, "--format", "json")
    assert status == 0, err
    return json.loads(out)


# --- the expected changes, straight from the engine ------------------------------------------


def fit_row_key(row) -> str:
    """A fit table's row key: checkpoint · precision · KV cache type."""
    return f"{row['checkpoint']} · {row['precision']} · {row['kv_cache_dtype']}"


def shown_fit_values(row, contexts: list[int]) -> tuple:
    """What a fit-table row shows that GPU memory can change: verdict, plan, sequences per context."""
    seqs = tuple(row[f"sequences_{c}"] if c <= row["max_context"] else None for c in contexts)
    return (bool(row["fits"]), row["plan"], row["tp"], row["pp"], row["dp"], seqs)


def changed_fit_rows(old_dir: Path, new_dir: Path, servers: set[str]) -> dict[str, set[str]]:
    """``{fit table: row keys}`` whose shown values differ between two catalogs, per the engine."""
    old, new = evaluate(load_catalog(old_dir)), evaluate(load_catalog(new_dir))
    contexts = old.attrs["contexts"]
    pick = ["model", "checkpoint", "precision", "server", "kv_cache_dtype"]
    shown = FIT_TABLE_KV  # the fit tables show the summary KV type only
    a = old[old["chosen"] & (old["kv_cache_dtype"] == shown)].set_index(pick, drop=False)
    b = new[new["chosen"] & (new["kv_cache_dtype"] == shown)].set_index(pick, drop=False)
    out: dict[str, set[str]] = {f"fit-{s}": set() for s in servers}
    for key in a.index:
        if key[3] in servers and shown_fit_values(a.loc[key], contexts) != shown_fit_values(b.loc[key], contexts):
            out[f"fit-{key[3]}"].add(fit_row_key(a.loc[key]))
    return out


def servers_by_row(ctx, table_id: str) -> dict[str, str]:
    """``{row key: server id (or GPU id)}`` of one table, keyed as the report keys rows."""
    spec = tables.get_spec(ctx, table_id)
    return {" · ".join(str(r[k]) for k in spec.key): r.get("server", r.get("gpu"))
            for r in spec.rows(ctx).to_dict("records")}


def catalog_at(repo: Path, rev: str, folder: Path) -> Path:
    """``catalog/`` of ``repo`` at ``rev``, written to ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for stem in ("gpus", "servers", "models", "precisions", "assumptions", "examples"):
        (folder / f"{stem}.yaml").write_text(git(repo, "show", f"{rev}:catalog/{stem}.yaml"), encoding="utf-8")
    return folder


# --- diff ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def memory_change(repo: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Commit +1 GiB on one GPU; the JSON report, the servers using that GPU and both catalogs."""
    mib = yaml.safe_load((repo / "catalog" / "gpus.yaml").read_text(encoding="utf-8"))[GPU]["memory_mib"]
    commit_change(repo, "gpus", lambda d: d[GPU].update(memory_mib=mib + 1024), "more memory")
    cat = load_catalog(repo / "catalog")
    old_dir = catalog_at(repo, "HEAD~1", tmp_path_factory.mktemp("old") / "catalog")
    servers = {s for s, server in cat.servers.items() if server.gpu == GPU}
    contexts = (build_context(load_catalog(old_dir)), build_context(cat))
    report = snapshots.compare(*contexts, {}, "HEAD~1", "HEAD")
    assert all(f["server"] in servers for f in json.loads(snapshots.report_json(report))["flips"])
    tables = {t["table"]: t for t in json.loads(snapshots.report_json(report))["tables"]}
    return {"mib": mib, "cat": cat, "old_dir": old_dir, "servers": servers, "tables": tables, "contexts": contexts}


def test_gpu_memory_change_lists_exactly_the_cells_that_depend_on_it(repo: Path, memory_change: dict) -> None:
    """Assert +1 GiB on one GPU changes only rows on servers with that GPU, and all of those it should."""
    tables, servers, mib = memory_change["tables"], memory_change["servers"], memory_change["mib"]
    expected = changed_fit_rows(memory_change["old_dir"], repo / "catalog", servers)
    fit_ids = {tid for tid in tables if tid.startswith("fit-")}
    fit = {tid: {c["row"] for c in tables[tid]["changed"]} for tid in fit_ids}
    assert {tid: rows for tid, rows in fit.items() if rows} == {tid: rows for tid, rows in expected.items() if rows}
    assert {tid for tid, t in tables.items() if t["added"] or t["removed"]} <= {"recommendations-32b",
                                                                               "recommendations-671b"}
    gpus = tables["catalog-gpus"]["changed"]
    assert [(c["row"], c["column"], c["new"]) for c in gpus] == [(GPU, "nvidia-smi total (MiB)", f"{mib + 1024:,}")]
    contexts = memory_change["contexts"]
    for tid in set(tables) - fit_ids - {"catalog-gpus"}:
        assert tid in {"what-fits", "gpu-classes", "recommendations-32b", "recommendations-671b", "quick-reference",
                       "throughput"}, tid
        where = [servers_by_row(ctx, tid) for ctx in contexts]
        t = tables[tid]
        for key in {c["row"] for c in t["changed"]} | set(t["added"]) | set(t["removed"]):
            assert {w.get(key) for w in where} & (servers | {GPU}), (tid, key)


def test_removed_model_rows_are_listed_as_removed(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Assert every row of a removed model shows up as removed, in each fit table and the catalog list."""
    cat = load_catalog(repo / "catalog")
    used = {ex.model for ex in cat.examples.values()}
    model = [m for m in cat.models if m not in used][-1]
    before = evaluate(cat)
    commit_change(repo, "models", lambda d: d.pop(model), f"drop {model}")
    report = report_of(capsys, repo, "HEAD~1", "HEAD")
    tables = {t["table"]: t for t in report["tables"]}
    gone = before[before["chosen"] & (before["model"] == model) & (before["kv_cache_dtype"] == FIT_TABLE_KV)]
    for server, rows in gone.groupby("server"):
        assert set(tables[f"fit-{server}"]["removed"]) == {fit_row_key(r) for _, r in rows.iterrows()}
    assert tables["catalog-models"]["removed"] == [model]
    assert not any(t["added"] for t in report["tables"]) and report["flips"] == []


def test_diff_against_the_working_tree_and_markdown(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Assert REV2 defaults to the working tree and the Markdown report groups tables by page."""
    path = repo / "catalog" / "servers.yaml"
    original = path.read_text(encoding="utf-8")
    data = yaml.safe_load(original)
    offer = next(s for s, v in data.items() if v.get("price"))
    data[offer]["price"]["monthly"] += 100
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    try:
        status, out, _ = run(capsys, "--catalog", str(repo / "catalog"), "diff", "HEAD")
    finally:
        path.write_text(original, encoding="utf-8")
    assert status == 0
    assert out.startswith("## Published tables: `HEAD` → `working tree`")
    assert "#### `price-per-gb` (`generated/price-per-gb.md`)" in out
    assert "No verdict changes." in out


def test_unknown_revision_is_one_line_and_status_2(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Assert a revision git does not know fails with one line on stderr and status 2."""
    status, out, err = run(capsys, "--catalog", str(repo / "catalog"), "diff", "no-such-rev")
    assert (status, out) == (2, "") and err.strip().count("\n") == 0 and "no-such-rev" in err


def test_no_change_is_status_0(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Assert comparing a revision with itself reports nothing and exits 0."""
    report = report_of(capsys, repo, "HEAD", "HEAD")
    assert report["flips"] == [] and report["tables"] == []


def test_report_is_cut_to_fit_a_comment() -> None:
    """Assert a long report is cut at a line boundary with a note."""
    text = "\n".join(f"| row {i} |" for i in range(1000))
    cut = snapshots.cut(text, 500)
    assert len(cut) < 600 and cut.splitlines()[-1].startswith("… report cut at 500")


# --- export ----------------------------------------------------------------------------------


def test_export_check_fails_when_stale_and_passes_after_export(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Assert --check exits 1 with a diff and the fix after a catalog change, and 0 once exported."""
    catalog = str(repo / "catalog")
    assert run(capsys, "--catalog", catalog, "export")[0] == 0
    assert run(capsys, "--catalog", catalog, "export", "--check")[0] == 0
    commit_change(repo, "gpus", lambda d: d[GPU].update(bandwidth_gbs=d[GPU]["bandwidth_gbs"] + 1), "bandwidth")
    status, out, _ = run(capsys, "--catalog", catalog, "export", "--check")
    assert status == 1
    assert "--- a/generated/catalog-gpus.md" in out and "run `python -m sizing export`" in out.lower()
    assert run(capsys, "--catalog", catalog, "export")[0] == 0
    assert run(capsys, "--catalog", catalog, "export", "--check")[0] == 0


def test_export_removes_snapshots_of_tables_that_no_longer_exist(tmp_path: Path) -> None:
    """Assert a snapshot without a table (a removed server) is reported stale and deleted; files that are not
    snapshots (no banner, not text) are left alone."""
    out = tmp_path / "generated"
    out.mkdir()
    (out / "fit-gone.md").write_text(f"{snapshots.BANNER}\n\n# fit-gone\n", encoding="utf-8")
    (out / "notes.md").write_text("mine\n", encoding="utf-8")
    (out / ".DS_Store").write_bytes(b"\x00\xff")
    files = {"a.md": "a\n"}
    assert set(snapshots.stale_files(out, files)) == {"a.md", "fit-gone.md"}
    assert sorted(snapshots.write_snapshots(out, files)) == ["a.md", "fit-gone.md"]
    assert sorted(p.name for p in out.iterdir()) == [".DS_Store", "a.md", "notes.md"]


def test_snapshots_are_english_markdown_with_a_banner(real_ctx) -> None:
    """Assert each table snapshot starts with the banner, has one line per row and no padding."""
    ctx = real_ctx
    files = snapshots.snapshot_files(ctx)
    text = files["price-per-gb.md"]
    assert text.startswith(snapshots.BANNER + "\n\n# price-per-gb\n\n| Server |")
    offers = [s for s in ctx.catalog.servers.values() if s.price]
    assert len([line for line in text.splitlines() if line.startswith("| ")]) == len(offers) + 1
    assert set(files) >= {"README.md", "fits.csv", "what-fits.md"} | {f"fit-{s}.md" for s in ctx.catalog.servers}


def test_committed_snapshots_are_up_to_date(capsys: pytest.CaptureFixture[str]) -> None:
    """Assert generated/ matches the catalog (otherwise run `python -m sizing export` and commit)."""
    status, out, _ = run(capsys, "export", "--check")
    assert status == 0, out[-3000:]


# --- the matrix and the downloads ------------------------------------------------------------


def test_matrix_ids_are_unique_and_sorted(real_ctx) -> None:
    """Assert every matrix row has its own id (online-quantised variants included), sorted."""
    frame = snapshots.matrix_frame(real_ctx)
    assert frame["id"].is_unique and list(frame["id"]) == sorted(frame["id"])
    online = frame[frame["id"].str.contains("|fp8|", regex=False)]
    assert len(online)


def test_write_downloads(tmp_path: Path, real_ctx) -> None:
    """Assert fits.csv and fits.json are written, the JSON naming the revision and the vLLM version."""
    ctx = real_ctx
    paths = snapshots.write_downloads(tmp_path / "zh", ctx)
    assert [p.relative_to(tmp_path).as_posix() for p in paths] == ["zh/downloads/fits.csv", "zh/downloads/fits.json"]
    data = json.loads(paths[1].read_text(encoding="utf-8"))
    assert data["catalog_revision"] == git(ROOT, "rev-parse", "HEAD").strip()
    assert data["vllm_version"] == ctx.catalog.assume("vllm_version")
    assert data["row_count"] == len(ctx.frame) and all(len(v) == len(ctx.frame) for v in data["columns"].values())
    assert paths[0].read_text(encoding="utf-8") == snapshots.matrix_csv(ctx, with_id=False)
    assert all(v is None or not (isinstance(v, float) and math.isnan(v)) for v in data["columns"]["seq_131072"])


def test_json_download_decodes_to_the_csv_rows(real_ctx) -> None:
    """Assert decoding fits.json as its page says (text columns through their string tables) gives
    the CSV's columns and rows: the two downloads hold the same data."""
    ctx = real_ctx
    texts = snapshots.download_texts(ctx)
    data = json.loads(texts["fits.json"])
    frame = pd.DataFrame({name: [data["strings"][name][i] for i in values] if name in data["strings"] else values
                          for name, values in data["columns"].items()})
    csv = pd.read_csv(io.StringIO(texts["fits.csv"]), keep_default_na=False, na_values=[""])
    assert list(frame.columns) == list(csv.columns) and "id" not in csv.columns
    assert frame["checkpoint"].tolist() == csv["checkpoint"].tolist()
    assert frame["fits"].tolist() == csv["fits"].tolist()
    assert (frame["weights_gib"] - csv["weights_gib"]).abs().max() < 1e-9
    assert frame["seq_131072"].isna().tolist() == csv["seq_131072"].isna().tolist()
    assert frame["verdict"].tolist() == csv["verdict"].tolist()
    assert set(data["strings"]) == {"model", "checkpoint", "precision", "server", "kv_cache_dtype", "plan", "verdict",
                                    "change", "change_value", "change_plan"}


def test_whole_floats_are_written_as_integers() -> None:
    """Assert the JSON writes 170.0 as 170, keeps 6 significant digits and turns NaN into null."""
    assert [snapshots._json_value(v) for v in (170.0, 214.22637, float("nan"), -0.5)] == [170, 214.226, None, -0.5]


def test_revision_outside_git_has_a_fallback(tmp_path: Path) -> None:
    """Assert a folder outside any repository gets a readable placeholder, not an error."""
    assert snapshots.catalog_revision(tmp_path).startswith("unknown")
