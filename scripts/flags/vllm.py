"""Extract the options accepted by ``vllm serve`` from a vLLM release on PyPI.

Usage::

    python -m scripts.flags vllm VERSION          # (re)write sizing/launch/data files
    python -m scripts.flags vllm VERSION --check  # exit 1 if they differ

vLLM is never imported: its release file (sdist preferred) is downloaded to a
temporary directory and the parser construction is reproduced with ``ast``.
The rules mirror vLLM's own code (paths inside the release):

* ``vllm/entrypoints/cli/serve.py`` builds the ``serve`` sub-parser with
  ``make_arg_parser`` (``vllm/entrypoints/common/cli_args.py``), which adds a
  few explicit ``add_argument`` calls, then ``FrontendArgs.add_cli_args`` and
  ``AsyncEngineArgs.add_cli_args``.
* ``FrontendArgs.add_cli_args`` turns every dataclass field (bases included)
  into ``--field-name`` plus any ``["flags"]`` set in ``_customize_cli_kwargs``.
* ``EngineArgs.add_cli_args`` (``vllm/engine/arg_utils.py``) names each option
  explicitly and takes its kwargs from ``get_kwargs(SomeConfig)["field"]``;
  ``_compute_kwargs`` gives a ``bool`` field ``argparse.BooleanOptionalAction``.
* ``FlexibleArgumentParser`` (``vllm/utils/argparse_utils.py``) registers
  ``EnableDisableAction`` for that action: ``--x`` also accepts ``--no-x``, and
  ``--enable-x``/``--disable-x`` accept each other. Its ``parse_args`` rewrites
  ``-O3`` to ``--optimization-level 3``; argparse adds ``-h/--help``.

Alongside the flag list a JSON file records, per option, the value kind that
``_compute_kwargs`` picks (bool, int, human_readable_int, choice, multi, ...)
and the choices of ``Literal``-typed options.
"""

from __future__ import annotations

import ast
import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from scripts.flags import pypi
from scripts.flags.output import ARGPARSE_HELP, DATA_DIR, flag_file
from scripts.flags.pyindex import SourceIndex, is_name, last_name, slice_items, subscript_base

ENTRY = ("vllm.entrypoints.common.cli_args", "make_arg_parser")
ARG_UTILS = "vllm.engine.arg_utils"
PARSER_MODULE = "vllm.utils.argparse_utils"
BUILTIN_LEAVES = {
    "bool": "bool",
    "str": "str",
    "int": "int",
    "float": "float",
    "bytes": "str",
    "list": "list",
    "dict": "dict",
    "tuple": "tuple",
    "set": "set",
    "List": "list",
    "Dict": "dict",
    "Tuple": "tuple",
    "Set": "set",
    "None": "None",
}
WRAPPERS = {"Annotated", "Final", "Required", "NotRequired"}


@dataclass
class TypeFacts:
    """What ``_compute_kwargs`` sees of an annotation: leaf kinds and Literal values."""

    leaves: set[str] = field(default_factory=set)
    literals: list = field(default_factory=list)


@dataclass
class Option:
    """One ``add_argument`` call: its option strings and how it parses values."""

    strings: list[str]
    kind: str
    choices: list | None = None
    enforced: bool = False


def type_facts(index: SourceIndex, module: str, annotation: ast.expr) -> TypeFacts:
    """Flatten an annotation into the leaf kinds ``_compute_kwargs`` tests."""
    facts = TypeFacts()
    _collect(index, module, annotation, facts, frozenset())
    return facts


