"""The vllm bench serve line: flags, quoting, the rate."""

from __future__ import annotations

import shlex

from sizing.launch.bench import BenchRun, bench_serve_line


def test_line_is_quoted_and_complete() -> None:
    line = bench_serve_line(BenchRun("org/model name", "10.0.0.10", 8000, 1024, 256, 100, 8, 2.5))
    words = shlex.split(line)
    assert words[:5] == ["vllm", "bench", "serve", "--model", "org/model name"]
    assert words[words.index("--request-rate") + 1] == "2.5" and "--ignore-eos" in words
    assert "'org/model name'" in line
    assert bench_serve_line(BenchRun("m", "h", 1, 1, 1, 1, 1)).endswith("--request-rate inf")
