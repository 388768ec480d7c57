"""``estimate``'s terminal summary: the verdict, the figures vLLM prints at start-up, the command.

Built from the estimate record (:func:`sizing.review.report.record`), the same object ``--json`` prints,
so the summary and the JSON cannot disagree. Words come from the English message file
(``docs/messages/en.yaml``); memory is in GiB (2^30), per-token KV in KiB, both as vLLM prints them.
"""

from __future__ import annotations

from typing import Any, Mapping

from sizing.render.cells import change_label
from sizing.render.flagtext import plain_text
from sizing.render.i18n import t
from sizing.render.plural import plural

Pairs = list[tuple[str, str]]


def _num(value: Any, digits: int = 2) -> str:
    return "—" if value is None else f"{value:,.{digits}f}"


def verdict(rec: Mapping[str, Any]) -> str:
    """One line: the verdict (``rec["verdict"]``), whole full-length requests at once, and the reason or what
    to try (the nearest change)."""
    whole = int(rec["max_concurrency"] or 0)
    length = f"{rec['max_model_len']:,}"
    if rec["verdict"] in ("fits", "tight"):
        reason = t("en", f"reason_{str(rec['reason']).replace('-', '_')}") if rec["reason"] else ""
        replicas = rec["data_parallel_size"]
        served = plural("en", "plural_requests", whole * replicas, f"{whole * replicas:,}")
        copies = f" ({plural('en', 'plural_replicas', replicas, str(replicas))})" if replicas > 1 else ""
        tight = (
            f" Tight: fewer than {rec['tight_below_sequences']} whole requests at once."
            if rec["verdict"] == "tight"
            else ""
        )
        return f"✅ starts: {served} of {length} tokens at once{copies}.{tight} {reason}".rstrip()
    advice = plain_text(change_label(rec, "en")) if rec["change"] else ""
    if rec["verdict"] == "borderline":
        return (
            f"⚠️ borderline: the estimate's band straddles the point where vLLM refuses to start with "
            f"{length}-token requests; it may start or not. "
            f"What to try: {advice or 'a shorter context'}."
        )
    return f"❌ will not start: the KV cache cannot hold one {length}-token request. {advice}".rstrip()


def startup_figures(rec: Mapping[str, Any]) -> Pairs:
    """What vLLM logs at start-up, per GPU, labelled with its own words (a hybrid model's block size
    first)."""
    hybrid = rec.get("hybrid_block_size")
    return [
        *([("Setting attention block size to", f"{hybrid} tokens")] if hybrid else []),
        ("Model loading took", f"{_num(rec['weights_gib'])} GiB"),
        ("Available KV cache memory", f"{_num(rec['available_kv_gib'])} GiB"),
        ("GPU KV cache size", f"{rec['kv_cache_tokens']:,} tokens"),
        (
            f"Maximum concurrency for {rec['max_model_len']:,} tokens per request",
            f"{_num(rec['max_concurrency'])}x",
        ),
    ]


def setup(rec: Mapping[str, Any]) -> Pairs:
    """Model, hardware, plan and the settings the figures assume."""
    plan = (
        f"TP {rec['tensor_parallel_size']} × PP {rec['pipeline_parallel_size']} × "
        f"DP {rec['data_parallel_size']}"
    )
    server = f" ({rec['server']})" if rec["server"] != rec["gpu"] else ""
    hardware = f"{rec['gpus']} × {rec['gpu']}{server}"
    return [
        ("Model", f"{rec['checkpoint']} ({rec['precision']})"),
        ("Hardware", hardware),
        ("Parallelism", plan),
        (
            "Settings",
            f"--max-model-len {rec['max_model_len']} --gpu-memory-utilization "
            f"{rec['gpu_memory_utilization']:.2f} --kv-cache-dtype {rec['kv_cache_dtype']}, "
            f"block size {rec['block_size']}, vLLM {rec['vllm_version']}",
        ),
        *drafter(rec),
    ]


def drafter(rec: Mapping[str, Any]) -> Pairs:
    """The speculative-decoding drafter, when the estimate has one: method, tokens, its weights and KV
    layers."""
    spec = rec.get("speculative_config")
    if not spec:
        return []
    name = f" {spec['model']}" if spec["model"] else ""
    return [
        (
            "Speculative decoding",
            f"{spec['method']}{name}, {spec['num_speculative_tokens']} draft tokens per "
            f"step; drafter weights {_num(spec['draft_weights_gib'])} GiB per GPU (in "
            f"the model loading figure), KV-cache layers +{spec['draft_kv_layers']}",
        )
    ]


def memory(rec: Mapping[str, Any]) -> Pairs:
    """Where each GPU's memory goes, and the KV cache per token and per context length."""
    per_context = ", ".join(f"{int(c):,} tokens: {_num(v)}" for c, v in rec["concurrency"].items())
    return [
        ("GPU memory", f"{_num(rec['total_memory_gib'])} GiB total, {_num(rec['budget_gib'])} GiB budget"),
        (
            "Activations, non-torch, CUDA graphs",
            " + ".join(_num(rec[k]) for k in ("activation_peak_gib", "non_torch_gib", "cuda_graphs_gib"))
            + " GiB",
        ),
        (
            "KV cache per token",
            f"{_num(rec['kv_kib_per_token'], 1)} KiB ({rec['kv_bytes_per_token']:,} bytes)",
        ),
        ("Requests at once per replica", per_context),
        ("Longest single request", f"{rec['longest_context']:,} tokens"),
    ]


def sections(rec: Mapping[str, Any]) -> list[tuple[str, Pairs]]:
    """The summary's sections, in reading order."""
    return [
        ("", [("Verdict", verdict(rec))]),
        ("", setup(rec)),
        ("vLLM will print (per GPU):", startup_figures(rec)),
        ("Memory (per GPU):", memory(rec)),
    ]
