"""vLLM and SGLang commands: every flag exists in the pinned release; values come from the row."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from sizing.catalog.settings import Settings
from sizing.engine.estimate import estimate, estimate_frame
from sizing.errors import CatalogError, UsageError
from sizing.launch.commands import (
    SGLANG_FLAGS,
    VLLM_FLAGS,
    node_commands,
    served_dtype,
    sglang_command,
    vllm_command,
)
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
    """Assert --kv-cache-dtype, --quantization, --distributed-executor-backend values are in vLLM's
    choices."""
    specs = vllm_option_specs(VLLM_VERSION)
    rows = matrix[matrix["chosen"]].drop_duplicates(
        ["checkpoint", "precision", "kv_cache_dtype", "plan", "pp"]
    )
    seen: dict[str, set[str]] = {}
    for _, row in rows.iterrows():
        for flag, values in _choice_values(vllm_command(row, catalog)).items():
            seen.setdefault(flag, set()).update(values)
    assert {"--kv-cache-dtype", "--quantization"} <= set(seen)
    for flag, values in seen.items():
        assert values <= set(specs[flag]["choices"]), (flag, values - set(specs[flag]["choices"]))


def test_example_1_command(catalog):
    row = estimate(
        catalog,
        Settings(model="Qwen/Qwen3-14B-FP8", server="gpu-l40s", kv_cache_dtype="fp8", max_model_len=32768),
    )
    command = vllm_command(row, catalog)
    assert command.startswith("vllm serve Qwen/Qwen3-14B-FP8 \\\n")
    assert "--max-model-len 32768" in command and "--kv-cache-dtype fp8" in command
    assert "--gpu-memory-utilization 0.90" in command and '--api-key "$VLLM_API_KEY"' in command
    assert "--quantization" not in command  # the checkpoint declares its own quantization
    seqs = int(re.search(r"--max-num-seqs (\d+)", command)[1])
    assert seqs & (seqs - 1) == 0 and seqs <= row["max_num_seqs"]


def test_online_fp8_adds_quantization_and_tp_flags(catalog, matrix):
    online = matrix[matrix["online_quantization"] & (matrix["plan"] == "tp")].iloc[0]
    row = estimate(
        catalog,
        Settings(
            model=online["model"],
            server=online["server"],
            tensor_parallel_size=2,
            quantization="fp8",
            max_model_len=32768,
        ),
    )
    command = vllm_command(row, catalog)
    assert command.startswith(f"vllm serve {online['model']} ")
    assert "--quantization fp8" in command and "--tensor-parallel-size 2" in command


def test_a_published_fp8_checkpoint_is_preferred_to_online_quantization(catalog):
    row = estimate(
        catalog, Settings(model="Qwen/Qwen3-14B", gpu="l40s", quantization="fp8", max_model_len=32768)
    )
    assert row["checkpoint"] == "Qwen/Qwen3-14B-FP8" and "--quantization" not in vllm_command(row, catalog)


@pytest.mark.parametrize("engine_command", [vllm_command, sglang_command])
def test_multi_node_commands_name_their_nodes(catalog, engine_command):
    row = estimate(
        catalog,
        Settings(
            model="deepseek-ai/DeepSeek-V3",
            server="ref-2n-8x-h100",
            max_model_len=32768,
            tensor_parallel_size=8,
            pipeline_parallel_size=2,
        ),
    )
    command = engine_command(row, catalog)
    assert ("--pipeline-parallel-size 2" in command) or ("--nnodes 2" in command)


def test_the_catalog_targets_the_release_whose_flags_are_committed(catalog) -> None:
    """Assert the catalog's default vLLM version is the release of the committed flag lists (one pin)."""
    assert catalog.assume("vllm_version") == VLLM_VERSION


def test_expert_parallel_plan_commands(catalog):
    row = estimate(
        catalog,
        Settings(
            model="deepseek-ai/DeepSeek-R1",
            server="ref-8x-h200",
            max_model_len=32768,
            data_parallel_size=8,
            enable_expert_parallel=True,
        ),
    )
    vllm = vllm_command(row, catalog)
    assert "--data-parallel-size 8" in vllm and "--enable-expert-parallel" in vllm
    assert "--tensor-parallel-size" not in vllm
    sglang = sglang_command(row, catalog)
    assert (
        "--tp-size 8" in sglang and "--dp-size 8" in sglang and "--enable-dp-attention --ep-size 8" in sglang
    )


