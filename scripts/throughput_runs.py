"""Published measured vLLM serving runs, mapped onto the catalog for the throughput calibration.

Sources (``calibration/throughput_runs/README.md``), one schema, aiconfigurator's column names:
``aiconfigurator_vllm_agg.csv``, the vLLM aggregated-serving rows of NVIDIA aiconfigurator's
``systems/silicon_sample.csv`` (Apache-2.0, licence in ``aiconfigurator.LICENSE``; data only, none of its
code), and ``public_runs.csv``, runs of other publishers, each with its ``source_url``. Each row is one
serving-benchmark run at fixed ISL/OSL and concurrency per data-parallel rank (``batch_size``), with mean
TTFT and TPOT (ms). Output tokens/s is derived from them for the closed loop:
``C · OSL / (TTFT + (OSL − 1) · TPOT)``.

The sources named in ``held_back_throughput.yaml`` are not among these rows and are never read here.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from sizing.catalog.loader import Catalog
from sizing.catalog.settings import Settings
from sizing.engine.estimate import estimate_frame
from sizing.errors import UsageError

ROOT = Path(__file__).resolve().parents[1]
RUNS_DIR = ROOT / "calibration" / "throughput_runs"
RUNS = (RUNS_DIR / "aiconfigurator_vllm_agg.csv", RUNS_DIR / "public_runs.csv")
AICONFIGURATOR_URL = "https://github.com/ai-dynamo/aiconfigurator"

CHECKPOINTS = {
    ("MiniMaxAI/MiniMax-M2.5", "fp8"): "MiniMaxAI/MiniMax-M2.5",
    ("openai/gpt-oss-120b", "nvfp4"): "openai/gpt-oss-120b",
    ("meta-llama/Llama-3.1-70B", "fp8"): "nvidia/Llama-3.3-70B-Instruct-FP8",
    ("meta-llama/Llama-3.1-70B", "nvfp4"): "nvidia/Llama-3.3-70B-Instruct-FP4",
    ("moonshotai/Kimi-K2.5", "nvfp4"): "nvidia/Kimi-K2.5-NVFP4",
    ("moonshotai/Kimi-K2.5", "int4_wo"): "moonshotai/Kimi-K2.5",
    ("Qwen/Qwen3-32B", ""): "Qwen/Qwen3-32B",
    ("Qwen/Qwen3-32B", "fp8"): "Qwen/Qwen3-32B-FP8",
    ("Qwen/Qwen3-235B-A22B-FP8", "fp8"): "Qwen/Qwen3-235B-A22B-FP8",
    ("nvidia/Llama-3.1-8B-Instruct-FP8", "fp8"): "RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8",
    ("deepseek-ai/DeepSeek-R1", "fp8"): "deepseek-ai/DeepSeek-R1",
}
"""(model_path, gemm_quant_mode) -> the catalog checkpoint of that model and format (Llama 3.1 70B is
served as 3.3 70B: the same architecture and sizes). MiniMax-M2.5 NVFP4 has no catalog checkpoint: skipped."""

GPUS = {
    "h100_sxm": "h100-80gb",
    "h200_sxm": "h200",
    "b200_sxm": "b200",
    "b300_sxm": "b300",
    "mi300x": "mi300x",
}


@dataclass(frozen=True)
class Runs:
    """The measured runs (one row each) and, aligned with them, the evaluated row of their deployment."""

    runs: pd.DataFrame
    deployments: pd.DataFrame


def campaign(source: str) -> str:
    """The measuring campaign of a row (its dump or source file), the unit the errors are grouped by."""
    first = source.split(";")[0].strip()
    return re.sub(r"^source_file=(.*/)?", "", first)


def publisher(url: str) -> str:
    """Who published a run: ``owner/repo`` of a GitHub address, else the address's host."""
    match = re.match(r"https?://(?:www\.)?github\.com/([^/]+/[^/]+)", url)
    return match[1] if match else re.sub(r"^https?://(?:www\.)?([^/]+).*$", r"\1", url)


def read_csv(path: Path) -> pd.DataFrame:
    """One runs file as text columns; a file without ``source_url`` is aiconfigurator's."""
    with path.open(newline="", encoding="utf-8") as f:
        raw = pd.DataFrame(list(csv.DictReader(f)))
    if "source_url" not in raw:
        raw["source_url"] = AICONFIGURATOR_URL
    return raw


