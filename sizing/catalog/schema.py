"""Typed models of the catalog. Unknown keys, wrong types and impossible values are rejected.

Units are in the field names: ``*_mib`` (2^20 bytes, as nvidia-smi prints), ``*_gb`` (decimal,
vendors' nominal sizes), ``*_gbs`` (decimal GB/s), ``*_b`` (billions of parameters).
"""

from __future__ import annotations

import math
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictBool, model_validator
from pydantic.dataclasses import dataclass as pydantic_dataclass

from sizing.catalog.settings import Settings, SpecConfig
from sizing.kvdtypes import CatalogKvDtype

Text = Annotated[str, Field(min_length=1, max_length=500)]
PrimarySource = Annotated[
    str,
    Field(
        pattern=r"^https://[^\s;]+$",
        max_length=300,
        description="one URL of the primary source: the vendor's datasheet or product page, the model's "
        "card or its repository's config.json",
    ),
]
Slug = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9.\-]*$", max_length=80)]
PosInt = Annotated[int, Field(gt=0, le=10**12), Field(strict=True)]
NonNegInt = Annotated[int, Field(ge=0, le=10**12), Field(strict=True)]


def _finite(value: float) -> float:
    if not math.isfinite(value):
        raise ValueError(f"must be a finite number, got {value}")
    return value


PosFloat = Annotated[float, Field(gt=0, le=1e12), AfterValidator(_finite)]
Fraction = Annotated[float, Field(gt=0, le=1), AfterValidator(_finite)]


class FieldProblem(ValueError):
    """A cross-field check that failed, naming the field at fault (model-level errors have no location)."""

    def __init__(self, field: str, problem: str) -> None:
        self.field, self.problem = field, problem
        super().__init__(f"{field}: {problem}")


