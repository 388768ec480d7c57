"""DeepSeek-V4's weights on one GPU as the supported release (``versions.SUPPORTED``) loads them: bytes.

Every tensor vLLM builds for ``DeepseekV4ForCausalLM``, counted from the config: which are replicated on
every GPU and which tensor parallelism splits, in the dtype vLLM keeps them (FP8 block-scaled linears with
one UE8M0 scale byte per 128 x 128 block, MXFP4 routed experts with one UE8M0 byte per 32 values, bf16
embeddings, norms, router and compressor projections, fp32 hyper-connections, compressor position biases
and attention sinks, int32 hash-routing tables). The estimate takes them through
:mod:`sizing.engine.weights` (``dsv4_parts``); the KV side is :mod:`sizing.engine.dsv4_kv`.

Scope: the NVIDIA path (compute capability 9 and 10), tensor parallelism 1, 2, 4 or 8 without expert
parallelism (``num_attention_heads`` and ``o_groups`` must divide by it:
``models/deepseek_v4/attention.py:219`` and ``common/grouped_wo_a.py:25``), no pipeline parallelism, no
speculative decoding (the checkpoint's MTP layer is then dropped by the loader's ``"mtp.": None``,
``nvidia/model.py:1277``), a text checkpoint (no ``vision_n_layers``).

Sources, all in the PyPI wheel of the supported release
(``vllm-<SUPPORTED>-cp38-abi3-manylinux_2_28_x86_64.whl``), paths inside the ``vllm`` package
(``M`` = ``models/deepseek_v4/``):

- ``M/nvidia/model.py:866-872`` ``embed_tokens`` and ``:1354-1358`` ``lm_head``: vocabulary-parallel, bf16
  (no quant config on the head; ``Fp8Config`` quantizes linear layers only), vocabulary padded to 64
  (``model_executor/layers/vocab_parallel_embedding.py:39,100-102,294-310``).
- ``M/nvidia/model.py:617-618`` two RMSNorms a layer, ``:621-666`` fp32 ``hc_attn_fn``/``hc_ffn_fn``
  (``(2 + hc_mult) x hc_mult`` by ``hc_mult x hidden``), their bases and 3 scales; ``:891`` the final norm,
  ``:895-913`` fp32 ``hc_head_fn`` (``hc_mult`` by ``hc_mult x hidden``), base and scale. Replicated.
- ``M/attention.py:248-251`` fp32 attention sink padded to 64 or 128 heads (``M/nvidia/flashmla.py:74-81``);
  ``:253-260`` ``fused_wqa_wkv`` (hidden to ``q_lora_rank + head_dim``, FP8, replicated); ``:261,271``
  ``q_norm``, ``kv_norm``; ``:262-269`` ``wq_b`` (``q_lora_rank`` to heads x ``head_dim``, FP8,
  column-split); ``:272-281`` ``wo_a`` (``heads x head_dim / o_groups`` to ``o_groups x o_lora_rank``, FP8,
  column-split, ``M/common/grouped_wo_a.py:15-26``); ``:283-290`` ``wo_b`` (back to hidden, FP8,
  row-split).
- ``M/attention.py:362-372`` a compressor on every layer of ratio 4 or 128, and ``:304-323`` an indexer on
  ratio 4 with ``:947-960`` ``wq_b`` (``q_lora_rank`` to ``index_n_heads x index_head_dim``, FP8,
  replicated), ``weights_proj`` (hidden to ``index_n_heads``, bf16: no quant config, replicated) and
  ``:994-1003`` its own compressor of ``index_head_dim``. ``M/compressor.py:247-248`` ``coff`` 2 at ratio
  4, else 1; ``:270-277`` fp32 ``ape`` of ``ratio x coff x head``; ``:286-294`` ``fused_wkv_wgate`` (hidden
  to ``2 x coff x head``, bf16: no quant config, replicated); ``:295`` its norm.
- ``M/nvidia/model.py:270-276`` the router ``GateLinear`` (bf16, replicated,
  ``model_executor/layers/fused_moe/router/gate_linear.py:26``); ``:287-302`` the first ``num_hash_layers``
  layers hold an int32 ``tid2eid`` of ``vocab x num_experts_per_tok`` instead of ``:303-311`` the fp32
  ``e_score_correction_bias``; ``:322-336`` the shared expert, ``DeepseekV4MLP`` ``:128-170`` (FP8,
  column/row-split, its width rounded so each rank holds whole 128-blocks, ``:150-154``).
- ``M/nvidia/model.py:424-447`` routed experts, split by TP on their width; ``M/quant_config.py:209-230``
  ``Mxfp4MoEMethod`` when ``expert_dtype`` is fp4 and ``:111-115`` UE8M0 linear scales then (fp32 scales
  with fp8 experts); ``model_executor/layers/quantization/mxfp4.py:765-840`` uint8 weights of two values a
  byte and a uint8 scale per 32 values; ``model_executor/layers/fused_moe/oracle/mxfp4.py:461-485`` the
  backends tried on CUDA (TRT-LLM MXFP8 and DeepGEMM on capability 10; Humming, moved ahead of Marlin on
  capability 9 by ``quantization/utils/humming/priority.py:11,26-48``) and ``:822-902`` their padding: the
  width to 128 (TRT-LLM, DeepGEMM, Marlin) or 64 (Humming), the hidden size to 128 or 256;
  :func:`tp_problem` refuses a TP whose slices the strictest would pad (none for DeepSeek-V4-Flash at
  TP 1 to 8).
- ``model_executor/layers/quantization/fp8.py:333-343`` and ``utils/fp8_utils.py:1396-1425``: one scale per
  ``cdiv(out, 128) x cdiv(in, 128)`` block of each rank's slice.
- ``M/common/rope.py:9-52`` two rotary embeddings (sliding layers: ``rope_theta``, factor 1 over
  ``max_position_embeddings``; compressed layers: ``compress_rope_theta`` with the config's YaRN factor and
  original length), shared by ``get_rope`` (``model_executor/layers/rotary_embedding/__init__.py:74-85``),
  each an fp32 ``cos_sin_cache`` of ``original length x factor`` by ``qk_rope_head_dim``
  (``rotary_embedding/deepseek_scaling_rope.py:224-255``); ``M/nvidia/model.py:860-864`` an int32
  ``topk_indices_buffer`` of ``max_num_batched_tokens x index_topk``. Both are built with the model, so
  "Model loading took" counts them on every GPU.

Checked for DeepSeek-V4-Flash: 284,334,567,511 parameters, the model card's 284B; its tensors come to
156,006,389,980 bytes without the MTP layer (the safetensors file sizes were not listed by the tools).

Not counted: the re-layout of weights and scales after loading (DeepGEMM, Humming, Marlin; Marlin keeps
UE8M0 scales, ``quantization/utils/marlin_utils_fp4.py:125-130``), the same values with small alignment pads.
"""

