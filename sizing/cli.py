"""``python -m sizing``: list, estimate, explain, command, table, import-config, export, diff, completion.

Every command validates the catalog and every argument first. A bad catalog or a bad argument
prints one line on stderr and exits with status 2; a stale ``export --check`` and a ``command``
for which nothing fits exit 1. Output cut short by a closed pipe (``| head``) ends quietly.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import io
import json
import os
import sys
from pathlib import Path
from typing import Callable, Sequence

from sizing import cli_tables
from sizing import cli_types as ty
from sizing.catalog.loader import DEFAULT_DIR, Catalog, load_catalog
from sizing.catalog.settings import Settings, settings_of
from sizing.engine.estimate import estimate
from sizing.errors import CatalogError, UsageError
from sizing.kvdtypes import KV_CACHE_DTYPE_BYTES

Handler = Callable[[argparse.Namespace, Catalog], int]
KV_DTYPES = tuple(KV_CACHE_DTYPE_BYTES)
DTYPES = ("auto", "bfloat16", "float16", "half", "float", "float32")
"""vLLM's ``--dtype`` choices; the engine models 16-bit activations, so float/float32 are refused."""
SIGPIPE_STATUS = 141


def add_case_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments that describe one deployment, with vLLM's own flag names."""
    p.add_argument(
        "--model",
        required=True,
        type=ty.ident,
        help="catalog model or checkpoint id (any case), a config.json or a folder holding one",
    )
    where = p.add_mutually_exclusive_group()
    where.add_argument(
        "--server", type=ty.ident, help="catalog server id (sets GPU type and count); see `list servers`"
    )
    where.add_argument("--gpu", type=ty.ident, help="catalog GPU id; see `list gpus`")
    where.add_argument(
        "--gpu-memory-mib", type=ty.count("mib"), help="total memory per GPU as nvidia-smi reports it, MiB"
    )
    p.add_argument("--gpus", type=ty.count("gpus"), help="number of GPUs (at most the server's)")
    p.add_argument(
        "--vllm-version",
        type=ty.release,
        help="vLLM release whose accounting to model (default: the catalog's)",
    )
    for flag, short in (
        ("--tensor-parallel-size", "-tp"),
        ("--pipeline-parallel-size", "-pp"),
        ("--data-parallel-size", "-dp"),
    ):
        p.add_argument(flag, short, type=ty.count("gpus"), help="default: the plan the tables choose")
    p.add_argument(
        "--gpu-memory-utilization",
        type=ty.fraction,
        help="share of GPU memory vLLM may use (default: the catalog's, 0.90)",
    )
    p.add_argument(
        "--max-model-len",
        type=ty.max_model_len,
        help="tokens, as vLLM reads them: 32768, 32K, 32k (=32000), or auto (the longest context the "
        "KV cache holds, up to the model's; default: the model's context)",
    )
    p.add_argument(
        "--kv-cache-dtype",
        default="auto",
        choices=KV_DTYPES,
        help="default: auto, as in vLLM (the site's tables assume fp8: pass it to compare)",
    )
    p.add_argument("--dtype", default="auto", choices=DTYPES, help="activation dtype, as vLLM's --dtype")
    p.add_argument("--max-num-batched-tokens", type=ty.count("tokens"), help="default: vLLM's for the GPU")
    p.add_argument("--max-num-seqs", type=ty.count("seqs"), help="default: vLLM's for the GPU")
    p.add_argument("--block-size", type=ty.block_size, help="tokens per KV block (default: vLLM's)")
    p.add_argument("--enforce-eager", action="store_true", help="no CUDA graphs")
    p.add_argument(
        "--quantization",
        "-q",
        type=ty.ident,
        help="vLLM's method (awq, gptq, fp8, modelopt_fp4, …) or a "
        "catalog precision; picks the model's checkpoint of it",
    )
    p.add_argument(
        "--kv-cache-memory-bytes",
        type=ty.count("bytes"),
        help="KV-cache bytes per GPU; skips the memory budget",
    )
    p.add_argument("--host", type=ty.host, help="--host of the printed command (default: the catalog's)")
    p.add_argument("--port", type=ty.port, help="--port of the printed command (default: the catalog's)")
    p.add_argument(
        "--enable-expert-parallel", action="store_true", help="spread MoE experts over TP x DP ranks"
    )
    p.add_argument(
        "--limit-mm-per-prompt", type=image_limit, help="multimodal items per prompt, e.g. '{\"image\": 0}'"
    )
    p.add_argument(
        "--language-model-only", action="store_true", help="serve the text model only (no vision tower)"
    )
    p.add_argument(
        "--enable-prefix-caching",
        action="store_true",
        help="prefix caching (hybrid Mamba/GDN models: one more state block per request)",
    )
    p.add_argument(
        "--speculative-config",
        type=speculative_config,
        help='vLLM\'s speculative decoding JSON, e.g. \'{"method": "mtp", "num_speculative_tokens": 1}\'',
    )