class Strict(BaseModel):
    """Base: unknown keys are errors, values are not coerced across types."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class Interconnect(Strict):
    kind: Literal["nvlink", "pcie", "xgmi"] = Field(description="xgmi: AMD Infinity Fabric (Instinct)")
    generation: Text
    bandwidth_gbs: PosFloat = Field(description="per direction, per GPU, decimal GB/s")


class DenseTflops(Strict):
    """Dense peak tensor throughput of one GPU, TFLOP/s (10^12 FLOP/s, no structured sparsity).

    ``None`` where the GPU has no tensor path for that dtype (A100: no FP8) or no primary source gives it;
    the throughput estimate then refuses the case by name instead of guessing.
    """

    bf16: PosFloat | None = None
    fp8: PosFloat | None = None
    fp4: PosFloat | None = None
    source: Text


class Gpu(Strict):
    name: Text
    architecture: Text
    memory_gb: PosFloat = Field(description="vendor's nominal capacity, decimal GB")
    memory_mib: PosInt = Field(description="total memory as nvidia-smi (AMD: rocm-smi) reports it, MiB")
    bandwidth_gbs: PosFloat
    fp8: StrictBool
    fp4: StrictBool
    interconnect: Interconnect
    primary_source: PrimarySource | None = None
    source: Text
    tflops_dense: DenseTflops | None = Field(
        None, description="dense peak TFLOP/s per dtype (throughput estimate)"
    )


class Cpu(Strict):
    model: Text
    cores: PosInt


class Nvme(Strict):
    drives: PosInt
    drive_tb: PosFloat
    pcie_gen: PosInt
    read_gbs: PosFloat = Field(description="sustained sequential read per node, decimal GB/s")


class Price(Strict):
    monthly: PosFloat
    currency: Annotated[str, Field(pattern=r"^[A-Z]{3}$")]


class Server(Strict):
    name: Text
    kind: Literal["offer", "reference"]
    gpu: Slug
    gpus_per_node: PosInt
    nodes: PosInt = 1
    cpu: Cpu | None = None
    ram_gb: PosFloat | None = None
    nvme: Nvme | None = None
    network_gbps: PosFloat | None = None
    price: Price | None = None
    locations: list[Text] = []
    notes: Text | None = None


class Mla(Strict):
    kv_lora_rank: PosInt
    qk_rope_head_dim: PosInt
    qk_nope_head_dim: PosInt
    v_head_dim: PosInt
    q_lora_rank: PosInt | None = None
    index_head_dim: PosInt | None = Field(
        None,
        description="sparse MLA (DeepSeek-V3.2): the lightning indexer's key size; its K cache is per layer",
    )
    index_topk: PosInt | None = Field(None, description="sparse MLA: tokens each query attends to")


class SlidingWindow(Strict):
    window: PosInt
    layers: PosInt = Field(description="how many layers use the window; the rest are full attention")


class CompressedAttention(Strict):
    """DeepSeek-V4's attention and residual layout (``model_type`` deepseek_v4): per-layer KV compression
    (0: sliding window only, 4: compressed with a lightning indexer, 128: heavily compressed), grouped
    low-rank output, hyper-connections and hash-routed MoE layers. Sized by ``engine/dsv4_weights.py``
    and ``engine/dsv4_kv.py``; ``head_dim`` is the compressed KV row (NoPE + RoPE)."""

    compress_ratios: Annotated[list[Literal[0, 4, 128]], Field(min_length=1)] = Field(
        description="config.json compress_ratios, one per decoder layer (the MTP layer's cut off)"
    )
    window: PosInt = Field(description="sliding_window: every layer keeps its last tokens uncompressed")
    rope_dim: PosInt = Field(description="qk_rope_head_dim")
    compressed_rope_positions: PosInt = Field(
        description="the compressed layers' RoPE table: rope_scaling original length x factor"
    )
    q_lora_rank: PosInt
    o_lora_rank: PosInt
    o_groups: PosInt
    index_heads: PosInt
    index_head_dim: PosInt
    index_topk: PosInt
    hc_mult: PosInt = Field(description="hyper-connection residual streams")
    hash_layers: NonNegInt = Field(description="num_hash_layers: the first MoE layers route by token id")
    fp4_experts: StrictBool = Field(description="expert_dtype fp4: MXFP4 routed experts, UE8M0 FP8 scales")


class GlobalAttention(Strict):
    """The full-attention layers' KV geometry where it differs from the sliding layers' (Gemma 4)."""

    kv_heads: PosInt
    head_dim: PosInt
    k_eq_v: StrictBool = Field(
        False,
        description="keys double as values: the checkpoint has no v_proj weights "
        "(vLLM still allocates the value slots and loads the keys into them; the cache holds both)",
    )


class KvSharing(Strict):
    """Trailing layers that reuse an earlier layer's KV (``num_kv_shared_layers``): they own no cache."""

    layers: PosInt
    sliding_layers: NonNegInt = Field(
        0, description="how many of the sharing layers are sliding-window layers"
    )


class VisionTower(Strict):
    """A ViT-style vision encoder and its projector, read from ``vision_config`` (weights stay BF16)."""

    layers: PosInt
    hidden_size: PosInt
    intermediate_size: PosInt
    patch_size: PosInt
    out_hidden_size: PosInt = Field(description="the text model's hidden size the projector maps to")
    merge_size: PosInt = Field(1, description="spatial merge: one output token per merge_size^2 patches")
    pooling_size: PosInt = Field(
        1,
        description="patches pooled per side into one token after the encoder (Gemma 4 pooling_kernel_size)",
    )
    mergers: PosInt = Field(1, description="projectors (Qwen3-VL: one plus one per deepstack layer)")
    gated_mlp: StrictBool = False
    max_tokens_per_item: PosInt = Field(
        description="encoder output tokens of the largest image vLLM profiles with"
    )


class LinearAttention(Strict):
    """Layers with a fixed-size recurrent state instead of a KV cache, in one shared geometry.

    vLLM's three state shapes (``MambaStateShapeCalculator``) have one form: a convolution over
    ``2 x key heads x key dim + value heads x value dim`` channels and a ``value heads x value dim x
    key dim`` temporal state. Gated DeltaNet fills the fields as named; KDA has as many key as value
    heads of one size (``linear_attn_config.num_heads``, ``head_dim``); Mamba-2 maps its ``n_groups``
    to key heads, ``ssm_state_size`` to the key dim, and its heads and head dim to the value side.
    """

    kind: Literal["gated_delta_net", "kda", "mamba2"]
    layers: PosInt
    num_key_heads: PosInt = Field(description="GDN/KDA key heads; Mamba-2: n_groups")
    num_value_heads: PosInt = Field(description="GDN/KDA value heads; Mamba-2: heads")
    key_head_dim: PosInt = Field(description="GDN/KDA key head size; Mamba-2: ssm_state_size")
    value_head_dim: PosInt = Field(description="GDN/KDA value head size; Mamba-2: head_dim")
    conv_kernel: PosInt
    ssm_dtype_bytes: PosInt = Field(
        2,
        description="bytes per value of the recurrent (temporal) state: 4 when it is "
        "float32 (config mamba_ssm_dtype / mamba_ssm_cache_dtype; KDA "
        "always)",
    )