def _collect(index: SourceIndex, module: str, node: ast.expr, facts: TypeFacts, seen: frozenset) -> None:
    """Add the leaves of one annotation node to ``facts``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        _collect(index, module, ast.parse(node.value, mode="eval").body, facts, seen)
    elif isinstance(node, ast.Constant) and node.value is None:
        facts.leaves.add("None")
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        _collect(index, module, node.left, facts, seen)
        _collect(index, module, node.right, facts, seen)
    elif isinstance(node, ast.Subscript):
        _collect_subscript(index, module, node, facts, seen)
    elif isinstance(node, ast.Name):
        _collect_name(index, module, node.id, facts, seen)
    else:
        facts.leaves.add("other")


def _collect_subscript(
    index: SourceIndex, module: str, node: ast.Subscript, facts: TypeFacts, seen: frozenset
) -> None:
    """Handle ``Literal[...]``, ``Optional[...]``, ``Union[...]``, ``list[...]``..."""
    base, items = last_name(node.value), slice_items(node)
    if base == "Literal":
        facts.leaves.add("Literal")
        _collect_literals(index, module, items, facts, seen)
    elif base in WRAPPERS:
        _collect(index, module, items[0], facts, seen)
    elif base in {"Optional", "Union"}:
        facts.leaves.update({"None"} if base == "Optional" else set())
        for item in items:
            _collect(index, module, item, facts, seen)
    else:
        _collect(index, module, node.value, facts, seen)


def _collect_literals(
    index: SourceIndex, module: str, items: list[ast.expr], facts: TypeFacts, seen: frozenset
) -> None:
    """Add Literal values; nested Literal aliases are flattened like ``typing`` does."""
    for item in items:
        if isinstance(item, ast.Constant):
            facts.literals.append(item.value)
            continue
        nested = TypeFacts()
        _collect(index, module, item, nested, seen)
        facts.literals.extend(nested.literals)


def _collect_name(index: SourceIndex, module: str, name: str, facts: TypeFacts, seen: frozenset) -> None:
    """Resolve a bare name: a builtin, a class, or a (possibly imported) alias."""
    if name in BUILTIN_LEAVES:
        facts.leaves.add(BUILTIN_LEAVES[name])
        return
    definitions = [] if (module, name) in seen else index.definitions(module, name)
    for where, node in definitions:
        if isinstance(node, ast.ClassDef):
            facts.leaves.add(_class_kind(node))
        elif isinstance(node, ast.expr):
            _collect(index, where, node, facts, seen | {(module, name)})
    if not definitions:
        facts.leaves.add("other")


def _class_kind(cls: ast.ClassDef) -> str:
    """``dataclass`` for ``@config``/``@dataclass`` classes, ``dict`` for dict subclasses."""
    for deco in cls.decorator_list:
        target = deco.func if isinstance(deco, ast.Call) else deco
        if last_name(target) in {"config", "dataclass"}:
            return "dataclass"
    if any(last_name(subscript_base(base)) == "dict" for base in cls.bases):
        return "dict"
    return "other"


def field_kind(facts: TypeFacts, name: str, int_parsers: dict[str, str]) -> str:
    """Mirror the branch order of ``_compute_kwargs`` in ``vllm/engine/arg_utils.py``."""
    leaves = facts.leaves
    if "dataclass" in leaves:
        return "json"
    if leaves == {"bool", "str", "None"}:
        return "optional_value"
    for leaf, kind in (
        ("bool", "bool"),
        ("Literal", "choice"),
        ("tuple", "multi"),
        ("list", "multi"),
        ("set", "multi"),
    ):
        if leaf in leaves:
            return kind
    if "int" in leaves:
        return int_parsers.get(name, "int")
    if "float" in leaves:
        return "float"
    if "dict" in leaves:
        return "json_or_str" if leaves & {"str", "other"} else "json"
    return "str"


# --- parser construction ---------------------------------------------------


Owner = tuple[str, ast.ClassDef]
"""A class that registers options: (its module, its definition)."""


class ServeParser:
    """Reproduce the option strings that ``vllm serve`` registers."""

    def __init__(self, index: SourceIndex) -> None:
        """Prepare the walk and read the integer parsers of ``_compute_kwargs``."""
        self.index = index
        self.int_parsers = human_readable_fields(index)
        self.expanded: set[tuple[str, str]] = set()

    def options(self) -> list[Option]:
        """Walk ``make_arg_parser`` and everything it calls."""
        module, name = ENTRY
        options = self.walk(module, self.index.find_function(module, name), None)
        options.append(Option(list(ARGPARSE_HELP), "flag"))
        options.extend(Option([s], "shorthand") for s in parse_args_shorthands(self.index))
        return options

    def walk(self, module: str, fn: ast.FunctionDef, owner: Owner | None) -> list[Option]:
        """Collect the options added by one function (``owner`` = its class)."""
        env, muts = _bindings(fn), _mutations(fn)
        options: list[Option] = []
        for call in sorted(_calls(fn), key=lambda c: (c.lineno, c.col_offset)):
            attr = last_name(call.func)
            if attr == "add_argument":
                options.extend(self.argument(module, call, env, muts, owner))
            elif attr == "add_cli_args" and isinstance(call.func.value, ast.Name):
                options.extend(self.expand(module, call.func.value.id))
        return options

    def expand(self, module: str, class_name: str) -> list[Option]:
        """Walk ``ClassName.add_cli_args`` (found along the class chain)."""
        found = self.index.find_class(module, class_name)
        if found is None or (found[0], class_name) in self.expanded:
            return []
        self.expanded.add((found[0], class_name))
        method = self.index.method(*found, "add_cli_args")
        if method is None:
            raise SystemExit(f"{class_name}.add_cli_args not found: vLLM's layout changed")
        return self.walk(*method, found)

    def argument(
        self, module: str, call: ast.Call, env: dict, muts: dict, owner: Owner | None
    ) -> list[Option]:
        """Turn one ``add_argument`` call into options (several in the field loop)."""
        if any(isinstance(arg, ast.JoinedStr) for arg in call.args):
            return self.field_loop(owner)
        strings = [a.value for a in call.args if isinstance(a, ast.Constant) and str(a.value).startswith("-")]
        if not strings:
            return []
        keywords = {k.arg: k.value for k in call.keywords if k.arg}
        ref = next((r for k in call.keywords if k.arg is None for r in [_field_ref(k.value, env)] if r), None)
        mut = muts.get(ref[:2], {}) if ref else {}
        field_spec = self.resolve_field(module, ref, owner) if ref else None
        return [self.make_option(module, strings, keywords, mut, field_spec)]

    def field_loop(self, owner: Owner | None) -> list[Option]:
        """``FrontendArgs.add_cli_args``: one ``--field-name`` per dataclass field."""
        where, cls = owner
        muts: dict = {}
        for klass_module, klass in reversed(self.index.mro(where, cls)):
            method = self.index.method(klass_module, klass, "_customize_cli_kwargs")
            for (_, name), change in (_mutations(method[1]) if method else {}).items():
                muts.setdefault(name, {}).update(change)
        options = []
        for name, (fmod, annotation) in self.index.fields(where, cls).items():
            mut = muts.get(name, {})
            extra = [e.value for e in getattr(mut.get("flags"), "elts", [])]
            strings = extra + ["--" + name.replace("_", "-")]
            options.append(self.make_option(where, strings, {}, mut, (fmod, annotation, name)))
        return options

    def resolve_field(self, module: str, ref: tuple, owner: Owner | None) -> tuple | None:
        """Map ``(var, field, class_expr)`` to ``(module, annotation, field)``."""
        _, name, class_expr = ref
        class_name = last_name(class_expr)
        found = owner if class_name == "cls" else self.index.find_class(module, class_name or "")
        if found is None:
            raise SystemExit(f"cannot resolve config class {class_name}")
        fields = self.index.fields(*found)
        if name not in fields:
            raise SystemExit(f"{class_name} has no field {name}: vLLM's layout changed")
        return (*fields[name], name)

    def make_option(
        self, module: str, strings: list[str], keywords: dict, mut: dict, field_spec: tuple | None
    ) -> Option:
        """Decide value kind and choices, then add the negations of booleans."""
        facts = type_facts(self.index, *field_spec[:2]) if field_spec else TypeFacts()
        kind = self.kind(keywords, mut, facts, field_spec)
        option = Option(list(strings), kind)
        if kind == "bool":
            option.strings += negations(strings)
        if "choices" in keywords:
            option.choices, option.enforced = static_strings(self.index, module, keywords["choices"]), True
        elif facts.literals:
            option.choices, option.enforced = facts.literals, "str" not in facts.leaves
        if option.choices is not None:
            removed = [_constant(self.index, module, r) for r in mut.get("remove", [])]
            option.choices = sorted({c for c in option.choices if c is not None} - set(removed))
        return option

    def kind(self, keywords: dict, mut: dict, facts: TypeFacts, field_spec: tuple | None) -> str:
        """Value kind of an option, from its explicit kwargs, mutations or field type."""
        action = keywords.get("action", mut.get("action"))
        named = last_name(action) if action is not None else None
        literal = action.value if isinstance(action, ast.Constant) else None
        if named == "BooleanOptionalAction":
            return "bool"
        if literal in {"store_true", "store_false", "store_const", "count"}:
            return "flag"
        if literal == "append":
            return "append"
        if "type" in mut and any(last_name(n) == "loads" for n in ast.walk(mut["type"])):
            return "json"
        if field_spec:
            return field_kind(facts, field_spec[2], self.int_parsers)
        return "choice" if "choices" in keywords else _explicit_type(keywords)


def _explicit_type(keywords: dict) -> str:
    """Kind of an option declared without a config field (``type=int`` etc.)."""
    name = last_name(keywords.get("type"))
    if name in {"int", "float"}:
        return name
    if keywords.get("nargs") is not None:
        return "multi"
    return "str"


def negations(strings: list[str]) -> list[str]:
    """Extra spellings ``EnableDisableAction`` accepts for a boolean option."""
    extra = ["--no-" + s[2:] for s in strings if s.startswith("--")]
    for prefix, inverse in (("--enable-", "--disable-"), ("--disable-", "--enable-")):
        extra += [inverse + s.removeprefix(prefix) for s in strings if s.startswith(prefix)]
    return extra


def _calls(fn: ast.FunctionDef) -> list[ast.Call]:
    """All calls inside a function body."""
    return [node for node in ast.walk(fn) if isinstance(node, ast.Call)]


def _bindings(fn: ast.FunctionDef) -> dict[str, ast.expr]:
    """``{name: value}`` for simple ``name = value`` assignments in a function."""
    env: dict[str, ast.expr] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            env[node.targets[0].id] = node.value
    return env


def _two_level(node: ast.AST) -> tuple[str, str, str] | None:
    """Split ``var["field"]["key"]`` into ``(var, field, key)``."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Subscript)):
        return None
    inner, key, field_name = node.value, node.slice, node.value.slice
    if (
        isinstance(inner.value, ast.Name)
        and isinstance(key, ast.Constant)
        and isinstance(field_name, ast.Constant)
    ):
        return inner.value.id, field_name.value, key.value
    return None


