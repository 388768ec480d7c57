"""``python -m sizing throughput``: one deployment's serving estimate, in ``vllm bench serve``'s words.

Takes the estimate's model and hardware flags plus ``vllm bench serve``'s ``--random-input-len``,
``--random-output-len``, ``--num-prompts``, ``--max-concurrency`` and ``--request-rate``; prints what
``vllm bench serve`` prints (request and output throughput, mean TTFT and TPOT) with each figure's band,
or, with ``--json``, the keys of ``vllm bench serve --save-result``. Every answer ends with the
``vllm bench serve`` line that measures it. Bad values: one line, exit 2; a case the engine cannot model
(no peak FLOP/s for the GPU, a deployment that does not start): one line, exit 1.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import sys
from collections.abc import Callable
from typing import Any

import pandas as pd

from sizing import cli_types as ty
from sizing.catalog.loader import Catalog
from sizing.catalog.settings import Settings
from sizing.errors import UsageError

RULE = 50


def request_rate(text: str) -> float:
    """argparse type of ``--request-rate``: requests per second > 0, or ``inf`` (all at once)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be a number of requests per second or inf, got {text!r}"
        ) from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be greater than 0 (or inf), got {text}")
    return value


RequestOf = Callable[[argparse.Namespace, Catalog], Settings]
""":func:`sizing.cli.request_of`: the settings of the parsed case arguments."""


def register(
    sub: argparse._SubParsersAction,
    add_case_arguments: Callable[[argparse.ArgumentParser], None],
    request_of: RequestOf,
) -> None:
    """Add the ``throughput`` command to ``python -m sizing``, with the estimate's case arguments and their
    :class:`sizing.catalog.settings.Settings` (passed in by :mod:`sizing.cli`, which imports this module)."""
    helptext = "serving throughput, TTFT, TPOT and cost of one case, as vllm bench serve reports them"
    p = sub.add_parser("throughput", help=helptext, description=helptext)
    add_case_arguments(p)
    p.add_argument(
        "--random-input-len", type=ty.count("tokens"), default=1024, help="prompt tokens (default 1024)"
    )
    p.add_argument(
        "--random-output-len",
        type=ty.count("tokens"),
        default=1024,
        help="output tokens per request (default 1024)",
    )
    p.add_argument("--num-prompts", type=ty.count("seqs"), default=1000, help="requests sent (default 1000)")
    p.add_argument(
        "--max-concurrency", type=ty.count("seqs"), help="requests in flight at most (default: all of them)"
    )
    p.add_argument(
        "--request-rate",
        type=request_rate,
        default=float("inf"),
        help="requests per second (default: inf, all at once)",
    )
    p.add_argument("--json", action="store_true", help="one JSON object, vllm bench serve --save-result keys")
    p.set_defaults(handler=functools.partial(cmd_throughput, request_of=request_of))


def estimate_row(
    ns: argparse.Namespace, cat: Catalog, request_of: RequestOf
) -> tuple[pd.Series, dict[str, Any]]:
    """The chosen deployment and its throughput row (refused cases raise :class:`Refused`)."""
    from sizing.catalog.workloads import load_constants  # noqa: PLC0415
    from sizing.engine.estimate import estimate  # noqa: PLC0415
    from sizing.engine.throughput_frame import Shape, Target, ladder  # noqa: PLC0415

    row = estimate(cat, request_of(ns, cat))
    if not bool(row["fits"]):
        raise Refused(
            f"{row['checkpoint']} does not start on this hardware (see `python -m sizing estimate`)"
        )
    length = ns.random_input_len + ns.random_output_len
    if length > int(row["max_model_len"]):
        raise UsageError(
            f"--random-input-len + --random-output-len ({length}) exceeds --max-model-len "
            f"{int(row['max_model_len'])}"
        )
    clients = min(ns.max_concurrency or ns.num_prompts, ns.num_prompts)
    shape = Shape("custom", ns.random_input_len, ns.random_output_len, clients)
    out = ladder(pd.DataFrame([row]), cat, load_constants(), [shape], Target.of(cat), ns.request_rate)
    result = out.iloc[0].to_dict()
    if result["refused"]:
        raise Refused(f"cannot estimate throughput: {result['refused']}")
    return row, result


class Refused(Exception):
    """A case the throughput engine cannot model; printed on one line, exit status 1."""


def bench_command(ns: argparse.Namespace, row: pd.Series, cat: Catalog, clients: int) -> str:
    """The ``vllm bench serve`` line that measures this estimate (shell-quoted)."""
    from sizing.launch.bench import BenchRun, bench_serve_line  # noqa: PLC0415

    run = BenchRun(
        str(row["checkpoint"]),
        ns.host or str(cat.assume("serve_host")),
        ns.port or int(cat.assume("serve_port")),
        ns.random_input_len,
        ns.random_output_len,
        ns.num_prompts,
        clients,
        ns.request_rate,
    )
    return bench_serve_line(run)


