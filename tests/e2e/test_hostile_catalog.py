"""Hostile catalogs: small mutations of a copy of the catalog, each of which must stop everything.

Every case copies the catalog into a temporary folder, breaks one thing, and expects
``python -m sizing --catalog DIR table`` to exit 2 with exactly one line on stderr that names the
file, the entry and the field (``gpus.yaml: l40s.memory_mib: must be greater than 0, got -1``) and
no traceback. The CLI runs in this process (:func:`sizing.cli.main`, an exception would fail the test
with its traceback); two cases run ``python -m sizing`` as a real process, for its exit status and its
one stderr line. A few representative cases also render a page macro against the broken catalog
(``SIZING_CATALOG``), as a site build does, and expect the same line; one of them (marker ``site``)
builds the English site for real and expects the build to stop with it.

Odd-but-valid text in names and notes: ``test_odd_catalog_text.py``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from sizing.cli import main
from sizing.errors import CatalogError
from sizing.site.context import ENV_VAR
from sizing.site.docs_macros import define_env

ROOT = Path(__file__).resolve().parents[2]
BASE = ROOT / "catalog"
DELETE = object()
"""Passed as a value to :meth:`Draft.edit`: remove the field instead of setting it."""


class Draft:
    """A writable copy of the catalog, edited either as YAML data or as raw text/bytes."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path(self, stem: str) -> Path:
        """The file of ``stem`` in the copy."""
        return self.folder / f"{stem}.yaml"

    def text(self, stem: str) -> str:
        """The current text of one file."""
        return self.path(stem).read_text(encoding="utf-8")

    def data(self, stem: str) -> dict[str, Any]:
        """One file parsed into ``{id: entry}``."""
        return yaml.safe_load(self.text(stem))

    def save(self, stem: str, data: Any) -> None:
        """Write ``data`` back as YAML (comments are lost; values and order are kept)."""
        self.path(stem).write_text(
            yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8"
        )

    def first(self, stem: str, pick: Callable[[dict], bool] = lambda entry: True) -> str:
        """The id of the first entry of ``stem`` for which ``pick(entry)`` holds."""
        return next(key for key, entry in self.data(stem).items() if pick(entry))

    def edit(self, stem: str, entry: str, field: str, value: Any) -> None:
        """Set (or with ``DELETE`` remove) the dotted ``field`` of ``entry``; list indices are numbers."""
        data = self.data(stem)
        *parents, last = [int(p) if p.isdigit() else p for p in field.split(".")]
        node = data[entry]
        for part in parents:
            node = node[part]
        if value is DELETE:
            del node[last]
        else:
            node[last] = value
        self.save(stem, data)


def draft_of(tmp_path: Path) -> Draft:
    """A fresh copy of the repository's catalog under ``tmp_path/catalog``."""
    folder = tmp_path / "catalog"
    shutil.copytree(BASE, folder)
    return Draft(folder)


# ---------------------------------------------------------------------------------------------
# mutations: each edits a Draft and returns the text the error line must contain ("entry.field")
# ---------------------------------------------------------------------------------------------

Mutation = Callable[[Draft], str]


def is_gqa(model: dict) -> bool:
    """A model with plain (non-MLA) attention."""
    return "mla" not in model


def set_field(stem: str, field: str, value: Any, pick: Callable[[dict], bool] = lambda e: True) -> Mutation:
    """Mutation: set ``field`` of the first (picked) entry of ``stem`` to ``value``."""

    def mutate(draft: Draft) -> str:
        entry = draft.first(stem, pick)
        draft.edit(stem, entry, field, value)
        return f"{entry}.{field}"

    return mutate


def replace_text(stem: str, transform: Callable[[str], str], where: str) -> Mutation:
    """Mutation: rewrite the whole text of ``stem``; ``where`` is the expected location text."""

    def mutate(draft: Draft) -> str:
        draft.path(stem).write_text(transform(draft.text(stem)), encoding="utf-8")
        return where

    return mutate


def duplicate_key(stem: str) -> Mutation:
    """Mutation: append a second entry with the first entry's id (a duplicate YAML key)."""

    def mutate(draft: Draft) -> str:
        entry = draft.first(stem)
        text = draft.text(stem).rstrip("\n") + f"\n{json.dumps(entry)}:\n  name: duplicate\n"
        draft.path(stem).write_text(text, encoding="utf-8")
        return f"line {text.count(chr(10)) - 1}: YAML error: duplicate key {entry!r}"

    return mutate


