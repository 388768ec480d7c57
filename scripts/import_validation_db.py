"""Convert the public validation database of vllm-memory-estimator into the project's calibration logs.

    git --git-dir=<snapshot> show 8b0e21d:test_data/validation_db.json > /tmp/validation_db.json
    python -m scripts.import_validation_db /tmp/validation_db.json

Source: github.com/ashishkamra/vllm-memory-estimator at commit 8b0e21d, ``test_data/validation_db.json``
(records parsed from vLLM start-up logs by that project's harness). The held-back groups
(``calibration/held_back.yaml``: model × accelerator × tensor-parallel size) are dropped FIRST, before
any other field of a record is read, so nothing downstream ever sees them; records already in
``calibration/vllm_logs.yaml`` (same record id) are dropped too. Writes, deterministically:

- ``calibration/validation_db_logs.yaml``: the logs, in the schema of ``vllm_logs.yaml``;
- ``calibration/validation_db_cases.yaml``: how each is reproduced (the schema of ``cases.yaml``), or why not.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

import yaml

from sizing import safeio
from sizing.errors import CatalogError

ROOT = Path(__file__).resolve().parent.parent
DIR = ROOT / "calibration"
COMMIT = "8b0e21d"
SOURCE = f"github.com/ashishkamra/vllm-memory-estimator ({COMMIT}), test_data/validation_db.json record "
MAX_BYTES = 64 * 2**20

GPUS = {
    "H200": ("h200", 143771, "catalog/gpus.yaml h200 (nvidia-smi total)"),
    "B200": ("b200", 183359, "catalog/gpus.yaml b200 (nvidia-smi total)"),
    "MI300X": ("mi300x", 196592, "torch.cuda.get_device_properties on MI300X, ROCm/ROCm#4203"),
}
"""Accelerator name → (catalog GPU id or None, total MiB as torch reports it, where that figure comes
from)."""

MODELS: dict[str, dict[str, Any]] = {
    "meta-llama/Llama-3.3-70B-Instruct": {"model": "meta-llama/Llama-3.3-70B-Instruct"},
    "nvidia/Llama-3.3-70B-Instruct-FP8": {"model": "nvidia/Llama-3.3-70B-Instruct-FP8"},
    "MiniMaxAI/MiniMax-M2.5": {"model": "MiniMaxAI/MiniMax-M2.5"},
    "deepseek-ai/DeepSeek-V3.2": {"model": "deepseek-ai/DeepSeek-V3.2"},
    "google/gemma-4-31B-it": {"model": "google/gemma-4-31B-it", "multimodal": True},
    "Qwen/Qwen3-VL-30B-A3B-Instruct": {"model": "Qwen/Qwen3-VL-30B-A3B-Instruct", "multimodal": True},
    "Qwen/Qwen3-235B-A22B-Instruct-2507": {
        "model": "tests/data/hf_configs/Qwen--Qwen3-235B-A22B-Instruct-2507.json"
    },
}
"""Model id in the database → how the case names it (a catalog checkpoint or a config.json in the repo)."""

HIP_GRAPHS = frozenset({"mi300x"})
"""GPUs whose graph figure (HIP graphs on ROCm: 5 to 8 GiB where CUDA graphs of the same models take 0.3 to
1.8) is not fitted with the CUDA-graph coefficient; the log's notes keep it."""
MIN_GRAPH_GIB = 0.1
"""Graph-capture figures below this are taken as artefacts of the harness (a few MiB for 50+ captured
sizes)."""

SKIPPED = {
    "RedHatAI/Llama-4-Maverick-17B-128E-Instruct-FP8": (
        "not-modelled",
        "Llama 4 Maverick's interleaved MoE (interleave_moe_layer_step) is not modelled yet.",
    ),
    "meta-llama/Llama-4-Maverick-17B-128E-Instruct": (
        "not-modelled",
        "Llama 4 Maverick's interleaved MoE (interleave_moe_layer_step) is not modelled yet.",
    ),
}
"""Models refused by name, with (kind, reason); every other unmapped model is ``no-config``."""

LOG_FIELDS = (
    "id",
    "source",
    "vllm_version",
    "model",
    "gpu",
    "gpu_count",
    "tp",
    "pp",
    "gpu_memory_utilization",
    "max_model_len",
    "kv_cache_dtype",
    "quantization",
    "dtype",
    "model_loading_gib",
    "available_kv_gib",
    "kv_cache_tokens",
    "max_concurrency",
    "max_concurrency_tokens",
    "config",
    "notes",
)


