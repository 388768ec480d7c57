"""python -m sizing: every problem of issue 13 by its command, and a table of bad inputs (exit 2, one line).

Most cases call :func:`sizing.cli.main` in this process (fast); the pipe and ``python -m`` cases run a
real subprocess. Expected values come from the engine (``estimate``), never typed in.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sizing.catalog.settings import Settings
from sizing.cli import main
from sizing.engine.estimate import estimate

ROOT = Path(__file__).resolve().parent.parent
M = ("--model", "Qwen/Qwen3-14B", "--server", "gpu-l40s")


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sizing", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of ``main(args)`` in this process."""
    try:
        status = main(list(args))
    except SystemExit as exc:  # argparse's own exits (--help, usage errors)
        status = int(exc.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


def one_line_error(status: int, err: str, expected_status: int = 2) -> None:
    assert status == expected_status, err
    assert err.count("\n") == 1 and err.strip(), err
    assert "Traceback" not in err and len(err) < 400, err


# --- the original checks --------------------------------------------------------------------------


def test_estimate_json_has_the_documented_fields(capsys):
    status, out, err = cli(
        capsys,
        "estimate",
        "--model",
        "Qwen/Qwen3-14B-FP8",
        "--gpu",
        "l40s",
        "--gpu-memory-utilization",
        "0.90",
        "--kv-cache-dtype",
        "fp8",
        "--max-model-len",
        "32768",
        "--json",
    )
    assert status == 0, err
    data = json.loads(out)
    for key in (
        "weights_gib",
        "available_kv_gib",
        "kv_bytes_per_token",
        "num_gpu_blocks",
        "kv_cache_tokens",
        "max_concurrency",
        "fits",
        "vllm_command",
    ):
        assert key in data
    assert data["kv_bytes_per_token"] == 81920 and 14.8 <= data["weights_gib"] <= 15.7
    assert data["available_kv_gib_low"] < data["available_kv_gib"] < data["available_kv_gib_high"]


def test_short_flags_and_gpu_memory_mib(capsys):
    status, out, err = cli(
        capsys,
        "estimate",
        "--model",
        "meta-llama/Llama-3.3-70B-Instruct",
        "--gpu-memory-mib",
        "97887",
        "--gpus",
        "2",
        "-tp",
        "2",
        "--kv-cache-dtype",
        "fp8",
        "--max-model-len",
        "32768",
        "--json",
    )
    assert status == 0, err
    assert json.loads(out)["kv_bytes_per_token"] == 81920


def test_broken_catalog_exits_2_naming_file_entry_and_field(tmp_path, capsys):
    broken = copy_catalog(tmp_path)
    text = (
        (broken / "gpus.yaml")
        .read_text(encoding="utf-8")
        .replace("memory_mib: 46068", "memory_mib: -46068", 1)
    )
    (broken / "gpus.yaml").write_text(text, encoding="utf-8")
    status, _, err = cli(capsys, "--catalog", str(broken), "list", "gpus")
    one_line_error(status, err)
    assert err.strip().endswith("l40s.memory_mib: must be greater than 0, got -46068") and "gpus.yaml" in err


def copy_catalog(tmp_path: Path) -> Path:
    folder = tmp_path / "catalog"
    shutil.copytree(ROOT / "catalog", folder)
    return folder


# --- 1. command never prints a launch that will not start -----------------------------------------


def test_command_prints_the_nearest_launch_that_starts(capsys, catalog):
    """`command --model openai/gpt-oss-120b --gpu h100-80gb`: the estimate advises the highest utilisation."""
    advice = estimate(catalog, Settings(model="openai/gpt-oss-120b", gpu="h100-80gb"))
    assert not advice["fits"] and advice["change"] == "gpu-memory-utilization"
    status, out, err = cli(capsys, "command", "--model", "openai/gpt-oss-120b", "--gpu", "h100-80gb")
    assert status == 0 and f"--gpu-memory-utilization {advice['change_value']}" in out
    assert err.startswith("note:") and err.count("\n") == 1 and "--force" in err
    fixed = estimate(
        catalog,
        Settings(
            model="openai/gpt-oss-120b", gpu="h100-80gb", gpu_memory_utilization=float(advice["change_value"])
        ),
    )
    assert fixed["fits"]


def test_command_force_prints_the_launch_asked_for(capsys, catalog):
    status, out, err = cli(
        capsys, "command", "--model", "openai/gpt-oss-120b", "--gpu", "h100-80gb", "--force"
    )
    context = catalog.models["openai/gpt-oss-120b"].max_context
    assert status == 0 and f"--max-model-len {context}" in out and err == ""


def test_command_exits_1_with_the_reason_when_nothing_fits(capsys):
    """`command --model meta-llama/Llama-3.1-405B-Instruct --gpu rtx-3090`: no launch starts."""
    status, out, err = cli(
        capsys, "command", "--model", "meta-llama/Llama-3.1-405B-Instruct", "--gpu", "rtx-3090"
    )
    one_line_error(status, err, expected_status=1)
    assert out == "" and "GPUs" in err


def test_command_for_a_fitting_case_is_unchanged_and_quiet(capsys):
    status, out, err = cli(
        capsys,
        "command",
        "--model",
        "Qwen/Qwen3-14B-FP8",
        "--server",
        "gpu-l40s",
        "--kv-cache-dtype",
        "fp8",
        "--max-model-len",
        "32768",
    )
    assert status == 0 and out.startswith("vllm serve Qwen/Qwen3-14B-FP8") and err == ""
    assert "--max-model-len 32768" in out


# --- 2. ids: list, any case, suggestions ----------------------------------------------------------


@pytest.mark.parametrize("kind", ["models", "gpus", "servers", "precisions"])
def test_list_prints_every_id(capsys, catalog, kind):
    entries = {
        "models": catalog.models,
        "gpus": catalog.gpus,
        "servers": catalog.servers,
        "precisions": catalog.precisions,
    }[kind]
    status, out, _ = cli(capsys, "list", kind, "--format", "json")
    assert status == 0 and [r["id"] for r in json.loads(out)] == list(entries)
    status, out, _ = cli(capsys, "list", kind, "--format", "csv")
    assert out.splitlines()[0].startswith("id,") and len(out.splitlines()) == len(entries) + 1
    status, out, _ = cli(capsys, "list", kind)
    assert status == 0 and all(i in out for i in entries)


@pytest.mark.parametrize(
    ("flag", "typed", "canonical"),
    [
        ("--gpu", "L40S", "l40s"),
        ("--model", "Qwen/Qwen3-14b", "Qwen/Qwen3-14B"),
        ("--server", "GPU-L40S", "gpu-l40s"),
    ],
)
def test_ids_match_in_any_case(capsys, flag, typed, canonical):
    args = {"--model": "Qwen/Qwen3-14B", "--gpu": None, "--server": None}
    args[flag] = typed
    if flag == "--model":
        args["--gpu"] = "l40s"
    argv = [a for k, v in args.items() if v for a in (k, v)]
    status, out, err = cli(capsys, "estimate", *argv, "--json")
    assert status == 0, err
    data = json.loads(out)
    assert canonical in (data["model"], data["server"], data["checkpoint"])


@pytest.mark.parametrize(
    ("argv", "wanted"),
    [
        (("--model", "Qwen/Qwen3-14B", "--gpu", "h100"), "h100-80gb"),
        (("--model", "Qwen/Qwen3-14B", "--server", "l40s"), "gpu-l40s"),
        (("--model", "qwen3-14b", "--gpu", "l40s"), "Qwen/Qwen3-14B"),
        (("--model", "Qwen/Qwen3-14B", "--gpu", "l40"), "l40s"),
    ],
)
def test_unknown_ids_get_the_closest_ones(capsys, argv, wanted):
    status, _, err = cli(capsys, "estimate", *argv)
    one_line_error(status, err)
    assert "did you mean" in err and wanted in err.split("did you mean", 1)[1]


def test_table_ids_in_any_case(capsys):
    status, out, err = cli(capsys, "table", "--server", "GPU-L40S", "--precision", "FP8", "--format", "csv")
    assert status == 0, err
    rows = out.splitlines()[1:]
    assert rows and all(",gpu-l40s," in r and ",fp8," in r for r in rows)


# --- 3. vLLM's vocabulary: --quantization, --dtype, --host/--port -----------------------------------


@pytest.mark.parametrize(
    ("method", "suffix"),
    [("awq", "-AWQ"), ("awq_marlin", "-AWQ"), ("AWQ", "-AWQ"), ("int4-awq", "-AWQ"), ("fp8", "-FP8")],
)
def test_vllm_quantization_names_pick_the_catalog_checkpoint(capsys, method, suffix):
    status, out, err = cli(capsys, "estimate", *M, "-q", method, "--json")
    assert status == 0, err
    assert json.loads(out)["checkpoint"] == f"Qwen/Qwen3-14B{suffix}"


def test_a_method_the_model_lacks_lists_what_it_has(capsys):
    status, _, err = cli(capsys, "estimate", *M, "-q", "gptq")
    one_line_error(status, err)
    assert "Qwen/Qwen3-14B-AWQ" in err


def test_host_port_and_dtype_reach_the_command(capsys, catalog):
    status, out, _ = cli(
        capsys,
        "command",
        *M,
        "--host",
        "0.0.0.0",  # noqa: S104
        "--port",
        "9001",
        "--dtype",
        "float16",
    )
    assert status == 0 and "--host 0.0.0.0 --port 9001" in out and "--dtype float16" in out
    status, out, _ = cli(capsys, "command", *M)
    assert f"--host {catalog.assume('serve_host')} --port {catalog.assume('serve_port')}" in out
    assert "--dtype" not in out


# --- 4. impossible inputs and tracebacks ----------------------------------------------------------

BIG = "1" + "0" * 30
BAD_INPUTS = [
    ("estimate", *M, "--max-model-len", BIG),
    ("estimate", *M, "--block-size", BIG),
    ("estimate", *M, "--block-size", "7"),
    ("estimate", *M, "--gpu-memory-utilization", "nan"),
    ("estimate", *M, "--gpu-memory-utilization", "inf"),
    ("estimate", *M, "--gpu-memory-utilization", "0"),
    ("estimate", *M, "--gpu-memory-utilization", "-0.5"),
    ("estimate", *M, "--gpu-memory-utilization", "1.5"),
    ("estimate", *M, "--gpu-memory-utilization", "0_9"),
    ("estimate", *M, "--max-model-len", "0"),
    ("estimate", *M, "--max-model-len", "-2"),
    ("estimate", *M, "--max-model-len", "1.5K"),
    ("table", "--max-model-len", "auto", "--users", "2"),
    ("estimate", *M, "--max-model-len", "46068.5"),
    ("estimate", *M, "--max-model-len", "1e30"),
    ("estimate", *M, "--max-model-len", "1000000"),
    ("estimate", *M, "--gpus", "8"),
    ("estimate", *M, "-tp", "3"),
    ("estimate", *M, "-tp", "2"),
    ("estimate", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "l40s", "--gpus", "64", "-pp", "64"),
    ("estimate", "--model", "Qwen/Qwen3-14B", "--gpu-memory-mib", BIG),
    ("estimate", *M, "--kv-cache-memory-bytes", BIG),
    ("estimate", *M, "--max-num-seqs", "1000000000"),
    ("estimate", *M, "--quantization", "bogus"),
    ("estimate", *M, "--dtype", "float32"),
    ("estimate", *M, "--kv-cache-dtype", "int4"),
    ("estimate", *M, "--foo"),
    ("estimate", *M, "--gpu", "l40s"),
    ("estimate", "--model", "Qwen/Qwen3-14B"),
    ("estimate", "--model", "a/" + "b" * 100_000, "--gpu", "l40s"),
    ("estimate", *M, "--vllm-version", "abc"),
    ("command", *M, "--port", "70000"),
    ("command", *M, "--port", "http"),
    ("command", *M, "--host", "two words"),
    ("explain", "--model", "Qwen/Qwen3-14B", "--gpu", "l40s", "--gpu-memory-utilization", "nan"),
    ("table", "--precision", "bogus"),
    ("table", "--format", "html"),
    ("list", "things"),
    ("--foo",),
    ("diff", "HEAD", "--limit", "-1"),
    ("diff", "HEAD", "--max-chars", "-5"),
]


def test_float32_is_taken_where_vllm_runs_the_model_in_float32(capsys):
    """Assert ``--dtype float32``, which the pages print for Gemma 3 on a T4, is accepted there and sizes
    the case as ``--dtype auto`` does (vLLM picks float32 itself), and its command keeps the flag once."""
    case = ("--model", "google/gemma-3-27b-it", "--gpu", "t4", "--gpus", "8")
    auto = json.loads(cli(capsys, "estimate", *case, "--json")[1])
    given = json.loads(cli(capsys, "estimate", *case, "--dtype", "float32", "--json")[1])
    assert (
        given["available_kv_gib"] == auto["available_kv_gib"] and given["weights_gib"] == auto["weights_gib"]
    )
    status, out, _ = cli(capsys, "command", *case, "--dtype", "float32")
    assert status == 0 and out.count("--dtype float32") == 1


@pytest.mark.parametrize("argv", BAD_INPUTS, ids=[" ".join(a)[:60] for a in BAD_INPUTS])
def test_bad_flags_exit_2_with_one_line(capsys, argv):
    status, out, err = cli(capsys, *argv)
    one_line_error(status, err)
    assert out == ""


BAD_CONFIGS = {
    "nan_layers.json": '{"num_hidden_layers": NaN, "hidden_size": 4096}',
    "inf_hidden.json": '{"num_hidden_layers": 32, "hidden_size": Infinity}',
    "empty.json": "",
    "list.json": "[1, 2]",
    "not_json.json": "{num_hidden_layers: 32",
    "missing_keys.json": '{"hidden_size": 4096}',
    "binary.json": "\udcff\udcfe",
}


@pytest.mark.parametrize("name", list(BAD_CONFIGS))
@pytest.mark.parametrize("command", ["import-config", "estimate"])
def test_bad_config_files_exit_2_with_one_line(capsys, tmp_path, name, command):
    path = tmp_path / name
    path.write_bytes(BAD_CONFIGS[name].encode("utf-8", "surrogateescape"))
    argv = (
        [command, str(path)]
        if command == "import-config"
        else [command, "--model", str(path), "--gpu", "l40s"]
    )
    status, out, err = cli(capsys, *argv)
    one_line_error(status, err)
    assert out == ""


def test_bad_input_table_is_large_enough():
    assert len(BAD_INPUTS) + len(BAD_CONFIGS) * 2 >= 30


def test_nan_is_refused_before_computing(capsys):
    """`estimate … --gpu-memory-utilization nan` no longer prints negative blocks or `nan` in a command."""
    status, out, err = cli(capsys, "estimate", *M, "--gpu-memory-utilization", "nan")
    one_line_error(status, err)
    assert "--gpu-memory-utilization" in err and "nan" not in out


def test_export_out_onto_an_existing_file(capsys, tmp_path):
    target = tmp_path / "passwd"
    target.write_text("keep me\n", encoding="utf-8")
    status, _, err = cli(capsys, "export", "--out", str(target))
    one_line_error(status, err)
    assert target.read_text(encoding="utf-8") == "keep me\n"


def test_a_model_folder_is_accepted_like_vllm(capsys, tmp_path):
    folder = tmp_path / "Qwen3-32B-FP8"
    folder.mkdir()
    shutil.copy(ROOT / "tests" / "data" / "hf_configs" / "Qwen--Qwen3-32B-FP8.json", folder / "config.json")
    status, out, err = cli(capsys, "command", "--model", str(folder), "--gpu", "h100-80gb", "--force")
    assert status == 0, err
    assert out.startswith(f"vllm serve {folder}")


@pytest.mark.parametrize("argv", [("export", "--check", "--out", "{tmp}"), ("table", "--format", "markdown")])
def test_a_closed_pipe_ends_quietly(tmp_path, argv):
    """`export --check | head -1` and a long table into `head`: no BrokenPipeError."""
    args = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    proc = subprocess.Popen(
        [sys.executable, "-m", "sizing", *args], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdout is not None and proc.stdout.readline()
    proc.stdout.close()
    _, err = proc.communicate(timeout=120)
    assert b"Traceback" not in err and b"BrokenPipe" not in err


def test_python_dash_m_runs_from_the_repository():
    result = run("list", "precisions", "--format", "csv")
    assert result.returncode == 0 and result.stdout.startswith("id,")


# --- 5. diff against an older catalog -------------------------------------------------------------


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        check=True,
        capture_output=True,
        timeout=60,
    )


def test_diff_fills_assumptions_an_older_catalog_lacks(capsys, tmp_path):
    """`diff <rev before dp_min_capacity_share>` ends in no KeyError; the report says what it filled."""
    catalog = copy_catalog(tmp_path)
    path = catalog / "assumptions.yaml"
    current = path.read_text(encoding="utf-8")
    start = current.index("dp_min_capacity_share:")
    end = current.find("\n\n", start)
    path.write_text(current[:start] + current[end + 2 if end > 0 else len(current) :], encoding="utf-8")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "catalog")
    git(tmp_path, "commit", "-qm", "old")
    path.write_text(current, encoding="utf-8")
    status, out, err = cli(capsys, "--catalog", str(catalog), "diff", "HEAD")
    assert status == 0, err
    assert "predates the assumption(s) `dp_min_capacity_share`" in out and "0 verdict flip(s)" in out


