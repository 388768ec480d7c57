"""Parameter counts from the architecture, and checkpoint bytes by how vLLM places them.

vLLM shards embeddings, the LM head and every column/row-parallel linear layer across TP ranks;
it replicates norms, MoE routers and MLA's low-rank down-projections (``q_a_proj``,
``kv_a_proj_with_mqa``). Pipeline stages hold their own layers only. All results are in
parameters or bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sizing.catalog.schema import Checkpoint, LinearAttention, Model, PrecisionSpec
from sizing.engine import dsv4_weights as d4
from sizing.engine.layer_kinds import global_attention_delta, value_slot_params
from sizing.engine.towers import vision_params
from sizing.engine.versions import MXFP4_HOPPER_TRITON_MINOR
from sizing.units import MiB

BF16_BYTES = 2


@dataclass(frozen=True)
class Part:
    """One group of parameters: its count over the whole model and how vLLM places it."""

    name: str
    params: int
    sharded: bool
    per_layer: bool
    quantisable: bool = True
    in_checkpoint: bool = True
    """False for memory vLLM allocates and fills at load time that the checkpoint's files do not hold."""


def attention_params(m: Model) -> tuple[int, int]:
    """(sharded, replicated) attention parameters of ONE full-attention layer."""
    if m.mla:
        a = m.mla
        q_dim = m.attention_heads * (a.qk_nope_head_dim + a.qk_rope_head_dim)
        q_sharded = a.q_lora_rank * q_dim if a.q_lora_rank else m.hidden_size * q_dim
        q_repl = m.hidden_size * a.q_lora_rank if a.q_lora_rank else 0
        kv_b = a.kv_lora_rank * m.attention_heads * (a.qk_nope_head_dim + a.v_head_dim)
        out = m.attention_heads * a.v_head_dim * m.hidden_size
        return q_sharded + kv_b + out, q_repl + m.hidden_size * (a.kv_lora_rank + a.qk_rope_head_dim)
    q_out = m.attention_heads * m.head_dim
    kv_out = 2 * m.kv_heads * m.head_dim
    gate = q_out if m.attention_output_gate else 0  # q_proj also yields the output gate
    return m.hidden_size * (2 * q_out + gate + kv_out), 0


def gdn_params(hidden: int, la: LinearAttention) -> int:
    """Gated DeltaNet: fused qkvz and ba input projections, the q/k/v convolution, the output projection."""
    key_dim, value_dim = la.num_key_heads * la.key_head_dim, la.num_value_heads * la.value_head_dim
    in_proj = hidden * (2 * key_dim + 2 * value_dim + 2 * la.num_value_heads)
    return in_proj + (2 * key_dim + value_dim) * la.conv_kernel + value_dim * hidden


def kda_params(hidden: int, la: LinearAttention) -> int:
    """Kimi Delta Attention (``vllm/model_executor/layers/kda.py``; the tensors of Kimi-Linear's checkpoint):
    q/k/v projections and their short convolutions, low-rank forget (f_a, f_b) and output gates
    (g_a, g_b) of rank ``head_dim``, the beta projection, A_log, dt_bias, the output norm and projection."""
    proj, rank = la.num_value_heads * la.value_head_dim, la.value_head_dim
    projections = hidden * (3 * proj + la.num_value_heads) + 2 * (hidden * rank + rank * proj) + proj * hidden
    return projections + 3 * proj * la.conv_kernel + la.num_value_heads + proj + rank


def mamba2_params(hidden: int, la: LinearAttention) -> int:
    """Mamba-2 mixer (``vllm/model_executor/layers/mamba/mamba_mixer2.py``): in_proj to z, x, B, C and dt,
    the biased depthwise conv over x, B and C, A, D and dt_bias per head, the gated norm, out_proj."""
    inner = la.num_value_heads * la.value_head_dim
    conv_dim = inner + 2 * la.num_key_heads * la.key_head_dim
    in_proj = hidden * (inner + conv_dim + la.num_value_heads)
    return in_proj + conv_dim * (la.conv_kernel + 1) + 3 * la.num_value_heads + inner + inner * hidden


LINEAR_PARAMS = {"gated_delta_net": gdn_params, "kda": kda_params, "mamba2": mamba2_params}


def linear_attention_params(m: Model) -> int:
    """Parameters of ONE linear-attention layer of ``m``'s kind, all counted as TP-sharded (0 without)."""
    la = m.linear_attention
    return LINEAR_PARAMS[la.kind](m.hidden_size, la) if la else 0