def duplicate_checkpoint(draft: Draft) -> str:
    """Mutation: give the second model a copy of the first model's first checkpoint."""
    models = draft.data("models")
    first, second = list(models)[:2]
    models[second]["checkpoints"].append(dict(models[first]["checkpoints"][0]))
    draft.save("models", models)
    return f"{second}.checkpoints.{len(models[second]['checkpoints']) - 1}.id"


def tab_indented(draft: Draft) -> str:
    """Mutation: indent gpus.yaml with tabs instead of spaces."""
    text = re.sub(r"(?m)^  ", "\t", draft.text("gpus"))
    draft.path("gpus").write_text(text, encoding="utf-8")
    return "line "


def non_utf8(draft: Draft) -> str:
    """Mutation: put a Latin-1 byte (0xE9) into the first GPU's name."""
    raw = draft.path("gpus").read_bytes()
    at = raw.index(b"name: ") + len(b"name: ")
    draft.path("gpus").write_bytes(raw[:at] + b"caf\xe9 " + raw[at:])
    return f"byte {at + 3}"


def kv_heads_not_dividing(draft: Draft) -> str:
    """Mutation: 7 attention heads and 2 KV heads on the first GQA model."""
    entry = draft.first("models", is_gqa)
    draft.edit("models", entry, "attention_heads", 7)
    draft.edit("models", entry, "kv_heads", 2)
    return f"{entry}.kv_heads"


def sliding_covers_all_layers(draft: Draft) -> str:
    """Mutation: as many sliding-window layers as the model has layers."""
    entry = draft.first("models", lambda m: "linear_attention" not in m)
    layers = draft.data("models")[entry]["layers"]
    draft.edit("models", entry, "sliding_window", {"window": 128, "layers": layers})
    return f"{entry}.sliding_window.layers"


def dense_layers_beyond_layers(draft: Draft) -> str:
    """Mutation: more leading dense layers than the first MoE model has layers."""
    entry = draft.first("models", lambda m: "moe" in m)
    draft.edit("models", entry, "moe.dense_layers", draft.data("models")[entry]["layers"] + 1)
    return f"{entry}.moe.dense_layers"


def missing_assumption(draft: Draft) -> str:
    """Mutation: delete the gpu_memory_utilization assumption."""
    data = draft.data("assumptions")
    del data["gpu_memory_utilization"]
    draft.save("assumptions", data)
    return "gpu_memory_utilization"


def set_assumption(key: str, value: Any) -> Mutation:
    """Mutation: give assumption ``key`` a value of the wrong type or range."""

    def mutate(draft: Draft) -> str:
        draft.edit("assumptions", key, "value", value)
        return f"{key}.value"

    return mutate


def delete_file(stem: str) -> Mutation:
    """Mutation: remove one catalog file."""

    def mutate(draft: Draft) -> str:
        draft.path(stem).unlink()
        return "(file): file is missing"

    return mutate


def integer_id(draft: Draft) -> str:
    """Mutation: an entry whose id is the number 123."""
    draft.path("gpus").write_text(draft.text("gpus") + "\n123:\n  name: numeric id\n", encoding="utf-8")
    return "123"


@dataclass(frozen=True)
class Case:
    """One hostile catalog: a name, the file that must be named, a message fragment, the mutation."""

    name: str
    stem: str
    fragment: str
    mutate: Mutation

    @property
    def id(self) -> str:
        """Test id naming the case and what the message must say."""
        return f"{self.name}--{self.fragment}"