def record(ns: argparse.Namespace, result: dict[str, Any], clients: int) -> dict[str, Any]:
    """The ``--json`` object: ``vllm bench serve --save-result`` keys, bands, limit and cost."""
    rec: dict[str, Any] = {
        "completed": ns.num_prompts,
        "max_concurrency": clients,
        "request_rate": ns.request_rate if not math.isinf(ns.request_rate) else "inf",
        "duration": ns.num_prompts * ns.random_output_len / result["output_tps"],
        "total_input_tokens": ns.num_prompts * ns.random_input_len,
        "total_output_tokens": ns.num_prompts * ns.random_output_len,
        "request_throughput": result["request_rate"],
        "output_throughput": result["output_tps"],
        "total_token_throughput": result["total_tps"],
        "mean_ttft_ms": 1000 * result["ttft_s"],
        "mean_tpot_ms": 1000 * result["tpot_s"],
    }
    for key, column, scale in (
        ("output_throughput", "output_tps", 1),
        ("mean_tpot_ms", "tpot_s", 1000),
        ("mean_ttft_ms", "ttft_s", 1000),
    ):
        for end in ("low", "high"):
            value = result[f"{column}_{end}"] * scale
            rec[f"{key}_{end}"] = None if math.isnan(value) else value
    rec.update(
        limited_by=result["limited_by"], calibrated=bool(result["calibrated"]), tp_class=result["tp_class"]
    )
    if not math.isnan(result["usd_per_mtok"]):
        rec.update(
            usd_per_million_output_tokens=result["usd_per_mtok"],
            usd_per_million_output_tokens_low=_none(result["usd_per_mtok_low"]),
            usd_per_million_output_tokens_high=_none(result["usd_per_mtok_high"]),
        )
    return rec


def _none(value: float) -> float | None:
    return None if math.isnan(value) else value


def text(rec: dict[str, Any], title: str) -> str:
    """``vllm bench serve``'s result block, each figure with its band, then limit, cost and class."""

    def line(label: str, value: object) -> str:
        return f"{label:<40} {value}"

    def band(key: str, digits: int) -> str:
        low, high = rec[f"{key}_low"], rec[f"{key}_high"]
        value = f"{rec[key]:.{digits}f}"
        return value if low is None else f"{value}  (band {low:.{digits}f} – {high:.{digits}f})"

    lines = [
        f"Estimate for {title}",
        " Serving Benchmark Result ".center(RULE, "="),
        line("Successful requests:", rec["completed"]),
        line("Maximum request concurrency:", rec["max_concurrency"]),
        line("Benchmark duration (s):", f"{rec['duration']:.2f}"),
        line("Total input tokens:", rec["total_input_tokens"]),
        line("Total generated tokens:", rec["total_output_tokens"]),
        line("Request throughput (req/s):", f"{rec['request_throughput']:.2f}"),
        line("Output token throughput (tok/s):", band("output_throughput", 2)),
        line("Total Token throughput (tok/s):", f"{rec['total_token_throughput']:.2f}"),
        "Time to First Token".center(RULE, "-"),
        line("Mean TTFT (ms):", band("mean_ttft_ms", 2)),
        "Time per Output Token (excl. 1st token)".center(RULE, "-"),
        line("Mean TPOT (ms):", band("mean_tpot_ms", 2)),
        "=" * RULE,
        line("Limited by:", rec["limited_by"]),
    ]
    if "usd_per_million_output_tokens" in rec:
        lines.append(line("USD per million output tokens:", band("usd_per_million_output_tokens", 3)))
    if not rec["calibrated"]:
        lines.append(
            f"Not calibrated: no measured runs for the {rec['tp_class']} class; roofline bound only."
        )
    else:
        lines.append(
            f"Band: 10th-90th percentile of the {rec['tp_class']} class's leave-one-out errors "
            "(calibration/throughput.md)."
        )
    return "\n".join(lines) + "\n"


def cmd_throughput(ns: argparse.Namespace, cat: Catalog, request_of: RequestOf) -> int:
    """Print the estimate (or ``--json``), then the ``vllm bench serve`` line that measures it."""
    try:
        row, result = estimate_row(ns, cat, request_of)
    except Refused as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    clients = min(ns.max_concurrency or ns.num_prompts, ns.num_prompts)
    rec = record(ns, result, clients)
    command = bench_command(ns, row, cat, clients)
    if ns.json:
        print(json.dumps({**rec, "vllm_bench_command": command}, indent=2))
        return 0
    title = (
        f"{row['checkpoint']} on {int(row['server_gpus'])} × {row['gpu']} (TP {int(row['tp'])}, "
        f"PP {int(row['pp'])}, DP {int(row['dp'])})"
    )
    print(text(rec, title) + "Measure it with:\n" + command)
    return 0