class Moe(Strict):
    experts: PosInt
    experts_per_token: PosInt
    expert_intermediate_size: PosInt
    shared_experts: NonNegInt = 0
    shared_intermediate_size: NonNegInt = 0
    dense_layers: NonNegInt = Field(
        0,
        description="MLP-carrying layers with a dense MLP instead of the MoE "
        "(first_k_dense_replace, interleave_moe_layer_step, ...)",
    )
    latent_size: PosInt | None = Field(
        None,
        description="latent MoE (Nemotron-H moe_latent_size): routed "
        "experts work in this width between two projections",
    )


Precision = Slug
KeepPart = Literal["embeddings", "lm_head", "attention", "router", "shared_experts", "dense_mlp", "mtp"]


class DraftHead(Strict):
    """A published EAGLE-3 draft head for the model (``--speculative-config '{"method": "eagle3", "model":
    id}'``).

    vLLM's EAGLE-3 head is one decoder layer over the target's geometry, a ``3 x hidden -> hidden`` fusion of
    three target layers' states and its own LM head over ``draft_vocab_size`` tokens (source:
    ``vllm/model_executor/models/llama_eagle3.py``); its embedding is shared with the target. Its attention
    geometry (heads, KV heads, head size) is the target's, so its layer joins the target's KV-cache groups.
    """

    id: Annotated[str, Field(pattern=r"^[A-Za-z0-9][\w.\-]*/[\w.\-]+$", max_length=120)]
    draft_vocab_size: PosInt
    intermediate_size: PosInt
    source: Text


class Checkpoint(Strict):
    id: Annotated[str, Field(pattern=r"^[A-Za-z0-9][\w.\-]*/[\w.\-]+$", max_length=120)]
    precision: Precision
    keeps_bf16: list[KeepPart] = Field(default_factory=list)
    keeps_fp8: list[KeepPart] = Field(
        default_factory=list, description="parts a modelopt MIXED_PRECISION checkpoint stores in FP8"
    )
    file_gb: PosFloat | None = Field(None, description="published size on the Hub, decimal GB")