CASES = [
    Case(
        "gpu-missing-memory_mib", "gpus", "required field is missing", set_field("gpus", "memory_mib", DELETE)
    ),
    Case("gpu-memory_mib-string", "gpus", "valid integer", set_field("gpus", "memory_mib", "46068")),
    Case("gpu-memory_mib-float", "gpus", "valid integer", set_field("gpus", "memory_mib", 46068.5)),
    Case("gpu-memory_mib-bool", "gpus", "valid integer", set_field("gpus", "memory_mib", True)),
    Case("gpu-name-list", "gpus", "valid string", set_field("gpus", "name", ["NVIDIA", "L40S"])),
    Case("gpu-name-null", "gpus", "valid string", set_field("gpus", "name", None)),
    Case("gpu-fp8-string", "gpus", "valid boolean", set_field("gpus", "fp8", "yes")),
    Case(
        "server-gpus_per_node-bool", "servers", "valid integer", set_field("servers", "gpus_per_node", True)
    ),
    Case("gpu-memory_mib-zero", "gpus", "greater than 0", set_field("gpus", "memory_mib", 0)),
    Case(
        "gpu-memory_mib-negative",
        "gpus",
        "greater than 0, got -46068",
        set_field("gpus", "memory_mib", -46068),
    ),
    Case("gpu-memory_gb-negative", "gpus", "greater than 0", set_field("gpus", "memory_gb", -48.0)),
    Case(
        "gpu-interconnect-bandwidth-zero",
        "gpus",
        "greater than 0",
        set_field("gpus", "interconnect.bandwidth_gbs", 0),
    ),
    Case("model-params-zero", "models", "greater than 0", set_field("models", "total_params_b", 0)),
    Case("model-params-negative", "models", "greater than 0", set_field("models", "total_params_b", -14.8)),
    Case("model-layers-zero", "models", "greater than 0", set_field("models", "layers", 0)),
    Case("model-layers-negative", "models", "greater than 0", set_field("models", "layers", -40)),
    Case("model-kv_heads-zero", "models", "greater than 0", set_field("models", "kv_heads", 0)),
    Case("server-nodes-negative", "servers", "greater than 0", set_field("servers", "nodes", -1)),
    Case("server-unknown-gpu", "servers", "unknown GPU 'h900'", set_field("servers", "gpu", "h900")),
    Case(
        "checkpoint-unknown-precision",
        "models",
        "unknown precision 'int3'",
        set_field("models", "checkpoints.0.precision", "int3"),
    ),
    Case(
        "checkpoint-id-without-org",
        "models",
        "should match pattern",
        set_field("models", "checkpoints.0.id", "no-slash"),
    ),
    Case("checkpoints-empty", "models", "at least 1 item", set_field("models", "checkpoints", [])),
    Case("duplicate-gpu-id", "gpus", "duplicate key", duplicate_key("gpus")),
    Case("duplicate-model-id", "models", "duplicate key", duplicate_key("models")),
    Case("duplicate-checkpoint-id", "models", "duplicate checkpoint id", duplicate_checkpoint),
    Case(
        "yaml-syntax-error",
        "servers",
        "YAML error",
        replace_text("servers", lambda t: t + "\nbroken: {name: [unclosed\n", "line "),
    ),
    Case("tab-indented-file", "gpus", "YAML error", tab_indented),
    Case("empty-file", "precisions", "non-empty mapping", replace_text("precisions", lambda t: "", "(file)")),
    Case(
        "comments-only-file",
        "servers",
        "non-empty mapping",
        replace_text("servers", lambda t: "# nothing here\n", "(file)"),
    ),
    Case(
        "file-is-a-list",
        "gpus",
        "non-empty mapping",
        replace_text("gpus", lambda t: "- l40s\n- h100-80gb\n", "(file)"),
    ),
    Case(
        "entry-is-a-scalar",
        "servers",
        "must be a mapping of fields",
        replace_text("servers", lambda t: t + "\nlonely-server: 42\n", "lonely-server"),
    ),
    Case("id-is-a-number", "gpus", "id must be a non-empty string", integer_id),
    Case("memory_mib-10e30", "gpus", "at most", set_field("gpus", "memory_mib", 10**30)),
    Case("memory_gb-1e300-float", "gpus", "at most", set_field("gpus", "memory_gb", 1e300)),
    Case(
        "memory_gb-1e300-yaml-string",
        "gpus",
        "valid number",
        replace_text(
            "gpus", lambda t: re.sub(r"memory_gb: [\d.]+", "memory_gb: 1e300", t, count=1), "memory_gb"
        ),
    ),
    Case("bandwidth-nan", "gpus", "nan", set_field("gpus", "bandwidth_gbs", float("nan"))),
    Case("bandwidth-inf", "gpus", "inf", set_field("gpus", "bandwidth_gbs", float("inf"))),
    Case(
        "price-negative-inf",
        "servers",
        "greater than 0",
        set_field("servers", "price", {"monthly": float("-inf"), "currency": "USD"}, lambda s: "price" in s),
    ),
    Case("non-utf8-bytes", "gpus", "not valid UTF-8", non_utf8),
    Case("unknown-extra-key", "gpus", "unknown field", set_field("gpus", "memory_tb", 1)),
    Case("unknown-nested-key", "gpus", "unknown field", set_field("gpus", "interconnect.lanes", 16)),
    Case(
        "server-kind-not-allowed",
        "servers",
        "should be 'offer' or 'reference'",
        set_field("servers", "kind", "rental"),
    ),
    Case(
        "currency-lowercase",
        "servers",
        "should match pattern",
        set_field("servers", "price", {"monthly": 979, "currency": "usd"}, lambda s: "price" in s),
    ),
    Case("name-too-long", "gpus", "at most 500 characters", set_field("gpus", "name", "L" * 501)),
    Case("kv_heads-not-dividing-heads", "models", "must divide attention_heads", kv_heads_not_dividing),
    Case(
        "sliding-window-covers-all-layers",
        "models",
        "at least one full-attention layer",
        sliding_covers_all_layers,
    ),
    Case("moe-dense-layers-beyond-layers", "models", "must be at most layers", dense_layers_beyond_layers),
    Case(
        "example-unknown-server",
        "examples",
        "unknown server 'gpu-h900'",
        set_field("examples", "server", "gpu-h900"),
    ),
    Case(
        "example-unknown-model",
        "examples",
        "unknown model",
        set_field("examples", "model", "acme/NoSuchModel"),
    ),
    Case(
        "example-foreign-checkpoint",
        "examples",
        "is not a checkpoint of",
        set_field("examples", "checkpoint", "acme/NoSuchModel-FP8"),
    ),
    Case(
        "example-longer-than-model-context",
        "examples",
        "at most the model's context",
        set_field("examples", "max_model_len", 10**9),
    ),
    Case(
        "example-tp-not-dividing-heads",
        "examples",
        "must divide the model's",
        set_field("examples", "tensor_parallel_size", 3),
    ),
    Case(
        "example-plan-needs-more-gpus",
        "examples",
        "GPUs, but",
        set_field("examples", "data_parallel_size", 64),
    ),
    Case("missing-required-assumption", "assumptions", "required assumption is missing", missing_assumption),
    Case(
        "assumption-gmu-string",
        "assumptions",
        "valid number",
        set_assumption("gpu_memory_utilization", "high"),
    ),
    Case(
        "assumption-gmu-above-one", "assumptions", "at most 1", set_assumption("gpu_memory_utilization", 1.5)
    ),
    Case("assumption-contexts-string", "assumptions", "valid list", set_assumption("contexts", "abc")),
    Case("assumption-context-zero", "assumptions", "greater than 0", set_assumption("contexts", [4096, 0])),
    Case(
        "assumption-max-model-len-negative",
        "assumptions",
        "greater than 0",
        set_assumption("max_model_len", -1),
    ),
    Case(
        "assumption-vllm-version-word",
        "assumptions",
        "should match pattern",
        set_assumption("vllm_version", "latest"),
    ),
    Case(
        "assumption-kv-dtype-unknown",
        "assumptions",
        "'auto' or 'fp8'",
        set_assumption("kv_cache_dtypes", ["fp4"]),
    ),
    Case(
        "assumption-coefficient-nan",
        "assumptions",
        "finite number",
        set_assumption("nontorch_mib", float("nan")),
    ),
    Case(
        "assumption-without-reason",
        "assumptions",
        "required field is missing",
        set_field("assumptions", "reason", DELETE),
    ),
    Case(
        "precision-online_from-unknown",
        "precisions",
        "unknown precision 'bf17'",
        set_field("precisions", "online_from", "bf17", lambda p: "online_from" in p),
    ),
    Case("models-file-missing", "models", "file is missing", delete_file("models")),
]