from __future__ import annotations

from dataclasses import dataclass

from sizing.catalog.schema import Model
from sizing.engine.kvcache import cdiv

BF16, FP32, INT32 = 2, 4, 4
FP8_BLOCK = 128
MXFP4_BLOCK = 32
VOCAB_PAD = 64
SINK_HEADS = (64, 128)
"""FlashMLA's padded query heads: the attention sink holds 64 or 128 entries on each rank."""
EXPERT_ALIGN = {"width": 128, "hidden": 256}
"""The strictest padding of the CUDA MXFP4 backends (TRT-LLM, Marlin); DeepGEMM pads both to 128."""


@dataclass(frozen=True)
class Shape:
    """The DeepSeek-V4 config fields that size its weights."""

    hidden: int
    vocab: int
    heads: int
    head_dim: int
    rope_dim: int
    q_lora: int
    o_lora: int
    o_groups: int
    index_heads: int
    index_head_dim: int
    index_topk: int
    experts: int
    top_k: int
    expert_width: int
    shared: int
    hc_mult: int
    hash_layers: int
    ratios: tuple[int, ...]
    fp4_experts: bool
    rope_positions: tuple[int, int]


def shape_of(m: Model) -> Shape:
    """The :class:`Shape` of a catalog model with ``compressed_attention`` (DeepSeek-V4) and MoE."""
    ca, moe = m.compressed_attention, m.moe
    if ca is None or moe is None:
        raise ValueError(f"{m.name}: not a DeepSeek-V4 model (no compressed_attention or moe)")
    return Shape(
        hidden=m.hidden_size,
        vocab=m.vocab_size,
        heads=m.attention_heads,
        head_dim=m.head_dim,
        rope_dim=ca.rope_dim,
        q_lora=ca.q_lora_rank,
        o_lora=ca.o_lora_rank,
        o_groups=ca.o_groups,
        index_heads=ca.index_heads,
        index_head_dim=ca.index_head_dim,
        index_topk=ca.index_topk,
        experts=moe.experts,
        top_k=moe.experts_per_token,
        expert_width=moe.expert_intermediate_size,
        shared=moe.shared_experts,
        hc_mult=ca.hc_mult,
        hash_layers=ca.hash_layers,
        ratios=tuple(ca.compress_ratios),
        fp4_experts=ca.fp4_experts,
        rope_positions=(m.max_context, ca.compressed_rope_positions),
    )