@pytest.mark.parametrize(
    "extra, flag",
    [
        ({"limit_mm_per_prompt": 0}, """--limit-mm-per-prompt '{"image": 0}'"""),
        ({"language_model_only": True}, "--language-model-only"),
    ],
)
def test_multimodal_serving_modes_reach_the_command(catalog, extra, flag):
    row = estimate(
        catalog, Settings(model="Qwen/Qwen3-VL-30B-A3B-Instruct", gpu="h200", max_model_len=32768, **extra)
    )
    assert flag in vllm_command(row, catalog)
    plain = estimate(
        catalog, Settings(model="Qwen/Qwen3-VL-30B-A3B-Instruct", gpu="h200", max_model_len=32768)
    )
    assert "--limit-mm-per-prompt" not in vllm_command(plain, catalog)
    assert "--language-model-only" not in vllm_command(plain, catalog)


# --- quoting: every command is shell-quoted and runs nothing but the program it names ----------------

HOSTILE = "my model $(touch RAN1); `touch RAN2` 'x' \"y\" & touch RAN3 # z"


def _stub_run(command: str, tmp_path: Path) -> list[str]:
    """Run ``command`` with bash, ``vllm`` and ``python`` replaced by functions that print their arguments
    one per NUL; the arguments the program would have received."""
    out = tmp_path / "args"
    stub = f'vllm() {{ printf "%s\\0" "$@" > {shlex.quote(str(out))}; }}\npython() {{ vllm "$@"; }}\n'
    env = {
        "PATH": os.environ.get("PATH", ""),
        "VLLM_API_KEY": "k$(touch RAN4)",
        "SGLANG_API_KEY": "s;touch RAN5",
    }
    run = subprocess.run(
        ["bash", "-c", stub + command],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=30,
    )
    assert run.returncode == 0, run.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["args"]  # no RAN* file: nothing else ran
    return out.read_text(encoding="utf-8").split("\0")[:-1]


def _hostile_row(catalog) -> pd.Series:
    row = estimate(catalog, Settings(model="Qwen/Qwen3-14B", gpu="l40s", max_model_len=32768)).copy()
    row["checkpoint"] = HOSTILE
    row["spec_method"], row["spec_tokens"], row["spec_draft"] = "eagle3", 2, "org/d'r$(touch RAN6)"
    return row


@pytest.mark.parametrize(
    "engine_command, prefix",
    [(vllm_command, ["serve"]), (sglang_command, ["-m", "sglang.launch_server", "--model-path"])],
)
def test_values_with_shell_syntax_reach_the_program_as_text(catalog, tmp_path, engine_command, prefix):
    args = _stub_run(engine_command(_hostile_row(catalog), catalog), tmp_path)
    assert args[: len(prefix) + 1] == [*prefix, HOSTILE]
    assert ("k$(touch RAN4)" in args) if engine_command is vllm_command else ("s;touch RAN5" in args)
    assert any("org/d'r$(touch RAN6)" in a for a in args)


def test_every_printed_command_of_the_matrix_passes_bash_n(catalog, matrix):
    chosen = matrix[matrix["chosen"]].drop_duplicates(
        ["checkpoint", "precision", "kv_cache_dtype", "plan", "pp"]
    )
    script = "\n".join(
        f(row, catalog) for _, row in chosen.iterrows() for f in (vllm_command, sglang_command)
    )
    run = subprocess.run(
        ["bash", "-n"], input=script, capture_output=True, text=True, check=False, timeout=60
    )
    assert run.returncode == 0, run.stderr


@pytest.mark.parametrize("host", ["a;id", "$(id)", "two words", "-x", ""])
def test_a_host_that_is_not_a_host_is_refused_before_printing(catalog, host):
    row = estimate(catalog, Settings(model="Qwen/Qwen3-14B", gpu="l40s", max_model_len=32768)).copy()
    row["serve_host"] = host or "a\nb"
    with pytest.raises(UsageError, match="not a host name or an IP address"):
        vllm_command(row, catalog)