def mlp_layers(m: Model) -> int:
    """Layers carrying an MLP or MoE block: all of them, or Nemotron-H's MLP-only blocks."""
    return m.mlp_only_layers or m.layers


def mlp_parts(m: Model) -> list[Part]:
    """Dense MLP, routed experts, shared experts, router and latent projections, summed over all layers.

    Latent MoE (Nemotron-H ``moe_latent_size``): the routed experts run in the latent width, between
    ``fc1_latent_proj`` (hidden -> latent) and ``fc2_latent_proj`` (latent -> hidden), two
    ``ReplicatedLinear`` layers every rank holds whole, quantized like the rest; the shared expert
    and the router stay in the hidden width (``vllm-project/vllm:vllm/model_executor/models/
    nemotron_h.py`` ``NemotronHMoE.__init__``: ``SharedFusedMoE(hidden_size=self.moe_hidden_size, …,
    routed_input_transform=self.fc1_latent_proj)``).
    """
    matrices = 3 if m.gated_mlp else 2
    gated = matrices * m.hidden_size
    if m.moe is None:
        return [Part("dense_mlp", gated * m.intermediate_size * mlp_layers(m), True, True)]
    e, moe_layers = m.moe, mlp_layers(m) - m.moe.dense_layers
    routed = matrices * (e.latent_size or m.hidden_size) * e.expert_intermediate_size
    return [
        Part("dense_mlp", gated * m.intermediate_size * e.dense_layers, True, True),
        Part("experts", routed * e.experts * moe_layers, True, True),
        Part(
            "shared_experts", gated * e.shared_intermediate_size * e.shared_experts * moe_layers, True, True
        ),
        Part("router", m.hidden_size * e.experts * moe_layers, False, True),
        Part("latent_projections", 2 * m.hidden_size * (e.latent_size or 0) * moe_layers, False, True),
    ]


def attention_parts(m: Model) -> list[Part]:
    """Attention (or linear attention) projections over all layers."""
    linear_layers = m.linear_attention.layers if m.linear_attention else 0
    sharded, replicated = attention_params(m)
    full_layers = m.layers - linear_layers - m.mlp_only_layers
    return [
        Part(
            "attention",
            sharded * full_layers + linear_attention_params(m) * linear_layers + global_attention_delta(m),
            True,
            True,
        ),
        Part("attention_replicated", replicated * full_layers, False, True),
        Part("attention_value_slots", value_slot_params(m), True, True, in_checkpoint=False),
    ]


def dsv4_parts(m: Model) -> list[tuple[Part, float]]:
    """DeepSeek-V4's tensor groups with their bytes at TP 1 (:mod:`sizing.engine.dsv4_weights`, which
    types each tensor itself: FP8 with scales, MXFP4 experts, bf16 and fp32 parts), placed by name."""
    return [
        (Part(t.name, t.params, t.sharded, t.name not in ("embeddings", "lm_head")), float(t.gpu_bytes))
        for t in d4.terms(d4.shape_of(m), 1)
    ]


def model_parts(m: Model) -> list[Part]:
    """Every parameter group of ``m``; their sum is the model's parameter count."""
    if m.compressed_attention:
        return [part for part, _ in dsv4_parts(m)]
    embed = m.vocab_size * m.hidden_size
    norms = ((m.layers if m.mlp_only_layers else 2 * m.layers) + 1) * m.hidden_size
    return [
        Part("embeddings", embed, True, False),
        Part("lm_head", 0 if m.tie_embeddings else embed, True, False),
        *attention_parts(m),
        *mlp_parts(m),
        Part("norms", norms, False, True, quantisable=False),
        Part("vision_tower", vision_params(m.vision) if m.vision else 0, True, True, quantisable=False),
    ]


def total_params(m: Model) -> int:
    """Parameter count derived from the architecture (the model card's figure is ``total_params_b``)."""
    return sum(part.params for part in model_parts(m) if part.in_checkpoint)