def test_a_catalog_without_a_required_assumption_is_one_line(capsys, tmp_path):
    catalog = copy_catalog(tmp_path)
    path = catalog / "assumptions.yaml"
    text = path.read_text(encoding="utf-8").replace("dp_min_capacity_share:", "dp_min_capacity_shares:", 1)
    path.write_text(text, encoding="utf-8")
    status, _, err = cli(capsys, "--catalog", str(catalog), "list", "gpus")
    one_line_error(status, err)
    assert "dp_min_capacity_share" in err


# --- 6. readable terminal output ------------------------------------------------------------------


def test_estimate_is_a_labelled_summary_within_the_width(capsys, monkeypatch, catalog):
    monkeypatch.setenv("COLUMNS", "80")
    status, out, _ = cli(
        capsys,
        "estimate",
        "--model",
        "Qwen/Qwen3-14B-FP8",
        "--gpu",
        "l40s",
        "--kv-cache-dtype",
        "fp8",
        "--max-model-len",
        "32768",
    )
    row = estimate(
        catalog, Settings(model="Qwen/Qwen3-14B-FP8", gpu="l40s", kv_cache_dtype="fp8", max_model_len=32768)
    )
    assert status == 0
    summary, command = out.split("vllm serve", 1)
    assert "✅" in summary and f"{int(row['kv_cache_tokens']):,} tokens" in summary
    assert "Model loading took" in summary and "GiB" in summary and "KiB" in summary
    assert "{'" not in summary and "no-fit" not in summary and "None" not in summary
    assert all(len(line) <= 80 for line in summary.splitlines())