def test_a_catalog_host_that_is_not_a_host_is_refused_by_file_and_field(catalog):
    row = estimate(catalog, Settings(model="Qwen/Qwen3-14B", gpu="l40s", max_model_len=32768))
    hostile = catalog.assumptions["serve_host"].model_copy(update={"value": "10.0.0.1;id"})
    broken = replace(catalog, assumptions={**catalog.assumptions, "serve_host": hostile})
    with pytest.raises(CatalogError, match="catalog/assumptions.yaml: serve_host.value: must be a host name"):
        sglang_command(row, broken)


@pytest.mark.parametrize(
    "host, shown",
    [
        ("::", "--host :: --port"),
        ("fe80::1", "--host fe80::1"),
        ("gpu-01.example.org", "--host gpu-01.example.org"),
    ],
)
def test_host_names_and_addresses_print_as_given(catalog, host, shown):
    row = estimate(catalog, Settings(model="Qwen/Qwen3-14B", gpu="l40s", max_model_len=32768, host=host))
    assert shown in vllm_command(row, catalog)


def test_a_config_json_prints_its_folder_quoted(catalog, tmp_path):
    folder = tmp_path / "my model $(x)"
    folder.mkdir()
    shutil.copy(
        Path(__file__).resolve().parents[1] / "data" / "hf_configs" / "Qwen--Qwen3-14B.json",
        folder / "weights.json",
    )
    row = estimate(
        catalog, Settings(model=str(folder / "weights.json"), gpu="h100-80gb", max_model_len=32768)
    )
    command = vllm_command(row, catalog)
    assert command.startswith(f"vllm serve {shlex.quote(str(folder))} \\\n") and "local/" not in command


# --- commands equal to what was computed --------------------------------------------------------


def test_expert_parallel_without_sizes_is_printed_and_computed_as_printed(catalog):
    """`--enable-expert-parallel` with no -tp: the chosen plan carries EP, prints the flag, and its numbers
    are
    those of the printed launch (the explicit request of the same sizes)."""
    asked = Settings(model="Qwen/Qwen3-30B-A3B", server="ref-8x-h100", enable_expert_parallel=True)
    row = estimate(catalog, asked)
    assert int(row["ep"]) == int(row["tp"]) * int(row["dp"]) > 1
    assert "--enable-expert-parallel" in vllm_command(row, catalog)
    sizes = {"tensor_parallel_size": int(row["tp"]), "data_parallel_size": int(row["dp"])}
    printed = estimate(catalog, replace(asked, **sizes))
    for column in ("moe_workspace_bytes", "kv_cache_bytes", "weights_bytes", "ep"):
        assert printed[column] == row[column], column


def test_without_the_flag_the_dp_ep_candidate_is_computed_with_expert_parallelism(catalog, matrix):
    frame = estimate_frame(catalog, Settings(model="Qwen/Qwen3-30B-A3B", server="ref-8x-h100"))
    dp_ep = frame[frame["plan"] == "dp-ep"].iloc[0]
    assert bool(dp_ep["expert_parallel"]) and int(dp_ep["ep"]) == 8
    assert frame[frame["plan"] == "tp"]["expert_parallel"].eq(False).all()


@pytest.mark.parametrize(
    "extra, flag",
    [
        ({"enforce_eager": True}, "--enforce-eager"),
        ({"block_size": 32}, "--block-size 32"),
        ({"max_num_batched_tokens": 4096}, "--max-num-batched-tokens 4096"),
        ({"kv_cache_memory_bytes": 2**33}, "--kv-cache-memory-bytes 8589934592"),
        ({"max_num_seqs": 3}, "--max-num-seqs 3"),
    ],
)
def test_every_setting_that_changed_the_computation_is_printed(catalog, extra, flag):
    row = estimate(catalog, Settings(model="Qwen/Qwen3-14B", gpu="h100-80gb", max_model_len=32768, **extra))
    assert flag in vllm_command(row, catalog)
    plain = vllm_command(
        estimate(catalog, Settings(model="Qwen/Qwen3-14B", gpu="h100-80gb", max_model_len=32768)), catalog
    )
    assert flag.split()[0] not in plain or flag.startswith("--max-num-seqs")


