"""Our estimates against real vLLM start-up logs, in sample and left out (pytest -s prints the table)."""

from __future__ import annotations

import importlib.util
import statistics
from pathlib import Path

import pytest

from sizing.review.calibration import load, run

GATE = {"available_kv": {"median": 0.03, "worst": 0.10, "signed": 0.015},
        "weights": {"median": 0.01, "worst": 0.03}}
"""Issue 9's acceptance bounds on the leave-one-out errors of every reproduced log."""


@pytest.fixture(scope="module")
def result(catalog):
    found = run(catalog)
    print("\ncase | metric | logged | predicted | error | left out")
    for c in found.checks:
        print(f"{c.case} | {c.metric} | {c.logged:.4g} | {c.predicted:.4g} | {c.error:+.2%} | "
              f"{c.loo_error:+.2%}")
    return found


@pytest.fixture(scope="module")
def outliers():
    return load()[1].get("outliers", {})


def test_every_log_is_either_reproduced_or_explained():
    logs, spec = load()
    assert set(spec["cases"]) | set(spec["skipped"]) == set(logs)
    assert not set(spec["cases"]) & set(spec["skipped"])
    assert all(entry["reason"].strip() for entry in spec["skipped"].values())


def test_every_check_is_within_its_tolerance(result, outliers):
    named = {case: set(o["bounds"]) for case, o in outliers.items()}
    failing = [f"{c.case}:{c.metric} logged {c.logged} predicted {c.predicted:.4g} ({c.error:+.2%})"
               for c in result.checks if not c.ok and c.metric not in named.get(c.case, set())]
    assert not failing, "\n".join(failing)


def test_the_acceptance_metrics_are_all_exercised(result):
    metrics = {c.metric for c in result.checks}
    assert {"weights", "available_kv", "concurrency", "no_fit"} <= metrics


def _errors(result, metric):
    return {c.case: c.loo_error for c in result.checks if c.metric == metric}


@pytest.mark.parametrize("metric", sorted(GATE))
def test_out_of_sample_medians_meet_the_gate(result, metric):
    errors = list(_errors(result, metric).values())
    assert statistics.median(abs(e) for e in errors) <= GATE[metric]["median"]
    if "signed" in GATE[metric]:
        assert abs(statistics.median(errors)) <= GATE[metric]["signed"]


@pytest.mark.parametrize("metric", sorted(GATE))
def test_out_of_sample_worst_meets_the_gate_outside_the_named_outliers(result, outliers, metric):
    key = "available_kv_loo" if metric == "available_kv" else metric
    bounds = {case: o["bounds"][key] for case, o in outliers.items() if key in o["bounds"]}
    over = {case: e for case, e in _errors(result, metric).items()
            if abs(e) > bounds.get(case, GATE[metric]["worst"])}
    assert not over, over


def test_outliers_are_reproduced_cases_with_a_reason(outliers):
    cases = load()[1]["cases"]
    assert all(case in cases and o["reason"].strip() and o["bounds"] for case, o in outliers.items())


def test_the_fit_sees_every_available_kv_log(result):
    fitted = {c.case for c in result.fit_cases if c.logged is not None}
    assert fitted == set(_errors(result, "available_kv"))
    graphs = {c.case for c in result.fit_cases if c.graph_logged is not None}
    assert graphs == set(_errors(result, "cudagraph")) and len(graphs) >= 10


def test_committed_coefficients_and_methodology_numbers_are_up_to_date(result, catalog):
    script = Path(__file__).resolve().parents[2] / "scripts" / "calibrate.py"
    spec = importlib.util.spec_from_file_location("calibrate", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    committed = module.ASSUMPTIONS.read_text(encoding="utf-8")
    assert module.with_values(committed, module.fitted_values(result)) == committed, \
        "coefficients are stale: run python -m scripts.calibrate"
    for path, text in module.outputs(result).items():
        assert path.read_text(encoding="utf-8") == text, f"{path} is stale: run python -m scripts.calibrate"


def test_calibrate_stops_on_a_bad_catalog_with_one_line(monkeypatch, capsys):
    """``python -m scripts.calibrate`` on an invalid catalog: the loader's one-line message, exit 2."""
    import scripts.calibrate as script
    from sizing.errors import CatalogError

    def broken() -> None:
        raise CatalogError("catalog/models.yaml", "Qwen/Qwen3-8B", "notes", "string should have at most 500 characters")
    monkeypatch.setattr(script, "load_catalog", broken)
    monkeypatch.setattr("sys.argv", ["calibrate", "--check"])
    assert script.main() == 2
    err = capsys.readouterr().err
    assert err.strip() == "catalog/models.yaml: Qwen/Qwen3-8B.notes: string should have at most 500 characters"
