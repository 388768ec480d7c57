"""Ready-to-run ``vllm serve`` and SGLang commands for one evaluated row.

Every command is built as a list of arguments and each argument is quoted for a POSIX shell
(:func:`shlex.quote`): a model folder with spaces, or a value holding ``$(…)`` or ``;``, is printed as
text the shell passes on, never runs. The one expansion is the API key (``"$VLLM_API_KEY"``,
``"$SGLANG_API_KEY"``), written in double quotes. ``--host`` and ``--port`` are checked before printing
(:func:`sizing.launch.address.valid_host`, 1–65535).

Every flag emitted here is listed in :data:`VLLM_FLAGS` / :data:`SGLANG_FLAGS`; a test checks
those lists against the flags extracted from the pinned releases' sources
(``sizing/launch/data/vllm_flags-*.txt``). Numbers come from the row; nothing is typed by hand. Every
setting that changed the row's computation is in its command: parallelism (with expert parallelism
whenever the row was computed with it), quantization, KV dtype, the speculative config, the multimodal
limits, ``--enforce-eager``, ``--block-size``, ``--max-num-batched-tokens`` and ``--kv-cache-memory-bytes``.
"""

from __future__ import annotations

import json
import math
import shlex
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from sizing.catalog.loader import Catalog
from sizing.engine.speculative import SpecConfig, flag_value
from sizing.engine.towers import limit_flag
from sizing.errors import CatalogError, UsageError
from sizing.launch.address import valid_host, valid_port

VLLM_FLAGS = (
    "--tensor-parallel-size",
    "--pipeline-parallel-size",
    "--data-parallel-size",
    "--max-model-len",
    "--gpu-memory-utilization",
    "--kv-cache-dtype",
    "--quantization",
    "--max-num-seqs",
    "--distributed-executor-backend",
    "--host",
    "--port",
    "--api-key",
    "--dtype",
    "--enable-expert-parallel",
    "--limit-mm-per-prompt",
    "--language-model-only",
    "--enable-prefix-caching",
    "--speculative-config",
    "--enforce-eager",
    "--block-size",
    "--max-num-batched-tokens",
    "--kv-cache-memory-bytes",
    "--data-parallel-size-local",
    "--data-parallel-address",
    "--data-parallel-rpc-port",
    "--headless",
    "--data-parallel-start-rank",
)
SGLANG_FLAGS = (
    "--model-path",
    "--tp-size",
    "--pp-size",
    "--dp-size",
    "--context-length",
    "--mem-fraction-static",
    "--kv-cache-dtype",
    "--quantization",
    "--nnodes",
    "--node-rank",
    "--dist-init-addr",
    "--host",
    "--port",
    "--api-key",
    "--enable-dp-attention",
    "--ep-size",
    "--dtype",
    "--max-running-requests",
    "--disable-cuda-graph",
    "--chunked-prefill-size",
    "--limit-mm-data-per-request",
    "--speculative-algorithm",
    "--speculative-num-steps",
    "--speculative-eagle-topk",
    "--speculative-num-draft-tokens",
    "--speculative-draft-model-path",
)
SGLANG_KV = {"fp8": "fp8_e4m3"}
CONTINUATION = " \\\n  "
DIST_INIT_PORT = 20000
"""The port of SGLang's ``--dist-init-addr`` on the first node."""
DP_RPC_PORT = 13345
"""vLLM's ``--data-parallel-rpc-port`` on the first node (the port of vLLM's multi-node DP examples)."""
SGLANG_ALGORITHM = {"mtp": "EAGLE", "eagle3": "EAGLE3", "ngram": "NGRAM"}
"""SGLang's ``--speculative-algorithm`` for each modelled method (docs.sglang.io, "Speculative Decoding":
MTP heads run through its EAGLE path with no separate draft model; EAGLE-3 takes the draft model path)."""
VLLM_ONLY = {
    "language_model_only": "--language-model-only",
    "kv_cache_memory_bytes": "--kv-cache-memory-bytes",
    "block_size_override": "--block-size",
}
"""Row settings SGLang has no equivalent for: an SGLang command for such a row is refused by flag."""


