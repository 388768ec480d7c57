"""Load and validate ``catalog/``: every file, every entry, every reference, before anything is computed.

Each catalog file is a YAML mapping ``id -> entry``. Any problem raises :class:`CatalogError`
naming file, entry and field. Duplicate keys (hence duplicate ids) are errors, never merged.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Mapping, TypeVar

import yaml
from pydantic import Field, TypeAdapter, ValidationError

from sizing import safeio
from sizing.catalog import plans
from sizing.catalog.schema import (
    Assumption,
    Example,
    FieldProblem,
    Fraction,
    Gpu,
    Model,
    PosFloat,
    PosInt,
    PrecisionSpec,
    Server,
    Text,
)
from sizing.errors import CatalogError
from sizing.kvdtypes import CatalogKvDtype

DEFAULT_DIR = Path(__file__).resolve().parents[2] / "catalog"
FILES: dict[str, type] = {
    "gpus": Gpu,
    "servers": Server,
    "models": Model,
    "precisions": PrecisionSpec,
    "assumptions": Assumption,
    "examples": Example,
}
M = TypeVar("M")


@dataclass(frozen=True)
class Catalog:
    """The validated catalog. All mappings are keyed by id, in file order."""

    gpus: Mapping[str, Gpu]
    servers: Mapping[str, Server]
    models: Mapping[str, Model]
    precisions: Mapping[str, PrecisionSpec]
    assumptions: Mapping[str, Assumption]
    examples: Mapping[str, Example]

    def assume(self, key: str) -> Any:
        """The value of assumption ``key``."""
        return self.assumptions[key].value


def read_yaml(text: str, label: str) -> dict[str, Any]:
    """Parse one catalog file's text into ``{id: raw entry}``; ``label`` names the file in errors.

    Parsed by :func:`sizing.safeio.parse_yaml`: duplicate keys, deep nesting and alias bombs are refused.
    """
    data = safeio.parse_yaml(text, label)
    if not isinstance(data, dict) or not data:
        raise CatalogError(label, "", "", "must be a non-empty mapping of id -> entry")
    return data


def _describe(error: Mapping[str, Any]) -> str:
    kind, ctx, value = error["type"], error.get("ctx") or {}, error.get("input")
    shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
    if kind == "missing":
        return "required field is missing"
    if kind in ("extra_forbidden", "unexpected_keyword_argument"):
        return "unknown field"
    for bound, words in (("gt", "greater than"), ("ge", "at least"), ("lt", "less than"), ("le", "at most")):
        if bound in ctx and kind.startswith(("greater", "less")):
            return f"must be {words} {ctx[bound]}, got {shown}"
    message = error["msg"].removeprefix("Value error, ")
    return f"{message[:1].lower()}{message[1:]}, got {shown}"


_ADAPTERS: dict[type, TypeAdapter[Any]] = {}
"""The validator of each entry type (a pydantic model, or the pydantic dataclass :class:`Example`), built
once."""


def _adapter(model: type[M]) -> TypeAdapter[M]:
    """The validator of ``model``."""
    if model not in _ADAPTERS:
        _ADAPTERS[model] = TypeAdapter(model)
    return _ADAPTERS[model]


def validate_entry(model: type[M], raw: Any, label: str, entry: str) -> M:
    """Validate one raw entry against ``model``, converting the first problem to a CatalogError."""
    if not isinstance(raw, dict):
        raise CatalogError(label, entry, "", f"must be a mapping of fields, got {type(raw).__name__}")
    try:
        return _adapter(model).validate_python(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        cross = (first.get("ctx") or {}).get("error")
        if isinstance(cross, FieldProblem):
            raise CatalogError(
                label, entry, ".".join(str(p) for p in (*first["loc"], cross.field)), cross.problem
            ) from None
        field = ".".join(str(part) for part in first["loc"])
        raise CatalogError(label, entry, field, _describe(first)) from None


def display_path(path: Path) -> str:
    """``path`` relative to the working directory when it lies below it, else as given."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _read_file(directory: Path, stem: str) -> tuple[str, str]:
    path = directory / f"{stem}.yaml"
    label = display_path(path)
    return safeio.read_text(path, label, safeio.MAX_YAML_BYTES), label


def load_section(stem: str, text: str, label: str) -> dict[str, Any]:
    """Parse and validate one catalog file's text into ``{id: model}``."""
    model = FILES[stem]
    entries: dict[str, Any] = {}
    for entry, raw in read_yaml(text, label).items():
        if not isinstance(entry, str) or not entry.strip():
            raise CatalogError(label, str(entry), "", "id must be a non-empty string")
        entries[entry] = validate_entry(model, raw, label, entry)
    return entries