def held_back(path: Path) -> set[tuple[str, str, int]]:
    """The held-back groups (model, accelerator, tensor-parallel size) listed in ``path``."""
    groups = safeio.read_yaml(path)
    return {(g["model"], g["accelerator"], int(g["tensor_parallel_size"])) for g in groups}


def group_keys(record: dict[str, Any]) -> set[tuple[str, str, int]]:
    """Every (model, accelerator, tp) a record could be filed under: each model id and tp field it carries."""
    csv, log = record.get("csv_metadata") or {}, record.get("log_config") or {}
    models = {csv.get("model"), log.get("model"), (record.get("estimator_inputs") or {}).get("model_id")}
    tps = {csv.get("tp"), log.get("tensor_parallel_size")}
    return {(str(m), str(csv.get("accelerator")), int(t)) for m in models if m for t in tps if t is not None}


def usable(records: dict[str, Any], excluded: set[tuple[str, str, int]]) -> list[dict[str, Any]]:
    """The records outside every held-back group, by record id (the held-back ones are never looked at)."""
    return [records[key] for key in sorted(records) if not group_keys(records[key]) & excluded]


def release(text: str) -> str:
    """The upstream release a build string belongs to: ``v0.18.0+rhaiv.0`` → ``0.18.0``."""
    found = re.match(r"v?(\d+\.\d+\.\d+)", text)
    if not found:
        raise ValueError(f"unreadable vLLM version {text!r}")
    return found[1]


def runtime_args(text: str) -> dict[str, str]:
    """The harness's ``key: value; …`` runtime arguments as a dict."""
    pairs = (item.split(":", 1) for item in text.split(";") if ":" in item)
    return {k.strip(): v.strip() for k, v in pairs}


def case_id(record: dict[str, Any]) -> str:
    """A stable slug: model, accelerator, tp, release, max_model_len and the record id's first block."""
    csv, log = record["csv_metadata"], record["log_config"]
    name = re.sub(r"[^a-z0-9.]+", "-", csv["model"].split("/")[-1].lower()).strip("-")
    version = release(log["vllm_version"]).replace(".", "")
    return (
        f"vdb-{name}-{csv['accelerator'].lower()}-tp{csv['tp']}-v{version}-mml{log['max_seq_len']}-"
        f"{record['uuid'][:8]}"
    )


def launched_gmu(record: dict[str, Any]) -> float | None:
    """The ``--gpu-memory-utilization`` the server was launched with (its runtime arguments), else the
    harness's own field: three records carry 0.9 in the field but 0.92 on the command line, and print the
    same available KV memory as the 0.92 runs of their group."""
    launched = runtime_args(record["csv_metadata"]["runtime_args"]).get("gpu-memory-utilization")
    return float(launched) if launched else record["log_memory"].get("gpu_memory_utilization")


def log_entry(record: dict[str, Any]) -> dict[str, Any]:
    """One record in the schema of ``calibration/vllm_logs.yaml``."""
    csv, log, mem = record["csv_metadata"], record["log_config"], record["log_memory"]
    gpu = csv["accelerator"]
    graphs = mem.get("cudagraph_gib")
    notes = (
        f"[v1] Parsed by the source project's harness from a private start-up log. Accelerator "
        f"'{gpu}'; total memory {GPUS[gpu][1]} MiB per GPU ({GPUS[gpu][2]}). runtime_args "
        f"'{csv['runtime_args']}'. Graph capturing took {graphs} GiB."
    )
    return {
        "id": case_id(record),
        "source": SOURCE + record["uuid"],
        "vllm_version": log["vllm_version"],
        "model": csv["model"],
        "gpu": f"{csv['tp']}x {gpu} (harness accelerator '{gpu}')",
        "gpu_count": csv["tp"] * (log.get("pipeline_parallel_size") or 1),
        "tp": log["tensor_parallel_size"],
        "pp": log.get("pipeline_parallel_size") or 1,
        "gpu_memory_utilization": launched_gmu(record),
        "max_model_len": log["max_seq_len"],
        "kv_cache_dtype": log.get("kv_cache_dtype"),
        "quantization": log.get("quantization"),
        "dtype": log.get("dtype"),
        "model_loading_gib": mem.get("model_load_gib"),
        "available_kv_gib": mem.get("available_kv_cache_gib"),
        "kv_cache_tokens": mem.get("kv_cache_tokens"),
        "max_concurrency": mem.get("max_concurrency_ratio"),
        "max_concurrency_tokens": mem.get("max_concurrency_tokens"),
        "config": None,
        "notes": notes,
    }


