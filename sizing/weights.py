"""Parameter counts from the architecture, and checkpoint bytes by how vLLM places them.

vLLM shards embeddings, the LM head and every column/row-parallel linear layer across TP ranks;
it replicates norms, MoE routers and MLA's low-rank down-projections (``q_a_proj``,
``kv_a_proj_with_mqa``). Pipeline stages hold their own layers only. All results are in
parameters or bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

from sizing.layer_kinds import global_attention_delta
from sizing.schema import Checkpoint, Model, PrecisionSpec
from sizing.towers import vision_params

BF16_BYTES = 2


@dataclass(frozen=True)
class Part:
    """One group of parameters: its count over the whole model and how vLLM places it."""

    name: str
    params: int
    sharded: bool
    per_layer: bool
    quantisable: bool = True


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
    return m.hidden_size * (2 * q_out + kv_out), 0


def linear_attention_params(m: Model) -> int:
    """Parameters of ONE Gated-DeltaNet layer (projections, conv, gates), all TP-sharded."""
    la = m.linear_attention
    if la is None:
        return 0
    key_dim, value_dim = la.num_key_heads * la.key_head_dim, la.num_value_heads * la.value_head_dim
    in_proj = m.hidden_size * (2 * key_dim + 2 * value_dim + 2 * la.num_value_heads)
    conv = (2 * key_dim + value_dim) * la.conv_kernel
    return in_proj + conv + value_dim * m.hidden_size


def mlp_parts(m: Model) -> list[Part]:
    """Dense MLP, routed experts, shared experts and router, summed over all layers."""
    gated = 3 * m.hidden_size
    if m.moe is None:
        return [Part("dense_mlp", gated * m.intermediate_size * m.layers, True, True)]
    e, moe_layers = m.moe, m.layers - m.moe.dense_layers
    return [
        Part("dense_mlp", gated * m.intermediate_size * e.dense_layers, True, True),
        Part("experts", gated * e.expert_intermediate_size * e.experts * moe_layers, True, True),
        Part("shared_experts", gated * e.shared_intermediate_size * e.shared_experts * moe_layers, True, True),
        Part("router", m.hidden_size * e.experts * moe_layers, False, True),
    ]


def attention_parts(m: Model) -> list[Part]:
    """Attention (or linear attention) projections over all layers."""
    linear_layers = m.linear_attention.layers if m.linear_attention else 0
    sharded, replicated = attention_params(m)
    full_layers = m.layers - linear_layers
    return [
        Part("attention", sharded * full_layers + linear_attention_params(m) * linear_layers
             + global_attention_delta(m), True, True),
        Part("attention_replicated", replicated * full_layers, False, True),
    ]


def model_parts(m: Model) -> list[Part]:
    """Every parameter group of ``m``; their sum is the model's parameter count."""
    embed = m.vocab_size * m.hidden_size
    norms = (2 * m.layers + 1) * m.hidden_size
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
    return sum(part.params for part in model_parts(m))


def _keeps(ckpt: Checkpoint, part: str) -> bool:
    family = "attention" if part.startswith("attention") else part
    return family in ckpt.keeps_bf16


def expert_pad_factor(m: Model, spec: PrecisionSpec) -> float:
    """Growth of routed-expert weights when vLLM pads the expert intermediate size (1.0 if it does not)."""
    if m.moe is None or spec.expert_pad is None:
        return 1.0
    size = m.moe.expert_intermediate_size
    return -(-size // spec.expert_pad) * spec.expert_pad / size


def part_bytes(part: Part, ckpt: Checkpoint, spec: PrecisionSpec, m: Model) -> float:
    """Bytes of ``part`` of model ``m`` in checkpoint ``ckpt`` (precision ``spec``), all layers, all ranks."""
    if not part.quantisable or _keeps(ckpt, part.name):
        return part.params * BF16_BYTES
    padding = expert_pad_factor(m, spec) if part.name == "experts" else 1.0
    return part.params * spec.bytes_per_param * padding


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


def weight_split(m: Model, ckpt: Checkpoint, spec: PrecisionSpec) -> WeightSplit:
    """Bytes of ``ckpt`` split into TP-sharded layers, replicated layers, embeddings and LM head."""
    sums = {"layer_sharded": 0.0, "layer_replicated": 0.0, "embeddings": 0.0, "lm_head": 0.0}
    for part in model_parts(m):
        key = part.name if not part.per_layer else ("layer_sharded" if part.sharded else "layer_replicated")
        sums[key] += part_bytes(part, ckpt, spec, m)
    return WeightSplit(**sums)