def test_a_case_that_does_not_fit_says_so_with_the_advice(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    status, out, _ = cli(capsys, "estimate", "--model", "openai/gpt-oss-120b", "--gpu", "h100-80gb")
    assert status == 0 and "❌ will not start" in out and "Try --gpu-memory-utilization 0.95" in out
    assert "will not start; `command` prints the nearest" in out


@pytest.mark.parametrize("width", [80, 100, 120])
def test_text_table_fits_the_terminal(capsys, monkeypatch, width):
    """Every line within the width, every id whole, the chosen context's column kept, no markup; the
    advice shown once the width allows."""
    monkeypatch.setenv("COLUMNS", str(width))
    status, out, _ = cli(capsys, "table", "--server", "gpu-l40s")
    lines = out.splitlines()
    assert status == 0 and "Seqs" in out and "@32K" in out and "<" not in out
    assert any("RedHatAI/Mistral-Small-24B-Instruct-2501-FP8-dynamic" in line for line in lines)
    assert ("Needs 8 GPUs," in out) == (width >= 120)
    assert all(len(line) <= width for line in lines)


@pytest.mark.parametrize("width", [80, 120])
def test_text_table_groups_rows_when_ids_and_servers_do_not_fit_side_by_side(capsys, monkeypatch, width):
    """At 80 columns the whole table lists each checkpoint on a line of its own above its servers."""
    monkeypatch.setenv("COLUMNS", str(width))
    status, out, _ = cli(capsys, "table", "--users", "4", "--max-model-len", "32K")
    assert status == 0 and all(len(line) <= width for line in out.splitlines())
    assert ("Checkpoint: RedHatAI/Mistral-Small-24B-Instruct-2501-FP8-dynamic" in out) == (width == 80)
    assert "RedHatAI/Mistral-Small-24B-Instruct-2501-FP8-dynamic" in out


def test_table_filters_by_context_and_users(capsys):
    """The acceptance query: only servers holding at least 8 requests of 32768 tokens, each with sequences."""
    status, out, _ = cli(
        capsys,
        "table",
        "--model",
        "deepseek-ai/DeepSeek-R1",
        "--max-model-len",
        "32768",
        "--users",
        "8",
        "--format",
        "json",
    )
    rows = json.loads(out)
    assert status == 0 and rows and all(r["sequences"] >= 8 and r["context"] == 32768 for r in rows)
    assert {"server", "plan", "sequences", "price_usd_month", "command"} <= set(rows[0])
    assert all(
        r["command"].startswith("vllm serve ") and "--max-model-len 32768" in r["command"] for r in rows
    )
    status, fewer, _ = cli(
        capsys,
        "table",
        "--model",
        "deepseek-ai/DeepSeek-R1",
        "--max-model-len",
        "32K",
        "--users",
        "400",
        "--format",
        "json",
    )
    assert 0 < len(json.loads(fewer)) < len(rows) and json.loads(fewer)[0]["context"] == 32768


def test_table_sorts_and_sizes_a_node_the_catalog_lacks(capsys):
    """ "Largest model on 4× RTX 4090 at 16K" in one call: a 4-GPU node sized, rows by parameters."""
    status, out, err = cli(
        capsys,
        "table",
        "--gpu",
        "RTX-4090",
        "--gpus",
        "4",
        "--max-model-len",
        "16K",
        "--users",
        "1",
        "--sort",
        "params",
        "--format",
        "json",
    )
    rows = json.loads(out)
    assert status == 0 and "no catalog server has 4 × rtx-4090" in err
    assert rows and {r["server"] for r in rows} == {"4x-rtx-4090"} and rows[0]["context"] == 16384
    params = [r["params_b"] for r in rows]
    assert params == sorted(params, reverse=True) and all(r["sequences"] >= 1 for r in rows)
    status, out, _ = cli(capsys, "table", "--server", "gpu-l40s", "--sort", "sequences", "--format", "json")
    seqs = [r["sequences"] for r in json.loads(out)]
    assert seqs == sorted(seqs, reverse=True) and json.loads(out)[0]["price_usd_month"] == 979.0


def test_max_model_len_auto_fits_the_kv_cache(capsys):
    """`--max-model-len auto` (vLLM's -1) prints the longest context that starts, as vLLM's auto-fit does."""
    status, out, _ = cli(
        capsys, "command", "--model", "openai/gpt-oss-120b", "--gpu", "h100-80gb", "--max-model-len", "auto"
    )
    status2, nearest, _ = cli(
        capsys, "estimate", "--model", "openai/gpt-oss-120b", "--gpu", "h100-80gb", "--json"
    )
    assert status == status2 == 0
    longest = json.loads(nearest)["longest_context"]
    assert f"--max-model-len {longest}" in out


def test_machine_formats_are_unchanged(capsys):
    status, out, _ = cli(capsys, "table", "--server", "gpu-l40s", "--format", "csv")
    assert status == 0 and out.splitlines()[0].startswith("model,checkpoint,precision,server")


# --- 7. the README's examples are real output -----------------------------------------------------


def readme_examples() -> list[tuple[str, list[str]]]:
    """(command, expected output lines) of every `$ python -m sizing …` in the README's console blocks."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    examples: list[tuple[str, list[str]]] = []
    for block in text.split("```console\n")[1:]:
        for line in block.split("\n```", 1)[0].splitlines():
            if line.startswith("$ python -m sizing "):
                examples.append((line.removeprefix("$ python -m sizing "), []))
            elif examples:
                examples[-1][1].append(line)
    return examples


def test_readme_shows_list_a_suggestion_and_a_command_that_does_not_fit():
    commands = [c for c, _ in readme_examples()]
    assert any(c.startswith("list ") for c in commands)
    assert any("did you mean" in "\n".join(out) for _, out in readme_examples())
    assert sum(c.startswith("command ") for c in commands) >= 2


@pytest.mark.parametrize(("command", "expected"), readme_examples(), ids=[c for c, _ in readme_examples()])
def test_readme_console_output_is_real(capsys, monkeypatch, command, expected):
    import shlex

    monkeypatch.setenv("COLUMNS", "100")
    _, out, err = cli(capsys, *shlex.split(command))
    lines = (err + out).splitlines()
    shown = expected[: expected.index("…")] if "…" in expected else expected
    assert lines[: len(shown)] == shown
    if "…" not in expected:
        assert len(lines) == len(shown)


# --- 8. shell completion --------------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_bash_completion_completes_commands_and_catalog_ids(capsys, tmp_path, catalog):
    status, out, _ = cli(capsys, "completion", "bash")
    assert status == 0
    script = tmp_path / "sizing.bash"
    script.write_text(out, encoding="utf-8")

    def complete(*words: str) -> list[str]:
        array = " ".join(f"'{w}'" for w in ("sizing", *words))
        probe = (
            f"source {script}; COMP_WORDS=({array}); COMP_CWORD={len(words)}; _sizing_complete; "
            'printf "%s\\n" "${COMPREPLY[@]}"'
        )
        done = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, check=True)
        return done.stdout.split()

    assert complete("est") == ["estimate"]
    assert complete("estimate", "--gpu", "h100") == [g for g in catalog.gpus if g.startswith("h100")]
    assert "Qwen/Qwen3-14B-AWQ" in complete("command", "--model", "Qwen/Qwen3-14")
    assert complete("list", "gp") == ["gpus"]


@pytest.mark.parametrize("value", ["{not json", '{"method": "lookahead"}'])
def test_bad_speculative_config_exits_2_with_one_line(capsys, value):
    status, _, err = cli(
        capsys, "estimate", "--model", "Qwen/Qwen3.6-27B", "--gpu", "h100-80gb", "--speculative-config", value
    )
    one_line_error(status, err)
    assert "--speculative-config" in err


def test_explain_follows_the_version_asked_for(capsys, catalog):
    """``explain --vllm-version`` names that release and subtracts its CUDA-graph estimate, as the
    row computed for that release does (the step's figures add up to the printed result)."""
    args = ("--model", "Qwen/Qwen3-14B", "--gpu", "l40s", "--vllm-version", "0.30.0")
    status, out, _ = cli(capsys, "explain", *args)
    row = estimate(catalog, Settings(model="Qwen/Qwen3-14B", gpu="l40s", vllm_version="0.30.0"))
    assert status == 0 and "vLLM 0.30.0" in out
    step = next(line for line in out.splitlines() if "“Available KV cache memory”" in line)
    graphs = f"{float(row['cudagraph_bytes']) / 2**30:.2f} GiB"
    assert float(row["cudagraph_bytes"]) > 0 and step.count(" − ") == 4 and graphs in step


@pytest.mark.parametrize("model", ["Qwen/Qwen3-14B", "Qwen/Qwen3-8B"])
def test_the_verdict_counts_requests_in_the_right_plural_form(capsys, catalog, model):
    """One whole request is "1 request", more are "N requests" (CLDR's English rule, not an added "s");
    on an L40S the 14B model holds one 40,960-token request, the 8B several."""
    status, out, _ = cli(capsys, "estimate", "--model", model, "--gpu", "l40s")
    row = estimate(catalog, Settings(model=model, gpu="l40s"))
    whole = int(row["max_concurrency"]) * int(row["dp"])
    noun = "request" if whole == 1 else "requests"
    assert status == 0 and f"starts: {whole:,} {noun} of {int(row['max_model_len']):,} tokens at once" in out


DSV4_FLASH = str(ROOT / "tests" / "data" / "hf_configs" / "deepseek-ai--DeepSeek-V4-Flash.json")


def test_estimate_prints_deepseek_v4s_concurrency_as_vllm_does(capsys, catalog):
    args = ("--model", DSV4_FLASH, "--gpu", "h200", "--gpus", "8", "--tensor-parallel-size", "8")
    status, out, err = cli(capsys, "estimate", *args, "--max-model-len", "131072")
    assert status == 0, err
    row = estimate(
        catalog, Settings(model=DSV4_FLASH, gpu="h200", gpus=8, tensor_parallel_size=8, max_model_len=131072)
    )
    assert row["blocks_per_request"] == 3866
    line = next(
        x for x in out.splitlines() if x.startswith("Maximum concurrency for 131,072 tokens per request")
    )
    assert line.split()[-1] == f"{row['max_concurrency']:.2f}x"


def test_estimate_refuses_deepseek_v4_on_sm120_in_one_line(capsys):
    status, _, err = cli(
        capsys, "estimate", "--model", DSV4_FLASH, "--gpu", "rtx-pro-6000-blackwell", "--gpus", "8"
    )
    assert status == 2
    assert err.count("\n") == 1 and "compute capability 12.0" in err and "DeepSeek-V4" in err
