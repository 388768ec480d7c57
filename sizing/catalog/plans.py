"""The one rule of which parallel plans (TP × PP × DP) a model and a set of GPUs can run.

vLLM refuses to start when a tensor-parallel rank would get a fraction of a head or of an expert
slice, when a pipeline stage would get no layer, or when the plan needs more GPUs than there are
(``vllm/config/model.py`` ``ModelConfig.verify_with_parallel_config``; the ``divide`` asserts of
``QKVParallelLinear`` and ``FusedMoE`` in ``vllm/model_executor/layers``; ``get_pp_indices`` in
``vllm/distributed/utils.py``). Each rule here works on scalars and on NumPy/pandas columns alike
(``&``, ``|``, ``%`` only), so :func:`sizing.engine.case_frame.model_takes` filters the whole matrix with it
and :func:`problem` explains one refused plan in words.

Columns read: ``attention_heads``, ``kv_heads``, ``la_value_heads`` (Gated DeltaNet value heads),
``linear_layers``, ``expert_intermediate`` (0 for dense models), ``layers``; plan sizes ``tp``,
``pp``, ``dp``, ``ep`` (expert-parallel ranks, 1 without; with ``experts``); ``gpus`` (the GPUs the hardware
has).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

import numpy as np

from sizing.catalog.schema import Model

Columns = Mapping[str, Any]


def _heads(c: Columns) -> Any:
    return c["attention_heads"] % c["tp"] == 0


def _kv_heads(c: Columns) -> Any:
    return (c["kv_heads"] % c["tp"] == 0) | (c["tp"] % c["kv_heads"] == 0)


def _linear_heads(c: Columns) -> Any:
    return (c["la_value_heads"] % c["tp"] == 0) | (c["linear_layers"] == 0)


def _experts(c: Columns) -> Any:
    return c["expert_intermediate"] % c["tp"] == 0


def _expert_ranks(c: Columns) -> Any:
    ep = c.get("ep", 1)  # expert parallelism: the routed experts divide evenly over the EP ranks
    return (ep == 1) | ((c.get("experts", 0) > 0) & (c.get("experts", 0) % np.maximum(ep, 1) == 0))


def _layers(c: Columns) -> Any:
    return c["pp"] <= c["layers"]


def _gpus(c: Columns) -> Any:
    return c["tp"] * c["pp"] * c["dp"] <= c["gpus"]


Rule = tuple[str, Callable[[Columns], Any], str]
TP_RULES: tuple[Rule, ...] = (
    ("tensor_parallel_size", _heads, "must divide the model's {attention_heads} attention heads, got {tp}"),
    (
        "tensor_parallel_size",
        _kv_heads,
        "must divide, or be a multiple of, the model's {kv_heads} KV heads, got {tp}",
    ),
    (
        "tensor_parallel_size",
        _linear_heads,
        "must divide the model's {la_value_heads} linear-attention value heads, got {tp}",
    ),
    (
        "tensor_parallel_size",
        _experts,
        "must divide the experts' intermediate size {expert_intermediate}, got {tp}",
    ),
    (
        "data_parallel_size",
        _expert_ranks,
        "expert parallelism needs the model's {experts} routed experts to divide over {ep} ranks",
    ),
)
"""Rules a TP size alone must pass for a model (no GPU count needed): the matrix filter."""
RULES: tuple[Rule, ...] = TP_RULES + (
    (
        "pipeline_parallel_size",
        _layers,
        "must be at most the model's {layers} layers (a pipeline stage needs one), got {pp}",
    ),
    (
        "data_parallel_size",
        _gpus,
        "tensor × pipeline × data parallel = {tp} × {pp} × {dp} = {needed} GPUs, but {where} has {gpus}",
    ),
)
"""Every rule, in the order a refusal is reported; messages name the value, the caller names the field."""


def model_takes(c: Columns) -> Any:
    """Whether the model splits ``tp`` ways (elementwise for columns): every rule of :data:`TP_RULES`."""
    ok = TP_RULES[0][1](c)
    for _, rule, _ in TP_RULES[1:]:
        ok = ok & rule(c)
    return ok


def problem(c: Columns, where: str = "the hardware given") -> tuple[str, str] | None:
    """(field, problem) of the first rule one plan breaks, or None when vLLM would run it.

    ``field`` is the vLLM argument at fault (``tensor_parallel_size``…); ``where`` names the hardware.
    """
    values: dict[str, Any] = {k: int(v) for k, v in c.items()}
    values.update(needed=values["tp"] * values["pp"] * values["dp"], where=where)
    for field, rule, message in RULES:
        if not bool(rule(values)):
            return field, message.format(**values)
    return None


def flag_problem(c: Columns, where: str = "the hardware given") -> str | None:
    """:func:`problem` as one command-line line, ``--tensor-parallel-size 3: must divide …``."""
    found = problem(c, where)
    if not found:
        return None
    field, text = found
    if field == "data_parallel_size":  # the product is at fault, not one size
        return text
    short = {"tensor_parallel_size": "tp", "pipeline_parallel_size": "pp", "data_parallel_size": "dp"}[field]
    return f"--{field.replace('_', '-')} {int(c[short])}: {text}"


def model_sizes(model: Model) -> dict[str, int]:
    """The columns the rules read from one catalog model (heads, layers, expert slice)."""
    la, moe = model.linear_attention, model.moe
    return {
        "attention_heads": model.attention_heads,
        "kv_heads": model.kv_heads,
        "layers": model.layers,
        "la_value_heads": la.num_value_heads if la else 0,
        "linear_layers": la.layers if la else 0,
        "expert_intermediate": moe.expert_intermediate_size if moe else 0,
    }