@dataclass(frozen=True)
class Term:
    """One group of tensors: its weights over the whole model (no scales) and the bytes one GPU holds.

    Names follow :mod:`sizing.engine.weights` (``embeddings``, ``lm_head``, ``attention``,
    ``attention_replicated``, ``experts``, ...), which places them by the same names."""

    name: str
    params: int
    gpu_bytes: int
    sharded: bool = False
    """True when tensor parallelism splits it: each rank holds exactly 1/tp of the TP-1 bytes."""


def fp8_linear(out: int, inp: int, scale_bytes: int) -> int:
    """Bytes of one rank's FP8 slice of ``out x inp``: a byte a weight, a scale per 128 x 128 block."""
    return out * inp + cdiv(out, FP8_BLOCK).item() * cdiv(inp, FP8_BLOCK).item() * scale_bytes


def mxfp4(out: int, inp: int) -> int:
    """Bytes of an MXFP4 ``out x inp`` matrix: two values a byte, a UE8M0 byte per 32 along ``inp``."""
    return out * inp // 2 + out * (inp // MXFP4_BLOCK)


def scale_bytes(s: Shape) -> int:
    """Bytes of one FP8 linear scale: UE8M0 (1) in checkpoints with fp4 experts, else fp32 (4)."""
    return 1 if s.fp4_experts else FP32


def embeddings(s: Shape, tp: int) -> list[Term]:
    """``embed_tokens`` and ``lm_head``: bf16, each rank a 1/tp slice of the vocabulary padded to 64."""
    rows = cdiv(cdiv(s.vocab, VOCAB_PAD).item() * VOCAB_PAD, tp).item()
    params, size = s.vocab * s.hidden, rows * s.hidden * BF16
    return [Term("embeddings", params, size, True), Term("lm_head", params, size, True)]


def hyper_connections(s: Shape) -> Term:
    """fp32 mixing of the ``hc_mult`` residual streams: two per layer and the head's, replicated."""
    mix, dim = (2 + s.hc_mult) * s.hc_mult, s.hc_mult * s.hidden
    params = len(s.ratios) * 2 * (mix * dim + mix + 3) + s.hc_mult * dim + s.hc_mult + 1
    return Term("hyper_connections", params, params * FP32)