def _mutations(fn: ast.FunctionDef) -> dict[tuple[str, str], dict]:
    """Edits of argparse kwargs: ``kw["f"]["action"] = X``, ``del``, ``.remove(c)``."""
    muts: dict[tuple[str, str], dict] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if parts := _two_level(target):
                    muts.setdefault(parts[:2], {})[parts[2]] = node.value
        elif isinstance(node, ast.Call) and last_name(node.func) == "remove":
            parts = _two_level(getattr(node.func, "value", None))
            if parts and parts[2] == "choices":
                muts.setdefault(parts[:2], {}).setdefault("remove", []).extend(node.args)
    return muts


def _field_ref(node: ast.expr, env: dict) -> tuple[str | None, str, ast.expr] | None:
    """Resolve ``**kw["field"]`` / ``**{**kw["field"], ...}`` to ``(var, field, class_expr)``."""
    if isinstance(node, ast.Dict):
        spread = [v for k, v in zip(node.keys, node.values) if k is None]
        return next((r for v in spread for r in [_field_ref(v, env)] if r), None)
    if isinstance(node, ast.Name) and node.id in env:
        ref = _field_ref(env[node.id], env)
        return (node.id, ref[1], ref[2]) if ref else None
    if not (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant)):
        return None
    holder = env.get(node.value.id) if isinstance(node.value, ast.Name) else node.value
    if isinstance(holder, ast.Call) and last_name(holder.func) == "get_kwargs":
        var = node.value.id if isinstance(node.value, ast.Name) else None
        return var, node.slice.value, holder.args[0]
    return None