def rope_cache_bytes(m: Model) -> int:
    """Bytes of the RoPE ``cos_sin_cache`` buffers every rank holds, in the model dtype (bf16).

    Source: ``vllm-project/vllm@v0.20.0:vllm/model_executor/layers/rotary_embedding/base.py``
    ``RotaryEmbedding.__init__`` registers ``cos_sin_cache`` of ``[max_position, rotary_dim]`` (cos and
    sin halves side by side) cast to the model dtype; ``get_rope`` in ``rotary_embedding/__init__.py``
    shares one instance per distinct shape, so a model has one cache, two with Gemma 4's own global
    geometry (its proportional RoPE sets ``rotary_dim`` to the full head, ``gemma4_rope.py``). The
    buffer is created while the model is built, so "Model loading took" counts it on every rank.
    ``rotary_dim`` defaults to ``head_dim`` (MLA: ``qk_rope_head_dim``); an entry sets it where RoPE
    covers part of the head, 0 for a model without RoPE.
    """
    if m.compressed_attention:
        return d4.rope_bytes(d4.shape_of(m))  # fp32, two tables (dsv4_weights.rope_bytes)
    dim = m.rotary_dim if m.rotary_dim is not None else (m.mla.qk_rope_head_dim if m.mla else m.head_dim)
    extra = m.global_attention.head_dim if m.global_attention and not m.mla else 0
    return m.max_context * (dim + extra) * BF16_BYTES


def _family(part: str) -> str:
    """The checkpoint-list name of a part (``attention_replicated`` belongs to ``attention``)."""
    return "attention" if part.startswith("attention") else part


def _keeps(ckpt: Checkpoint, part: str) -> bool:
    return _family(part) in ckpt.keeps_bf16


MXFP4_MARLIN, MXFP4_TRITON, MXFP4_FLASHINFER = (128, 256), (256, 1), (256, 256)
"""(intermediate-per-rank, hidden) alignments of vLLM's MXFP4 MoE backends.

Source: ``vllm/model_executor/layers/quantization/mxfp4.py`` ``Mxfp4MoEMethod.create_weights``:
Marlin (Ampere/Ada, and Hopper up to 0.11) rounds the per-partition intermediate size to 128 and
the hidden size to 256; FlashInfer TRT-LLM on Blackwell rounds both to 256; the Triton-kernels
path on Hopper from 0.12 (:data:`sizing.engine.versions.MXFP4_HOPPER_TRITON_MINOR`) pads the
per-partition intermediate size only (to 256 in the 0.14 log ``gpt-oss-120b-h100-tp1-weights-v0141``,
whose 64.38 GiB the Marlin shape would overshoot).
"""


def mxfp4_alignment(arch_sm: np.ndarray, minor: int) -> tuple[np.ndarray, np.ndarray]:
    """(intermediate, hidden) alignment of the MXFP4 MoE backend vLLM picks on each GPU row."""
    sm = np.asarray(arch_sm)
    hopper_triton = (sm >= 90) & (sm < 100) & (minor >= MXFP4_HOPPER_TRITON_MINOR)
    picks = [
        np.where(sm >= 100, fi, np.where(hopper_triton, tr, ma))
        for fi, tr, ma in zip(MXFP4_FLASHINFER, MXFP4_TRITON, MXFP4_MARLIN)
    ]
    return picks[0], picks[1]


def padded_expert_factor(
    inter: np.ndarray, hidden: np.ndarray, split: np.ndarray, align_i: np.ndarray, align_h: np.ndarray
) -> np.ndarray:
    """Growth of each rank's routed-expert bytes when vLLM pads ``inter / split`` and ``hidden``.

    ``split`` is the tensor-parallel size (1 with expert parallelism, where each rank holds whole
    experts). Every expert matrix is ``intermediate × hidden``, so the factor is the padded area
    over the real one.
    """
    part = np.asarray(inter, dtype=np.float64) / np.asarray(split)
    h = np.asarray(hidden, dtype=np.float64)
    padded = np.ceil(part / align_i) * align_i * (np.ceil(h / align_h) * align_h)
    return np.where(part > 0, padded / np.maximum(part * h, 1), 1.0)


ROCM_MOE_PAD_BYTES = 256
"""Bytes vLLM's ROCm build adds to every row of an unquantized fused-MoE weight
(``VLLM_ROCM_MOE_PADDING``)."""
ROCM_MOE_ROW_ALIGN = 512
"""A row is padded only when its length in bytes is a multiple of this."""