@dataclass(frozen=True)
class EnvVar:
    """A shell variable, printed as ``"$NAME"`` (expanded by the shell, never split)."""

    name: str


Arg = str | int | EnvVar


def shell_line(args: Sequence[Arg]) -> str:
    """``args`` as one line of a POSIX shell command: each quoted by :func:`shlex.quote`, variables in
    double quotes."""
    return " ".join(f'"${a.name}"' if isinstance(a, EnvVar) else shlex.quote(str(a)) for a in args)


def suggested_max_num_seqs(row: Mapping[str, Any], floor: int) -> int:
    """``--max-num-seqs``: the power of two nearest above the 4K-token concurrency, within vLLM's default.
    A value the request set itself (``max_num_seqs_set``) is printed as it was computed."""
    if bool(row.get("max_num_seqs_set", False)):
        return int(row["max_num_seqs"])
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
    """``--host``/``--port`` of the row (from the command line), else the catalog's serve address; a host
    that is not a host name or IP address, or a port outside 1–65535, is refused before printing."""
    host, port = row.get("serve_host"), row.get("serve_port")
    chosen_host = str(host) if host else str(cat.assume("serve_host"))
    chosen_port = int(port) if port else int(cat.assume("serve_port"))
    if not valid_host(chosen_host):
        if host:
            raise UsageError(f"--host {chosen_host[:40]!r}: not a host name or an IP address")
        raise CatalogError(
            "catalog/assumptions.yaml",
            "serve_host",
            "value",
            f"must be a host name or an IP address, got {chosen_host[:40]!r}",
        )
    if not valid_port(chosen_port):
        raise UsageError(f"--port {chosen_port}: must be a port number from 1 to 65535")
    return chosen_host, chosen_port


