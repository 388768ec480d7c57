"""A worked example as language-neutral steps: every intermediate value of one evaluated row, with its unit.

:func:`explain_steps` turns a row (from :func:`sizing.engine.estimate.estimate` or the matrix) into
:class:`Step` values in the order vLLM computes them at start-up: total memory, budget, weights,
activation peak, non-torch memory, CUDA graphs, "Available KV cache memory", KV bytes per token
with its formula, bytes per block, GPU blocks, "GPU KV cache size", "Maximum concurrency", whole
sequences at each published context, and the decode ceiling. :mod:`sizing.render.explain` renders them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

from sizing.catalog.loader import Catalog
from sizing.engine import dsv4_kv
from sizing.engine.versions import Rules, rules_for

Row = Mapping[str, Any]


@dataclass(frozen=True)
class Quantity:
    """A value and its unit; memory units hold bytes (``mib``/``gib``/``kib``/``bytes``)."""

    value: float
    unit: str


@dataclass(frozen=True)
class Step:
    """One line of a worked example: label, optional formula (message keys) and result(s)."""

    id: str
    label_key: str
    result: tuple[Quantity, ...]
    formula_key: str = ""
    terms: tuple[tuple[str, Quantity], ...] = ()
    label_args: tuple[tuple[str, Quantity], ...] = ()


def _q(value: Any, unit: str) -> Quantity:
    return Quantity(float(value), unit)


# ---------------------------------------------------------------------------------------------
# Steps
# ---------------------------------------------------------------------------------------------


def rules_of(row: Row, cat: Catalog) -> Rules:
    """The accounting rules the row was computed with (its vllm_version, else the catalog's)."""
    return rules_for(str(row.get("vllm_version") or cat.assume("vllm_version")))


def memory_steps(row: Row) -> list[Step]:
    """Total memory, budget, checkpoint and per-GPU weights."""
    total, budget = _q(row["total_bytes"], "gib"), _q(row["budget_bytes"], "gib")
    checkpoint, weights = _q(row["w_total"], "gib"), _q(row["weights_bytes"], "gib")
    split = int(row["tp"]) * int(row["pp"]) > 1
    return [
        Step("total", "step_total", (_q(row["total_bytes"], "mib"), total)),
        Step(
            "budget",
            "step_budget",
            (budget,),
            "formula_budget",
            (("gmu", _q(row["gpu_memory_utilization"], "plain2")), ("total", total)),
        ),
        Step("checkpoint", "step_checkpoint", (checkpoint,)),
        weights_step(row, checkpoint, weights, split),
        *draft_steps(row),
    ]


UNEVEN_SHOWN = 0.005 * 2**30
"""Bytes per GPU above an even split from which the weights step shows the part not divided (about 0.01 GiB,
the precision of its GiB figures)."""


def weights_step(row: Row, checkpoint: Quantity, weights: Quantity, split: bool) -> Step:
    """Weights per GPU; split over TP × PP, the even share and what is not divided evenly (layers every
    GPU keeps whole, the largest pipeline stage, padding), so the sum can be redone by hand."""
    terms = (("checkpoint", checkpoint), ("tp", _q(row["tp"], "count")), ("pp", _q(row["pp"], "count")))
    if not split:
        return Step("weights", "step_weights", (weights,))
    even = float(row["w_total"]) / (int(row["tp"]) * int(row["pp"]))
    uneven = float(row["weights_bytes"]) - even
    if uneven < UNEVEN_SHOWN:
        return Step("weights", "step_weights", (weights,), "formula_weights", terms)
    extra = (("even", _q(even, "gib")), ("uneven", _q(uneven, "gib")))
    return Step("weights", "step_weights", (weights,), "formula_weights_uneven", terms + extra)


def draft_steps(row: Row) -> list[Step]:
    """The speculative-decoding drafter's own weights per GPU, when the row has a drafter (none otherwise)."""
    if not str(row.get("spec_method") or ""):
        return []
    return [Step("draft", "step_draft", (_q(row["draft_weights_bytes"], "gib"),))]


def overhead_steps(row: Row) -> list[Step]:
    """Activation peak, non-torch memory and CUDA graphs, per GPU."""
    return [
        Step(
            "activation",
            "step_activation",
            (_q(row["activation_bytes"], "gib"),),
            label_args=(("tokens", _q(row["profile_tokens"], "tokens")),),
        ),
        Step("nontorch", "step_nontorch", (_q(row["nontorch_bytes"], "gib"),)),
        Step("cudagraphs", "step_cudagraphs", (_q(row["cudagraph_bytes"], "gib"),)),
    ]


def available_steps(row: Row, rules: Rules) -> list[Step]:
    """ "Available KV cache memory" and, when it differs, the memory KV blocks are cut from."""
    terms = tuple((k, _q(row[f"{k}_bytes"], "gib")) for k in ("budget", "weights", "activation", "nontorch"))
    formula = "formula_available" if rules.extensible_kv_cache else "formula_available_graphs"
    if not rules.extensible_kv_cache:
        terms += (("cudagraphs", _q(row["cudagraph_bytes"], "gib")),)
    if float(row.get("kv_cache_memory_bytes") or 0) > 0:
        formula, terms = "formula_available_given", ()
    steps = [Step("available_kv", "step_available", (_q(row["available_kv_bytes"], "gib"),), formula, terms)]
    if not formula == "formula_available_given":
        steps.append(band_step(row))
    if not math.isclose(float(row["kv_cache_bytes"]), float(row["available_kv_low_bytes"])):
        low = float(row["available_kv_low_bytes"])  # a shortfall is written as a positive amount
        terms = (("available", _q(abs(low), "gib")), ("cudagraphs", _q(row["cudagraph_bytes"], "gib")))
        steps.append(
            Step(
                "kv_cache",
                "step_kv_cache",
                (_q(row["kv_cache_bytes"], "gib"),),
                "formula_kv_extensible" if low >= 0 else "formula_kv_extensible_short",
                terms,
            )
        )
    return steps


def band_step(row: Row) -> Step:
    """The cautious end of the estimate's band (L to H) the blocks are counted from; a band wholly below
    zero is written as a shortfall of |H| to |L| (``step_available_band_short``), never as negative
    amounts."""
    value, low, high = (float(row[f"available_kv{k}_bytes"]) for k in ("", "_low", "_high"))
    short = high < 0
    args = tuple(
        (name, _q(abs(v) if short else v, "gib"))
        for name, v in (("value", value), ("low", low), ("high", high))
    )
    return Step(
        "available_kv_band",
        "step_available_band_short" if short else "step_available_band",
        (_q(low, "gib"),),
        label_args=args,
    )


def kv_token_step(row: Row) -> Step:
    """KV bytes per token per GPU: layers × 2 × KV heads per rank × head_dim × bytes, or the MLA latent."""
    if int(row.get("csa_bytes_per_block", 0)):
        return csa_token_step(row)
    layers = int(row["full_on_stage"]) + int(row["sliding_on_stage"])
    common = (("layers", _q(layers, "layers")), ("dtype", _q(row["kv_bytes"], "count")))
    if bool(row["is_mla"]):
        terms: tuple[tuple[str, Quantity], ...] = (*common, ("latent", _q(row["mla_dim"], "count")))
        formula = "formula_kv_mla"
    else:
        heads = max(1, int(row["kv_heads"]) // int(row["tp"]))
        terms = (*common, ("heads", _q(heads, "kv_heads")), ("head_dim", _q(row["head_dim"], "count")))
        formula = "formula_kv_gqa"
    result = (_q(row["kv_bytes_per_token"], "bytes"), _q(row["kv_bytes_per_token"], "kib"))
    return Step("kv_per_token", "step_kv_per_token", result, formula, terms)


def csa_token_step(row: Row) -> Step:
    """DeepSeek-V4: what its whole-context groups (compressed and indexer caches) take per token of context,
    the same on every GPU: their pages of one 256-token block over 256."""
    terms = (
        ("page", _q(row["csa_full_page_bytes"], "bytes")),
        ("block_size", _q(dsv4_kv.KV_BLOCK, "tokens")),
    )
    result = (_q(row["kv_bytes_per_token"], "bytes"), _q(row["kv_bytes_per_token"], "kib"))
    return Step("kv_per_token", "step_kv_per_token_csa", result, "formula_kv_csa", terms)


def csa_block_step(row: Row) -> Step:
    """DeepSeek-V4: one block id holds a page of every group; it costs the largest group's pages."""
    result = (_q(row["bytes_per_block"], "bytes"), _q(row["bytes_per_block"], "kib"))
    return Step(
        "bytes_per_block",
        "step_block_csa",
        result,
        "formula_block_csa",
        (("groups", _q(row["kv_groups"], "count")),),
    )


def csa_request_step(row: Row) -> Step:
    """DeepSeek-V4: the blocks one max_model_len request holds, by kind of group
    (:func:`sizing.engine.dsv4_kv.column_blocks` with the other kinds left out)."""
    kinds = {"full": ("full",), "window": ("swa",), "states": ("c4_state", "c128_state")}
    parts = {
        name: int(
            dsv4_kv.column_blocks(
                row["max_model_len"],
                int(row["max_num_batched_tokens"]) * int(row["pp"]),
                row["csa_window"],
                {f"csa_{k}_groups": row[f"csa_{k}_groups"] if k in keep else 0 for k in dsv4_kv.GROUP_KINDS},
            )
        )
        for name, keep in kinds.items()
    }
    terms = tuple((name, _q(value, "blocks")) for name, value in parts.items())
    return Step(
        "blocks_per_request",
        "step_request_blocks_csa",
        (_q(row["blocks_per_request"], "blocks"),),
        "formula_request_blocks_csa",
        (*terms, ("window_size", _q(row["csa_window"], "tokens"))),
        (("tokens", _q(row["max_model_len"], "tokens")),),
    )


def block_steps(row: Row) -> list[Step]:
    """Bytes per block and the number of GPU blocks (DeepSeek-V4: its shared block, and the blocks one
    request holds)."""
    block = _q(row["bytes_per_block"], "kib")
    csa = bool(int(row.get("csa_bytes_per_block", 0)))
    first = [csa_block_step(row), csa_request_step(row)] if csa else [block_formula_step(row)]
    return [
        *first,
        Step(
            "num_gpu_blocks",
            "step_blocks",
            (_q(row["num_gpu_blocks"], "count"),),
            "formula_blocks",
            (("kv_cache", _q(max(float(row["kv_cache_bytes"]), 0), "gib")), ("block", block)),
        ),
    ]


def block_formula_step(row: Row) -> Step:
    """Bytes per block: block size × layers of the group × bytes per token and layer."""
    return Step(
        "bytes_per_block",
        "step_block",
        (_q(row["bytes_per_block"], "bytes"), _q(row["bytes_per_block"], "kib")),
        "formula_block",
        (
            ("block_size", _q(row["block_size"], "tokens")),
            ("layers", _q(row["group_size"], "layers")),
            ("per_layer", _q(row["kv_bytes_per_token_layer"], "count")),
        ),
    )


def capacity_steps(row: Row, rules: Rules) -> list[Step]:
    """ "Maximum concurrency" at max_model_len and "GPU KV cache size" in tokens, as the release prints
    them."""
    blocks, bs = _q(row["num_gpu_blocks"], "count"), _q(row["block_size"], "count")
    mml, conc = _q(row["max_model_len"], "count"), _q(row["max_concurrency"], "ratio")
    per_request = _q(row["blocks_per_request"], "blocks")
    token_terms = {
        "blocks": (("blocks", blocks), ("block_size", bs)),
        "groups": (("blocks", blocks), ("groups", _q(row["kv_groups"], "count")), ("block_size", bs)),
        "concurrency": (("blocks", blocks), ("per_request", per_request), ("max_model_len", mml)),
    }[rules.token_rule]
    conc_terms = (
        (("blocks", blocks), ("per_request", _q(row["blocks_per_request"], "blocks")))
        if rules.concurrency_rule == "requests"
        else (("blocks", blocks), ("block_size", bs), ("max_model_len", mml))
    )
    return [
        Step(
            "max_concurrency",
            "step_concurrency",
            (conc,),
            f"formula_concurrency_{rules.concurrency_rule}",
            conc_terms,
            (("tokens", _q(row["max_model_len"], "tokens")),),
        ),
        Step(
            "kv_cache_tokens",
            "step_tokens",
            (_q(row["kv_cache_tokens"], "tokens"),),
            f"formula_tokens_{rules.token_rule}",
            token_terms,
        ),
    ]


def contexts_of(row: Row) -> list[int]:
    """The published context lengths a row carries (``concurrency_<ctx>`` columns), ascending."""
    return sorted(int(str(k).rsplit("_", 1)[1]) for k in row.keys() if str(k).startswith("concurrency_"))


def sequence_steps(row: Row) -> list[Step]:
    """Whole sequences per server at each published context the model supports, each counted as its own
    ``--max-model-len``: every context for a row that starts at its length, else those that start."""
    starts = bool(row["fits"])
    return [
        Step(
            f"seq_{c}",
            "step_sequences",
            (_q(row[f"sequences_{c}"], "count"),),
            "formula_sequences",
            (("concurrency", _q(row[f"concurrency_{c}"], "plain2")), ("replicas", _q(row["dp"], "replicas"))),
            (("context", _q(c, "tokens")),),
        )
        for c in contexts_of(row)
        if c <= int(row["max_context"]) and (starts or float(row[f"sequences_{c}"]) >= 1)
    ]


def decode_step(row: Row) -> list[Step]:
    """The decode ceiling of one sequence: memory bandwidth ÷ weight bytes read per token."""
    bandwidth = float(row["bandwidth_gbs"])
    if not math.isfinite(bandwidth):
        return []
    terms = (
        ("bandwidth", _q(bandwidth, "gb_per_s")),
        ("bandwidth_gib", _q(bandwidth * 1e9, "gib_per_s")),
        ("weights_read", _q(row["weights_read_bytes"], "gib")),
    )
    return [
        Step(
            "decode_tps_ceiling",
            "step_decode",
            (_q(row["decode_tps_ceiling"], "tokens_per_s"),),
            "formula_decode",
            terms,
        )
    ]


def explain_steps(row: Row, cat: Catalog) -> list[Step]:
    """Every step of ``row``'s sizing, in the order vLLM computes it at start-up."""
    rules = rules_of(row, cat)
    return [
        *memory_steps(row),
        *overhead_steps(row),
        *available_steps(row, rules),
        kv_token_step(row),
        *block_steps(row),
        *capacity_steps(row, rules),
        *sequence_steps(row),
        *decode_step(row),
    ]
