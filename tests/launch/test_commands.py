"""vLLM and SGLang commands: every flag exists in the pinned release; values come from the row."""

from __future__ import annotations

import re

import pytest

from sizing.launch.commands import SGLANG_FLAGS, VLLM_FLAGS, sglang_command, vllm_command
from sizing.engine.estimate import Request, estimate
from sizing.launch.vllm_flags import VLLM_VERSION, known_flags, known_sglang_flags, vllm_option_specs

FLAG = re.compile(r"(?<!\S)(--?[a-z][a-z0-9-]*)")


def test_every_flag_the_builder_can_emit_exists_in_the_pinned_release():
    assert set(VLLM_FLAGS) <= known_flags(VLLM_VERSION)
    assert set(SGLANG_FLAGS) <= known_sglang_flags()


def test_every_command_of_the_matrix_uses_only_declared_flags(catalog, matrix):
    chosen = matrix[matrix["chosen"]]
    for _, row in chosen.iterrows():
        vllm_flags = set(FLAG.findall(vllm_command(row, catalog)))
        sglang_flags = set(FLAG.findall(sglang_command(row, catalog).split("\n", 1)[1]))
        assert vllm_flags <= set(VLLM_FLAGS), vllm_flags - set(VLLM_FLAGS)
        assert sglang_flags <= set(SGLANG_FLAGS), sglang_flags - set(SGLANG_FLAGS)


def _choice_values(command: str) -> dict[str, set[str]]:
    """The values a ``vllm serve`` command gives each flag whose kind is ``choice`` in the pinned release."""
    specs = vllm_option_specs(VLLM_VERSION)
    words = command.split()
    found: dict[str, set[str]] = {}
    for flag, value in zip(words, words[1:]):
        if specs.get(flag, {}).get("kind") == "choice":
            found.setdefault(flag, set()).add(value)
    return found


def test_every_choice_value_the_matrix_emits_is_one_vllm_accepts(catalog, matrix):
    """Assert --kv-cache-dtype, --quantization, --distributed-executor-backend values are in vLLM's choices."""
    specs = vllm_option_specs(VLLM_VERSION)
    rows = matrix[matrix["chosen"]].drop_duplicates(["checkpoint", "precision", "kv_cache_dtype", "plan", "pp"])
    seen: dict[str, set[str]] = {}
    for _, row in rows.iterrows():
        for flag, values in _choice_values(vllm_command(row, catalog)).items():
            seen.setdefault(flag, set()).update(values)
    assert {"--kv-cache-dtype", "--quantization"} <= set(seen)
    for flag, values in seen.items():
        assert values <= set(specs[flag]["choices"]), (flag, values - set(specs[flag]["choices"]))


def test_example_1_command(catalog):
    row = estimate(catalog, Request(model="Qwen/Qwen3-14B-FP8", server="gpu-l40s", kv_cache_dtype="fp8",
                                    max_model_len=32768))
    command = vllm_command(row, catalog)
    assert command.startswith("vllm serve Qwen/Qwen3-14B-FP8 \\\n")
    assert "--max-model-len 32768" in command and "--kv-cache-dtype fp8" in command
    assert "--gpu-memory-utilization 0.90" in command and '--api-key "$VLLM_API_KEY"' in command
    assert "--quantization" not in command  # the checkpoint declares its own quantization
    seqs = int(re.search(r"--max-num-seqs (\d+)", command)[1])
    assert seqs & (seqs - 1) == 0 and seqs <= row["max_num_seqs"]


def test_online_fp8_adds_quantization_and_tp_flags(catalog, matrix):
    online = matrix[matrix["online_quantization"] & (matrix["plan"] == "tp")].iloc[0]
    row = estimate(catalog, Request(model=online["model"], server=online["server"], tensor_parallel_size=2,
                                    quantization="fp8", max_model_len=32768))
    command = vllm_command(row, catalog)
    assert command.startswith(f"vllm serve {online['model']} ")
    assert "--quantization fp8" in command and "--tensor-parallel-size 2" in command


def test_a_published_fp8_checkpoint_is_preferred_to_online_quantization(catalog):
    row = estimate(catalog, Request(model="Qwen/Qwen3-14B", gpu="l40s", quantization="fp8", max_model_len=32768))
    assert row["checkpoint"] == "Qwen/Qwen3-14B-FP8" and "--quantization" not in vllm_command(row, catalog)


@pytest.mark.parametrize("engine_command", [vllm_command, sglang_command])
def test_multi_node_commands_name_their_nodes(catalog, engine_command):
    row = estimate(catalog, Request(model="deepseek-ai/DeepSeek-V3", server="ref-2n-8x-h100", max_model_len=32768,
                                    tensor_parallel_size=8, pipeline_parallel_size=2))
    command = engine_command(row, catalog)
    assert ("--pipeline-parallel-size 2" in command) or ("--nnodes 2" in command)


def test_the_catalog_targets_the_release_whose_flags_are_committed(catalog) -> None:
    """Assert the catalog's default vLLM version is the release of the committed flag lists (one pin)."""
    assert catalog.assume("vllm_version") == VLLM_VERSION
def test_expert_parallel_plan_commands(catalog):
    row = estimate(catalog, Request(model="deepseek-ai/DeepSeek-R1", server="ref-8x-h200", max_model_len=32768,
                                    data_parallel_size=8, enable_expert_parallel=True))
    vllm = vllm_command(row, catalog)
    assert "--data-parallel-size 8" in vllm and "--enable-expert-parallel" in vllm
    assert "--tensor-parallel-size" not in vllm
    sglang = sglang_command(row, catalog)
    assert "--tp-size 8" in sglang and "--dp-size 8" in sglang and "--enable-dp-attention --ep-size 8" in sglang


@pytest.mark.parametrize("extra, flag", [({"limit_mm_per_prompt": 0}, """--limit-mm-per-prompt '{"image": 0}'"""),
                                         ({"language_model_only": True}, "--language-model-only")])
def test_multimodal_serving_modes_reach_the_command(catalog, extra, flag):
    row = estimate(catalog, Request(model="Qwen/Qwen3-VL-30B-A3B-Instruct", gpu="h200", max_model_len=32768, **extra))
    assert flag in vllm_command(row, catalog)
    plain = estimate(catalog, Request(model="Qwen/Qwen3-VL-30B-A3B-Instruct", gpu="h200", max_model_len=32768))
    assert "--limit-mm-per-prompt" not in vllm_command(plain, catalog)
    assert "--language-model-only" not in vllm_command(plain, catalog)