def speculative_config(text: str) -> object:
    """argparse type of ``--speculative-config``: a :class:`SpecConfig` (bad JSON or method: a usage
    error)."""
    from sizing.engine.speculative import parse_speculative_config  # noqa: PLC0415 - keeps `--help` fast

    try:
        return parse_speculative_config(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def image_limit(text: str) -> int | None:
    """argparse type of ``--limit-mm-per-prompt``: the image count (a bad value is a usage error)."""
    from sizing.engine.towers import image_limit as parse  # noqa: PLC0415 - keeps `--help` fast

    try:
        return parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def request_of(ns: argparse.Namespace, cat: Catalog) -> Settings:
    """The :class:`Settings` the parsed (already range-checked) arguments describe (``--max-model-len auto``
    resolved by :func:`auto_fitted`)."""
    req = settings_of(vars(ns))
    return auto_fitted(cat, req) if req.max_model_len == ty.AUTO else req


def auto_fitted(cat: Catalog, req: Settings) -> Settings:
    """vLLM's ``--max-model-len auto`` (-1): the model's own context when one request of it fits, else the
    longest context the KV cache holds (``vllm/v1/core/kv_cache_utils.py``, ``_auto_fit_max_model_len``,
    run when ``original_max_model_len == -1``)."""
    asked = dataclasses.replace(req, max_model_len=None)
    row = estimate(cat, asked)
    longest = int(row["longest_context"])
    return asked if bool(row["fits"]) or longest <= 0 else dataclasses.replace(req, max_model_len=longest)


def cmd_estimate(ns: argparse.Namespace, cat: Catalog) -> int:
    """Print one case as a labelled summary, or as one JSON object with --json."""
    from sizing.review.report import record  # noqa: PLC0415 - keeps `--help` fast

    rec = record(estimate(cat, request_of(ns, cat)), cat)
    if ns.json:
        print(json.dumps(rec, ensure_ascii=False, indent=2))
        return 0
    from sizing.render import (  # noqa: PLC0415
        summary,
        terminal,
    )

    title = f"{rec['checkpoint']} on {rec['gpus']} × {rec['gpu']}, vLLM {rec['vllm_version']}"
    label = (
        "Command:"
        if rec["fits"]
        else "Command as asked (will not start; `command` prints the nearest launch that does):"
    )
    print(terminal.summary_text(title, summary.sections(rec), rec["vllm_command"], label), end="")
    return 0


def cmd_command(ns: argparse.Namespace, cat: Catalog) -> int:
    """Print the vLLM (or SGLang) command; never one its estimate says will not start unless --force."""
    from sizing.launch.commands import node_commands  # noqa: PLC0415
    from sizing.launch.fallback import nearest_launch  # noqa: PLC0415

    req = request_of(ns, cat)
    if ns.force:
        row = estimate(cat, req)
    else:
        outcome = nearest_launch(cat, req)
        if outcome.row is None:
            print(
                f"error: {req.model} does not fit on the hardware given, and no nearer launch starts: "
                f"{outcome.reason} (`--force` prints the requested command anyway)",
                file=sys.stderr,
            )
            return 1
        row = outcome.row
        if outcome.changes:
            print(
                f"note: the launch asked for will not start; printing the nearest that does: "
                f"{', '.join(outcome.changes)} (`--force` prints the one asked for)",
                file=sys.stderr,
            )
    print(node_commands(row, cat, ns.engine))
    return 0


def cmd_explain(ns: argparse.Namespace, cat: Catalog) -> int:
    """Print a worked example step by step, every intermediate value with its unit."""
    from sizing.render.explain import explain_text  # noqa: PLC0415
    from sizing.views.bundle import judged  # noqa: PLC0415

    print(explain_text(judged(estimate(cat, request_of(ns, cat)), cat), cat, "en"))
    return 0


def resolve_table_ids(ns: argparse.Namespace, cat: Catalog) -> None:
    """Replace ``table``'s --model/--server/--precision with the catalog ids they denote (any case)."""
    from sizing.catalog import ids  # noqa: PLC0415

    if ns.model:
        found = ids.resolve_model(cat, ns.model)
        if found is None:
            raise UsageError(
                f"--model: unknown model {ids.shown(ns.model)}"
                f"{ids.did_you_mean(ns.model, ids.model_names(cat))}"
            )
        ns.model = found
    if ns.server:
        ns.server = ids.resolve("--server", ns.server, cat.servers, "server")
    if ns.precision:
        ns.precision = ids.resolve("--precision", ns.precision, cat.precisions, "precision")
    if getattr(ns, "gpu", None):
        ns.gpu = ids.resolve("--gpu", ns.gpu, cat.gpus, "GPU")


def cmd_table(ns: argparse.Namespace, cat: Catalog) -> int:
    """Print the fit table, filtered and sorted (:mod:`sizing.cli_tables`): text, markdown, CSV, JSON."""
    resolve_table_ids(ns, cat)
    print(cli_tables.table_output(cat, cli_tables.query_of(ns), ns.format), end="")
    return 0


def cmd_list(ns: argparse.Namespace, cat: Catalog) -> int:
    """Print the catalog's ids of one kind as a terminal table, JSON or CSV."""
    from sizing.views.listing import KINDS  # noqa: PLC0415

    rows = KINDS[ns.kind](cat)
    if ns.format == "json":
        print(json.dumps(rows, ensure_ascii=False, indent=2))
    elif ns.format == "csv":
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        print(buffer.getvalue(), end="")
    else:
        from sizing.render.terminal import text_table  # noqa: PLC0415

        numeric = [isinstance(v, (int, float)) and not isinstance(v, bool) for v in rows[0].values()]
        print(text_table(list(rows[0]), ([_cell(v) for v in r.values()] for r in rows), numeric), end="")
    return 0


def _cell(value: object) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def cmd_completion(ns: argparse.Namespace, cat: Catalog) -> int:
    """Print the bash completion script (commands, options, choices, catalog ids)."""
    from sizing.completion import bash_script  # noqa: PLC0415

    print(bash_script(build_parser(), cat), end="")
    return 0


def cmd_import_config(ns: argparse.Namespace, cat: Catalog) -> int:
    """Print a catalog models entry built from a Hugging Face config.json."""
    from sizing.engine.importer import entry_yaml  # noqa: PLC0415

    print(entry_yaml(Path(ns.config), ns.id, cat), end="")
    return 0


def add_case_commands(sub: argparse._SubParsersAction) -> None:
    """``estimate``, ``explain`` and ``command``: one deployment each."""
    for name, handler, helptext in (
        ("estimate", cmd_estimate, "one case: verdict, vLLM's figures, command"),
        ("explain", cmd_explain, "one case as a worked example, step by step"),
        ("command", cmd_command, "the vLLM command for one case (one that starts)"),
    ):
        p = sub.add_parser(name, help=helptext, description=helptext)
        add_case_arguments(p)
        p.set_defaults(handler=handler)
    sub.choices["estimate"].add_argument("--json", action="store_true", help="one JSON object (for machines)")
    command = sub.choices["command"]
    command.add_argument("--engine", choices=("vllm", "sglang"), default="vllm", help="default: vllm")
    command.add_argument(
        "--force",
        action="store_true",
        help="print the command asked for even if its estimate says it will not start",
    )


def add_catalog_commands(sub: argparse._SubParsersAction) -> None:
    """``list``, ``table`` and ``import-config``."""
    listing = sub.add_parser("list", help="the catalog's ids: models, gpus, servers, precisions")
    listing.add_argument("kind", choices=("models", "gpus", "servers", "precisions"))
    listing.add_argument("--format", choices=("text", "json", "csv"), default="text", help="default: text")
    listing.set_defaults(handler=cmd_list)
    table = sub.add_parser("table", help="the fit table (recommended plans)")
    table.add_argument("--model", help="only this model or checkpoint (any case)")
    table.add_argument("--server", help="only this server")
    table.add_argument("--precision", help="only this precision (catalog id, e.g. fp8)")
    table.add_argument("--vllm-version", type=ty.release, help="vLLM release whose accounting to model")
    table.add_argument(
        "--format",
        choices=("text", "markdown", "csv", "json"),
        default="text",
        help="text (for a terminal, the default), markdown, csv, json",
    )
    cli_tables.add_arguments(table)
    table.set_defaults(handler=cmd_table)
    imp = sub.add_parser("import-config", help="catalog entry from a Hugging Face config.json")
    imp.add_argument("config")
    imp.add_argument("--id", help="ORG/NAME of the model (default: from the file's _name_or_path)")
    imp.set_defaults(handler=cmd_import_config)
    completion = sub.add_parser("completion", help="shell completion script (bash)")
    completion.add_argument("shell", choices=("bash",))
    completion.set_defaults(handler=cmd_completion)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m sizing`` (errors on one line, exit status 2)."""
    parser = ty.OneLineParser(prog="python -m sizing", description=__doc__.splitlines()[0])
    parser.add_argument("--catalog", default=str(DEFAULT_DIR), help="catalog folder (default: catalog/)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_catalog_commands(sub)
    add_case_commands(sub)
    register_extra(sub)
    return parser


def register_extra(sub: argparse._SubParsersAction) -> None:
    """Commands that live in their own modules (snapshots and revision diffs)."""
    from sizing import cli_review, cli_throughput  # noqa: PLC0415

    cli_review.register(sub)
    cli_throughput.register(sub, add_case_arguments, request_of)


def _check_command_given(parser: argparse.ArgumentParser, argv: Sequence[str]) -> None:
    """Name the commands (and any stray option) when no command word is among the arguments."""
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices  # noqa: SLF001
    if any(a in ("-h", "--help") for a in argv) or any(a in commands for a in argv):
        return
    stray = [a for a in argv if a.startswith("-") and a != "--catalog" and not a.startswith("--catalog=")]
    extra = f"; unrecognized {' '.join(stray)}" if stray else ""
    parser.error(f"give a command: {', '.join(commands)}{extra}")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit status (2 for catalog and usage errors)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    _check_command_given(parser, argv)
    ns = parser.parse_args(argv)
    try:
        cat = load_catalog(ns.catalog)
        status = ns.handler(ns, cat)
        sys.stdout.flush()
        return status
    except CatalogError as exc:
        print(exc, file=sys.stderr)
        return 2
    except UsageError as exc:
        print(f"error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return _quiet_pipe()


def _quiet_pipe() -> int:
    """The reader closed the pipe (``| head``): point stdout at /dev/null so exit does not fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return SIGPIPE_STATUS
