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
    # Gemma 4: 50 sliding (16 x 256) + 10 full (4 x 512) layers; full blocks of 32 tokens, 6 groups of 10
    "gemma-4-31b-it-h200-tp1-gmu095-v0182": ("google/gemma-4-31B-it", 0.01),
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


def test_kv_sharing_layers_own_no_cache_and_global_layers_keep_their_geometry(catalog):
    from sizing.cases import model_columns
    from sizing.schema import KvSharing

    gemma = catalog.models["google/gemma-4-31B-it"]
    plain = model_columns(gemma)
    assert (plain["full_layers"], plain["sliding_layers"], plain["full_kv_heads"], plain["full_head_dim"]) == (
        10, 50, 4, 512)
    shared = model_columns(gemma.model_copy(update={"kv_sharing": KvSharing(layers=12, sliding_layers=10)}))
    assert (shared["full_layers"], shared["sliding_layers"]) == (8, 40)


def test_the_cli_takes_vllms_expert_parallel_flag(capsys, catalog):
    import json

    from sizing.cli import main

    argv = ["estimate", "--model", "deepseek-ai/DeepSeek-R1", "--server", "ref-8x-h200", "--data-parallel-size", "8",
            "--enable-expert-parallel", "--max-model-len", "32768", "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["plan"], out["data_parallel_size"], out["tensor_parallel_size"]) == ("dp-ep", 8, 1)
    assert "--enable-expert-parallel" in out["vllm_command"]