class Model(Strict):
    name: Text
    family: Text
    architecture: Text
    total_params_b: PosFloat = Field(description="the model card's total parameters, billions")
    active_params_b: PosFloat | None = None
    layers: PosInt
    hidden_size: PosInt
    intermediate_size: PosInt
    attention_heads: PosInt
    kv_heads: PosInt
    head_dim: PosInt
    vocab_size: PosInt
    tie_embeddings: StrictBool
    max_context: PosInt
    rotary_dim: NonNegInt | None = Field(
        None,
        description="rotary dimensions per head where RoPE covers part of it "
        "(head_dim x partial_rotary_factor; 0: no RoPE); default: head_dim "
        "(MLA: qk_rope_head_dim)",
    )
    attention_bias: StrictBool = False
    mla: Mla | None = None
    sliding_window: SlidingWindow | None = None
    linear_attention: LinearAttention | None = None
    global_attention: GlobalAttention | None = None
    compressed_attention: CompressedAttention | None = None
    kv_sharing: KvSharing | None = None
    vision: VisionTower | None = None
    moe: Moe | None = None
    mtp_layers: NonNegInt = Field(
        0,
        description="MTP (next-n) layers the checkpoint ships: config.json "
        "num_nextn_predict_layers or mtp_num_hidden_layers",
    )
    attention_output_gate: StrictBool = Field(
        False,
        description="attn_output_gate: q_proj also yields a gate (Qwen3-Next/3.5/3.6), doubling its outputs",
    )
    eagle3: DraftHead | None = None
    mlp_only_layers: NonNegInt = Field(
        0,
        description="blocks holding only an MLP or MoE, no attention or state (Nemotron-H's '-' and 'E'); "
        "when set, the other blocks hold no MLP",
    )
    gated_mlp: StrictBool = Field(
        True, description="gate, up and down projections; False: up and down only (ReLU^2)"
    )
    checkpoints: Annotated[list[Checkpoint], Field(min_length=1)]
    primary_source: PrimarySource | None = None
    source: Text
    notes: Text | None = None

    @model_validator(mode="after")
    def _one_ratio_per_layer(self) -> "Model":
        ca = self.compressed_attention
        if ca and len(ca.compress_ratios) != self.layers:
            raise FieldProblem(
                "compressed_attention.compress_ratios",
                f"must list one ratio per layer ({self.layers}), got {len(ca.compress_ratios)}",
            )
        return self

    @model_validator(mode="after")
    def _layers_add_up(self) -> "Model":
        special = (
            sum(x.layers for x in (self.sliding_window, self.linear_attention) if x) + self.mlp_only_layers
        )
        if special >= self.layers:
            field = "linear_attention.layers" if self.linear_attention else "sliding_window.layers"
            raise FieldProblem(
                field,
                f"sliding-window, linear-attention and MLP-only layers ({special}) must leave at least "
                f"one full-attention layer of {self.layers}",
            )
        shared = self.kv_sharing
        if shared and (
            shared.sliding_layers > (self.sliding_window.layers if self.sliding_window else 0)
            or shared.layers - shared.sliding_layers >= self.layers - special
        ):
            raise FieldProblem(
                "kv_sharing",
                "sharing layers must leave at least one full-attention layer with its "
                "own cache and at most the sliding layers there are",
            )
        if self.moe and self.moe.dense_layers > self.layers:
            raise FieldProblem(
                "moe.dense_layers", f"must be at most layers ({self.layers}), got {self.moe.dense_layers}"
            )
        return self


class PrecisionSpec(Strict):
    name: Text
    weight_bits: PosFloat
    group_size: PosInt | None = None
    scale_bits: NonNegInt = 0
    zero_bits: NonNegInt = 0
    needs_hw: Literal["fp8", "fp4"] | None = None
    min_sm: PosInt | None = Field(
        None, description="lowest compute capability x 10 vLLM runs it on (75 = sm_75)"
    )
    vllm_quantization: Text | None = Field(None, description="--quantization value for online quantization")
    online_from: Precision | None = None

    @property
    def bytes_per_param(self) -> float:
        """Bytes per quantised parameter, group scales and zero points included."""
        per_group = (self.scale_bits + self.zero_bits) / self.group_size if self.group_size else 0.0
        return (self.weight_bits + per_group) / 8


class Assumption(Strict):
    value: StrictBool | int | float | str | list[int] | list[float] | list[str] | list[list[int]]
    reason: Text


EXAMPLE_CONFIG = ConfigDict(extra="forbid", validate_by_name=True)
"""Unknown keys are errors; the types are strict field by field (a pydantic dataclass read from a mapping
cannot be strict as a whole)."""


@pydantic_dataclass(frozen=True, config=EXAMPLE_CONFIG)
class Speculative(SpecConfig):
    """An example's ``--speculative-config``: vLLM's method and draft tokens per step (no draft model)."""

    method: Literal["mtp", "eagle3", "ngram"]
    num_speculative_tokens: PosInt
    model: None = None


@pydantic_dataclass(frozen=True, kw_only=True, config=EXAMPLE_CONFIG)
class Example(Settings):
    """A worked example: the :class:`Settings` it is estimated with, naming its catalog model, checkpoint,
    server, KV dtype and length; any other flag of ``estimate`` may be given too. ``speculative`` is the
    catalog's key for ``speculative_config``."""

    model: Text = Field()
    checkpoint: Text = Field()
    server: Slug = Field()
    kv_cache_dtype: CatalogKvDtype = Field()
    max_model_len: PosInt = Field()
    tensor_parallel_size: PosInt = 1
    pipeline_parallel_size: PosInt = 1
    data_parallel_size: PosInt = 1
    speculative_config: Speculative | None = Field(None, validation_alias="speculative")
