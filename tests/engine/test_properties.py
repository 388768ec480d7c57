"""Property tests (Hypothesis) of the loader and the engine on generated catalogs.

Catalogs are random but structurally valid: dense GQA, sliding-window, Gated-DeltaNet hybrid,
MoE and MLA+MoE models, GPUs of 4-300 GiB, servers of 1-8 GPUs on 1-2 nodes; precisions and
assumptions are the real catalog's. Some catalogs get one invalid or extreme numeric value
(0, negatives, NaN, ±inf, 1e300, 10**30, booleans, strings, the schema's upper bounds).

Properties: the loader raises CatalogError or ``evaluate`` returns only finite, non-negative numbers
(NaN only where a value is absent by design); more GPU memory never lowers capacity; an fp8 KV
cache halves bytes per token exactly; TP divides GQA bytes per token per GPU until one KV head is
left per rank; MLA bytes per token do not depend on TP.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sizing.catalog.loader import Catalog, catalog_from_texts
from sizing.engine.evaluate import case_matrix, evaluate, finish
from sizing.engine.versions import rules_for
from sizing.errors import CatalogError
from sizing.units import GiB, MiB

ROOT = Path(__file__).resolve().parents[2]
REAL = {
    stem: (ROOT / "catalog" / f"{stem}.yaml").read_text(encoding="utf-8")
    for stem in ("precisions", "assumptions")
}
PRECISIONS = list(yaml.safe_load(REAL["precisions"]))
ARCHITECTURES = (
    "Ampere (sm_80)",
    "Ada Lovelace (sm_89)",
    "Hopper (sm_90)",
    "Blackwell (sm_100)",
    "Blackwell (sm_120)",
)
EXAMPLES = {"full": 50, "fast": 15}
"""Examples per property: ``make test`` draws 50; ``make test-fast``, the inner loop, sets
``SIZING_PROPERTY_EXAMPLES=fast`` and draws the first 15 of the same derandomized sequence."""
SETTINGS = settings(
    max_examples=EXAMPLES[os.environ.get("SIZING_PROPERTY_EXAMPLES", "full")],
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

OPTIONAL = ("price_monthly", "price_per_gb_month", "nvme_read_gbs", "ram_gb", "ram_per_vram", "concurrency_")
"""Numeric columns that are NaN by design (no price, no disk/RAM listed, context beyond the model's)."""
SIGNED = (
    "available_kv_bytes",
    "kv_cache_bytes",
    "available_kv_low_bytes",
    "available_kv_high_bytes",
    "kv_cache_point_bytes",
)
"""Columns that go negative when the weights do not fit (vLLM prints a negative 'Available KV cache')."""

# ---------------------------------------------------------------------------------------------
# strategies
# ---------------------------------------------------------------------------------------------


@st.composite
def gpu_entry(draw: st.DrawFn, index: int) -> dict[str, Any]:
    """One GPU type of 4-300 GiB."""
    mib = draw(st.integers(4 * 1024, 300 * 1024))
    return {
        "name": f"{draw(st.sampled_from(['GPU', 'A100']))} {index}",
        "architecture": draw(st.sampled_from(ARCHITECTURES)),
        "memory_gb": round(mib * MiB / 1e9, 1),
        "memory_mib": mib,
        "bandwidth_gbs": draw(st.floats(100, 10_000)),
        "fp8": draw(st.booleans()),
        "fp4": draw(st.booleans()),
        "interconnect": {"kind": "pcie", "generation": "5.0", "bandwidth_gbs": 64.0},
        "source": "hypothesis",
    }


@st.composite
def server_entry(draw: st.DrawFn, gpu_ids: list[str], index: int) -> dict[str, Any]:
    """One server with 1-8 GPUs per node on 1-2 nodes."""
    entry = {
        "name": f"Server {index}",
        "kind": draw(st.sampled_from(["offer", "reference"])),
        "gpu": draw(st.sampled_from(gpu_ids)),
        "gpus_per_node": draw(st.sampled_from([1, 2, 4, 8])),
        "nodes": draw(st.sampled_from([1, 1, 2])),
    }
    if draw(st.booleans()):
        entry["price"] = {"monthly": draw(st.floats(10, 100_000)), "currency": "USD"}
    return entry


def attention_block(draw: st.DrawFn, kind: str, layers: int) -> dict[str, Any]:
    """The optional architecture blocks of one model kind (sliding window, linear attention, MoE, MLA)."""
    block: dict[str, Any] = {}
    if kind == "sliding":
        block["sliding_window"] = {
            "window": draw(st.sampled_from([128, 512, 4096])),
            "layers": draw(st.integers(1, layers - 1)),
        }
    if kind == "linear":
        block["linear_attention"] = {
            "kind": "gated_delta_net",
            "layers": draw(st.integers(1, layers - 1)),
            "num_key_heads": 16,
            "num_value_heads": 32,
            "key_head_dim": 128,
            "value_head_dim": 128,
            "conv_kernel": 4,
        }
    if kind in ("moe", "mla-moe"):
        block["moe"] = {
            "experts": draw(st.sampled_from([8, 64, 256])),
            "experts_per_token": draw(st.integers(1, 8)),
            "expert_intermediate_size": 128 * draw(st.integers(2, 32)),  # TP splits it
            "shared_experts": draw(st.integers(0, 1)),
            "shared_intermediate_size": 2048,
            "dense_layers": draw(st.integers(0, min(3, layers))),
        }
    if kind == "mla-moe":
        block["mla"] = {
            "kv_lora_rank": 512,
            "qk_rope_head_dim": 64,
            "qk_nope_head_dim": 128,
            "v_head_dim": 128,
            **({"q_lora_rank": 1536} if draw(st.booleans()) else {}),
        }
    return block


@st.composite
def model_entry(draw: st.DrawFn, index: int, kind: str | None = None) -> dict[str, Any]:
    """One model of a random (or the given) kind with one to three checkpoints."""
    kind = kind or draw(st.sampled_from(["dense", "sliding", "linear", "moe", "mla-moe"]))
    heads = draw(st.sampled_from([4, 8, 16, 32, 64, 128]))
    kv = (
        heads if kind == "mla-moe" else draw(st.sampled_from([d for d in (1, 2, 4, 8, 16) if heads % d == 0]))
    )
    layers = draw(st.integers(2, 96))
    precisions = draw(st.lists(st.sampled_from(PRECISIONS), min_size=1, max_size=3, unique=True))
    return {
        "name": f"Model {index}",
        "family": "H",
        "architecture": "HForCausalLM",
        "total_params_b": draw(st.floats(0.1, 1000)),
        "layers": layers,
        "hidden_size": draw(st.sampled_from([512, 1024, 2048, 4096, 8192])),
        "intermediate_size": draw(st.integers(256, 32768)),
        "attention_heads": heads,
        "kv_heads": kv,
        "head_dim": draw(st.sampled_from([64, 128, 256])),
        "vocab_size": draw(st.integers(1000, 260_000)),
        "tie_embeddings": draw(st.booleans()),
        "max_context": draw(st.sampled_from([2048, 8192, 32768, 131072, 262144])),
        **attention_block(draw, kind, layers),
        "checkpoints": [{"id": f"org/m{index}-{p}", "precision": p} for p in precisions],
        "source": "hypothesis",
    }


BAD_VALUES = (
    0,
    -1,
    -4096,
    0.0,
    -0.5,
    math.nan,
    math.inf,
    -math.inf,
    1e300,
    10**30,
    10**12,
    1e12,
    True,
    "12",
    None,
)
NUMERIC_FIELDS = {
    "gpus": ("memory_mib", "memory_gb", "bandwidth_gbs", "interconnect.bandwidth_gbs"),
    "servers": ("gpus_per_node", "nodes"),
    "models": (
        "layers",
        "hidden_size",
        "intermediate_size",
        "attention_heads",
        "kv_heads",
        "head_dim",
        "vocab_size",
        "max_context",
        "total_params_b",
    ),
}


def set_path(entry: dict[str, Any], field: str, value: Any) -> None:
    """Set the dotted ``field`` of ``entry`` to ``value``."""
    *parents, last = field.split(".")
    for part in parents:
        entry = entry[part]
    entry[last] = value


@st.composite
def raw_catalogs(draw: st.DrawFn, with_bad_values: bool = True) -> dict[str, dict[str, Any]]:
    """``{stem: {id: entry}}`` for gpus, servers, models and examples; maybe one bad number."""
    gpus = {f"gpu-{i}": draw(gpu_entry(i)) for i in range(draw(st.integers(1, 3)))}
    servers = {f"srv-{i}": draw(server_entry(list(gpus), i)) for i in range(draw(st.integers(1, 3)))}
    models = {f"org/m{i}": draw(model_entry(i)) for i in range(draw(st.integers(1, 3)))}
    first = next(iter(models.values()))
    examples = {
        "ex": {
            "model": next(iter(models)),
            "checkpoint": first["checkpoints"][0]["id"],
            "server": next(iter(servers)),
            "kv_cache_dtype": "auto",
            "max_model_len": 2048,
        }
    }
    raw = {"gpus": gpus, "servers": servers, "models": models, "examples": examples}
    if with_bad_values and draw(st.booleans()):
        stem = draw(st.sampled_from(sorted(NUMERIC_FIELDS)))
        entry = raw[stem][draw(st.sampled_from(sorted(raw[stem])))]
        set_path(entry, draw(st.sampled_from(NUMERIC_FIELDS[stem])), draw(st.sampled_from(BAD_VALUES)))
    return raw


def load(raw: dict[str, dict[str, Any]]) -> Catalog:
    """The generated sections plus the real precisions and assumptions, through the YAML loader."""
    texts = {stem: yaml.safe_dump(data, sort_keys=False) for stem, data in raw.items()}
    return catalog_from_texts({**texts, **REAL})


# ---------------------------------------------------------------------------------------------
# loader + evaluate: an error, or sane numbers
# ---------------------------------------------------------------------------------------------


def insane_columns(df: pd.DataFrame) -> list[str]:
    """Numeric columns holding ±inf, an unexpected NaN, or a negative value where none may be."""
    bad = []
    for column in df.select_dtypes(include=[np.number, bool]).columns:
        values = df[column].to_numpy(dtype=float)
        nan_ok = column.startswith(OPTIONAL)
        if np.isinf(values).any() or (not nan_ok and np.isnan(values).any()):
            bad.append(f"{column}: not finite")
        elif column not in SIGNED and (values[~np.isnan(values)] < 0).any():
            bad.append(f"{column}: negative")
    return bad


@SETTINGS
@given(raw_catalogs())
def test_catalog_error_or_finite_non_negative_outputs(raw: dict[str, dict[str, Any]]) -> None:
    """Assert a generated catalog is either refused by the loader or evaluates to sane numbers only."""
    try:
        cat = load(raw)
    except CatalogError:
        return
    df = evaluate(cat)
    assert len(df) > 0
    assert insane_columns(df) == []
    for column in ("weights_bytes", "kv_bytes_per_token", "bytes_per_block", "budget_bytes"):
        assert (df[column] > 0).all(), column


@SETTINGS
@given(st.sampled_from(sorted(NUMERIC_FIELDS)), st.data())
def test_non_positive_and_non_finite_numbers_are_refused(stem: str, data: st.DataObject) -> None:
    """Assert 0, negatives, NaN, ±inf, booleans and strings in a numeric field always stop the loader."""
    raw = data.draw(raw_catalogs(with_bad_values=False))
    field = data.draw(st.sampled_from(NUMERIC_FIELDS[stem]))
    value = data.draw(st.sampled_from([0, -1, -0.5, math.nan, math.inf, -math.inf, 10**30, True, "12", None]))
    set_path(next(iter(raw[stem].values())), field, value)
    with pytest.raises(CatalogError, match=field.split(".")[-1]):
        load(raw)


# ---------------------------------------------------------------------------------------------
# engine properties
# ---------------------------------------------------------------------------------------------

FIXED_GPU = {
    "name": "GPU 80",
    "architecture": "Hopper (sm_90)",
    "memory_gb": 85.5,
    "memory_mib": 81559,
    "bandwidth_gbs": 3350.0,
    "fp8": True,
    "fp4": False,
    "interconnect": {"kind": "nvlink", "generation": "4", "bandwidth_gbs": 450.0},
    "source": "hypothesis",
}


REAL_SIZES = (16384, 24564, 32607, 46068, 49140, 81559, 97887, 143771, 183359)
"""nvidia-smi totals (MiB) of common cards, mixed into the random sizes so bands and big cards occur."""


def memory_sizes(low: int = 4 * 1024, high: int = 400 * 1024) -> st.SearchStrategy[list[int]]:
    """Two to six distinct GPU memory sizes in [low, high] MiB, ascending."""
    one = st.one_of(
        st.integers(low, high), st.sampled_from([m for m in REAL_SIZES if low <= m <= high] or [low])
    )
    return st.lists(one, min_size=2, max_size=6, unique=True).map(sorted)


def ladder_catalog(model: dict[str, Any], sizes: list[int], gpus: int) -> Catalog:
    """``model`` and one server of ``gpus`` GPUs per size, the GPUs identical except for memory."""
    gpu_ids = {mib: f"g{mib}" for mib in sizes}
    ckpt = model["checkpoints"][0]["id"]
    gpus_yaml = {
        g: {**FIXED_GPU, "name": f"GPU {mib}", "memory_mib": mib, "memory_gb": round(mib * MiB / 1e9, 1)}
        for mib, g in gpu_ids.items()
    }
    return load(
        {
            "gpus": gpus_yaml,
            "servers": {
                f"s{mib}": {"name": f"S {mib}", "kind": "reference", "gpu": g, "gpus_per_node": gpus}
                for mib, g in gpu_ids.items()
            },
            "models": {"org/m0": model},
            "examples": {
                "ex": {
                    "model": "org/m0",
                    "checkpoint": ckpt,
                    "server": f"s{sizes[0]}",
                    "kv_cache_dtype": "auto",
                    "max_model_len": 2048,
                }
            },
        }
    )


def assert_capacity_rises_with_memory(df: pd.DataFrame) -> None:
    """Assert blocks and concurrency never fall as memory grows, for every checkpoint, KV type and plan."""
    key = ["checkpoint", "precision", "kv_cache_dtype", "plan", "tp", "pp", "dp"]
    for _, rows in df.sort_values("total_bytes").groupby(key):
        for column in ("num_gpu_blocks", "max_concurrency"):
            values = rows[column].to_numpy(dtype=float)
            assert (np.diff(values) >= 0).all(), (column, rows[["total_bytes", column]].to_dict("list"))


@SETTINGS
@given(model_entry(0), memory_sizes(), st.sampled_from([1, 2, 4, 8]))
def test_more_memory_never_lowers_capacity(model: dict, sizes: list[int], gpus: int) -> None:
    """Assert blocks and concurrency never drop when each GPU gets more memory (batch settings fixed)."""
    cat = ladder_catalog(model, sizes, gpus)
    rules = rules_for(str(cat.assume("vllm_version")))
    frame = case_matrix(cat, rules).assign(max_num_batched_tokens=8192, max_num_seqs=256)
    assert_capacity_rises_with_memory(finish(frame, cat, rules))


BANDS = ((4 * 1024, 70 * 1024 - 1), (70 * 1024, 160 * 1024 - 1), (160 * 1024, 400 * 1024))
"""GPU memory ranges (MiB) within which vLLM's default batch settings stay the same."""


@SETTINGS
@given(model_entry(0), st.sampled_from(BANDS).flatmap(lambda band: memory_sizes(*band)))
def test_more_memory_never_lowers_capacity_with_default_batch(model: dict, sizes: list[int]) -> None:
    """Assert the same through ``evaluate`` with vLLM's default batch settings, within one default band."""
    assert_capacity_rises_with_memory(evaluate(ladder_catalog(model, sizes, 2)))


def test_capacity_dips_where_the_default_batch_grows() -> None:
    """Assert the known exception: at 70 GiB vLLM's default batch quadruples, so one more MiB costs blocks."""
    model = {
        "name": "Dense 14B",
        "family": "H",
        "architecture": "HForCausalLM",
        "total_params_b": 14.8,
        "layers": 40,
        "hidden_size": 5120,
        "intermediate_size": 17408,
        "attention_heads": 40,
        "kv_heads": 8,
        "head_dim": 128,
        "vocab_size": 151936,
        "tie_embeddings": False,
        "max_context": 40960,
        "checkpoints": [{"id": "org/dense-14b", "precision": "fp8"}],
        "source": "hypothesis",
    }
    df = evaluate(ladder_catalog(model, [70 * 1024 - 1, 70 * 1024], 1))
    rows = df[(df["kv_cache_dtype"] == "auto")].sort_values("total_bytes")
    below, at = rows["num_gpu_blocks"].tolist()
    assert at < below
    assert rows["max_num_batched_tokens"].tolist() == [2048, 8192]


@SETTINGS
@given(raw_catalogs(with_bad_values=False))
def test_fp8_kv_halves_bytes_per_token_exactly(raw: dict) -> None:
    """Assert every row's KV bytes per token with the model's dtype is exactly twice the fp8 figure."""
    df = evaluate(load(raw))
    key = ["checkpoint", "precision", "server", "plan", "tp", "pp"]
    auto = df[df["kv_cache_dtype"] == "auto"].set_index(key)["kv_bytes_per_token"]
    fp8 = df[df["kv_cache_dtype"] == "fp8"].set_index(key)["kv_bytes_per_token"]
    assert len(auto) == len(fp8) > 0
    assert (auto == 2 * fp8.reindex(auto.index)).all()


def one_model_catalog(model: dict[str, Any]) -> Catalog:
    """A catalog of ``model`` (as ``org/m0``) and one node of 16 fixed 80 GB GPUs."""
    ckpt = model["checkpoints"][0]["id"]
    return load(
        {
            "gpus": {"g": FIXED_GPU},
            "models": {"org/m0": model},
            "servers": {"s": {"name": "16 GPUs", "kind": "reference", "gpu": "g", "gpus_per_node": 16}},
            "examples": {
                "ex": {
                    "model": "org/m0",
                    "checkpoint": ckpt,
                    "server": "s",
                    "kv_cache_dtype": "auto",
                    "max_model_len": 2048,
                }
            },
        }
    )


def bytes_by_tp(model: dict[str, Any]) -> dict[int, int]:
    """KV bytes per token per GPU (model dtype) of ``model`` by TP size, on one 16-GPU node."""
    df = evaluate(one_model_catalog(model))
    rows = df[
        (df["kv_cache_dtype"] == "auto")
        & (df["checkpoint"] == model["checkpoints"][0]["id"])
        & (df["pp"] == 1)
    ]
    return dict(zip(rows["tp"].astype(int), rows["kv_bytes_per_token"].astype(int)))


@SETTINGS
@given(st.sampled_from(["dense", "sliding", "linear", "moe"]).flatmap(lambda kind: model_entry(0, kind)))
def test_tp_divides_gqa_bytes_until_one_head_per_rank(model: dict) -> None:
    """Assert TP t gives bytes(1) / t per GPU while t ≤ kv_heads, then one KV head's bytes per rank."""
    by_tp, heads = bytes_by_tp(model), model["kv_heads"]
    assert by_tp[1] > 0 and len(by_tp) >= 2
    for tp, value in by_tp.items():
        assert value == (by_tp[1] // tp if tp <= heads else by_tp[1] // heads), (tp, heads)


@SETTINGS
@given(model_entry(0, "mla-moe"))
def test_mla_bytes_per_token_do_not_change_with_tp(model: dict) -> None:
    """Assert an MLA model's latent KV cache (576 values per layer) costs the same on every TP rank."""
    by_tp = bytes_by_tp(model)
    assert len(by_tp) >= 2
    assert set(by_tp.values()) == {(512 + 64) * 2 * model["layers"]}


def test_default_batch_bands_match_the_engine() -> None:
    """Assert the bands used above are where vLLM's default batch settings change (70 and 160 GiB)."""
    from sizing.engine.overhead import default_batch

    totals = np.array([70 * GiB - 1, 70 * GiB, 160 * GiB - 1, 160 * GiB], dtype=np.float64)
    tokens, seqs = default_batch(totals, np.zeros(4, dtype=bool), llm_class=False)
    assert tokens.tolist() == [2048, 8192, 8192, 16384] and seqs.tolist() == [256, 1024, 1024, 1024]
