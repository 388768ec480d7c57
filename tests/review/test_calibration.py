"""Our estimates against real vLLM start-up logs; prints the error table (pytest -s to see it)."""

from __future__ import annotations

import pytest

from sizing.review.calibration import load, results


@pytest.fixture(scope="module")
def checks(catalog):
    found = results(catalog)
    print("\ncase | metric | logged | predicted | error")
    for c in found:
        print(f"{c.case} | {c.metric} | {c.logged:.4g} | {c.predicted:.4g} | {c.error:+.2%}")
    return found


def test_every_log_is_either_reproduced_or_explained():
    logs, spec = load()
    assert set(spec["cases"]) | set(spec["skipped"]) == set(logs)
    assert not set(spec["cases"]) & set(spec["skipped"])


def test_every_check_is_within_its_tolerance(checks):
    failing = [f"{c.case}:{c.metric} logged {c.logged} predicted {c.predicted:.4g} ({c.error:+.2%})"
               for c in checks if not c.ok]
    assert not failing, "\n".join(failing)


def test_the_acceptance_metrics_are_all_exercised(checks):
    metrics = {c.metric for c in checks}
    assert {"weights", "available_kv", "concurrency", "no_fit"} <= metrics


def test_committed_methodology_numbers_are_up_to_date(checks):
    import importlib.util
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "scripts" / "calibrate.py"
    spec = importlib.util.spec_from_file_location("calibrate", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for path, text in module.outputs(checks).items():
        assert path.read_text(encoding="utf-8") == text, f"{path} is stale: run python scripts/calibrate.py"
