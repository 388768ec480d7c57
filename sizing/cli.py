"""``python -m sizing``: estimate, table, explain, command, import-config, export, diff.

Every command validates the catalog first. A bad catalog or a bad argument prints one line on
stderr and exits with status 2; a stale ``export --check`` exits 1.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Callable, Sequence

from sizing.catalog import DEFAULT_DIR, Catalog, load_catalog
from sizing.errors import CatalogError, UsageError
from sizing.estimate import Request, estimate, estimate_frame

Handler = Callable[[argparse.Namespace, Catalog], int]
KV_DTYPES = ("auto", "bfloat16", "float16", "fp8", "fp8_e4m3", "fp8_e5m2")


def add_case_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments that describe one deployment, with vLLM's own flag names."""
    p.add_argument("--model", required=True, help="catalog model id, checkpoint id, or a config.json path")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--server", help="catalog server id (sets GPU type and count)")
    where.add_argument("--gpu", help="catalog GPU id")
    where.add_argument("--gpu-memory-mib", type=int, help="total memory per GPU as nvidia-smi reports it, MiB")
    p.add_argument("--gpus", type=int, help="number of GPUs")
    p.add_argument("--vllm-version", help="vLLM release whose accounting to model (default: the catalog's)")
    p.add_argument("--tensor-parallel-size", "-tp", type=int)
    p.add_argument("--pipeline-parallel-size", "-pp", type=int)
    p.add_argument("--data-parallel-size", "-dp", type=int)
    p.add_argument("--enable-expert-parallel", action="store_true", help="spread MoE experts over TP x DP ranks")
    p.add_argument("--gpu-memory-utilization", type=float)
    p.add_argument("--max-model-len", type=int)
    p.add_argument("--kv-cache-dtype", default="auto", choices=KV_DTYPES)
    p.add_argument("--max-num-batched-tokens", type=int)
    p.add_argument("--max-num-seqs", type=int)
    p.add_argument("--block-size", type=int)
    p.add_argument("--enforce-eager", action="store_true")
    p.add_argument("--quantization", "-q")
    p.add_argument("--kv-cache-memory-bytes", type=int, help="KV-cache bytes per GPU; skips the memory budget")
    p.add_argument("--limit-mm-per-prompt", type=image_limit, help='multimodal items per prompt, e.g. \'{"image": 0}\'')
    p.add_argument("--language-model-only", action="store_true", help="serve the text model only (no vision tower)")


def image_limit(text: str) -> int | None:
    """argparse type of ``--limit-mm-per-prompt``: the image count (a bad value is a usage error)."""
    from sizing.towers import image_limit as parse  # noqa: PLC0415 - keeps `--help` fast

    try:
        return parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def request_of(ns: argparse.Namespace) -> Request:
    """The :class:`Request` the parsed arguments describe; positive numbers only."""
    fields = {name: getattr(ns, name) for name in Request.__dataclass_fields__ if hasattr(ns, name)}
    for name, value in fields.items():
        if name == "limit_mm_per_prompt":  # 0 images is vLLM's text-only profile; the parser checked it
            continue
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value <= 0:
            raise UsageError(f"--{name.replace('_', '-')}: must be greater than 0, got {value}")
    if fields.get("gpu_memory_utilization") and fields["gpu_memory_utilization"] > 1:
        raise UsageError(f"--gpu-memory-utilization: must be at most 1, got {fields['gpu_memory_utilization']}")
    return Request(**fields)


def cmd_estimate(ns: argparse.Namespace, cat: Catalog) -> int:
    """Print one case as a readable table, or as one JSON object with --json."""
    from sizing.report import record  # noqa: PLC0415 - keeps `--help` fast
    rec = record(estimate(cat, request_of(ns)), cat)
    if ns.json:
        print(json.dumps(rec, ensure_ascii=False, indent=2))
        return 0
    width = max(len(k) for k in rec)
    for key, value in rec.items():
        if key != "vllm_command":
            print(f"{key:<{width}}  {value}")
    print(f"\n{rec['vllm_command']}")
    return 0


def cmd_command(ns: argparse.Namespace, cat: Catalog) -> int:
    """Print the vLLM (or SGLang) command for one case."""
    from sizing.commands import sglang_command, vllm_command  # noqa: PLC0415
    row = estimate(cat, request_of(ns))
    print(sglang_command(row, cat) if ns.engine == "sglang" else vllm_command(row, cat))
    return 0


def cmd_explain(ns: argparse.Namespace, cat: Catalog) -> int:
    """Print a worked example step by step, every intermediate value with its unit."""
    from sizing.explain import explain_text  # noqa: PLC0415
    frame = estimate_frame(cat, request_of(ns))
    print(explain_text(frame[frame["chosen"]].iloc[0], cat, "en"))
    return 0


def cmd_table(ns: argparse.Namespace, cat: Catalog) -> int:
    """Print the fit table, filtered, as markdown, CSV or JSON."""
    from sizing.tables import cli_table  # noqa: PLC0415
    print(cli_table(cat, ns.model, ns.server, ns.precision, ns.format, ns.vllm_version), end="")
    return 0


def cmd_import_config(ns: argparse.Namespace, cat: Catalog) -> int:
    """Print a catalog models entry built from a Hugging Face config.json."""
    from sizing.importer import entry_yaml  # noqa: PLC0415
    print(entry_yaml(Path(ns.config), ns.id, cat), end="")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m sizing``."""
    parser = argparse.ArgumentParser(prog="python -m sizing", description=__doc__.splitlines()[0])
    parser.add_argument("--catalog", default=str(DEFAULT_DIR), help="catalog folder (default: catalog/)")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, handler, helptext in (("estimate", cmd_estimate, "one case"), ("explain", cmd_explain, "worked example"),
                                    ("command", cmd_command, "vLLM command for one case")):
        p = sub.add_parser(name, help=helptext)
        add_case_arguments(p)
        p.set_defaults(handler=handler)
    sub.choices["estimate"].add_argument("--json", action="store_true", help="one JSON object")
    sub.choices["command"].add_argument("--engine", choices=("vllm", "sglang"), default="vllm")
    table = sub.add_parser("table", help="the fit table")
    for flag in ("--model", "--server", "--precision", "--vllm-version"):
        table.add_argument(flag)
    table.add_argument("--format", choices=("markdown", "csv", "json"), default="markdown")
    table.set_defaults(handler=cmd_table)
    imp = sub.add_parser("import-config", help="catalog entry from a Hugging Face config.json")
    imp.add_argument("config")
    imp.add_argument("--id", help="ORG/NAME of the model (default: from the file's _name_or_path)")
    imp.set_defaults(handler=cmd_import_config)
    register_extra(sub)
    return parser


def register_extra(sub: argparse._SubParsersAction) -> None:
    """Commands that live in their own modules (snapshots and revision diffs)."""
    from sizing import snapshots  # noqa: PLC0415
    snapshots.register(sub)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit status (2 for catalog and usage errors)."""
    parser = build_parser()
    ns = parser.parse_args(argv)
    try:
        cat = load_catalog(ns.catalog)
        return ns.handler(ns, cat)
    except CatalogError as exc:
        print(exc, file=sys.stderr)
        return 2
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