def read_runs(paths: tuple[Path, ...] = RUNS) -> pd.DataFrame:
    """The usable rows: a catalog checkpoint and GPU, one pipeline stage, TTFT and TPOT present."""
    raw = pd.concat([read_csv(p) for p in paths], ignore_index=True).fillna("")
    raw["publisher"] = raw["source_url"].map(publisher)
    raw["checkpoint"] = [
        CHECKPOINTS.get((m, q), "") for m, q in zip(raw["model_path"], raw["gemm_quant_mode"])
    ]
    raw["gpu"] = raw["system"].map(GPUS).fillna("")
    keep = (raw["checkpoint"] != "") & (raw["gpu"] != "") & (raw["pp_size"] == "1")
    runs = measured(raw[keep].copy())
    runs["campaign"] = runs["silicon_data_source"].map(campaign)
    runs["v1"] = runs["backend_version"].map(engine_v1)
    runs["weight"] = duplicate_weights(runs)
    return runs.reset_index(drop=True)


def measured(runs: pd.DataFrame) -> pd.DataFrame:
    """Typed shape and results: concurrency over all data-parallel ranks (``batch_size`` is per rank, the
    runs' ids carry the total), TTFT and TPOT in seconds, closed-loop output tokens/s."""
    for name in ("isl", "osl", "batch_size", "tp_size"):
        runs[name] = runs[name].astype(int)
    runs["dp"] = runs["attention_dp_size"].replace("", "1").astype(int)
    runs["ep"] = runs["moe_ep_size"].replace("", "1").astype(int)
    runs["concurrency"] = runs["batch_size"] * runs["dp"]
    runs["ttft_s"] = runs["silicon_ttft_ms"].astype(float) / 1000
    runs["tpot_s"] = runs["silicon_tpot_ms"].astype(float) / 1000
    runs["output_tps"] = (
        runs["concurrency"] * runs["osl"] / (runs["ttft_s"] + (runs["osl"] - 1) * runs["tpot_s"])
    )
    return runs


def engine_v1(version: str) -> bool:
    """Whether a vLLM release runs the V1 engine the model describes by default (0.8 and later; a
    nightly or unnamed release counts as recent)."""
    match = re.match(r"(\d+)\.(\d+)", version)
    return match is None or (int(match[1]), int(match[2])) >= (0, 8)


DUPLICATE_KEY = ("checkpoint", "gpu", "tp_size", "dp", "ep", "isl", "osl", "concurrency")
"""Runs that agree on all of these measure the same point (again, by another campaign or vLLM release)."""


def duplicate_weights(runs: pd.DataFrame) -> np.ndarray:
    """1 / the size of each run's near-duplicate group (:data:`DUPLICATE_KEY`), so that the fit counts every
    measured point once however often it was repeated, as the memory calibration does."""
    return 1.0 / runs.groupby(list(DUPLICATE_KEY))["isl"].transform("size").to_numpy(float)


def deployment(cat: Catalog, checkpoint: str, gpu: str, tp: int, dp: int, ep: int, length: int) -> pd.Series:
    """The evaluated row of one measured deployment (explicit TP, DP and expert parallelism)."""
    req = Settings(
        model=checkpoint,
        gpu=gpu,
        gpus=tp * dp,
        tensor_parallel_size=tp,
        pipeline_parallel_size=1,
        data_parallel_size=dp,
        enable_expert_parallel=ep > 1,
        max_model_len=length,
    )
    frame = estimate_frame(cat, req)
    return frame.iloc[0]


def evaluate_runs(cat: Catalog, runs: pd.DataFrame) -> Runs:
    """Each run with the evaluated row of its deployment; runs whose deployment does not start are dropped."""
    keys = ["checkpoint", "gpu", "tp_size", "dp", "ep"]
    rows, keep = {}, np.ones(len(runs), bool)
    for key, group in runs.groupby(keys, sort=True):
        length = int(np.ceil((group["isl"] + group["osl"]).max() / 1024 + 1) * 1024)
        try:
            row = deployment(cat, *key, length=length)  # type: ignore[misc]
        except UsageError:
            row = None
        if row is None or not bool(row["fits"]):
            keep[group.index] = False
            continue
        rows[key] = row
    kept = runs[keep].reset_index(drop=True)
    deployments = pd.DataFrame([rows[tuple(k)] for k in kept[keys].itertuples(index=False)]).reset_index(
        drop=True
    )
    deployments["max_num_seqs"] = np.maximum(deployments["max_num_seqs"], kept["concurrency"] / kept["dp"])
    return Runs(kept, deployments)
