"""python -m sizing: JSON estimate, tables, errors with exit status 2 and one line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sizing", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, check=False)


def test_estimate_json_has_the_documented_fields():
    result = run("estimate", "--model", "Qwen/Qwen3-14B-FP8", "--gpu", "l40s", "--gpu-memory-utilization", "0.90",
                 "--kv-cache-dtype", "fp8", "--max-model-len", "32768", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    for key in ("weights_gib", "available_kv_gib", "kv_bytes_per_token", "num_gpu_blocks", "kv_cache_tokens",
                "max_concurrency", "fits", "vllm_command"):
        assert key in data
    assert data["kv_bytes_per_token"] == 81920 and 14.8 <= data["weights_gib"] <= 15.7
    assert data["available_kv_gib_low"] < data["available_kv_gib"] < data["available_kv_gib_high"]


def test_short_flags_and_gpu_memory_mib():
    result = run("estimate", "--model", "meta-llama/Llama-3.3-70B-Instruct", "--gpu-memory-mib", "97887",
                 "--gpus", "2", "-tp", "2", "--kv-cache-dtype", "fp8", "--max-model-len", "32768", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["kv_bytes_per_token"] == 81920


def test_bad_argument_exits_2_with_one_line():
    result = run("estimate", "--model", "Qwen/Qwen3-14B", "--gpu", "no-such-gpu")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "no-such-gpu" in result.stderr and "Traceback" not in result.stderr


def test_broken_catalog_exits_2_naming_file_entry_and_field(tmp_path):
    broken = tmp_path / "catalog"
    broken.mkdir()
    for path in (ROOT / "catalog").glob("*.yaml"):
        (broken / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    text = (broken / "gpus.yaml").read_text(encoding="utf-8").replace("memory_mib: 46068", "memory_mib: -46068", 1)
    (broken / "gpus.yaml").write_text(text, encoding="utf-8")
    result = run("--catalog", str(broken), "table")
    assert result.returncode == 2
    assert result.stderr.strip().endswith("l40s.memory_mib: must be greater than 0, got -46068")
    assert "gpus.yaml" in result.stderr and result.stderr.count("\n") == 1


def test_command_prints_a_vllm_command():
    result = run("command", "--model", "Qwen/Qwen3-14B-FP8", "--server", "gpu-l40s", "--kv-cache-dtype", "fp8",
                 "--max-model-len", "32768")
    assert result.returncode == 0 and result.stdout.startswith("vllm serve Qwen/Qwen3-14B-FP8")
