"""Ready-to-run ``vllm serve`` and SGLang commands for one evaluated row.

Every flag emitted here is listed in :data:`VLLM_FLAGS` / :data:`SGLANG_FLAGS`; a test checks
those lists against the flags extracted from the pinned releases' sources
(``sizing/launch/data/vllm_flags-*.txt``). Numbers come from the row; nothing is typed by hand.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

from sizing.catalog.loader import Catalog
from sizing.engine.speculative import SpecConfig, flag_value
from sizing.engine.towers import limit_flag

VLLM_FLAGS = (
    "--tensor-parallel-size", "--pipeline-parallel-size", "--data-parallel-size", "--max-model-len",
    "--gpu-memory-utilization", "--kv-cache-dtype", "--quantization", "--max-num-seqs",
    "--distributed-executor-backend", "--host", "--port", "--api-key", "--dtype", "--enable-expert-parallel",
    "--limit-mm-per-prompt", "--language-model-only", "--enable-prefix-caching", "--speculative-config",
)
SGLANG_FLAGS = (
    "--model-path", "--tp-size", "--dp-size", "--context-length", "--mem-fraction-static", "--kv-cache-dtype", "--quantization",
    "--nnodes", "--node-rank", "--dist-init-addr", "--host", "--port", "--api-key", "--enable-dp-attention",
    "--ep-size",
)
SGLANG_KV = {"fp8": "fp8_e4m3"}
CONTINUATION = " \\\n  "


def suggested_max_num_seqs(row: Mapping[str, Any], floor: int) -> int:
    """``--max-num-seqs``: the power of two nearest above the 4K-token concurrency, within vLLM's default."""
    keys = [str(k) for k in row.keys() if str(k).startswith("concurrency_")]
    contexts = sorted(keys, key=lambda k: int(k.rsplit("_", 1)[1]))
    concurrency = float(row[contexts[0]]) if contexts else float(row["max_concurrency"])
    if not math.isfinite(concurrency) or concurrency < 1:
        return floor
    wanted = 2 ** math.ceil(math.log2(max(concurrency, 1)))
    return int(min(max(wanted, floor), int(row["max_num_seqs"])))


def _model_arg(row: Mapping[str, Any]) -> str:
    return str(row["checkpoint"])


def host_port(row: Mapping[str, Any], cat: Catalog) -> tuple[str, int]:
    """``--host``/``--port`` of the row (from the command line), else the catalog's serve address."""
    host, port = row.get("serve_host"), row.get("serve_port")
    return str(host or cat.assume("serve_host")), int(port or cat.assume("serve_port"))


def vllm_args(row: Mapping[str, Any], cat: Catalog) -> list[str]:
    """The flag/value pairs of ``vllm serve`` for ``row``, one string per line."""
    args = []
    for flag, key in (("--tensor-parallel-size", "tp"), ("--pipeline-parallel-size", "pp"),
                      ("--data-parallel-size", "dp")):
        if int(row[key]) > 1:
            args.append(f"{flag} {int(row[key])}")
    if int(row.get("ep", 1)) > 1:
        args.append("--enable-expert-parallel")
    args.append(f"--max-model-len {int(row['max_model_len'])}")
    if str(row.get("dtype") or "auto") != "auto":
        args.append(f"--dtype {row['dtype']}")
    args.append(f"--gpu-memory-utilization {float(row['gpu_memory_utilization']):.2f}")
    if row["kv_cache_dtype"] != "auto":
        args.append(f"--kv-cache-dtype {row['kv_cache_dtype']}")
    if row["online_quantization"]:
        args.append(f"--quantization {cat.precisions[str(row['precision'])].vllm_quantization}")
    args.append(f"--max-num-seqs {suggested_max_num_seqs(row, int(cat.assume('max_num_seqs_floor')))}")
    args += multimodal_args(row)
    args += speculative_args(row)
    if int(row["pp"]) > 1 and int(row["nodes"]) > 1:
        args.append("--distributed-executor-backend ray")
    host, port = host_port(row, cat)
    args.append(f"--host {host} --port {port}")
    args.append('--api-key "$VLLM_API_KEY"')
    return args


def multimodal_args(row: Mapping[str, Any]) -> list[str]:
    """``--language-model-only`` or ``--limit-mm-per-prompt`` when the row sets them for a model with a tower."""
    if not int(row.get("vision_tokens", 0)):
        return []
    if bool(row.get("language_model_only", False)):
        return ["--language-model-only"]
    if not bool(row.get("limit_mm_set", False)):
        return []
    return [f"--limit-mm-per-prompt {limit_flag(int(row['limit_mm_per_prompt']))}"]


def speculative_args(row: Mapping[str, Any]) -> list[str]:
    """``--enable-prefix-caching`` and ``--speculative-config`` when the row's plan uses them (none in the matrix)."""
    args = ["--enable-prefix-caching"] if bool(row.get("prefix_caching", False)) else []
    method = str(row.get("spec_method") or "")
    if method:
        cfg = SpecConfig(method, int(row["spec_tokens"]), str(row.get("spec_draft") or "") or None)
        args.append(f"--speculative-config {flag_value(cfg)}")
    return args


def vllm_command(row: Mapping[str, Any], cat: Catalog) -> str:
    """The full ``vllm serve`` command for ``row``, one flag per continued line."""
    return CONTINUATION.join([f"vllm serve {_model_arg(row)}", *vllm_args(row, cat)])


def sglang_args(row: Mapping[str, Any], cat: Catalog, node_rank: int = 0) -> list[str]:
    """The flag/value pairs of ``python -m sglang.launch_server`` equivalent to ``row``."""
    ep = int(row.get("ep", 1))
    world = ep if ep > 1 else int(row["tp"]) * int(row["pp"])  # SGLang's DP attention runs inside one TP group
    args = [f"--model-path {_model_arg(row)}", f"--tp-size {world}"]
    if int(row["dp"]) > 1:
        args.append(f"--dp-size {int(row['dp'])}")
    if ep > 1:
        args.append(f"--enable-dp-attention --ep-size {ep}")
    args += [f"--context-length {int(row['max_model_len'])}",
             f"--mem-fraction-static {float(row['gpu_memory_utilization']):.2f}"]
    if row["kv_cache_dtype"] != "auto":
        args.append(f"--kv-cache-dtype {SGLANG_KV.get(str(row['kv_cache_dtype']), row['kv_cache_dtype'])}")
    if row["online_quantization"]:
        args.append(f"--quantization {cat.precisions[str(row['precision'])].vllm_quantization}")
    if int(row["nodes"]) > 1 and int(row["pp"]) > 1:
        args.append(f"--nnodes {int(row['nodes'])} --node-rank {node_rank} "
                    f"--dist-init-addr {cat.assume('serve_host')}:20000")
    if node_rank == 0:  # only the first node serves HTTP
        host, port = host_port(row, cat)
        args.append(f"--host {host} --port {port}")
        args.append('--api-key "$VLLM_API_KEY"')
    return args


def sglang_command(row: Mapping[str, Any], cat: Catalog, node_rank: int = 0) -> str:
    """The SGLang launch command equivalent to ``row`` (multi-node rows: one per ``node_rank``)."""
    return CONTINUATION.join(["python -m sglang.launch_server", *sglang_args(row, cat, node_rank)])