def rocm_moe_padding(
    matrices: np.ndarray, in_dim: np.ndarray, inter_part: np.ndarray, dtype_bytes: int = BF16_BYTES
) -> np.ndarray:
    """Growth of each rank's routed-expert bytes under ROCm's MoE stride padding (0 where nothing is padded).

    Source: ``vllm-project/vllm:vllm/envs.py`` ``VLLM_ROCM_MOE_PADDING`` (default on) and
    ``vllm/model_executor/layers/fused_moe/layer.py`` ``UnquantizedFusedMoEMethod._maybe_pad_weight``
    (from 0.13 in ``unquantized_fused_moe_method.py``), called on ``w13_weight`` ``[E, matrices-1 ×
    inter_part, in_dim]`` and ``w2_weight`` ``[E, hidden, inter_part]`` after loading: on ROCm, when a row
    is ``ROCM_MOE_ROW_ALIGN``-byte aligned, ``F.pad(weight, (0, 256 // element_size))[..., :-num_pad]``
    copies the tensor into one ``ROCM_MOE_PAD_BYTES`` wider per row and keeps a view, so the weight
    grows by ``256 / row bytes``. ``matrices`` is 3 for a gated MLP (w13 holds two of them), 2 otherwise.
    """
    share13 = (np.asarray(matrices) - 1) / np.maximum(np.asarray(matrices), 1)
    rows = {"w13": np.asarray(in_dim) * dtype_bytes, "w2": np.asarray(inter_part) * dtype_bytes}
    grow = {
        k: np.where((v > 0) & (v % ROCM_MOE_ROW_ALIGN == 0), ROCM_MOE_PAD_BYTES / np.maximum(v, 1), 0.0)
        for k, v in rows.items()
    }
    return share13 * grow["w13"] + (1 - share13) * grow["w2"]


FP8_BYTES = 1.0
"""Bytes per weight of the FP8 parts of a modelopt MIXED_PRECISION checkpoint: E4M3 with one FP32
scale per tensor (``modelopt.py`` ``ModelOptFp8LinearMethod.create_weights``), negligible."""


def part_bytes(part: Part, ckpt: Checkpoint, spec: PrecisionSpec, m: Model) -> float:
    """Bytes of ``part`` of model ``m`` in checkpoint ``ckpt`` (precision ``spec``), all layers, all ranks."""
    if not part.quantisable or _keeps(ckpt, part.name):
        return part.params * BF16_BYTES
    if _family(part.name) in ckpt.keeps_fp8:
        return part.params * FP8_BYTES
    return part.params * spec.bytes_per_param


@dataclass(frozen=True)
class WeightSplit:
    """Checkpoint bytes grouped by placement (whole model, before TP/PP division)."""

    layer_sharded: float
    layer_replicated: float
    embeddings: float
    lm_head: float

    @property
    def total(self) -> float:
        """All weight bytes of the checkpoint."""
        return self.layer_sharded + self.layer_replicated + self.embeddings + self.lm_head


def part_sizes(m: Model, ckpt: Checkpoint, spec: PrecisionSpec) -> list[tuple[Part, float]]:
    """Every parameter group of ``m`` (:func:`model_parts`) with its bytes in ``ckpt``
    (:func:`part_bytes`); DeepSeek-V4's from :func:`dsv4_parts` (its one checkpoint format)."""
    if m.compressed_attention:
        return dsv4_parts(m)
    return [(part, part_bytes(part, ckpt, spec, m)) for part in model_parts(m)]


def split_of(sized: list[tuple[Part, float]]) -> WeightSplit:
    """The :class:`WeightSplit` of parameter groups already sized (:func:`part_sizes`)."""
    sums = {"layer_sharded": 0.0, "layer_replicated": 0.0, "embeddings": 0.0, "lm_head": 0.0}
    for part, size in sized:
        key = part.name if not part.per_layer else ("layer_sharded" if part.sharded else "layer_replicated")
        sums[key] += size
    return WeightSplit(**sums)


def weight_split(m: Model, ckpt: Checkpoint, spec: PrecisionSpec) -> WeightSplit:
    """Bytes of ``ckpt`` split into TP-sharded layers, replicated layers, embeddings and LM head."""
    return split_of(part_sizes(m, ckpt, spec))


SPLIT_LIMIT_BYTES = 20 * MiB
SEGMENT_BYTES = 2 * MiB


def split_rounding(tensor_bytes: np.ndarray) -> np.ndarray:
    """Bytes the caching allocator counts beyond one weight tensor of ``tensor_bytes`` (0 below 20 MiB).

    Source: ``vllm/v1/worker/gpu_worker.py`` ``Worker.load_model`` (0.21+) loads inside
    ``_scoped_allocator_max_split(max_split_size_mb=20)``; in PyTorch's ``CUDACachingAllocator.cpp`` a
    request of at least ``max_split_size`` is never split (``should_split``), its segment is rounded up
    to 2 MiB (``get_allocation_size``), and ``allocated_bytes``, which "Model loading took" reports
    (``DeviceMemoryProfiler``), counts the whole block.
    """
    size = np.asarray(tensor_bytes, dtype=np.float64)
    return np.where(size >= SPLIT_LIMIT_BYTES, np.ceil(size / SEGMENT_BYTES) * SEGMENT_BYTES - size, 0.0)