def _constant(index: SourceIndex, module: str, node: ast.expr) -> object:
    """Value of a literal or of a name bound to a literal (through imports)."""
    if isinstance(node, ast.Constant):
        return node.value
    for _, value in index.definitions(module, last_name(node) or ""):
        if isinstance(value, ast.Constant):
            return value.value
    raise SystemExit(f"cannot evaluate {ast.unparse(node)}")


def static_strings(index: SourceIndex, module: str, node: ast.expr) -> list:
    """Evaluate an explicit ``choices=`` expression as far as it is static.

    Lists, ``get_args(LiteralAlias)`` and ``+`` of those are evaluated; parts
    that depend on the running platform are left out.
    """
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [_constant(index, module, elt) for elt in node.elts]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return static_strings(index, module, node.left) + static_strings(index, module, node.right)
    if isinstance(node, ast.Call) and last_name(node.func) == "get_args":
        return type_facts(index, module, node.args[0]).literals
    return []


def human_readable_fields(index: SourceIndex) -> dict[str, str]:
    """Fields whose int values ``_compute_kwargs`` parses with ``human_readable_int*``."""
    fn = index.find_function(ARG_UTILS, "_compute_kwargs")
    env, parsers = _bindings(fn), {}
    for node in ast.walk(fn):
        test = node.test if isinstance(node, ast.If) else None
        if not (isinstance(test, ast.Compare) and is_name(test.left, "name")):
            continue
        target = test.comparators[0]
        names = env.get(target.id) if isinstance(target, ast.Name) else ast.Set([target])
        parser = next((last_name(s.value) for s in node.body if isinstance(s, ast.Assign)), None)
        for elt in getattr(names, "elts", []):
            parsers[elt.value] = parser
    return parsers


