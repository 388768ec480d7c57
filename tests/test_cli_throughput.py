"""``python -m sizing throughput``: the vllm bench serve contract, refusals and bad values."""

from __future__ import annotations

import json
import shlex

import pytest

from sizing.cli import main

CASE = ("--model", "Qwen/Qwen3-14B-FP8", "--server", "gpu-l40s")


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        status = main(list(args))
    except SystemExit as exc:  # argparse refuses a value
        status = int(exc.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


def test_json_has_the_bench_serve_keys_and_bands(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = cli(
        capsys, "throughput", *CASE, "--max-concurrency", "16", "--num-prompts", "160", "--json"
    )
    rec = json.loads(out)
    assert status == 0
    for key in (
        "request_throughput",
        "output_throughput",
        "total_token_throughput",
        "mean_ttft_ms",
        "mean_tpot_ms",
        "limited_by",
        "usd_per_million_output_tokens",
    ):
        assert key in rec
    for key in ("output_throughput", "mean_tpot_ms", "mean_ttft_ms", "usd_per_million_output_tokens"):
        assert rec[f"{key}_low"] < rec[key] < rec[f"{key}_high"]
    assert rec["total_token_throughput"] == pytest.approx(2 * rec["output_throughput"])  # 1024 in, 1024 out
    assert rec["request_throughput"] == pytest.approx(rec["output_throughput"] / 1024)
    assert 10 < rec["mean_tpot_ms"] < 100 and rec["limited_by"] == "bandwidth"
    words = shlex.split(rec["vllm_bench_command"])
    assert words[:3] == ["vllm", "bench", "serve"] and words[words.index("--max-concurrency") + 1] == "16"


def test_text_ends_with_the_measuring_command(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = cli(capsys, "throughput", *CASE, "--max-concurrency", "4", "--num-prompts", "40")
    lines = out.strip().splitlines()
    assert status == 0 and "Output token throughput (tok/s):" in out and "Mean TPOT (ms):" in out
    assert lines[-1].startswith("vllm bench serve --model Qwen/Qwen3-14B-FP8 ")


def test_more_clients_more_throughput_slower_users(capsys: pytest.CaptureFixture[str]) -> None:
    _, one, _ = cli(capsys, "throughput", *CASE, "--max-concurrency", "1", "--num-prompts", "10", "--json")
    _, many, _ = cli(capsys, "throughput", *CASE, "--max-concurrency", "64", "--num-prompts", "640", "--json")
    a, b = json.loads(one), json.loads(many)
    assert b["output_throughput"] > 10 * a["output_throughput"] and b["mean_tpot_ms"] > a["mean_tpot_ms"]


def test_a_request_rate_caps_the_throughput(capsys: pytest.CaptureFixture[str]) -> None:
    args = "throughput --request-rate 0.25 --max-concurrency 64 --num-prompts 100 --json".split()
    _, out, _ = cli(capsys, *args, *CASE)
    rec = json.loads(out)
    assert rec["output_throughput"] == pytest.approx(256) and rec["output_throughput_high"] <= 256 + 1e-9


@pytest.mark.parametrize(
    "args",
    [
        ("--random-input-len", "0"),
        ("--request-rate", "-1"),
        ("--request-rate", "x"),
        ("--num-prompts", "1.5"),
        ("--random-input-len", "40000"),
    ],
)
def test_bad_values_one_line_exit_2(capsys: pytest.CaptureFixture[str], args: tuple[str, ...]) -> None:
    status, out, err = cli(capsys, "throughput", *CASE, *args)
    assert status == 2 and out == "" and len(err.strip().splitlines()) == 1


def test_a_gpu_without_peaks_is_refused_by_name(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = cli(
        capsys, "throughput", "--model", "Qwen/Qwen3-8B", "--gpu", "rtx-3090", "--max-model-len", "8192"
    )
    assert status == 1 and "rtx-3090" in err and "tflops_dense" in err


def test_an_uncalibrated_class_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    args = "--model Qwen/Qwen3-Next-80B-A3B-Instruct --gpu h200 --gpus 2 --max-concurrency 4 --num-prompts 8"
    status, out, _ = cli(capsys, "throughput", *args.split())
    assert status == 0 and "Not calibrated" in out and "band" not in out.split("Mean TPOT")[1].splitlines()[0]
