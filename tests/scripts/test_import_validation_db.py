"""Tests for scripts/import_validation_db.py: held-back groups dropped first, one log schema, stable ids."""

from __future__ import annotations

from typing import Any

import pytest

from scripts import import_validation_db as vdb

HELD = {("org/held", "H200", 4)}


def record(
    uuid: str,
    model: str = "meta-llama/Llama-3.3-70B-Instruct",
    accelerator: str = "H200",
    tp: int = 4,
    **memory: Any,
) -> dict[str, Any]:
    """A database record shaped as the source's (values made up for the test)."""
    return {
        "uuid": uuid,
        "csv_metadata": {
            "model": model,
            "accelerator": accelerator,
            "tp": tp,
            "dp": None,
            "runtime_args": f"max-model-len: 8192; tensor-parallel-size: {tp}; "
            "gpu-memory-utilization: 0.92; enable-expert-parallel: True",
        },
        "log_config": {
            "model": model,
            "dtype": "bfloat16",
            "max_seq_len": 8192,
            "tensor_parallel_size": tp,
            "pipeline_parallel_size": 1,
            "quantization": None,
            "kv_cache_dtype": "auto",
            "enforce_eager": False,
            "vllm_version": "v0.18.0+rhaiv.0",
        },
        "log_memory": {
            "model_load_gib": 32.9,
            "available_kv_cache_gib": 90.1,
            "kv_cache_tokens": 1000,
            "max_concurrency_tokens": 8192,
            "max_concurrency_ratio": 1.5,
            "cudagraph_gib": 0.05,
            "gpu_memory_utilization": 0.92,
            **memory,
        },
    }


def test_held_back_groups_are_dropped_under_any_model_or_tp_field_they_carry():
    records = {
        "a": record("a" * 36),
        "b": record("b" * 36, model="org/held"),
        "c": {**record("c" * 36), "estimator_inputs": {"model_id": "org/held"}},
    }
    assert [r["uuid"] for r in vdb.usable(records, HELD)] == ["a" * 36]


def test_a_record_becomes_a_log_and_a_case_with_the_release_it_belongs_to():
    rec = record("0293038b-cc5b-4ff7-bb01-b0e9b6a8a20e")
    logs, cases = vdb.convert([rec], known=set())
    log = logs[0]
    assert log["id"] == "vdb-llama-3.3-70b-instruct-h200-tp4-v0180-mml8192-0293038b"
    assert log["source"].endswith("validation_db.json record 0293038b-cc5b-4ff7-bb01-b0e9b6a8a20e")
    assert set(log) >= set(vdb.LOG_FIELDS) - {"config"}
    spec = cases["cases"][log["id"]]
    assert spec == {
        "gpu": "h200",
        "model": "meta-llama/Llama-3.3-70B-Instruct",
        "total_mib": 143771,
        "version": "0.18.0",
        "entrypoint": "serve",
        "enable_expert_parallel": True,
        "checks": ["weights", "available_kv", "concurrency", "tokens"],
    }  # 0.05 GiB of graphs: none


def test_rocm_runs_are_reproduced_on_the_catalog_mi300x_and_unknown_models_explained():
    logs, cases = vdb.convert(
        [record("1" * 36, accelerator="MI300X", tp=1), record("2" * 36, model="org/new")], known={"3" * 36}
    )
    assert [entry["kind"] for entry in cases["skipped"].values()] == ["no-config"]
    (rocm,) = cases["cases"].values()
    assert rocm["gpu"] == "mi300x" and rocm["total_mib"] == 196592
    assert vdb.convert([record("3" * 36)], known={"3" * 36}) == ([], {"cases": {}, "skipped": {}})


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("v0.11.2+rhai1", "0.11.2"),
        ("v0.13.1.dev8+g2841a84ac", "0.13.1"),
        ("v0.18.2rc1.dev73+gdb7a17ecc", "0.18.2"),
    ],
)
def test_release_reads_build_strings(text, want):
    assert vdb.release(text) == want


def test_an_unreadable_release_is_an_error():
    with pytest.raises(ValueError, match="unreadable vLLM version"):
        vdb.release("main")


def test_the_launch_flag_not_the_harness_field_gives_the_memory_utilization():
    # The harness field says 0.9 where the server was launched with 0.92 (records 503ed05a, 92c29aef).
    assert vdb.log_entry(record("d" * 36, gpu_memory_utilization=0.9))["gpu_memory_utilization"] == 0.92
    bare = record("e" * 36, gpu_memory_utilization=0.9)
    bare["csv_metadata"]["runtime_args"] = "max-model-len: 8192"
    assert vdb.log_entry(bare)["gpu_memory_utilization"] == 0.9