def run_cli(catalog: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m sizing --catalog CATALOG ARGS`` from the repository root, as a real process."""
    command = [sys.executable, "-m", "sizing", "--catalog", str(catalog), *args]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)


def cli(capsys: pytest.CaptureFixture[str], catalog: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m sizing --catalog CATALOG ARGS`` in this process (:func:`sizing.cli.main`), its exit status
    and output captured as :func:`run_cli` gives them."""
    capsys.readouterr()
    status = main(["--catalog", str(catalog), *args])
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(["sizing", *args], status, out, err)


def assert_one_line(output: str, case: Case, where: str) -> str:
    """The single error line of ``output``, checked to name the file, the location and the problem."""
    assert "Traceback" not in output, f"{case.id}: traceback instead of one line:\n{output}"
    lines = output.splitlines()
    assert len(lines) == 1 and output.endswith("\n"), f"{case.id}: expected one line, got:\n{output}"
    line = lines[0]
    assert f"{case.stem}.yaml: " in line, f"{case.id}: file not named: {line}"
    assert where in line, f"{case.id}: {where!r} not named: {line}"
    assert case.fragment in line, f"{case.id}: {case.fragment!r} not in: {line}"
    return line


def assert_stops(result: subprocess.CompletedProcess[str], case: Case, where: str) -> str:
    """Assert exit status 2, nothing on stdout and the one error line on stderr; that line."""
    assert result.returncode == 2, f"{case.id}: exit {result.returncode}\n{result.stderr}"
    assert result.stdout == ""
    return assert_one_line(result.stderr, case, where)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_cli_stops_with_one_line(tmp_path: Path, case: Case, capsys: pytest.CaptureFixture[str]) -> None:
    """Assert the CLI exits 2 with one stderr line naming file, entry and field, and prints nothing else."""
    draft = draft_of(tmp_path)
    where = case.mutate(draft)
    assert_stops(cli(capsys, draft.folder, "table"), case, where)


PROCESS_CASES = ("gpu-memory_mib-negative", "non-utf8-bytes")
"""Cases also run as ``python -m sizing`` in a process of its own (exit status, stderr, no traceback)."""


@pytest.mark.parametrize(
    "case",
    [c for c in CASES if c.name in PROCESS_CASES],
    ids=[c.id for c in CASES if c.name in PROCESS_CASES],
)
def test_cli_process_stops_with_one_line(tmp_path: Path, case: Case) -> None:
    """Assert ``python -m sizing`` itself exits 2 with the one line on stderr and nothing on stdout."""
    draft = draft_of(tmp_path)
    where = case.mutate(draft)
    assert_stops(run_cli(draft.folder, "table"), case, where)


def test_there_are_at_least_thirty_distinct_cases() -> None:
    """Assert the case list is as broad as promised and every id is unique."""
    assert len(CASES) >= 30
    assert len({c.id for c in CASES}) == len(CASES)


# ---------------------------------------------------------------------------------------------
# the site build against a broken catalog (marker: site)
# ---------------------------------------------------------------------------------------------

SITE_CASES = (
    "gpu-memory_mib-negative",
    "duplicate-gpu-id",
    "non-utf8-bytes",
    "server-unknown-gpu",
    "missing-required-assumption",
    "example-longer-than-model-context",
)
BUILT_CASE = "gpu-memory_mib-negative"
"""The case whose English site is built for real (the others render a page macro in this process)."""


def build_english(catalog: Path, out: Path) -> subprocess.CompletedProcess[str]:
    """``mkdocs build --strict`` of the English site against ``catalog`` (via ``SIZING_CATALOG``)."""
    env = {
        **os.environ,
        "SIZING_CATALOG": str(catalog),
        "NO_MKDOCS_2_WARNING": "1",
        "DISABLE_MKDOCS_2_WARNING": "true",
    }
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", "mkdocs.yml", "-d", str(out)]
    return subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False
    )