def spread(row: Mapping[str, Any]) -> tuple[int, int]:
    """(nodes one engine spans, data-parallel ranks on each node) of the row's plan across its nodes: TP × PP
    spans its PP nodes, DP + EP spans every node, TP and DP replicas stay inside one node each
    (:func:`sizing.engine.case_frame.size_plans`; an explicit plan of the CLI is read the same way)."""
    nodes, pp, dp = int(row.get("nodes", 1)), int(row["pp"]), int(row["dp"])
    ep = bool(row.get("expert_parallel", False)) or int(row.get("ep", 1)) > 1
    spans = int(row.get("nodes_per_engine", pp if pp > 1 else (nodes if ep else 1)))
    return spans, int(row.get("dp_per_node", max(dp // max(nodes, 1), 1)))


def _parallel_lines(row: Mapping[str, Any], cat: Catalog, node_rank: int) -> list[list[Arg]]:
    """TP, PP, DP and EP flags. Replicas per node print one node's DP size (each node runs this command); a DP
    group across nodes prints vLLM's multi-node DP flags, ``--headless`` with its start rank beyond node 0."""
    spans, dp_local = spread(row)
    dp = int(row["dp"]) if spans > 1 or int(row.get("nodes", 1)) == 1 else dp_local
    sizes = (
        ("--tensor-parallel-size", int(row["tp"])),
        ("--pipeline-parallel-size", int(row["pp"])),
        ("--data-parallel-size", dp),
    )
    lines: list[list[Arg]] = [[flag, size] for flag, size in sizes if size > 1]
    if spans > 1 and int(row["pp"]) == 1:
        lines.append(
            [
                "--data-parallel-size-local",
                dp_local,
                "--data-parallel-address",
                first_host(cat),
                "--data-parallel-rpc-port",
                DP_RPC_PORT,
            ]
        )
        if node_rank:
            lines.append(["--headless", "--data-parallel-start-rank", node_rank * dp_local])
    if bool(row.get("expert_parallel", False)) or int(row.get("ep", 1)) > 1:
        lines.append(["--enable-expert-parallel"])
    return lines


def first_host(cat: Catalog) -> str:
    """The first node's address (the catalog's ``serve_host``), checked as :func:`host_port` checks it."""
    return host_port({}, cat)[0]


def _knob_lines(row: Mapping[str, Any]) -> list[list[Arg]]:
    """``--enforce-eager``, ``--block-size``, ``--max-num-batched-tokens``, ``--kv-cache-memory-bytes``: the
    settings a request may set that change the memory computed (absent from matrix rows)."""
    lines: list[list[Arg]] = [["--enforce-eager"]] if bool(row.get("enforce_eager", False)) else []
    if int(row.get("block_size_override", 0) or 0):
        lines.append(["--block-size", int(row["block_size_override"])])
    if bool(row.get("max_num_batched_tokens_set", False)):
        lines.append(["--max-num-batched-tokens", int(row["max_num_batched_tokens"])])
    if int(row.get("kv_cache_memory_bytes", 0) or 0):
        lines.append(["--kv-cache-memory-bytes", int(row["kv_cache_memory_bytes"])])
    return lines


def served_dtype(row: Mapping[str, Any]) -> str:
    """The ``--dtype`` to print: the request's, else ``float32`` where the row is sized in float32 (vLLM's
    ``auto`` falls back to it there, :func:`sizing.engine.capability.runs_float32`), else ``auto``."""
    given = str(row.get("dtype") or "auto")
    return "float32" if given == "auto" and bool(row.get("float32", False)) else given


def vllm_lines(row: Mapping[str, Any], cat: Catalog, node_rank: int = 0) -> list[list[Arg]]:
    """The arguments of ``vllm serve`` for ``row`` on node ``node_rank``, one list per printed line."""
    lines = _parallel_lines(row, cat, node_rank) + [["--max-model-len", int(row["max_model_len"])]]
    if served_dtype(row) != "auto":
        lines.append(["--dtype", served_dtype(row)])
    lines.append(["--gpu-memory-utilization", f"{float(row['gpu_memory_utilization']):.2f}"])
    if row["kv_cache_dtype"] != "auto":
        lines.append(["--kv-cache-dtype", str(row["kv_cache_dtype"])])
    if row["online_quantization"]:
        lines.append(["--quantization", str(cat.precisions[str(row["precision"])].vllm_quantization)])
    lines.append(["--max-num-seqs", suggested_max_num_seqs(row, int(cat.assume("max_num_seqs_floor")))])
    lines += _knob_lines(row) + multimodal_lines(row) + speculative_lines(row)
    if int(row["pp"]) > 1 and int(row["nodes"]) > 1:
        lines.append(["--distributed-executor-backend", "ray"])
    host, port = host_port(row, cat)
    if node_rank and spread(row)[0] > 1:  # a headless node serves no HTTP
        return lines
    return lines + [["--host", host, "--port", port], ["--api-key", EnvVar("VLLM_API_KEY")]]


def vllm_args(row: Mapping[str, Any], cat: Catalog, node_rank: int = 0) -> list[str]:
    """The flag/value pairs of ``vllm serve`` for ``row`` on node ``node_rank``, shell-quoted, one a line."""
    return [shell_line(line) for line in vllm_lines(row, cat, node_rank)]


def multimodal_lines(row: Mapping[str, Any]) -> list[list[Arg]]:
    """``--language-model-only`` or ``--limit-mm-per-prompt`` when set for a model with a vision tower."""
    if not int(row.get("vision_tokens", 0)):
        return []
    if bool(row.get("language_model_only", False)):
        return [["--language-model-only"]]
    if not bool(row.get("limit_mm_set", False)):
        return []
    return [["--limit-mm-per-prompt", _unquoted(limit_flag(int(row["limit_mm_per_prompt"])))]]


def _unquoted(value: str) -> str:
    """A JSON flag value the engine writes in single quotes, without them (:func:`shell_line` quotes)."""
    return value[1:-1] if value.startswith("'") and value.endswith("'") else value


def _spec(row: Mapping[str, Any]) -> SpecConfig | None:
    method = str(row.get("spec_method") or "")
    if not method:
        return None
    return SpecConfig(method, int(row["spec_tokens"]), str(row.get("spec_draft") or "") or None)


def speculative_lines(row: Mapping[str, Any]) -> list[list[Arg]]:
    """``--enable-prefix-caching`` and ``--speculative-config`` when the row uses them (not in the matrix)."""
    lines: list[list[Arg]] = [["--enable-prefix-caching"]] if bool(row.get("prefix_caching", False)) else []
    cfg = _spec(row)
    if cfg is not None:
        lines.append(["--speculative-config", _unquoted(flag_value(cfg))])
    return lines


def vllm_command(row: Mapping[str, Any], cat: Catalog, node_rank: int = 0) -> str:
    """The full ``vllm serve`` command for ``row`` (a DP + EP group across nodes: the one of ``node_rank``),
    one flag per continued line."""
    head = shell_line(["vllm", "serve", _model_arg(row)])
    return CONTINUATION.join([head, *vllm_args(row, cat, node_rank)])


# ---------------------------------------------------------------------------------------------
# SGLang
# ---------------------------------------------------------------------------------------------


def sglang_parallel(row: Mapping[str, Any]) -> list[list[Arg]]:
    """SGLang's parallel flags for the row's plan: ``--tp-size``/``--pp-size`` as the plan names them (a
    "TP 8 × PP 2" plan runs ``--tp-size 8 --pp-size 2``); DP + EP as SGLang's DP attention inside one TP
    group of the EP size (``--tp-size N --dp-size N --enable-dp-attention --ep-size N``)."""
    ep, tp, pp, dp = int(row.get("ep", 1)), int(row["tp"]), int(row["pp"]), int(row["dp"])
    spans, dp_local = spread(row)
    dp = dp if spans > 1 or int(row.get("nodes", 1)) == 1 else dp_local  # replicas per node: one node's
    lines: list[list[Arg]] = [["--tp-size", ep if ep > 1 else tp]]
    if pp > 1:
        lines.append(["--pp-size", pp])
    if dp > 1:
        lines.append(["--dp-size", dp])
    if ep > 1:
        lines.append(["--enable-dp-attention", "--ep-size", ep])
    return lines


def sglang_speculative(row: Mapping[str, Any]) -> list[list[Arg]]:
    """SGLang's speculative flags for the row's drafter: k draft steps, one candidate per step."""
    cfg = _spec(row)
    if cfg is None:
        return []
    k = int(cfg.num_speculative_tokens or 1)
    line: list[Arg] = ["--speculative-algorithm", SGLANG_ALGORITHM[cfg.method]]
    if cfg.method != "ngram":
        line += ["--speculative-num-steps", k, "--speculative-eagle-topk", 1]
    lines: list[list[Arg]] = [line, ["--speculative-num-draft-tokens", k + 1 if cfg.method != "ngram" else k]]
    return lines + ([["--speculative-draft-model-path", cfg.model]] if cfg.model else [])


def _sglang_knobs(row: Mapping[str, Any], cat: Catalog) -> list[list[Arg]]:
    for key, flag in VLLM_ONLY.items():
        if row.get(key) and not (key == "language_model_only" and not int(row.get("vision_tokens", 0))):
            raise UsageError(f"{flag}: SGLang has no equivalent; `command --engine vllm` prints this launch")
    lines: list[list[Arg]] = [["--disable-cuda-graph"]] if bool(row.get("enforce_eager", False)) else []
    if bool(row.get("max_num_batched_tokens_set", False)):
        lines.append(["--chunked-prefill-size", int(row["max_num_batched_tokens"])])
    if int(row.get("vision_tokens", 0)) and bool(row.get("limit_mm_set", False)):
        lines.append(["--limit-mm-data-per-request", json.dumps({"image": int(row["limit_mm_per_prompt"])})])
    seqs = suggested_max_num_seqs(row, int(cat.assume("max_num_seqs_floor")))
    return [["--max-running-requests", seqs], *lines, *sglang_speculative(row)]


def sglang_lines(row: Mapping[str, Any], cat: Catalog, node_rank: int = 0) -> list[list[Arg]]:
    """The arguments of ``python -m sglang.launch_server`` equivalent to ``row``, one list per line."""
    lines: list[list[Arg]] = [
        ["--model-path", _model_arg(row)],
        *sglang_parallel(row),
        ["--context-length", int(row["max_model_len"])],
        ["--mem-fraction-static", f"{float(row['gpu_memory_utilization']):.2f}"],
    ]
    if served_dtype(row) != "auto":
        lines.append(["--dtype", served_dtype(row)])
    if row["kv_cache_dtype"] != "auto":
        kv = str(row["kv_cache_dtype"])
        lines.append(["--kv-cache-dtype", SGLANG_KV.get(kv, kv)])
    if row["online_quantization"]:
        lines.append(["--quantization", str(cat.precisions[str(row["precision"])].vllm_quantization)])
    lines += _sglang_knobs(row, cat)
    host, port = host_port(row, cat)
    if spread(row)[0] > 1:  # one engine over several nodes: the same address, a rank per node
        first = first_host(cat)
        address = f"[{first}]:{DIST_INIT_PORT}" if ":" in first else f"{first}:{DIST_INIT_PORT}"
        lines.append(["--nnodes", int(row["nodes"]), "--node-rank", node_rank, "--dist-init-addr", address])
    if node_rank == 0:  # only the first node serves HTTP
        lines += [["--host", host, "--port", port], ["--api-key", EnvVar("SGLANG_API_KEY")]]
    return lines


def sglang_args(row: Mapping[str, Any], cat: Catalog, node_rank: int = 0) -> list[str]:
    """The flag/value pairs of ``python -m sglang.launch_server`` equivalent to ``row``, shell-quoted."""
    return [shell_line(line) for line in sglang_lines(row, cat, node_rank)]


def sglang_command(row: Mapping[str, Any], cat: Catalog, node_rank: int = 0) -> str:
    """The SGLang launch command equivalent to ``row`` (multi-node rows: one per ``node_rank``)."""
    return CONTINUATION.join(["python -m sglang.launch_server", *sglang_args(row, cat, node_rank)])


def node_commands(row: Mapping[str, Any], cat: Catalog, engine: str = "vllm") -> str:
    """Every command a launch of ``row`` needs: one, or one per node (each after a ``# node R of N`` comment)
    when one engine spans several nodes (SGLang, and vLLM's data-parallel group across nodes; vLLM's TP × PP
    runs from the head node of a Ray cluster); replicas inside each node: one command, run on every node."""
    nodes = launch_nodes(row, engine)
    build = engine_builder(engine)
    if nodes == 1 and int(row.get("nodes", 1)) > 1:
        each = f"# the same command on each of the {int(row['nodes'])} nodes (a server per node)"
        return f"{each}\n{build(row, cat, 0)}"
    if nodes == 1:
        return build(row, cat, 0)
    return "\n".join(f"# node {rank} of {nodes}\n{build(row, cat, rank)}" for rank in range(nodes))


def launch_nodes(row: Mapping[str, Any], engine: str = "vllm") -> int:
    """How many different per-node commands a launch of ``row`` needs: the nodes one engine spans (SGLang,
    and vLLM's data-parallel group across nodes), 1 for vLLM's TP × PP (Ray, from the head node) and for
    replicas inside each node (one command, run on every node)."""
    spans = spread(row)[0]
    return spans if engine == "sglang" or int(row["pp"]) == 1 else 1


def engine_builder(engine: str) -> Callable[[Mapping[str, Any], Catalog, int], str]:
    """:func:`vllm_command` or :func:`sglang_command` for ``engine`` (``vllm`` or ``sglang``)."""
    if engine not in ("vllm", "sglang"):
        raise UsageError(f"unknown engine {engine!r}; expected vllm or sglang")
    return sglang_command if engine == "sglang" else vllm_command
