"""Issue-10 architectures reproduce their real vLLM start-up logs (``calibration/vllm_logs.yaml``).

Each case runs through :func:`sizing.review.calibration.results`, exactly as the methodology table does,
with the logged ``Available KV cache memory`` given, so only the KV arithmetic is compared.
"""

from __future__ import annotations

import dataclasses

import pytest

from sizing.engine.towers import vision_params
from sizing.review.calibration import TOLERANCE, load, results
from sizing.units import GiB

GRAPHS = {"cudagraph": TOLERANCE["cudagraph"]}
"""Every case prints its CUDA-graph memory, which one constant per captured size only bounds."""
CASES = {
    # sparse MLA: 61 layers x (BF16 latent 1152 B + indexer 132 B) = 78,324 B per token, block 64
    "deepseek-v3.2-h200-tp8-v0180-mml163840": (
        "deepseek-ai/DeepSeek-V3.2",
        {"concurrency": 0.01, "tokens": 0.01, **GRAPHS},
    ),
    # Gemma 4: 50 sliding (16 x 256) + 10 full (4 x 512) layers; full blocks of 32 tokens, 6 groups of 10
    "gemma-4-31b-it-h200-tp1-gmu095-v0182": (
        "google/gemma-4-31B-it",
        {"concurrency": 0.01, "tokens": 0.01, "weights": 0.03, "available_kv": 0.05, **GRAPHS},
    ),
    # multimodal: the BF16 vision tower in the weights, one 16384-token image in the profile run
    "qwen3-vl-30b-a3b-h200-tp1-v0200-mml262144": (
        "Qwen/Qwen3-VL-30B-A3B-Instruct",
        {"weights": 0.01, "available_kv": 0.03, "concurrency": 0.01, "tokens": 0.01, **GRAPHS},
    ),
    # MiniMax-M2.5 at TP 8 with expert parallelism: per-rank weights as TP 8, one KV head per rank
    "minimax-m2.5-h200-tp8-ep-v0180-mml196608": (
        "MiniMaxAI/MiniMax-M2.5",
        {"weights": 0.01, "available_kv": 0.03, "concurrency": 0.01, "tokens": 0.01, **GRAPHS},
    ),
}


@pytest.fixture(scope="module")
def checks(catalog):
    return {(c.case, c.metric): c for c in results(catalog) if c.case in CASES}


@pytest.mark.parametrize("case", sorted(CASES))
def test_architecture_case_is_reproduced(checks, case):
    bounds = CASES[case][1]
    assert {metric for (name, metric) in checks if name == case} == set(bounds)
    for metric, bound in bounds.items():
        check = checks[(case, metric)]
        assert abs(check.error) <= bound, f"{metric}: {check.logged} vs {check.predicted:.6g}"


def test_the_cases_load_the_catalog_model_they_name():
    _, spec = load()
    for case, (model, _) in CASES.items():
        assert spec["cases"][case]["model"] == model


def test_kv_sharing_layers_own_no_cache_and_global_layers_keep_their_geometry(catalog):
    from sizing.catalog.schema import KvSharing
    from sizing.engine.cases import model_columns

    gemma = catalog.models["google/gemma-4-31B-it"]
    plain = model_columns(gemma)
    assert (
        plain["full_layers"],
        plain["sliding_layers"],
        plain["full_kv_heads"],
        plain["full_head_dim"],
    ) == (10, 50, 4, 512)
    shared = model_columns(gemma.model_copy(update={"kv_sharing": KvSharing(layers=12, sliding_layers=10)}))
    assert (shared["full_layers"], shared["sliding_layers"]) == (8, 40)


def test_the_cli_takes_vllms_expert_parallel_flag(capsys, catalog):
    import json

    from sizing.cli import main

    argv = [
        "estimate",
        "--model",
        "deepseek-ai/DeepSeek-R1",
        "--server",
        "ref-8x-h200",
        "--data-parallel-size",
        "8",
        "--enable-expert-parallel",
        "--max-model-len",
        "32768",
        "--json",
    ]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["plan"], out["data_parallel_size"], out["tensor_parallel_size"]) == ("dp-ep", 8, 1)
    assert "--enable-expert-parallel" in out["vllm_command"]


def test_the_encoder_profile_pass_is_charged_and_keeps_qwen3_vl_within_three_percent(catalog):
    from sizing.engine.estimate import memory_estimate
    from sizing.review.calibration import load, request

    logs, spec = load()
    case = "qwen3-vl-30b-a3b-h200-tp1-v0200-mml262144"
    req = request(logs[case], spec["cases"][case])
    with_encoder = memory_estimate(catalog, req)
    text_only = memory_estimate(catalog, dataclasses.replace(req, limit_mm_per_prompt=0))
    # one 16384-token image: 65,536 patches through a 1152/4304-wide block plus its 2048-wide outputs
    assert with_encoder["encoder_profile_bytes"] == pytest.approx(
        65536 * (1152 + 4304) * 2 + 16384 * 2048 * 2
    )
    assert text_only["encoder_profile_bytes"] == 0
    assert text_only["weights_bytes"] == with_encoder["weights_bytes"]  # a zero limit still loads the tower
    lm_only = memory_estimate(catalog, dataclasses.replace(req, language_model_only=True))
    assert with_encoder["weights_bytes"] - lm_only["weights_bytes"] == pytest.approx(
        vision_params(catalog.models["Qwen/Qwen3-VL-30B-A3B-Instruct"].vision) * 2
    )
    logged = logs[case]["available_kv_gib"] * GiB
    # with the encoder charged, the prediction stays within 3 % of the log and on the cautious side
    assert -0.03 < with_encoder["available_kv_bytes"] / logged - 1 < 0
    assert with_encoder["available_kv_bytes"] < text_only["available_kv_bytes"]


def test_the_cli_reads_vllms_multimodal_flags(capsys):
    import json

    from sizing.cli import main

    base = [
        "estimate",
        "--model",
        "Qwen/Qwen3-VL-30B-A3B-Instruct",
        "--gpu",
        "l40s",
        "--gpus",
        "4",
        "--max-model-len",
        "32768",
        "--json",
    ]
    results = {}
    for name, extra in (
        ("default", []),
        ("no-images", ["--limit-mm-per-prompt", '{"image": 0}']),
        ("text-only", ["--language-model-only"]),
    ):
        assert main(base + extra) == 0
        results[name] = json.loads(capsys.readouterr().out)
    assert results["default"]["available_kv_gib"] < results["no-images"]["available_kv_gib"]
    assert results["no-images"]["weights_gib"] > results["text-only"]["weights_gib"]
    with pytest.raises(SystemExit) as stop:
        main(base + ["--limit-mm-per-prompt", "image=2"])
    assert stop.value.code == 2