def checks(entry: dict[str, Any]) -> list[str]:
    """The figures a log can be compared on: those it printed."""
    wanted = {
        "weights": "model_loading_gib",
        "available_kv": "available_kv_gib",
        "concurrency": "max_concurrency",
        "tokens": "kv_cache_tokens",
    }
    return [name for name, field in wanted.items() if entry.get(field) is not None]


def case_spec(record: dict[str, Any], entry: dict[str, Any]) -> dict[str, Any]:
    """How ``entry`` is reproduced with ``python -m sizing estimate`` (the schema of ``cases.yaml``)."""
    csv, log = record["csv_metadata"], record["log_config"]
    gpu, total_mib, _ = GPUS[csv["accelerator"]]
    args = runtime_args(csv["runtime_args"])
    named = {"gpu": gpu} if gpu else {"gpu_type": csv["accelerator"].lower()}
    spec: dict[str, Any] = {
        **named,
        **MODELS[csv["model"]],
        "total_mib": total_mib,
        "version": release(log["vllm_version"]),
        "entrypoint": "serve",
    }
    if args.get("enable-expert-parallel") == "True":
        spec["enable_expert_parallel"] = True
    if log.get("enforce_eager"):
        spec["enforce_eager"] = True
    if (record["log_memory"].get("cudagraph_gib") or 0) >= MIN_GRAPH_GIB and gpu not in HIP_GRAPHS:
        spec["cudagraph_gib"] = record["log_memory"]["cudagraph_gib"]
    return {**spec, "checks": checks(entry)}


def skip_reason(record: dict[str, Any]) -> dict[str, str]:
    """Why a record is not reproduced: kind and reason."""
    model = record["csv_metadata"]["model"]
    kind, reason = SKIPPED.get(
        model, ("no-config", f"No public config.json of {model} was found to size it from.")
    )
    return {"kind": kind, "reason": reason}


def known_records(path: Path) -> set[str]:
    """Record ids of the database already cited by ``path`` (the shared logs file)."""
    return set(re.findall(r"validation_db\.json record ([0-9a-f-]{36})", path.read_text(encoding="utf-8")))


def convert(records: list[dict[str, Any]], known: set[str]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """(logs, cases file) for ``records``, leaving out those in ``known``."""
    logs: list[dict[str, Any]] = []
    cases: dict[str, Any] = {"cases": {}, "skipped": {}}
    for record in (r for r in records if r["uuid"] not in known):
        entry = log_entry(record)
        logs.append(entry)
        if record["csv_metadata"]["model"] in MODELS and record["csv_metadata"]["accelerator"] in GPUS:
            cases["cases"][entry["id"]] = case_spec(record, entry)
        else:
            cases["skipped"][entry["id"]] = skip_reason(record)
    return logs, cases


HEADER = (
    "# Generated by scripts/import_validation_db.py from github.com/ashishkamra/vllm-memory-estimator\n"
    f"# (commit {COMMIT}), test_data/validation_db.json; held-back groups excluded. Do not edit.\n"
)


def dump(data: Any) -> str:
    """Deterministic YAML text with the generated-file header."""
    return HEADER + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=110)


def main() -> int:
    """Read the database, drop the held-back groups, write the logs and their cases."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("database", type=Path)
    args = parser.parse_args()
    try:
        db = safeio.parse_json(
            safeio.read_text(args.database, limit=MAX_BYTES), str(args.database), finite=False
        )
    except CatalogError as err:
        print(err, file=sys.stderr)
        return 2
    records = usable(db["records"], held_back(DIR / "held_back.yaml"))
    logs, cases = convert(records, known_records(DIR / "vllm_logs.yaml"))
    (DIR / "validation_db_logs.yaml").write_text(
        dump([{k: e[k] for k in LOG_FIELDS} for e in logs]), encoding="utf-8"
    )
    (DIR / "validation_db_cases.yaml").write_text(dump(cases), encoding="utf-8")
    print(f"{len(logs)} logs, {len(cases['cases'])} reproduced, {len(cases['skipped'])} skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
