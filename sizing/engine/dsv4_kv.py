"""DeepSeek-V4's KV cache as the supported release (``versions.SUPPORTED``) lays it out: bytes and blocks.

Each DeepSeek-V4 layer keeps several caches, not one: a sliding-window cache of its last ``sliding_window``
tokens, and, by ``compress_ratios[layer]``, a cache of one compressed entry per 4 tokens (with a lightning
indexer's key cache) or per 128 tokens, each fed by a compressor whose fp32 state is a cache of its own.
vLLM packs these pages side by side inside one block id (a block-outermost layout), groups the layers by
block size and window, and every group draws its blocks from one shared pool. The estimate takes it
through the ``csa_*`` columns (:func:`layout_columns`, :func:`column_blocks`; ``memory.compressed_geometry``).

Scope, the FlashMLA path (compute capability 9 and 10, ``--kv-cache-dtype auto``/``fp8``, which vLLM
turns into ``fp8_ds_mla``), FP8 indexer keys (``indexer_kv_dtype`` auto), no speculative decoding (an MTP
layer adds caches of its own), no decode context parallelism, no hisparse host cache.

Sources, all in the PyPI wheel of the supported release
(``vllm-<SUPPORTED>-cp38-abi3-manylinux_2_28_x86_64.whl``;
the GitHub snapshot is over the size the search tool fetches), paths inside the ``vllm`` package:

- Which layer compresses: vLLM reads ``layer_types`` from transformers' ``DeepseekV4Config`` (the wheel
  requires transformers >=5.16.1,<5.23; 5.22.0 ``models/deepseek_v4/configuration_deepseek_v4.py:28-32,
  265-275`` maps the legacy ``compress_ratios`` 0/4/128 to sliding, compressed-sparse and heavily-compressed
  layers and keeps the first ``num_hidden_layers``), ``models/deepseek_v4/attention.py:234-238`` turns it
  back into a ratio (1: sliding-window cache only).
- ``models/deepseek_v4/nvidia/model.py:539-584`` ``_select_dsv4_attn_cls``: FlashMLA on every CUDA
  capability but 12; ``models/deepseek_v4/sparse_mla.py:59-61,95-96``: kernel block 256, capability 9/10.
- ``models/deepseek_v4/attention.py:95-130`` fp8 becomes ``fp8_ds_mla``; ``:817-840`` the compressed cache
  (``MLAAttentionSpec``, ``tokens_per_state`` = ratio, 584-byte rows, ``alignment=576``, none for ratio 0);
  ``:843-882`` the indexer key cache; ``:975-990`` its row, ``index_head_dim`` fp8 + 4-byte scale per 128.
- ``v1/attention/backends/mla/sparse_swa.py:76-147`` ``DeepseekV4SWACache``: 64-token blocks, 584-byte
  rows, ``alignment=576``, window ``sliding_window``, one per layer.
- ``models/deepseek_v4/compressor.py:139-190`` ``CompressorStateCache``: fp32 ``2 x coff x head`` per
  token (``coff`` 2 at ratio 4, else 1; ``:298``), window ``coff x ratio``, blocks of 4 (ratio 4) or 8.
- ``v1/kv_cache_interface.py:604-606`` page = states x row bytes, ``:731-737`` rounded up to ``alignment``;
  ``:654-660`` a full cache holds ``cdiv(len, block)`` blocks, ``:932-958`` a sliding one
  ``cdiv(min(W - 1 + in_flight, len), block) + 1``; ``:1383-1396`` buckets share block size and window.
- ``v1/attention/backends/mla/indexer.py:286-305`` the indexer backend asks for ``BLHNC``/``BLNHC``
  (block outermost), so ``v1/core/kv_cache_planning.py:958-1084`` ``_get_packed_kv_cache_groups`` groups
  the layers (``:923-955`` ``_approximate_gcd``), ``:620-647`` ``_get_kv_cache_bytes_per_block`` sizes a
  block, ``v1/core/kv_cache_utils.py:1082-1114`` sums each group's blocks for the concurrency.

Public start-up logs: none of this release was found. vllm-project/vllm#51454 (0.25.0,
DeepSeek-V4-Flash-0731, B200, data parallel 8, 8192 batched tokens) prints 20.43x at 1,048,576 tokens;
#51041 (0.26.0, H20, DSpark drafts) and #44376 (about 0.22, GH200) are other releases, checkpoints or
drafts, and print no pool of this layout. They check nothing here; for scale only, 20.43 x 7450 blocks x
1,002,240 B is 142 GiB of KV cache on a 179 GiB B200.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from sizing.engine.kvcache import ArrayLike, cdiv

ROW_BYTES = 584
"""One ``fp8_ds_mla`` row: 448 fp8 NoPE values, 64 bf16 RoPE values, 7 UE8M0 scales and 1 pad byte."""
PAGE_ALIGN = 576
"""FlashMLA's page alignment: every DeepSeek-V4 page is rounded up to a multiple of it."""
KV_BLOCK = 256
"""Tokens per block of the compressed and indexer caches (the FlashMLA and indexer kernels' only size)."""
SWA_BLOCK = 64
"""Tokens per block of the sliding-window cache (``DeepseekV4SWACache``'s default, which vLLM keeps)."""
STATE_BLOCK = {4: 4, 128: 8}
"""Tokens per block of a compressor state, by compression ratio."""
STATE_DTYPE_BYTES = 4
INDEXER_SCALE_BLOCK = 128
INDEXER_SCALE_BYTES = 4
HEAD_DIM = 512
"""The only head size vLLM's DeepSeek-V4 backends take (448 NoPE + 64 RoPE); the 584-byte row assumes it."""