def norms(s: Shape) -> Term:
    """bf16 RMSNorm weights, replicated: per layer attn, ffn, q and kv norms, each compressor's norm."""
    c4, c128 = s.ratios.count(4), s.ratios.count(128)
    per_layer = 2 * s.hidden + s.q_lora + s.head_dim
    params = len(s.ratios) * per_layer + s.hidden + c4 * (s.head_dim + s.index_head_dim) + c128 * s.head_dim
    return Term("norms", params, params * BF16)


def attention(s: Shape, tp: int) -> list[Term]:
    """FP8 attention projections of every layer: ``wq_b``/``wo_a`` column-split and ``wo_b`` row-split
    (``attention``); ``fused_wqa_wkv`` and the fp32 attention sink of 64 or 128 padded heads replicated
    (``attention_replicated``; the sink counted at the TP-1 padding)."""
    sb, hd, layers = scale_bytes(s), s.heads * s.head_dim, len(s.ratios)
    low = s.o_groups * s.o_lora
    split = (
        fp8_linear(hd // tp, s.q_lora, sb)
        + fp8_linear(low // tp, hd // s.o_groups, sb)
        + fp8_linear(s.hidden, low // tp, sb)
    )
    sink = next(p for p in SINK_HEADS if p >= s.heads)
    whole = fp8_linear(s.q_lora + s.head_dim, s.hidden, sb) + sink * FP32
    return [
        Term(
            "attention",
            layers * (s.q_lora * hd + hd // s.o_groups * low + low * s.hidden),
            layers * split,
            True,
        ),
        Term("attention_replicated", layers * (s.hidden * (s.q_lora + s.head_dim) + s.heads), layers * whole),
    ]


def compressor(s: Shape, ratio: int, head: int) -> tuple[int, int]:
    """(params, bytes) of one compressor: bf16 ``fused_wkv_wgate`` and fp32 ``ape``, replicated."""
    coff = 2 if ratio == 4 else 1
    linear, ape = s.hidden * 2 * coff * head, ratio * coff * head
    return linear + ape, linear * BF16 + ape * FP32


def compressors(s: Shape) -> Term:
    """Every compressor (ratio 4 and 128 layers, and the indexer's on ratio 4), replicated."""
    parts = [compressor(s, 4, s.head_dim), compressor(s, 4, s.index_head_dim)] * s.ratios.count(4)
    parts += [compressor(s, 128, s.head_dim)] * s.ratios.count(128)
    return Term("compressors", sum(p for p, _ in parts), sum(b for _, b in parts))


def indexer(s: Shape) -> Term:
    """The lightning indexer of each ratio-4 layer: FP8 ``wq_b`` and bf16 ``weights_proj``, replicated."""
    q_out = s.index_heads * s.index_head_dim
    per_layer = fp8_linear(q_out, s.q_lora, scale_bytes(s)) + s.hidden * s.index_heads * BF16
    layers = s.ratios.count(4)
    return Term("indexer", layers * (q_out * s.q_lora + s.hidden * s.index_heads), layers * per_layer)


def router(s: Shape) -> Term:
    """The bf16 gate of every layer, an fp32 score bias on the others and an int32 token-to-expert table
    of ``vocab x top_k`` on the first ``num_hash_layers``; replicated."""
    layers, hashed = len(s.ratios), s.hash_layers
    gates = layers * s.hidden * s.experts
    bias, table = (layers - hashed) * s.experts, hashed * s.vocab * s.top_k
    return Term("router", gates + bias + table, gates * BF16 + bias * FP32 + table * INT32)


def shared_experts(s: Shape, tp: int) -> Term:
    """FP8 shared expert of every layer: gate/up column-split, down row-split, width in whole blocks."""
    width = s.expert_width * s.shared
    local = cdiv(width // FP8_BLOCK, tp).item() * FP8_BLOCK
    sb = scale_bytes(s)
    per_layer = fp8_linear(2 * local, s.hidden, sb) + fp8_linear(s.hidden, local, sb)
    return Term("shared_experts", len(s.ratios) * 3 * width * s.hidden, len(s.ratios) * per_layer, True)


def expert_width(s: Shape, tp: int) -> tuple[int, int]:
    """(hidden, width) of each rank's expert slice, padded as the strictest CUDA MXFP4 backend pads."""
    return (
        cdiv(s.hidden, EXPERT_ALIGN["hidden"]).item() * EXPERT_ALIGN["hidden"],
        cdiv(s.expert_width // tp, EXPERT_ALIGN["width"]).item() * EXPERT_ALIGN["width"],
    )


def experts(s: Shape, tp: int) -> Term:
    """MXFP4 routed experts of every layer: ``w13`` (2 x width by hidden) and ``w2`` (hidden by width)
    with their scales, each rank a 1/tp slice of the width (FP8 block-scaled when ``expert_dtype`` is fp8)."""
    hidden, width = expert_width(s, tp)
    if s.fp4_experts:
        per_expert = mxfp4(2 * width, hidden) + mxfp4(hidden, width)
    else:
        per_expert = fp8_linear(2 * width, hidden, FP32) + fp8_linear(hidden, width, FP32)
    params = len(s.ratios) * s.experts * 3 * s.expert_width * s.hidden
    return Term("experts", params, len(s.ratios) * s.experts * per_expert, True)


def tp_problem(s: Shape, tp: int) -> str | None:
    """Why tensor parallelism ``tp`` is outside what is modelled (None when it is not): it must divide the
    heads, ``o_groups`` and the expert width, and each rank's slices must need no padding (whole FP8 blocks
    of the shared expert, MXFP4 expert slices the backends take as they are), so that every split term
    holds exactly 1/tp of its bytes on each rank."""
    if s.heads % tp or s.o_groups % tp or s.expert_width % tp:
        return f"tensor parallel {tp} does not divide the heads, o_groups or expert width"
    padded = expert_width(s, tp) != (s.hidden, s.expert_width // tp)
    if padded or (s.expert_width * s.shared // FP8_BLOCK) % tp:
        return f"tensor parallel {tp} pads the experts' slices, which is not modelled"
    return None


def terms(s: Shape, tp: int) -> list[Term]:
    """Every checkpoint tensor group vLLM loads onto one GPU at tensor parallelism ``tp``."""
    problem = tp_problem(s, tp)
    if problem:
        raise ValueError(problem)
    return [
        *embeddings(s, tp),
        *attention(s, tp),
        indexer(s),
        compressors(s),
        router(s),
        shared_experts(s, tp),
        experts(s, tp),
        hyper_connections(s),
        norms(s),
    ]


def total_params(s: Shape) -> int:
    """Weights of the checkpoint vLLM loads (MTP layer excluded), scales not counted."""
    return sum(t.params for t in terms(s, 1))


def weight_bytes(s: Shape, tp: int) -> int:
    """Bytes of weights and scales one GPU holds at tensor parallelism ``tp``."""
    return sum(t.gpu_bytes for t in terms(s, tp))


def rope_bytes(s: Shape) -> int:
    """Bytes of the fp32 RoPE ``cos_sin_cache`` tables every GPU holds: one for the sliding-only layers and
    one for the compressed layers, each where such layers exist."""
    sliding, compressed = s.rope_positions
    positions = sliding * (0 in s.ratios) + compressed * any(s.ratios)
    return positions * s.rope_dim * FP32


def topk_bytes_per_token(s: Shape) -> int:
    """Bytes of the int32 ``topk_indices_buffer`` per batched token (``index_topk`` indices), every GPU."""
    return s.index_topk * INT32


def buffer_bytes(s: Shape, max_num_batched_tokens: int) -> int:
    """Bytes built with the model besides weights, on every GPU: the RoPE tables and the top-k indices."""
    return rope_bytes(s) + max_num_batched_tokens * topk_bytes_per_token(s)