def render_page_macro(catalog: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The English fit tables as a page build renders them: the site's macros registered on Zensical's
    macro environment (what mkdocs-macros and Zensical call) and read from ``SIZING_CATALOG``."""
    from zensical.extensions.macros import MacroEnv  # requirements-zensical.txt

    monkeypatch.setenv(ENV_VAR, str(catalog))
    env = MacroEnv(conf={"theme": {"language": "en"}})
    define_env(env)
    return env.macros["sz_table"]("what-fits")


@pytest.mark.parametrize(
    "case", [c for c in CASES if c.name in SITE_CASES], ids=[c.id for c in CASES if c.name in SITE_CASES]
)
def test_page_macro_stops_with_the_same_line(
    tmp_path: Path, case: Case, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Assert a page macro on the broken catalog raises the error whose message is the CLI's one line."""
    draft = draft_of(tmp_path)
    case.mutate(draft)
    expected = cli(capsys, draft.folder, "table").stderr.strip()
    with pytest.raises(CatalogError) as raised:
        render_page_macro(draft.folder, monkeypatch)
    assert expected and str(raised.value) == expected


@pytest.mark.site
def test_site_build_stops_with_the_same_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Assert the English build fails and its output carries the CLI's one-line message."""
    case = next(c for c in CASES if c.name == BUILT_CASE)
    draft = draft_of(tmp_path)
    case.mutate(draft)
    expected = cli(capsys, draft.folder, "table").stderr.strip()
    result = build_english(draft.folder, tmp_path / "site")
    output = result.stdout + result.stderr
    assert result.returncode != 0, f"{case.id}: the site built from a broken catalog"
    assert expected and expected in output, (
        f"{case.id}: {expected!r} not in the build output:\n{output[-3000:]}"
    )
    assert not (tmp_path / "site" / "index.html").exists() or result.returncode != 0
