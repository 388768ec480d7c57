"""The one strict, bounded reader of YAML and JSON, for the files a user hands the project and ours.

config.json (``import-config``, ``--model PATH``), the catalog's YAML (``--catalog``, ``SIZING_CATALOG``,
the catalog of another git revision in ``diff``) and the snapshots in ``generated/`` are read here and
nowhere else; so are the repository's own YAML and JSON (message files, calibration logs, MkDocs
configs, the committed flag lists, PyPI answers in ``scripts/``): one loader, safe tags only, duplicate
keys refused (``tests/test_safeio.py`` finds any other parser). Each read is bounded before it can hurt:

* only a regular file is read: a FIFO, a device (``/dev/zero``), a socket or a folder is refused without
  reading a byte (the file is opened non-blocking and checked with ``fstat``, so a FIFO cannot hang it);
* at most :data:`MAX_BYTES` bytes (YAML: :data:`MAX_YAML_BYTES`), read within :data:`READ_SECONDS`;
* JSON and YAML nested deeper than :data:`MAX_DEPTH` are refused, and so is YAML whose aliases would
  expand to more than :data:`ALIAS_BUDGET` nodes (a few kilobytes of aliases can name billions of nodes);
* with ``finite=True`` a JSON ``NaN``, ``Infinity`` or a number that overflows a float (``1e309``) is
  refused by field.

Every refusal is a :class:`sizing.errors.CatalogError`: one line naming the file (and the field or line).
"""

from __future__ import annotations

import copy
import json
import math
import os
import stat
import time
from pathlib import Path
from typing import Any, Callable

import yaml
from yaml.nodes import MappingNode, Node, SequenceNode

from sizing.errors import CatalogError

MAX_BYTES = 16 * 2**20
"""Largest file read, in bytes (16 MiB: ``generated/fits.csv`` is about 4 MB, a config.json a few KB)."""
MAX_YAML_BYTES = 2**19
"""Largest YAML file, in bytes (512 KiB, ten times the largest catalog file; PyYAML parses about 0.3 MB/s)."""
READ_SECONDS = 3.0
"""Time allowed for reading (and parsing) one file, in seconds."""
MAX_DEPTH = 32
"""Deepest nesting of JSON arrays/objects or YAML collections (a config.json nests 4 levels, the
catalog 5)."""
ALIAS_BUDGET = 10_000
"""Most YAML nodes all aliases together may stand for (each ``*alias`` counts the nodes it repeats)."""
CHUNK = 2**16


def _refuse(label: str, problem: str, where: str = "", field: str = "") -> CatalogError:
    return CatalogError(label, where, field, problem)


def _open_regular(path: Path, label: str) -> int:
    """A descriptor of ``path`` open for reading, after checking it is a regular file (never blocks)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise _refuse(label, "file is missing") from None
    except OSError as exc:
        raise _refuse(label, f"cannot be opened ({exc.strerror or exc.__class__.__name__})") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = (
            "a folder"
            if stat.S_ISDIR(mode)
            else "a FIFO"
            if stat.S_ISFIFO(mode)
            else "a device"
            if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "not a file"
        )
        raise _refuse(label, f"is {kind}, not a regular file")
    return fd


def read_bytes(
    path: str | Path, label: str | None = None, limit: int = MAX_BYTES, seconds: float = READ_SECONDS
) -> bytes:
    """The bytes of the regular file ``path``: at most ``limit`` bytes, read within ``seconds``.

    ``label`` names the file in errors (default: the path as given). A file larger than ``limit`` is
    refused from its size before anything is read (a sparse 2 GB file costs nothing).
    """
    label = str(path) if label is None else label
    fd = _open_regular(Path(path), label)
    try:
        if os.fstat(fd).st_size > limit:
            raise _refuse(label, f"is larger than {_size(limit)}; a file read here must be smaller")
        return _read_bounded(fd, label, limit, time.monotonic() + seconds)
    finally:
        os.close(fd)


def _read_bounded(fd: int, label: str, limit: int, deadline: float) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while chunk := os.read(fd, CHUNK):
        size += len(chunk)
        if size > limit:
            raise _refuse(label, f"is larger than {_size(limit)}; a file read here must be smaller")
        if time.monotonic() > deadline:
            raise _refuse(label, f"took longer than {READ_SECONDS:g} s to read")
        chunks.append(chunk)
    return b"".join(chunks)


def _size(limit: int) -> str:
    return f"{limit // 2**20} MiB" if limit >= 2**20 else f"{limit // 2**10} KiB"


def decode(data: bytes, label: str) -> str:
    """``data`` as UTF-8 text; a byte that is not UTF-8 is refused by its offset."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _refuse(label, "file is not valid UTF-8", f"byte {exc.start}") from None