@dataclass(frozen=True)
class CacheKind:
    """One kind of per-layer cache: how many layers hold it, its block, window (0: full) and page bytes."""

    name: str
    layers: int
    block_size: int
    window: int
    page_bytes: int


@dataclass(frozen=True)
class Group:
    """One KV-cache group: its block size, window (0: full) and the page bytes of all its layers."""

    block_size: int
    window: int
    page_bytes: int


def round_up(value: int, multiple: int) -> int:
    """``value`` rounded up to a multiple of ``multiple``."""
    return -(-value // multiple) * multiple


def page(states: int, state_bytes: int) -> int:
    """Bytes of one page of ``states`` stored states of ``state_bytes`` each, padded to :data:`PAGE_ALIGN`."""
    return round_up(states * state_bytes, PAGE_ALIGN)


def state_kind(name: str, layers: int, ratio: int, head: int) -> CacheKind:
    """A compressor's fp32 state: ``2 x coff x head`` values a token (KV and score), ``coff`` 2 at ratio 4."""
    coff = 2 if ratio == 4 else 1
    block = STATE_BLOCK[ratio]
    return CacheKind(name, layers, block, coff * ratio, page(block, 2 * coff * head * STATE_DTYPE_BYTES))


def indexer_row_bytes(index_head_dim: int) -> int:
    """Bytes of one indexer key: ``index_head_dim`` fp8 values plus a 4-byte scale per 128 of them."""
    return index_head_dim + index_head_dim // INDEXER_SCALE_BLOCK * INDEXER_SCALE_BYTES


def cache_kinds(ratios: Sequence[int], window: int, index_head_dim: int) -> list[CacheKind]:
    """Every cache kind of a model whose decoder layers have these ``compress_ratios`` (0, 4 or 128).

    Listed in the order vLLM meets them (sliding-window, compressed, indexer, states); the order only
    names the groups, not their bytes.
    """
    if set(ratios) - {0, 4, 128}:
        raise ValueError(f"compress_ratios other than 0, 4 and 128: {sorted(set(ratios) - {0, 4, 128})}")
    c4, c128 = ratios.count(4), ratios.count(128)
    kinds = [
        CacheKind("swa", len(ratios), SWA_BLOCK, window, page(SWA_BLOCK, ROW_BYTES)),
        CacheKind("c4_kv", c4, KV_BLOCK, 0, page(KV_BLOCK // 4, ROW_BYTES)),
        CacheKind("c128_kv", c128, KV_BLOCK, 0, page(KV_BLOCK // 128, ROW_BYTES)),
        CacheKind("c4_index", c4, KV_BLOCK, 0, page(KV_BLOCK // 4, indexer_row_bytes(index_head_dim))),
        state_kind("c4_state", c4, 4, HEAD_DIM),
        state_kind("c4_index_state", c4, 4, index_head_dim),
        state_kind("c128_state", c128, 128, HEAD_DIM),
    ]
    return [kind for kind in kinds if kind.layers]


def buckets(kinds: Sequence[CacheKind]) -> list[list[CacheKind]]:
    """Kinds that may share a group: the same block size and window, in order of first appearance."""
    keyed: dict[tuple[int, int], list[CacheKind]] = {}
    for kind in kinds:
        keyed.setdefault((kind.block_size, kind.window), []).append(kind)
    return list(keyed.values())


def layers_by_page(bucket: Sequence[CacheKind]) -> Counter[int]:
    """Layers of a bucket per page size (kinds with equal pages count together, as vLLM keys by page)."""
    counts: Counter[int] = Counter()
    for kind in bucket:
        counts[kind.page_bytes] += kind.layers
    return counts


def balanced(bucket: Sequence[CacheKind]) -> bool:
    """True when every page size of the bucket has the same number of layers (a repeating pattern)."""
    return len(set(layers_by_page(bucket).values())) == 1


def approximate_gcd(values: Sequence[int], lower_bound: int) -> int:
    """The chunk ``d`` in ``[lower_bound, max(values)]`` that pads the values least when each is rounded up
    to a multiple of it; ties go to the larger ``d`` (``_approximate_gcd``)."""
    if lower_bound > max(values):
        return lower_bound
    pads = {d: sum(-x % d for x in values) for d in range(lower_bound, max(values) + 1)}
    return min(pads, key=lambda d: (pads[d], -d))


def repeats_per_group(all_buckets: Sequence[Sequence[CacheKind]]) -> int | None:
    """Pattern repeats per group: None when no balanced bucket mixes page sizes, else the approximate gcd of
    the balanced buckets' repeats, at least the largest mixing bucket's."""
    mixing = [
        max(layers_by_page(b).values()) for b in all_buckets if balanced(b) and len(layers_by_page(b)) > 1
    ]
    if not mixing:
        return None
    return approximate_gcd([max(layers_by_page(b).values()) for b in all_buckets if balanced(b)], max(mixing))


def widest_group(bucket: Sequence[CacheKind], groups: int) -> int:
    """Page bytes of the largest of the ``groups`` groups a bucket splits into."""
    return sum(cdiv(count, groups).item() * size for size, count in layers_by_page(bucket).items())


def bucket_groups(bucket: Sequence[CacheKind], repeats: int | None, anchor: int) -> list[Group]:
    """The groups one bucket forms: one, or ``cdiv(repeats of its pattern, repeats per group)`` for a
    balanced bucket; a sliding bucket when no pattern is set (``repeats`` None) is split so each group fits
    the block the others already need (``anchor`` bytes)."""
    first = bucket[0]
    count = max(layers_by_page(bucket).values())
    groups = cdiv(count, repeats).item() if balanced(bucket) and repeats is not None else 1
    if repeats is None and first.window and anchor:
        groups = max(groups, cdiv(sum(k.layers for k in bucket), max(anchor // first.page_bytes, 1)).item())
    if groups == 1:
        return [Group(first.block_size, first.window, sum(k.layers * k.page_bytes for k in bucket))]
    sizes = sum(layers_by_page(bucket))
    return [
        Group(first.block_size, first.window, len(range(i, count, groups)) * sizes) for i in range(groups)
    ]


def kv_groups(kinds: Sequence[CacheKind]) -> list[Group]:
    """Every KV-cache group vLLM forms from these cache kinds (``_get_packed_kv_cache_groups``)."""
    all_buckets = buckets(kinds)
    repeats = repeats_per_group(all_buckets)

    def split(bucket: Sequence[CacheKind]) -> int:
        state = repeats is None and bucket[0].window > 0
        if state:
            return sum(k.layers for k in bucket)
        return (
            cdiv(max(layers_by_page(bucket).values()), repeats).item() if balanced(bucket) and repeats else 1
        )

    anchor = max(widest_group(b, split(b)) for b in all_buckets)
    return [group for bucket in all_buckets for group in bucket_groups(bucket, repeats, anchor)]


def bytes_per_block(groups: Sequence[Group]) -> int:
    """Bytes one block id costs in the pool: the largest group's pages (no stride alignment on this path)."""
    return max(group.page_bytes for group in groups)


def group_blocks(group: Group, context: int, in_flight: int) -> int:
    """Blocks one request of ``context`` tokens holds in one group: ``cdiv(context, block)`` for a full
    cache, ``cdiv(min(window - 1 + in_flight, context), block) + 1`` for a sliding one."""
    if not group.window:
        return cdiv(context, group.block_size).item()
    return cdiv(min(group.window - 1 + in_flight, context), group.block_size).item() + 1


def blocks_per_request(groups: Sequence[Group], context: int, in_flight: int) -> int:
    """Blocks one request of ``context`` tokens draws from the shared pool, over every group; ``in_flight``
    is vLLM's ``max_in_flight_tokens`` (``max_num_batched_tokens`` per concurrent batch)."""
    return sum(group_blocks(group, context, in_flight) for group in groups)


def max_concurrency(available: int, groups: Sequence[Group], context: int, in_flight: int) -> float:
    """Requests of ``context`` tokens the pool holds: ``floor(available / bytes per block)`` blocks over the
    blocks one request needs."""
    blocks = available // bytes_per_block(groups)
    return blocks / blocks_per_request(groups, context, in_flight)


GROUP_KINDS = ("full", "swa", "c4_state", "c128_state")
"""DeepSeek-V4's kinds of KV group, as the ``csa_<kind>_groups`` columns count them."""
STATE_GROUPS = {ratio: (STATE_BLOCK[ratio], (2 if ratio == 4 else 1) * ratio) for ratio in STATE_BLOCK}
"""(block, window) of the compressor-state groups by compression ratio (:func:`state_kind`)."""


CSA_COLUMNS = (
    "csa_bytes_per_block",
    "csa_full_page_bytes",
    "csa_full_groups",
    "csa_swa_groups",
    "csa_c4_state_groups",
    "csa_c128_state_groups",
    "csa_window",
    "csa_topk_bytes_per_token",
)
"""DeepSeek-V4's compressed-attention columns (:func:`layout_columns`, plus the window and top-k buffer that
:func:`sizing.engine.cases.compressed_columns` adds)."""


def layout_columns(ratios: Sequence[int], window: int, index_head_dim: int) -> dict[str, int]:
    """The frame columns of a DeepSeek-V4 layout: bytes per block, the pages of one block of the groups that
    span the whole context (compressed and indexer caches, 256 tokens a block), and the groups by kind
    (full, sliding window, C4 and C128 compressor states), which :func:`column_blocks` turns into blocks
    per request."""
    groups = kv_groups(cache_kinds(ratios, window, index_head_dim))
    by = Counter((g.block_size, g.window) for g in groups)
    full = [g for g in groups if not g.window]
    columns = {
        "csa_bytes_per_block": bytes_per_block(groups),
        "csa_full_page_bytes": sum(g.page_bytes for g in full),
        "csa_full_groups": len(full),
        "csa_swa_groups": by[(SWA_BLOCK, window)],
        "csa_c4_state_groups": by[STATE_GROUPS[4]],
        "csa_c128_state_groups": by[STATE_GROUPS[128]],
    }
    if sum(v for k, v in columns.items() if k.endswith("_groups")) != len(groups):
        raise ValueError(f"a {window}-token window shares its block size with a compressor state")
    return columns


def column_blocks(
    context: ArrayLike, in_flight: ArrayLike, window: ArrayLike, groups: Mapping[str, ArrayLike]
) -> np.ndarray:
    """Blocks one request of ``context`` tokens holds over every group, column-wise (as
    :func:`blocks_per_request`); ``groups``: the ``csa_*_groups`` columns of :func:`layout_columns`."""
    ctx, flight = np.asarray(context, dtype=np.int64), np.asarray(in_flight, dtype=np.int64)

    def sliding(w: ArrayLike, block: int) -> np.ndarray:
        return cdiv(np.minimum(np.asarray(w) - 1 + flight, ctx), block) + 1

    c4, c128 = STATE_GROUPS[4], STATE_GROUPS[128]
    return (
        np.asarray(groups["csa_full_groups"]) * cdiv(ctx, KV_BLOCK)
        + np.asarray(groups["csa_swa_groups"]) * sliding(window, SWA_BLOCK)
        + np.asarray(groups["csa_c4_state_groups"]) * sliding(c4[1], c4[0])
        + np.asarray(groups["csa_c128_state_groups"]) * sliding(c128[1], c128[0])
    )
