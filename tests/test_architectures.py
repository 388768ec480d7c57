"""Issue-10 architectures reproduce their real vLLM start-up logs (``calibration/vllm_logs.yaml``).

Each case runs through :func:`sizing.calibration.results`, exactly as the methodology table does,
with the logged ``Available KV cache memory`` given, so only the KV arithmetic is compared.
"""

from __future__ import annotations

import pytest

from sizing.calibration import load, results

CASES = {
    # sparse MLA: 61 layers x (BF16 latent 1152 B + indexer 132 B) = 78,324 B per token, block 64
    "deepseek-v3.2-h200-tp8-v0180-mml163840": ("deepseek-ai/DeepSeek-V3.2", 0.01),
}


@pytest.fixture(scope="module")
def checks(catalog):
    return {(c.case, c.metric): c for c in results(catalog) if c.case in CASES}


@pytest.mark.parametrize("case", sorted(CASES))
def test_architecture_case_is_reproduced_within_one_percent(checks, case):
    found = [c for (name, _), c in checks.items() if name == case]
    assert {c.metric for c in found} >= {"concurrency", "tokens"}
    for check in found:
        assert abs(check.error) <= CASES[case][1], f"{check.metric}: {check.logged} vs {check.predicted:.6g}"


def test_the_cases_load_the_catalog_model_they_name():
    _, spec = load()
    for case, (model, _) in CASES.items():
        assert spec["cases"][case]["model"] == model
