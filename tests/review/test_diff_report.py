"""Tests for sizing.review.diff_report: ``diff REV [REV2]`` as a pull-request comment.

The diff tests copy the repository's tracked files into a temporary git repository, commit a
catalog change there and compare the report with what the engine itself says changed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from sizing.catalog.loader import load_catalog
from sizing.engine.evaluate import evaluate
from sizing.render import table_specs
from sizing.review import diff_report
from sizing.review.table_diff import compare
from sizing.site.context import build_context
from sizing.views.policy import summary_kv_on
from sizing.views.throughput import SPEED_KEY, fit_speed
from tests.review.gitrepo import commit_change, git, run

GPU = "l40s"
FIT_TABLE_KV = "fp8"  # sizing.views.table_rows.summary_kv of the real catalog


def shown_kv(cat, frame):
    """Rows of ``frame`` with the KV type the fit tables show on their server: :data:`FIT_TABLE_KV`, or
    ``auto`` where the GPU has no FP8 KV backend (:func:`sizing.views.policy.summary_kv_on`)."""
    kv = {s: summary_kv_on(FIT_TABLE_KV, cat.gpus.get(v.gpu)) for s, v in cat.servers.items()}
    return frame["kv_cache_dtype"].astype(str) == frame["server"].astype(str).map(kv)


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


def changed_fit_rows(old_ctx, new_ctx, servers: set[str]) -> dict[str, set[str]]:
    """``{fit table: row keys}`` whose shown values differ between the catalogs of two contexts, per the
    engine."""
    old_cat, new_cat = old_ctx.catalog, new_ctx.catalog
    old, new = evaluate(old_cat), evaluate(new_cat)
    contexts = old.attrs["contexts"]
    pick = ["model", "checkpoint", "precision", "server", "kv_cache_dtype"]
    a = old[old["chosen"] & shown_kv(old_cat, old)].set_index(pick, drop=False)
    b = new[new["chosen"] & shown_kv(new_cat, new)].set_index(pick, drop=False)
    out: dict[str, set[str]] = {f"fit-{s}": set() for s in servers}
    for key in a.index:
        if key[3] in servers and shown_fit_values(a.loc[key], contexts) != shown_fit_values(
            b.loc[key], contexts
        ):
            out[f"fit-{key[3]}"].add(fit_row_key(a.loc[key]))
    for key in speed_changes(old_ctx, new_ctx, servers):
        out[f"fit-{key['server']}"].add(fit_row_key(key))
    return out


def speed_changes(old_ctx, new_ctx, servers: set[str]) -> list[dict]:
    """Fit-table rows (of the KV type the tables show) on ``servers`` whose speed cells (users within the
    target, cautious USD per 1M output
    tokens, to the cent) differ between two catalogs, per :func:`sizing.views.throughput.fit_speed`."""
    old, new = (fit_speed(ctx).set_index(list(SPEED_KEY)) for ctx in (old_ctx, new_ctx))
    shown = ["speed_users", "speed_usd"]
    a, b = (f[shown].round({"speed_usd": 2}).fillna(-1) for f in (old, new.reindex(old.index)))
    moved = a[(a != b).any(axis=1)].reset_index()
    moved = moved[shown_kv(new_ctx.catalog, moved) & moved["server"].isin(servers)]
    return moved.to_dict("records")


def servers_by_row(ctx, table_id: str) -> dict[str, str]:
    """``{row key: server id (or GPU id)}`` of one table, keyed as the report keys rows."""
    spec = table_specs.get_spec(ctx, table_id)
    return {
        " · ".join(str(r[k]) for k in spec.key): r.get("server", r.get("gpu")) for r in spec.rows(ctx).records
    }


def catalog_at(repo: Path, rev: str, folder: Path) -> Path:
    """``catalog/`` of ``repo`` at ``rev``, written to ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for stem in ("gpus", "servers", "models", "precisions", "assumptions", "examples"):
        (folder / f"{stem}.yaml").write_text(
            git(repo, "show", f"{rev}:catalog/{stem}.yaml"), encoding="utf-8"
        )
    return folder


# --- diff ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def memory_change(repo: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Commit +1 GiB on one GPU; the JSON report, the servers using that GPU and both contexts (built once:
    the report and the expected changes are computed from the same two)."""
    mib = yaml.safe_load((repo / "catalog" / "gpus.yaml").read_text(encoding="utf-8"))[GPU]["memory_mib"]
    commit_change(repo, "gpus", lambda d: d[GPU].update(memory_mib=mib + 1024), "more memory")
    cat = load_catalog(repo / "catalog")
    old_dir = catalog_at(repo, "HEAD~1", tmp_path_factory.mktemp("old") / "catalog")
    servers = {s for s, server in cat.servers.items() if server.gpu == GPU}
    contexts = (build_context(load_catalog(old_dir)), build_context(cat))
    report = compare(*contexts, {}, "HEAD~1", "HEAD")
    assert all(f["server"] in servers for f in json.loads(diff_report.report_json(report))["flips"])
    tables = {t["table"]: t for t in json.loads(diff_report.report_json(report))["tables"]}
    return {"mib": mib, "contexts": contexts, "servers": servers, "tables": tables}


def test_gpu_memory_change_lists_exactly_the_cells_that_depend_on_it(repo: Path, memory_change: dict) -> None:
    """Assert +1 GiB on one GPU changes only rows on servers with that GPU, and all of those it should."""
    tables, servers, mib = memory_change["tables"], memory_change["servers"], memory_change["mib"]
    contexts = memory_change["contexts"]
    expected = changed_fit_rows(*contexts, servers)
    fit_ids = {tid for tid in tables if tid.startswith("fit-")}
    fit = {tid: {c["row"] for c in tables[tid]["changed"]} for tid in fit_ids}
    assert {tid: rows for tid, rows in fit.items() if rows} == {
        tid: rows for tid, rows in expected.items() if rows
    }
    assert {tid for tid, t in tables.items() if t["added"] or t["removed"]} <= {
        "recommendations-32b",
        "recommendations-671b",
    }
    gpus = tables["catalog-gpus"]["changed"]
    assert [(c["row"], c["column"], c["new"]) for c in gpus] == [
        (GPU, "nvidia-smi total (MiB)", f"{mib + 1024:,}")
    ]
    for tid in set(tables) - fit_ids - {"catalog-gpus"}:
        assert tid in {
            "what-fits",
            "gpu-classes",
            "recommendations-32b",
            "recommendations-671b",
            "quick-reference",
            "throughput",
        }, tid
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
    gone = before[before["chosen"] & (before["model"] == model) & shown_kv(cat, before)]
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


def test_no_change_is_status_0(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Assert comparing a revision with itself reports nothing and exits 0, without evaluating the catalog
    (two equal catalogs; that an evaluation compared with itself changes nothing is
    ``test_table_diff.test_a_context_compared_with_itself_changes_nothing``)."""
    monkeypatch.setattr(diff_report, "build_context", lambda cat: pytest.fail("evaluated an equal catalog"))
    report = report_of(capsys, repo, "HEAD", "HEAD")
    assert report["flips"] == [] and report["tables"] == []


def test_report_is_cut_to_fit_a_comment() -> None:
    """Assert a long report is cut at a line boundary with a note."""
    text = "\n".join(f"| row {i} |" for i in range(1000))
    cut = diff_report.cut(text, 500)
    assert len(cut) < 600 and cut.splitlines()[-1].startswith("… report cut at 500")