def load_catalog(directory: str | Path = DEFAULT_DIR) -> Catalog:
    """Read, validate and cross-check every catalog file in ``directory``."""
    sections: dict[str, Any] = {
        stem: load_section(stem, *_read_file(Path(directory), stem)) for stem in FILES
    }
    catalog = Catalog(**sections)
    check_references(catalog)
    return catalog


def catalog_from_texts(texts: Mapping[str, str]) -> Catalog:
    """Build a catalog from ``{stem: yaml text}`` (used to evaluate other git revisions)."""
    sections: dict[str, Any] = {
        stem: load_section(stem, texts[stem], f"catalog/{stem}.yaml") for stem in FILES
    }
    catalog = Catalog(**sections)
    check_references(catalog)
    return catalog


def fill_assumptions(texts: Mapping[str, str], current: Catalog) -> tuple[dict[str, str], list[str]]:
    """``texts`` with every assumption ``current`` has and ``texts`` lacks appended, and those keys.

    Lets the current engine evaluate an older catalog (``diff``): a setting added since is taken at
    its current default, and the caller says so.
    """
    label = "catalog/assumptions.yaml"
    old = read_yaml(texts["assumptions"], label)
    missing = [key for key in current.assumptions if key not in old]
    if not missing:
        return dict(texts), []
    added = {key: current.assumptions[key].model_dump(mode="json", exclude_none=True) for key in missing}
    dumped = yaml.safe_dump(added, sort_keys=False, allow_unicode=True)
    text = texts["assumptions"].rstrip("\n") + "\n" + dumped
    return {**texts, "assumptions": text}, missing


def _require(ok: bool, label: str, entry: str, field: str, problem: str) -> None:
    if not ok:
        raise CatalogError(label, entry, field, problem)


def _check_servers(cat: Catalog) -> None:
    for sid, server in cat.servers.items():
        _require(
            server.gpu in cat.gpus,
            "catalog/servers.yaml",
            sid,
            "gpu",
            f"unknown GPU {server.gpu!r} (not in catalog/gpus.yaml)",
        )


def _check_models(cat: Catalog) -> None:
    seen: dict[str, str] = {}
    for mid, model in cat.models.items():
        for i, ckpt in enumerate(model.checkpoints):
            field = f"checkpoints.{i}"
            _require(
                ckpt.precision in cat.precisions,
                "catalog/models.yaml",
                mid,
                f"{field}.precision",
                f"unknown precision {ckpt.precision!r} (not in catalog/precisions.yaml)",
            )
            _require(
                ckpt.id not in seen,
                "catalog/models.yaml",
                mid,
                f"{field}.id",
                f"duplicate checkpoint id {ckpt.id!r} (also under {seen.get(ckpt.id)})",
            )
            seen[ckpt.id] = mid
        _require(
            model.attention_heads % model.kv_heads == 0,
            "catalog/models.yaml",
            mid,
            "kv_heads",
            f"must divide attention_heads ({model.attention_heads}), got {model.kv_heads}",
        )


def _check_examples(cat: Catalog) -> None:
    for eid, ex in cat.examples.items():
        label = "catalog/examples.yaml"
        _require(ex.model in cat.models, label, eid, "model", f"unknown model {ex.model!r}")
        _require(ex.server in cat.servers, label, eid, "server", f"unknown server {ex.server!r}")
        ids = [c.id for c in cat.models[ex.model].checkpoints]
        _require(
            ex.checkpoint in ids,
            label,
            eid,
            "checkpoint",
            f"{ex.checkpoint!r} is not a checkpoint of {ex.model}",
        )
        _check_example_plan(cat, eid, ex)


def _check_example_plan(cat: Catalog, eid: str, ex: Example) -> None:
    """An example's length fits its model, and its TP × PP × DP plan fits its server and heads."""
    model, server, label = cat.models[ex.model], cat.servers[ex.server], "catalog/examples.yaml"
    _require(
        ex.max_model_len <= model.max_context,
        label,
        eid,
        "max_model_len",
        f"must be at most the model's context ({model.max_context}), got {ex.max_model_len}",
    )
    _require(
        not (ex.speculative_config and ex.speculative_config.method == "mtp" and not model.mtp_layers),
        label,
        eid,
        "speculative.method",
        f"mtp needs MTP layers; {ex.model} has mtp_layers 0",
    )
    _require(
        not (ex.speculative_config and ex.speculative_config.method == "eagle3" and model.eagle3 is None),
        label,
        eid,
        "speculative.method",
        f"eagle3 needs the model's EAGLE-3 head; {ex.model} has none",
    )
    sizes = {"tp": ex.tensor_parallel_size, "pp": ex.pipeline_parallel_size, "dp": ex.data_parallel_size}
    found = plans.problem(
        {**plans.model_sizes(model), **sizes, "gpus": server.gpus_per_node * server.nodes}, ex.server
    )
    if found:
        raise CatalogError(label, eid, *found)