def test_sglang_uses_its_own_flags_key_and_the_plan_of_the_label(catalog, matrix):
    chosen = matrix[matrix["chosen"]].drop_duplicates(["plan", "tp", "pp", "dp"])
    for _, row in chosen.iterrows():
        command = sglang_command(row, catalog)
        assert "VLLM_API_KEY" not in command and '--api-key "$SGLANG_API_KEY"' in command
        tp = int(re.search(r"--tp-size (\d+)", command)[1])
        pp = int(m[1]) if (m := re.search(r"--pp-size (\d+)", command)) else 1
        expected_tp = int(row["ep"]) if int(row["ep"]) > 1 else int(row["tp"])
        assert (tp, pp) == (expected_tp, int(row["pp"])), (row["plan"], command)


def test_a_tp_by_pp_plan_runs_tp_and_pp_in_sglang(catalog):
    row = estimate(
        catalog,
        Settings(
            model="deepseek-ai/DeepSeek-V3",
            server="ref-2n-8x-h100",
            max_model_len=32768,
            tensor_parallel_size=8,
            pipeline_parallel_size=2,
        ),
    )
    for rank in (0, 1):
        command = sglang_command(row, catalog, rank)
        assert "--tp-size 8" in command and "--pp-size 2" in command and "--tp-size 16" not in command
        assert f"--nnodes 2 --node-rank {rank} --dist-init-addr" in command
        assert ("--api-key" in command) == (rank == 0)


def test_sglang_refuses_a_setting_it_cannot_express(catalog):
    row = estimate(
        catalog, Settings(model="Qwen/Qwen3-14B", gpu="h100-80gb", max_model_len=32768, block_size=32)
    )
    with pytest.raises(UsageError, match="--block-size: SGLang has no equivalent"):
        sglang_command(row, catalog)


# --- several nodes -----------------------------------------------------------------------------------


def _two_nodes(catalog, **sizes) -> pd.Series:
    return estimate(
        catalog,
        Settings(model="deepseek-ai/DeepSeek-V3", server="ref-2n-8x-h200", max_model_len=32768, **sizes),
    )


def test_a_dp_ep_group_across_nodes_prints_each_node_with_vllms_multi_node_flags(catalog):
    row = _two_nodes(catalog, data_parallel_size=16, enable_expert_parallel=True)
    head, other = vllm_command(row, catalog, 0), vllm_command(row, catalog, 1)
    for command in (head, other):
        assert "--data-parallel-size 16 " in command and "--data-parallel-size-local 8 " in command
        assert f"--data-parallel-address {catalog.assume('serve_host')}" in command
    assert "--headless" not in head and "--api-key" in head
    assert "--headless --data-parallel-start-rank 8" in other and "--api-key" not in other
    text = node_commands(row, catalog)
    assert text.startswith("# node 0 of 2\n") and "\n# node 1 of 2\n" in text
    sglang = sglang_command(row, catalog, 1)
    assert "--nnodes 2 --node-rank 1 --dist-init-addr" in sglang and "--ep-size 16" in sglang


def test_replicas_inside_each_node_print_one_nodes_command(catalog):
    row = estimate(
        catalog,
        Settings(
            model="Qwen/Qwen3-14B",
            server="ref-2n-8x-h100",
            max_model_len=32768,
            tensor_parallel_size=1,
            data_parallel_size=16,
        ),
    )
    assert "--data-parallel-size 8" in vllm_command(row, catalog) and "--nnodes" not in sglang_command(
        row, catalog
    )
    assert "--dp-size 8" in sglang_command(row, catalog)
    assert node_commands(row, catalog).startswith("# the same command on each of the 2 nodes")


def test_every_node_command_of_the_matrix_passes_bash_n(catalog, matrix):
    chosen = matrix[matrix["chosen"] & (matrix["nodes"] > 1)].drop_duplicates(["checkpoint", "plan", "pp"])
    script = "\n".join(
        node_commands(row, catalog, e) for _, row in chosen.iterrows() for e in ("vllm", "sglang")
    )
    run = subprocess.run(
        ["bash", "-n"], input=script, capture_output=True, text=True, check=False, timeout=60
    )
    assert run.returncode == 0 and "--headless" in script, run.stderr


def test_the_printed_dtype_is_the_requests_else_float32_where_the_row_is_sized_in_float32():
    assert served_dtype({"dtype": "auto", "float32": True}) == "float32"
    assert served_dtype({"dtype": "auto", "float32": False}) == "auto"
    assert served_dtype({"float32": True}) == "float32"
    assert served_dtype({"dtype": "half"}) == "half"
