"""The ``vllm bench serve`` line that measures a throughput estimate (shell-quoted, one line).

Flags as ``vllm bench serve`` takes them (``vllm/benchmarks/serve.py``): the random dataset with fixed
lengths (``--random-input-len``, ``--random-output-len``, ``--ignore-eos`` so every answer has its full
length), ``--num-prompts``, ``--max-concurrency`` and ``--request-rate`` (``inf``: all at once).
"""

from __future__ import annotations

import math
import shlex
from dataclasses import dataclass


@dataclass(frozen=True)
class BenchRun:
    """One ``vllm bench serve`` run against a served model (lengths in tokens, rate in requests/s)."""

    model: str
    host: str
    port: int
    input_len: int
    output_len: int
    num_prompts: int
    concurrency: int
    request_rate: float = math.inf


def bench_serve_line(run: BenchRun) -> str:
    """The shell-quoted command line of ``run``."""
    rate = "inf" if math.isinf(run.request_rate) else repr(run.request_rate)
    words = [
        "vllm",
        "bench",
        "serve",
        "--model",
        run.model,
        "--host",
        run.host,
        "--port",
        str(run.port),
        "--dataset-name",
        "random",
        "--random-input-len",
        str(run.input_len),
        "--random-output-len",
        str(run.output_len),
        "--ignore-eos",
        "--num-prompts",
        str(run.num_prompts),
        "--max-concurrency",
        str(run.concurrency),
        "--request-rate",
        rate,
    ]
    return " ".join(shlex.quote(w) for w in words)
