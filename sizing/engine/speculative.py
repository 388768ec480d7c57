"""Speculative decoding (``--speculative-config``): the drafter's weights, KV layers and state. Units: params,
bytes.

What the supported vLLM release (:data:`sizing.engine.versions.SUPPORTED`) loads and reserves when a
drafter is configured (sources, all in vLLM's released tree):

* ``vllm/config/speculative.py: SpeculativeConfig``: the JSON keys ``method``, ``num_speculative_tokens``
  and ``model``; model-specific MTP names (``deepseek_mtp``, ``qwen3_next_mtp``, ``glm4_moe_mtp``, …) are
  folded into ``mtp``, whose ``num_speculative_tokens`` defaults to the checkpoint's ``n_predict``
  (``num_nextn_predict_layers`` / ``mtp_num_hidden_layers``).
* ``vllm/v1/spec_decode/eagle.py: EagleProposer.load_model`` (MTP runs through the same proposer): the
  drafter is built with the target's quantisation, then takes the target's ``embed_tokens`` and (except
  EAGLE-3, which has its own draft vocabulary) ``lm_head``; only its own layers cost memory.
* ``vllm/model_executor/models/deepseek_mtp.py``, ``glm4_moe_mtp.py``, ``qwen3_next_mtp.py``,
  ``qwen3_5_mtp.py``: one MTP layer is ``enorm`` + ``hnorm`` + a ``2 x hidden -> hidden`` projection + one
  decoder layer of the target's kind (MLA or GQA full attention, dense MLP or MoE) + a final norm; with
  more speculative tokens than MTP layers the layers are reused, so the KV layers stay ``mtp_layers``.
* ``vllm/model_executor/models/llama_eagle3.py``: one decoder layer whose q/k/v take ``2 x hidden`` inputs,
  a ``3 x hidden -> hidden`` fusion and its own LM head over ``draft_vocab_size``.
* ``vllm/v1/worker/gpu_model_runner.py: GPUModelRunner.get_kv_cache_spec``: the drafter's attention layers
  are attention layers like the target's (same spec, so the same KV-cache group bucket); Mamba/GDN specs get
  ``num_speculative_blocks = num_speculative_tokens``, and ``MambaStateShapeCalculator`` widens the conv
  state by ``num_spec`` columns (``vllm/model_executor/layers/mamba/mamba_utils.py``).
* ``vllm/config/vllm.py: VllmConfig._set_cudagraph_sizes``: decode batches carry ``1 + k`` tokens per
  sequence (``uniform_decode_query_len``), so the largest CUDA-graph size is
  ``min(max_num_seqs x (1 + k) x 2, 512, max_num_batched_tokens)``; the drafter captures graphs of its own
  layers too.

Not modelled: the capture sizes rounded to multiples of ``1 + k`` (``CompilationConfig.
adjust_cudagraph_sizes_for_spec_decode``; the count we use is the unrounded list's), the drafter's own
embedding under pipeline parallelism (``EagleProposer.load_model`` shares it only when PP is 1), and the
drafter's profile pass and the rejection sampler's dummy run, which follow the target's forward pass and
the sampler and stay below their peak.
"""

from __future__ import annotations

import json

import numpy as np

from sizing import safeio
from sizing.catalog.schema import Checkpoint, Model, PrecisionSpec
from sizing.catalog.settings import SpecConfig
from sizing.engine.weights import BF16_BYTES, attention_params
from sizing.errors import CatalogError

ArrayLike = np.ndarray | int | float
MODELLED = ("mtp", "eagle3", "ngram")
MTP_ALIASES = ("deepseek_mtp", "qwen3_next_mtp", "glm4_moe_mtp", "ernie_mtp", "mimo_mtp")
KNOWN_UNMODELLED = ("draft_model", "eagle", "medusa", "mlp_speculator", "suffix")


def parse_speculative_config(text: str) -> SpecConfig:
    """vLLM's ``--speculative-config`` JSON as a :class:`SpecConfig`; ValueError with one line otherwise.

    Accepted methods: ``mtp`` (and vLLM's model-specific MTP names, folded into it), ``eagle3`` and
    ``ngram``; other vLLM methods are refused as not modelled.
    """
    try:
        raw = safeio.parse_json(text, "--speculative-config")  # bounded depth, finite numbers
    except CatalogError as exc:
        raise ValueError(
            f'not a JSON object such as \'{{"method": "mtp", "num_speculative_tokens": 1}}\' '
            f"({exc.problem}): {text[:80]!r}"
        ) from None
    if not isinstance(raw, dict) or not isinstance(raw.get("method"), str):
        raise ValueError(
            f'expected a JSON object with a "method" such as \'{{"method": "mtp"}}\', got {text!r}'
        )
    method = "mtp" if raw["method"] in MTP_ALIASES else raw["method"]
    if method not in MODELLED:
        known = (
            "a vLLM method the sizing engine does not model"
            if method in KNOWN_UNMODELLED
            else "unknown method"
        )
        raise ValueError(f"method {raw['method']!r}: {known} (modelled: {', '.join(MODELLED)})")
    k = raw.get("num_speculative_tokens")
    if k is not None and (not isinstance(k, int) or isinstance(k, bool) or not 0 < k <= 64):
        raise ValueError(f"num_speculative_tokens must be an integer from 1 to 64, got {k!r}")
    model = raw.get("model")
    if model is not None and not isinstance(model, str):
        raise ValueError(f"model must be a checkpoint id, got {model!r}")
    return SpecConfig(method, k, model)


