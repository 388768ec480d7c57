"""Extract the options accepted by SGLang's server from a release on PyPI.

Usage::

    python -m scripts.flags sglang 0.5.23          # (re)write the sizing/launch/data file
    python -m scripts.flags sglang 0.5.23 --check  # exit 1 if it differs

SGLang is never imported. The rules mirror its code (paths inside the release):

* ``sglang/srt/server_args.py``: ``prepare_server_args`` builds a plain
  ``argparse.ArgumentParser`` and calls ``ServerArgs.add_cli_args``, which calls
  ``add_cli_args_from_dataclass(parser, ServerArgs)`` and then registers a few
  options explicitly with ``parser.add_argument``.
* ``ServerArgs`` is assembled from the field classes listed in
  ``_INPUT_NAMESPACES`` (``sglang/srt/arg_groups/fields/*.py``).
* ``sglang/srt/arg_groups/arg_utils.py``: a field annotated ``A[T, "help"]`` or
  ``A[T, Arg(...)]`` becomes ``Arg.cli_name`` or ``--field-name``, plus
  ``Arg.aliases``; ``Arg(no_cli=True)`` fields are skipped. Booleans are
  ``store_true`` unless ``Arg.action`` is ``argparse.BooleanOptionalAction``,
  which adds ``--no-...`` spellings.
"""

from __future__ import annotations

import ast
import tempfile
from pathlib import Path

from scripts.flags import pypi
from scripts.flags.output import ARGPARSE_HELP, DATA_DIR, flag_file
from scripts.flags.pyindex import SourceIndex, last_name, slice_items

SERVER_ARGS = "sglang.srt.server_args"


def _arg_meta(annotation: ast.expr) -> dict | None:
    """Return the ``Arg(...)`` keywords of ``A[T, ...]`` (``{}`` for a bare help string).

    None means the field has no CLI metadata, as in ``_unwrap_annotated``.
    """
    if not (isinstance(annotation, ast.Subscript) and last_name(annotation.value) in {"A", "Annotated"}):
        return None
    for item in slice_items(annotation)[1:]:
        if isinstance(item, ast.Call) and last_name(item.func) == "Arg":
            return {k.arg: k.value for k in item.keywords if k.arg}
        if isinstance(item, (ast.JoinedStr, ast.BinOp)) or (
            isinstance(item, ast.Constant) and isinstance(item.value, str)
        ):
            return {}
    return None


def field_options(name: str, annotation: ast.expr) -> list[str]:
    """Option strings ``add_cli_args_from_dataclass`` registers for one field."""
    meta = _arg_meta(annotation)
    if meta is None or getattr(meta.get("no_cli"), "value", False):
        return []
    cli_name = getattr(meta.get("cli_name"), "value", None) or "--" + name.replace("_", "-")
    strings = [cli_name] + [e.value for e in getattr(meta.get("aliases"), "elts", [])]
    if last_name(meta.get("action")) == "BooleanOptionalAction":
        strings += ["--no-" + s[2:] for s in strings if s.startswith("--")]
    return strings


def namespace_classes(index: SourceIndex) -> list[tuple[str, ast.ClassDef]]:
    """The field classes of ``_INPUT_NAMESPACES`` plus ``ServerArgs`` itself."""
    lists = [v for _, v in index.definitions(SERVER_ARGS, "_INPUT_NAMESPACES") if isinstance(v, ast.List)]
    if not lists:
        raise SystemExit("_INPUT_NAMESPACES not found: SGLang's layout changed")
    names = [last_name(elt) for elt in lists[0].elts] + ["ServerArgs"]
    classes = [index.find_class(SERVER_ARGS, n or "") for n in names]
    if None in classes:
        raise SystemExit("a namespace class could not be resolved")
    return classes


def explicit_options(index: SourceIndex) -> list[str]:
    """Options that ``ServerArgs.add_cli_args`` registers with ``add_argument``."""
    found = index.find_class(SERVER_ARGS, "ServerArgs")
    method = index.method(*found, "add_cli_args") if found else None
    if method is None:
        raise SystemExit("ServerArgs.add_cli_args not found: SGLang's layout changed")
    strings = []
    for node in ast.walk(method[1]):
        if isinstance(node, ast.Call) and last_name(node.func) == "add_argument":
            strings += [
                a.value for a in node.args if isinstance(a, ast.Constant) and str(a.value).startswith("-")
            ]
    return strings


def sglang_flags(index: SourceIndex) -> list[str]:
    """All option strings of SGLang's server parser, sorted, checked for duplicates."""
    strings = list(ARGPARSE_HELP) + explicit_options(index)
    for module, cls in namespace_classes(index):
        for name, (_, annotation) in index.fields(module, cls).items():
            strings += field_options(name, annotation)
    if len(strings) != len(set(strings)):
        dupes = sorted({s for s in strings if strings.count(s) > 1})
        raise SystemExit(f"registered twice: {dupes}: the extraction rule is wrong")
    return sorted(strings)


def render(version: str, release: pypi.ReleaseFile, flags: list[str]) -> str:
    """Text of ``sglang_flags-VERSION.txt``: header comments, then sorted flags."""
    title = f"SGLang {version}: options accepted by `python -m sglang.launch_server` / `sglang serve`"
    return flag_file(title, release, flags, "sglang", version)


def extract(version: str) -> dict[Path, str]:
    """Download SGLang ``version`` and return ``{output path: content}``."""
    release = pypi.pick_file(pypi.release_files("sglang", version))
    with tempfile.TemporaryDirectory() as tmp:
        archive = pypi.download(release, Path(tmp))
        index = SourceIndex(pypi.read_sources(archive, "sglang"))
    return {DATA_DIR / f"sglang_flags-{version}.txt": render(version, release, sglang_flags(index))}
