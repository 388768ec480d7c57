"""Tests for scripts.throughput_runs: reading the measured runs of every source in one schema."""

from __future__ import annotations

from pathlib import Path

import pytest

from scripts.throughput_runs import RUNS, engine_v1, publisher, read_runs

HEADER = (
    "id,silicon_data_source,backend_version,model_path,system,precision,gemm_quant_mode,isl,osl,batch_size,"
    "tp_size,pp_size,attention_dp_size,moe_ep_size,silicon_ttft_ms,silicon_tpot_ms"
)


def test_publisher_is_the_repository_or_the_host() -> None:
    assert publisher("https://github.com/dstackai/benchmarks/blob/abc/x.csv") == "dstackai/benchmarks"
    assert publisher("https://docs.vultr.com/inference-cookbook/cuda") == "docs.vultr.com"


def test_engine_v1_from_the_release() -> None:
    assert [engine_v1(v) for v in ("0.7.4.dev181", "0.8.0", "0.19.0", "", "nightly-5b8c")] == [
        False,
        True,
        True,
        True,
        True,
    ]


def test_data_parallel_runs_count_every_rank_and_duplicates_count_once(tmp_path: Path) -> None:
    rows = [
        "a,x,0.19.0,MiniMaxAI/MiniMax-M2.5,b200_sxm,fp8,fp8,1024,1024,64,2,1,4,8,100,10",
        "b,y,0.19.0,MiniMaxAI/MiniMax-M2.5,b200_sxm,fp8,fp8,1024,1024,64,2,1,4,8,110,11",
        "c,z,0.19.0,MiniMaxAI/MiniMax-M2.5,b200_sxm,fp8,fp8,1024,1024,64,2,1,1,1,100,10",
        "d,z,0.19.0,unknown/model,b200_sxm,fp8,fp8,1024,1024,64,2,1,1,1,100,10",
    ]
    path = tmp_path / "runs.csv"
    path.write_text("\n".join([HEADER, *rows]) + "\n", encoding="utf-8")
    runs = read_runs((path,))
    assert runs["id"].tolist() == ["a", "b", "c"]  # a model outside the catalog is skipped
    assert runs["concurrency"].tolist() == [256, 256, 64]
    assert runs["weight"].tolist() == [0.5, 0.5, 1.0]
    assert runs["output_tps"][0] == pytest.approx(256 * 1024 / (0.1 + 1023 * 0.01))
    assert set(runs["publisher"]) == {"ai-dynamo/aiconfigurator"}


def test_every_committed_source_names_where_its_numbers_are() -> None:
    runs = read_runs(RUNS)
    assert runs["publisher"].nunique() >= 3 and len(runs) >= 200
    assert runs["source_url"].str.startswith("https://").all()


def test_the_mi300x_runs_map_to_the_catalog_gpu_and_are_scored_not_fitted() -> None:
    runs = read_runs(RUNS)
    amd = runs[runs["system"] == "mi300x"]
    assert len(amd) == 9 and set(amd["gpu"]) == {"mi300x"}
    assert not amd["v1"].any()  # vLLM 0.7.3 runs the V0 engine: scored, left out of the fit
    c128 = amd[amd["id"] == "dstack_deepseek_r1_mi300x_vllm_fp8_3200x800_c128"].iloc[0]
    assert c128["output_tps"] == pytest.approx(128 * 800 / (22.24564614 + 799 * 0.1090719536))
