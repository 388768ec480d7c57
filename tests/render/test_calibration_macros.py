"""Tests for sizing.render.calibration_macros: the calibration tables against real vLLM logs."""

from __future__ import annotations

import pytest

from sizing.catalog.loader import load_catalog
from sizing.render import calibration_macros
from sizing.review import calibration
from sizing.site import context as site


def test_calibration_table_lists_every_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """Assert the calibration table has a summary row per metric and a row per check (real catalog)."""
    monkeypatch.delenv(site.ENV_VAR, raising=False)
    checks = calibration.results(load_catalog())
    out = calibration_macros.calibration_table("en", site.calibrated_context())
    rows = [line for line in out.splitlines() if line.startswith("| ") and not line.startswith("| Figure")]
    metrics = {c.metric for c in checks}
    assert len(rows) == len(metrics) + 1 + len(checks)
    assert out.count('<div class="sz-sortable" data-search-exclude') == 2


def test_calibration_values_in_gib_keep_two_decimals() -> None:
    """Assert GiB figures (the CUDA-graph memory too) read as vLLM prints them, in the page's locale."""
    assert calibration_macros.calibration_value("cudagraph", 0.5, "ru") == "0,50"
    assert calibration_macros.calibration_value("available_kv", 19.06, "en") == "19.06"
    assert calibration_macros.calibration_value("tokens", 72400, "en") == "72,400"


def test_calibration_grouped_table_has_model_out_errors_and_each_class_band(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Assert the grouped table: overall rows, a row per class, release line and GPU, then the band per class
    with its cautious end as a share of our figure and the coverage."""
    monkeypatch.delenv(site.ENV_VAR, raising=False)
    ctx = site.calibrated_context()
    checks = ctx.calibration
    out = calibration_macros.calibration_grouped_table("en", ctx)
    lines = {c.line for c in checks if c.metric == "available_kv"}
    assert "All logs: available KV cache memory" in out and "All logs: weights per GPU" in out
    assert all(f"vLLM release line {line}" in out for line in lines) and "| GPU h200 |" in out
    assert "Median error, model unseen" in out and "Independent groups" in out
    optimistic = float(ctx.catalog.assumptions["kv_band_optimistic_moe"].value)  # type: ignore[arg-type]
    assert f"| Mixture of experts | {1 / (1 + optimistic) - 1:.1%}".replace("-", "−") in out.replace("-", "−")
    held = ctx.calibration_groups["coverage"]["all"]
    assert f"in {held['nested']:.0%} of the independent groups" in out
    assert "Смесь экспертов" in calibration_macros.calibration_grouped_table("ru", ctx)
    assert "| GPU unstated |" not in out


def test_a_gpu_group_the_logs_do_not_name_reads_in_the_page_language() -> None:
    """Assert the ``unstated`` GPU group is a translated phrase and a named GPU keeps its id."""
    assert calibration_macros._gpu_group("unstated", "en") == "GPU not stated in the log"
    assert calibration_macros._gpu_group("unstated", "ru") == "GPU в журнале не указан"
    assert calibration_macros._gpu_group("h200", "zh") == "GPU h200"


def test_calibration_left_table_names_every_left_out_log_with_a_translated_reason(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Assert each skipped log is a row with its model and release, and outliers show their left-out error."""
    monkeypatch.delenv(site.ENV_VAR, raising=False)
    ctx = site.calibrated_context()
    skipped = [x for x in ctx.calibration_left if not x.outlier]
    out = {lang: calibration_macros.calibration_left_table(lang, ctx) for lang in ("en", "zh", "ru")}
    assert all(
        f"| `{x.case}` | `{x.model}` | {f'`{x.version}`' if x.version else '—'} |" in out["en"]
        for x in skipped
    )
    assert "| `llama2-7b-a100-80g-tp1-gmu090` | `meta-llama/Llama-2-7b` | — | `A100 80GB` |" in out["zh"]
    assert "A release older than the memory profiler modelled here" in out["en"]
    assert "版本早于本站所建模的显存分析器" in out["zh"] and "Выпуск старше профилировщика" in out["ru"]
    for x in (x for x in ctx.calibration_left if x.outlier):
        check = next(c for c in ctx.calibration if c.case == x.case and c.metric == "available_kv")
        assert f"| {calibration_macros.fmt_percent(check.lomo_error, 'en', 1)} |" in out["en"]