def read_text(path: str | Path, label: str | None = None, limit: int = MAX_BYTES) -> str:
    """The UTF-8 text of the regular file ``path`` (bounded as :func:`read_bytes`)."""
    label = str(path) if label is None else label
    return decode(read_bytes(path, label, limit), label)


# ---------------------------------------------------------------------------------------------
# JSON
# ---------------------------------------------------------------------------------------------


def _keep_constant(name: str) -> float:
    return float(name)


def parse_json(text: str, label: str, finite: bool = True) -> Any:
    """``text`` parsed as JSON, nested at most :data:`MAX_DEPTH` deep.

    With ``finite`` (the rule of a config.json), ``NaN``, ``Infinity`` and numbers beyond a float's range
    are refused by field; without it they are returned as floats.
    """
    try:
        data = json.loads(text, parse_constant=_keep_constant)
    except RecursionError:
        raise _refuse(label, f"JSON nested deeper than {MAX_DEPTH} levels") from None
    except json.JSONDecodeError as exc:
        raise _refuse(label, f"not valid JSON: {exc.msg}", f"line {exc.lineno}") from None
    _check_tree(data, label, finite)
    return data


def _check_tree(data: Any, label: str, finite: bool) -> None:
    """Refuse nesting beyond :data:`MAX_DEPTH` and (with ``finite``) non-finite numbers, naming the field."""
    stack: list[tuple[Any, tuple[str, ...]]] = [(data, ())]
    while stack:
        value, where = stack.pop()
        if len(where) > MAX_DEPTH:
            raise _refuse(
                label, f"JSON nested deeper than {MAX_DEPTH} levels", field=".".join(where[:3]) + ".…"
            )
        if isinstance(value, dict):
            stack.extend((v, (*where, str(k))) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((v, (*where, str(i))) for i, v in enumerate(value))
        elif finite and isinstance(value, float) and not math.isfinite(value):
            raise _refuse(
                label,
                f"must be a finite number, got {value!r} (NaN, infinities and numbers "
                "beyond 1.8e308 are not numbers a config.json may hold)",
                field=".".join(where),
            )


def read_json(path: str | Path, label: str | None = None, finite: bool = True) -> Any:
    """The JSON value in the regular file ``path`` (bounded as :func:`read_bytes` and :func:`parse_json`)."""
    label = str(path) if label is None else label
    return parse_json(read_text(path, label), label, finite)


# ---------------------------------------------------------------------------------------------
# YAML
# ---------------------------------------------------------------------------------------------


class LimitExceeded(yaml.YAMLError):
    """A bound of :func:`parse_yaml` was crossed (depth, aliases, time)."""


class BoundedLoader(yaml.SafeLoader):
    """SafeLoader that refuses duplicate keys, nesting beyond :data:`MAX_DEPTH`, aliases beyond
    :data:`ALIAS_BUDGET` nodes and composing past its deadline (:data:`READ_SECONDS` of this thread's CPU
    time:
    a parse is CPU-bound, and a busy machine must not turn a slow parse of a good file into a refusal)."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.nesting, self.aliased, self.deadline = 0, 0, time.thread_time() + READ_SECONDS
        self.sizes: dict[int, int] = {}
        self.composed: set[int] = set()

    def compose_node(self, parent: Node | None, index: Any) -> Node:
        """Compose one node, counting depth, aliased nodes and time."""
        if self.check_event(yaml.AliasEvent):
            node = super().compose_node(parent, index)
            if id(node) not in self.composed:  # an alias of a node still being composed: it contains itself
                raise LimitExceeded("an alias refers to a node that contains it (a recursive alias)")
            self.aliased += expanded_size(node, self.sizes)
            if self.aliased > ALIAS_BUDGET:
                raise LimitExceeded(f"aliases stand for more than {ALIAS_BUDGET} nodes (an alias bomb?)")
            return node
        self.nesting += 1
        try:
            if self.nesting > MAX_DEPTH:
                raise LimitExceeded(f"nested deeper than {MAX_DEPTH} levels")
            if time.thread_time() > self.deadline:
                raise LimitExceeded(f"took more than {READ_SECONDS:g} s of CPU time to parse")
            node = super().compose_node(parent, index)
            self.composed.add(id(node))
            return node
        finally:
            self.nesting -= 1


def _construct_mapping(loader: BoundedLoader, node: MappingNode, deep: bool = False) -> dict:
    seen: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
        seen[key] = loader.construct_object(value_node, deep=deep)
    return seen


BoundedLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def expanded_size(node: Node, sizes: dict[int, int]) -> int:
    """How many nodes the fully composed ``node`` stands for once every alias in it is written out, at most
    ``ALIAS_BUDGET + 1`` (memoised in ``sizes``, so shared subtrees are counted in linear time)."""
    if id(node) in sizes:
        return sizes[id(node)]
    if not isinstance(node, (MappingNode, SequenceNode)):
        return 1
    children = [n for pair in node.value for n in pair] if isinstance(node, MappingNode) else node.value
    total = 1
    for child in children:
        total = min(total + expanded_size(child, sizes), ALIAS_BUDGET + 1)
    sizes[id(node)] = total
    return total


PARSED_KEPT = 32
"""How many parsed YAML texts :func:`parse_yaml` keeps (the catalog's files are read again and again by one
process: the tests, a build's prepare step; pure-Python parsing costs about 1 ms per KiB, a copy 1 %)."""
_PARSED: dict[str, Any] = {}


def parse_yaml(text: str, label: str) -> Any:
    """``text`` parsed as YAML (safe tags only, duplicate keys refused), bounded in size, depth, aliases
    and time; any problem is one :class:`CatalogError` naming ``label`` and the line. A text parsed before
    in this process is answered with a deep copy of the kept value (the caller may change what it gets)."""
    if text in _PARSED:
        return copy.deepcopy(_PARSED[text])
    value = _parse_yaml(text, label)
    if len(_PARSED) >= PARSED_KEPT:
        del _PARSED[next(iter(_PARSED))]
    _PARSED[text] = copy.deepcopy(value)
    return value


def _parse_yaml(text: str, label: str) -> Any:
    """:func:`parse_yaml` without the kept values."""
    if len(text.encode("utf-8")) > MAX_YAML_BYTES:
        raise _refuse(label, f"is larger than {_size(MAX_YAML_BYTES)}; a YAML file read here must be smaller")
    loader = BoundedLoader(text)
    try:
        return loader.get_single_data()
    except RecursionError:
        raise _refuse(label, f"YAML nested deeper than {MAX_DEPTH} levels") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or loader.get_mark()
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise _refuse(label, f"YAML error: {problem}", f"line {mark.line + 1}") from None
    finally:
        loader.dispose()


def read_yaml(path: str | Path, label: str | None = None) -> Any:
    """The YAML value in the regular file ``path`` (bounded as :func:`read_bytes` and :func:`parse_yaml`)."""
    label = str(path) if label is None else label
    return parse_yaml(read_text(path, label, MAX_YAML_BYTES), label)


# ---------------------------------------------------------------------------------------------
# Outputs
# ---------------------------------------------------------------------------------------------


def may_write_into(folder: Path, marker: Callable[[Path], object]) -> bool:
    """Whether a command may write into ``folder``: it does not exist yet, is an empty folder, or
    ``marker(folder)`` is truthy (the command's own marker file is there). A symbolic link is never."""
    if folder.is_symlink():
        return False
    if not folder.exists():
        return True
    if not folder.is_dir():
        return False
    return not any(folder.iterdir()) or bool(marker(folder))


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` through a temporary file in the same folder and one rename, so a
    reader sees the old file or the new one, never half of it."""
    part = path.with_name(f".{path.name}.part")
    part.write_text(text, encoding="utf-8")
    os.replace(part, path)