def parse_args_shorthands(index: SourceIndex) -> list[str]:
    """Short options that ``FlexibleArgumentParser.parse_args`` rewrites itself (``-O3``)."""
    found = index.find_class(PARSER_MODULE, "FlexibleArgumentParser")
    method = index.method(*found, "parse_args") if found else None
    shorthands = set()
    for node in ast.walk(method[1]) if method else []:
        if isinstance(node, ast.Call) and last_name(node.func) == "startswith":
            arg = node.args[0] if node.args else None
            if isinstance(arg, ast.Constant) and len(arg.value) == 2 and arg.value[1] != "-":
                shorthands.add(arg.value)
    return sorted(shorthands)


# --- output ----------------------------------------------------------------


def check_conflicts(options: list[Option]) -> None:
    """Fail if two options claim one string (argparse itself would refuse to start)."""
    seen: dict[str, list[str]] = {}
    for option in options:
        for string in option.strings:
            if string in seen:
                raise SystemExit(f"{string} registered twice: the extraction rule is wrong")
            seen[string] = option.strings


def render_flags(version: str, release: pypi.ReleaseFile, options: list[Option]) -> str:
    """Text of ``vllm_flags-VERSION.txt``: header comments, then sorted flags."""
    flags = sorted(s for option in options for s in option.strings)
    return flag_file(f"vLLM {version}: options accepted by `vllm serve`", release, flags, "vllm", version)


def _primary(strings: list[str]) -> str:
    """The first long option of an option (its first string if it has none)."""
    return next((s for s in strings if s.startswith("--")), strings[0])


def render_choices(version: str, release: pypi.ReleaseFile, options: list[Option]) -> str:
    """Text of ``vllm_choices-VERSION.json``: value kind and choices per option."""
    table = {}
    for option in options:
        primary = _primary(option.strings)
        entry = {"aliases": [s for s in option.strings if s != primary], "kind": option.kind}
        if option.choices is not None:
            entry |= {"choices": option.choices, "choices_enforced_by_argparse": option.enforced}
        table[primary] = entry
    doc = {"version": version, "source": release.filename, "sha256": release.sha256, "options": table}
    return json.dumps(doc, indent=1, sort_keys=True) + "\n"


def extract(version: str) -> dict[Path, str]:
    """Download vLLM ``version`` and return ``{output path: content}``."""
    release = pypi.pick_file(pypi.release_files("vllm", version))
    with tempfile.TemporaryDirectory() as tmp:
        archive = pypi.download(release, Path(tmp))
        index = SourceIndex(pypi.read_sources(archive, "vllm"))
    options = ServeParser(index).options()
    check_conflicts(options)
    return {
        DATA_DIR / f"vllm_flags-{version}.txt": render_flags(version, release, options),
        DATA_DIR / f"vllm_choices-{version}.json": render_choices(version, release, options),
    }