def _check_assumptions(cat: Catalog) -> None:
    for key, adapter in ASSUMPTION_TYPES.items():
        _require(
            key in cat.assumptions, "catalog/assumptions.yaml", key, "", "required assumption is missing"
        )
        try:
            adapter.validate_python(cat.assumptions[key].value, strict=True)
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(part) for part in ("value", *first["loc"]))
            raise CatalogError("catalog/assumptions.yaml", key, field, _describe(first)) from None


def check_references(cat: Catalog) -> None:
    """Cross-file checks: every id a catalog entry names must exist; required assumptions present."""
    _check_servers(cat)
    _check_models(cat)
    _check_examples(cat)
    _check_assumptions(cat)
    for pid, spec in cat.precisions.items():
        _require(
            spec.online_from is None or spec.online_from in cat.precisions,
            "catalog/precisions.yaml",
            pid,
            "online_from",
            f"unknown precision {spec.online_from!r}",
        )


_NonNeg = Annotated[float, Field(ge=0, le=1e12, allow_inf_nan=False)]
BAND_CLASSES = ("dense", "moe", "mla", "hybrid", "multimodal")
"""The architecture classes that each carry their own available-KV error band (``kv_band_<end>_<class>``)."""
FITTED_RESIDUALS = (
    "act_hidden_factor",
    "act_mlp_factor",
    "nontorch_mib",
    "nccl_mib",
    "nvls_mib",
    "consumed_mib",
    "rocm_mib",
    "v0_profile_mib",
)
"""The residual coefficients ``scripts/calibrate.py`` fits (non-negative assumptions; ``engine/overhead.py``
says what each multiplies)."""
_ASSUMPTION_TYPES: dict[str, Any] = {
    "gpu_memory_utilization": Fraction,
    "max_model_len": PosInt,
    "nvme_read_gbs": PosFloat,
    "contexts": Annotated[list[PosInt], Field(min_length=1)],
    "vllm_version": Annotated[str, Field(pattern=r"^\d+\.\d+(\.\d+)?$")],
    "kv_cache_dtypes": Annotated[list[CatalogKvDtype], Field(min_length=1)],
    **dict.fromkeys(
        (
            *FITTED_RESIDUALS,
            "cudagraph_mib_per_capture",
            "cuda_context_mib",
            "extensible_margin_gib",
        ),
        _NonNeg,
    ),
    "kv_band_optimistic": Annotated[float, Field(ge=0, lt=1, allow_inf_nan=False)],
    "kv_band_pessimistic": Annotated[float, Field(gt=-1, le=0, allow_inf_nan=False)],
    **{
        f"kv_band_optimistic_{name}": Annotated[float, Field(ge=0, lt=1, allow_inf_nan=False)]
        for name in BAND_CLASSES
    },
    **{
        f"kv_band_pessimistic_{name}": Annotated[float, Field(gt=-1, le=0, allow_inf_nan=False)]
        for name in BAND_CLASSES
    },
    "cpu_cores_recommended": Annotated[
        list[Annotated[list[PosInt], Field(min_length=3, max_length=3)]], Field(min_length=1)
    ],
    "serve_host": Text,
    "serve_port": Annotated[int, Field(gt=0, le=65535)],
    "max_num_seqs_floor": PosInt,
    "dp_min_capacity_share": Fraction,
    "gpu_memory_utilization_max": Fraction,
    "tight_below_sequences": PosInt,
    "kv_band_quantiles": Annotated[list[Fraction], Field(min_length=2, max_length=2)],
    "throughput_band_quantiles": Annotated[list[Fraction], Field(min_length=2, max_length=2)],
    "hours_per_month": Annotated[float, Field(gt=0, le=744, allow_inf_nan=False)],
    "speed_target_ms": Annotated[list[PosInt], Field(min_length=2, max_length=2)],
    **dict.fromkeys(("tokens_per_char_zh", "tokens_per_char_ru", "tokens_per_char_en"), PosFloat),
}
ASSUMPTION_TYPES = {key: TypeAdapter(kind) for key, kind in _ASSUMPTION_TYPES.items()}
"""Every assumption the engine reads, with the type and range its value must have (all required)."""
