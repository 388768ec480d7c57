"""sizing.safeio: regular files only, bounded size, depth, aliases and time; one-line errors naming file and
field."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

from sizing import safeio
from sizing.errors import CatalogError


def refused(call, *args, **kwargs) -> str:
    """The one-line message of the CatalogError ``call`` raises."""
    with pytest.raises(CatalogError) as caught:
        call(*args, **kwargs)
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_a_regular_file_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_bytes(b'{"a": 1}')
    assert safeio.read_bytes(path) == b'{"a": 1}'
    assert safeio.read_json(path) == {"a": 1}


@pytest.mark.parametrize(
    "kind, words", [("device", "is a device"), ("fifo", "is a FIFO"), ("folder", "is a folder")]
)
def test_what_is_not_a_regular_file_is_refused_unread(tmp_path: Path, kind: str, words: str) -> None:
    path = Path("/dev/zero") if kind == "device" else tmp_path / kind
    if kind == "fifo":
        os.mkfifo(path)  # opening it blocking would hang: the reader opens it non-blocking
    elif kind == "folder":
        path.mkdir()
    assert refused(safeio.read_bytes, path, "input") == f"input: (file): {words}, not a regular file"


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    assert (
        refused(safeio.read_text, tmp_path / "nope.yaml", "catalog/nope.yaml")
        == "catalog/nope.yaml: (file): file is missing"
    )


def test_a_large_sparse_file_is_refused_from_its_size(tmp_path: Path) -> None:
    path = tmp_path / "sparse.json"
    with path.open("wb") as out:
        out.truncate(2 * 2**30)  # 2 GiB of holes: nothing is read
    assert "is larger than 16 MiB" in refused(safeio.read_bytes, path)


def test_the_limit_is_the_callers(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes(b"x" * 2049)
    assert "larger than 2 KiB" in refused(safeio.read_bytes, path, limit=2048)
    assert len(safeio.read_bytes(path, limit=4096)) == 2049


def test_text_that_is_not_utf8_names_the_byte(tmp_path: Path) -> None:
    path = tmp_path / "gpus.yaml"
    path.write_bytes(b"a: b\n\xff")
    assert refused(safeio.read_text, path, "gpus.yaml") == "gpus.yaml: byte 5: file is not valid UTF-8"


@pytest.mark.parametrize("text", ["[" * 100_000, "[" * 40 + "]" * 40, '{"a":' * 33 + "1" + "}" * 33])
def test_json_nested_too_deep_is_refused(text: str) -> None:
    assert f"JSON nested deeper than {safeio.MAX_DEPTH} levels" in refused(safeio.parse_json, text, "c.json")


def test_json_at_the_depth_limit_is_read() -> None:
    depth, value = (
        safeio.MAX_DEPTH,
        safeio.parse_json("[" * safeio.MAX_DEPTH + "]" * safeio.MAX_DEPTH, "c.json"),
    )
    for _ in range(depth - 1):
        value = value[0]
    assert value == []


@pytest.mark.parametrize(
    "text, field, shown",
    [
        ('{"rope": {"factor": 1e309}}', "rope.factor", "inf"),
        ('{"a": [1, NaN]}', "a.1", "nan"),
        ('{"a": -Infinity}', "a", "-inf"),
    ],
)
def test_non_finite_numbers_are_refused_by_field(text: str, field: str, shown: str) -> None:
    assert refused(safeio.parse_json, text, "config.json").startswith(
        f"config.json: {field}: must be a finite number, got {shown}"
    )


def test_non_finite_numbers_pass_when_the_caller_allows_them() -> None:
    assert safeio.parse_json('{"a": Infinity}', "x.json", finite=False) == {"a": float("inf")}


def test_bad_json_names_the_line() -> None:
    assert refused(safeio.parse_json, '{\n"a": 1,}', "c.json").startswith("c.json: line 2: not valid JSON")


def _alias_bomb(levels: int = 9) -> str:
    lines = ["a0: &a0 [" + ", ".join(["x"] * 10) + "]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, levels + 1)]
    return "\n".join(lines) + "\n"


def test_a_yaml_alias_bomb_is_refused_by_name() -> None:
    assert "aliases stand for more than 10000 nodes" in refused(
        safeio.parse_yaml, _alias_bomb(), "models.yaml"
    )


def test_a_few_aliases_are_read() -> None:
    assert safeio.parse_yaml("base: &b {x: 1}\nother: *b\n", "a.yaml") == {
        "base": {"x": 1},
        "other": {"x": 1},
    }


@pytest.mark.parametrize("text", ["&a [*a]", "a: &a {b: *a}"])
def test_a_recursive_alias_is_refused(text: str) -> None:
    assert "recursive alias" in refused(safeio.parse_yaml, text, "a.yaml")


@pytest.mark.parametrize("text", ["[" * 100_000, "a:\n" + "".join("  " * i + "b:\n" for i in range(1, 60))])
def test_yaml_nested_too_deep_is_refused(text: str) -> None:
    assert f"nested deeper than {safeio.MAX_DEPTH} levels" in refused(safeio.parse_yaml, text, "a.yaml")


def test_yaml_duplicate_keys_and_syntax_errors_name_the_line() -> None:
    assert (
        refused(safeio.parse_yaml, "a: 1\na: 2\n", "g.yaml")
        == "g.yaml: line 2: YAML error: duplicate key 'a'"
    )
    assert refused(safeio.parse_yaml, "a: [1, 2\n", "g.yaml").startswith("g.yaml: line 2: YAML error:")


def test_yaml_beyond_its_size_limit_is_refused_before_parsing() -> None:
    text = "a: " + "x" * safeio.MAX_YAML_BYTES
    assert "is larger than 512 KiB" in refused(safeio.parse_yaml, text, "a.yaml")


def test_a_text_parsed_again_is_answered_with_a_copy_of_the_kept_value(monkeypatch) -> None:
    """The second parse of one text does not parse (the kept value is copied), and what a caller changes in
    its answer does not reach the next caller; a refused text is refused again; old texts make room."""
    text = "server:\n  gpus: [1, 2]\n  name: x\n"
    first = safeio.parse_yaml(text, "s.yaml")
    first["server"]["gpus"].append(3)
    monkeypatch.setattr(safeio, "_parse_yaml", lambda *_: pytest.fail("parsed again"))
    assert safeio.parse_yaml(text, "s.yaml") == {"server": {"gpus": [1, 2], "name": "x"}}
    monkeypatch.undo()
    for _ in range(2):
        assert "duplicate key" in refused(safeio.parse_yaml, "a: 1\na: 2\n", "d.yaml")
    for n in range(safeio.PARSED_KEPT + 1):
        safeio.parse_yaml(f"n: {n}\n", "n.yaml")
    assert len(safeio._PARSED) == safeio.PARSED_KEPT and text not in safeio._PARSED


def test_yaml_files_go_through_the_same_bounds(tmp_path: Path) -> None:
    path = tmp_path / "models.yaml"
    path.write_text(_alias_bomb(), encoding="utf-8")
    assert "alias" in refused(safeio.read_yaml, path, "catalog/models.yaml")


def test_a_command_writes_only_into_a_new_empty_or_marked_folder(tmp_path: Path) -> None:
    def marked(folder: Path) -> bool:
        return (folder / "MARK").is_file()

    assert safeio.may_write_into(tmp_path / "new", marked)
    assert safeio.may_write_into(tmp_path, marked)  # empty
    (tmp_path / "notes.txt").write_text("mine", encoding="utf-8")
    assert not safeio.may_write_into(tmp_path, marked)
    (tmp_path / "MARK").write_text("", encoding="utf-8")
    assert safeio.may_write_into(tmp_path, marked)
    assert not safeio.may_write_into(tmp_path / "notes.txt", marked)  # a file, not a folder
    (tmp_path / "link").symlink_to(tmp_path)
    assert not safeio.may_write_into(tmp_path / "link", marked)


def test_atomic_writes_leave_no_part_file(tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    path.write_text("old", encoding="utf-8")
    safeio.write_atomic(path, "new")
    assert path.read_text(encoding="utf-8") == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.md"]


WRITERS = {"json": {"dumps", "dump"}, "yaml": {"safe_dump", "YAMLError"}, "pandas": None}
"""What a module other than :mod:`sizing.safeio` may use of ``json`` and ``yaml``: the writers and the error
type (None: anything but ``read_json``, for pandas)."""


def parser_uses(tree: ast.AST) -> list[int]:
    """Lines of ``tree`` that reach a YAML or JSON parser: an attribute of ``json``/``yaml`` (under any
    name) that is not a writer, such a name imported from them, pandas' ``read_json``, or a subclass of a YAML
    loader."""
    names = {
        alias.asname or alias.name: alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
        if alias.name in WRITERS
    }
    found = []
    for node in ast.walk(tree):
        module = getattr(node, "module", None) or ""
        if isinstance(node, ast.ImportFrom) and module.split(".")[0] in ("json", "yaml"):
            allowed = WRITERS[module.split(".")[0]] if module in WRITERS else set()
            found += [node.lineno for alias in node.names if alias.name not in (allowed or set())]
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in names:
            allowed = WRITERS[names[node.value.id]]
            if (node.attr == "read_json") if allowed is None else node.attr not in allowed:
                found.append(node.lineno)
        if isinstance(node, ast.ClassDef) and any(
            getattr(b, "attr", "").endswith("Loader") for b in node.bases
        ):
            found.append(node.lineno)
    return found


def test_every_yaml_and_json_read_goes_through_safeio() -> None:
    """Assert no module of ``sizing/`` or ``scripts/`` parses YAML or JSON but :mod:`sizing.safeio`: the one
    strict YAML loader (``parse_yaml``/``read_yaml``: duplicate keys, depth, aliases, size and time bounded)
    and the one JSON helper (``parse_json``/``read_json``)."""
    root = Path(__file__).resolve().parents[1]
    found = [
        f"{path.relative_to(root)}:{line}"
        for path in sorted([*root.glob("sizing/**/*.py"), *root.glob("scripts/**/*.py")])
        if path != root / "sizing" / "safeio.py"
        for line in parser_uses(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert found == []


@pytest.mark.parametrize(
    "source",
    [
        "import json\njson.loads('1')",
        "import json as j\nj.load(f)",
        "from json import loads",
        "import yaml\nyaml.safe_load_all(t)",
        "from yaml import CSafeLoader",
        "import pandas as pd\npd.read_json(p)",
        "import yaml\nclass L(yaml.SafeLoader): pass",
        "import json\njson.JSONDecoder().decode(t)",
    ],
)
def test_the_parser_scan_sees_every_way_to_a_parser(source: str) -> None:
    """Assert the scan catches a parser reached by another name, by import, through pandas or a loader class,
    and lets writers through."""
    assert parser_uses(ast.parse(source)) != []
    assert parser_uses(ast.parse("import json, yaml\njson.dumps(1)\nyaml.safe_dump(1)\nyaml.YAMLError")) == []