def resolve(spec: SpecConfig, m: Model, model_id: str) -> SpecConfig:
    """``spec`` checked against model ``m``, with vLLM's defaults filled in; ValueError naming what is
    missing.

    MTP needs MTP layers in the checkpoint and defaults to one draft token per MTP layer; EAGLE-3 needs a
    catalog draft head (``eagle3``), whose id ``model`` must name when given; n-gram needs a token count.
    """
    if spec.method == "mtp":
        if not m.mtp_layers:
            raise ValueError(f"method 'mtp': {model_id} ships no MTP layers (mtp_layers is 0)")
        return SpecConfig("mtp", spec.num_speculative_tokens or m.mtp_layers, None)
    if spec.method == "eagle3":
        head = m.eagle3
        if head is None or (spec.model is not None and spec.model != head.id):
            named = f" {spec.model}" if spec.model else ""
            raise ValueError(f"method 'eagle3': no catalog EAGLE-3 head{named} for {model_id}")
        if spec.num_speculative_tokens is None:
            raise ValueError("method 'eagle3' needs num_speculative_tokens")
        return SpecConfig("eagle3", spec.num_speculative_tokens, head.id)
    if spec.num_speculative_tokens is None:
        raise ValueError("method 'ngram' needs num_speculative_tokens")
    return spec


def flag_value(spec: SpecConfig) -> str:
    """The ``--speculative-config`` value of ``spec`` as our commands print it (shell-quoted JSON)."""
    body: dict[str, object] = {"method": spec.method, "num_speculative_tokens": spec.num_speculative_tokens}
    if spec.model:
        body["model"] = spec.model
    return "'" + json.dumps(body) + "'"


def mtp_layer_params(m: Model) -> tuple[int, int]:
    """(quantisable, norm) parameters of ONE MTP layer: the ``2h -> h`` projection plus one decoder layer.

    The decoder layer is of the target's kind: its full-attention projections (sharded and replicated,
    MLA or GQA, output gate included) and an MoE block when the model is MoE past its dense layers, else a
    dense gated MLP. Norms: ``enorm``, ``hnorm``, the layer's two and the final one (5 x hidden).
    """
    h = m.hidden_size
    sharded, replicated = attention_params(m)
    if m.moe:
        e = m.moe
        mlp = 3 * h * (e.expert_intermediate_size * e.experts + e.shared_intermediate_size * e.shared_experts)
        mlp += h * e.experts
    else:
        mlp = 3 * h * m.intermediate_size
    return 2 * h * h + sharded + replicated + mlp, 5 * h


def eagle3_params(m: Model) -> int:
    """Parameters of the model's EAGLE-3 head (BF16): q/k/v over ``2h`` inputs, o, MLP, fusion, LM head,
    norms."""
    head = m.eagle3
    if head is None:
        return 0
    h, q, kv = m.hidden_size, m.attention_heads * m.head_dim, 2 * m.kv_heads * m.head_dim
    attention = 2 * h * (q + kv) + q * h
    return attention + 3 * h * head.intermediate_size + 3 * h * h + head.draft_vocab_size * h + 4 * h


def draft_weight_bytes(m: Model, ckpt: Checkpoint, spec: PrecisionSpec, cfg: SpecConfig) -> float:
    """Bytes of the drafter's own weights over all TP ranks (shared embeddings and LM head not counted).

    MTP layers take the checkpoint's precision (BF16 when the checkpoint keeps ``mtp``); EAGLE-3 heads
    are BF16; n-gram drafting loads nothing.
    """
    if cfg.method == "eagle3":
        return float(eagle3_params(m) * BF16_BYTES)
    if cfg.method != "mtp":
        return 0.0
    quantisable, norms = mtp_layer_params(m)
    per_param = BF16_BYTES if "mtp" in ckpt.keeps_bf16 else spec.bytes_per_param
    return m.mtp_layers * (quantisable * per_param + norms * BF16_BYTES)


def draft_kv_layers(m: Model, cfg: SpecConfig) -> int:
    """Attention layers the drafter adds to the KV cache: the MTP layers, EAGLE-3's one layer, none for
    n-gram."""
    return {"mtp": m.mtp_layers, "eagle3": 1}.get(cfg.method, 0)


def columns(m: Model, ckpt: Checkpoint, spec: PrecisionSpec, cfg: SpecConfig | None) -> dict[str, object]:
    """The speculative-decoding columns of a case (all 0 when ``cfg`` is None: speculation off)."""
    if cfg is None:
        return {"spec_method": "", "spec_tokens": 0, "spec_draft": "", "w_draft": 0.0, "draft_kv_layers": 0}
    return {
        "spec_method": cfg.method,
        "spec_tokens": int(cfg.num_speculative_tokens or 0),
        "spec_draft": cfg.model or "",
        "w_draft": draft_weight_bytes(m, ckpt, spec, cfg),
        "draft_kv_layers": draft_kv_layers(m, cfg),
    }


def decode_tokens_per_seq(spec_tokens: ArrayLike) -> np.ndarray:
    """Tokens one decoding sequence carries per step: ``1 + num_speculative_tokens``."""
    return 1 + np.asarray(spec_tokens, dtype=np.int64)
