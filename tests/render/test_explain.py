"""Tests for sizing.render.explain: the worked example's steps, their values from first principles,
rendering."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from sizing.catalog.loader import load_catalog
from sizing.catalog.settings import Settings
from sizing.engine.estimate import estimate
from sizing.engine.versions import rules_for
from sizing.render.explain import Quantity, explain_markdown, explain_steps, explain_text, fmt_quantity
from sizing.site import context as site
from sizing.units import GiB, MiB
from sizing.views.bundle import judged

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "site_catalog"


@pytest.fixture(scope="module")
def ctx() -> site.SiteContext:
    """The test catalog's context."""
    return site.context(FIXTURE)


def results(row, cat) -> dict[str, float]:
    """Each step's first result value, by step id."""
    return {step.id: step.result[0].value for step in explain_steps(row, cat)}


def test_steps_follow_vllm_start_up_order(ctx: site.SiteContext) -> None:
    """Assert the steps of a fitting single-GPU example, in order."""
    ids = [s.id for s in explain_steps(ctx.example("example-1"), ctx.catalog)]
    seqs = [f"seq_{c}" for c in ctx.contexts if c <= ctx.catalog.models["Qwen/Qwen3-14B"].max_context]
    assert ids == [
        "total",
        "budget",
        "checkpoint",
        "weights",
        "activation",
        "nontorch",
        "cudagraphs",
        "available_kv",
        "available_kv_band",
        "kv_cache",
        "kv_per_token",
        "bytes_per_block",
        "num_gpu_blocks",
        "max_concurrency",
        "kv_cache_tokens",
        *seqs,
        "decode_tps_ceiling",
    ]


def test_band_step_labels_the_cautious_end_in_every_language(ctx: site.SiteContext) -> None:
    """Assert the band step names both ends and its result is the low end the blocks use (a figure labelled as
    the cautious end, apart from what vLLM prints one step before)."""
    row = ctx.example("example-1")
    step = next(s for s in explain_steps(row, ctx.catalog) if s.id == "available_kv_band")
    args = dict(step.label_args)
    assert args["low"].value < args["value"].value < args["high"].value
    assert step.result[0].value == row["available_kv_low_bytes"]
    assert "Cautious end" in explain_text(row, ctx.catalog, "en")
    assert "保守" in explain_text(row, ctx.catalog, "zh")
    assert "Осторожная оценка" in explain_text(row, ctx.catalog, "ru")


def test_the_token_step_can_be_redone_with_a_calculator(ctx: site.SiteContext) -> None:
    """Assert "GPU KV cache size" is derived from whole numbers: ⌊blocks ÷ blocks per request × length⌋."""
    row = ctx.example("example-1")
    step = next(s for s in explain_steps(row, ctx.catalog) if s.id == "kv_cache_tokens")
    terms = {k: q.value for k, q in step.terms}
    assert int(terms["blocks"] / terms["per_request"] * terms["max_model_len"]) == step.result[0].value


def test_no_negative_memory_figure_in_any_language(catalog) -> None:
    """Assert a case short of memory says by how much, never a negative GiB figure (70B BF16 on one H100)."""
    row = judged(
        estimate(
            catalog,
            Settings(model="meta-llama/Llama-3.3-70B-Instruct", server="ref-1x-h100", max_model_len=32768),
        ),
        catalog,
    )
    assert float(row["available_kv_bytes"]) < 0
    for lang, word in (("en", "short by"), ("zh", "缺"), ("ru", "не хватает")):
        text = explain_text(row, catalog, lang)
        assert not re.search(r"[-−]\d+[.,]\d+\s(GiB|ГиБ)", text)  # a subtraction has a space after its sign
        if float(row["available_kv_bytes"]) < 0:
            assert word in text


def test_memory_steps_from_the_catalog(ctx: site.SiteContext) -> None:
    """Assert total = nvidia-smi MiB and budget = ceil(utilisation × total), from the catalog values."""
    ex = ctx.catalog.examples["example-1"]
    gpu = ctx.catalog.gpus[ctx.catalog.servers[ex.server].gpu]
    got = results(ctx.example("example-1"), ctx.catalog)
    assert got["total"] == gpu.memory_mib * MiB
    assert got["budget"] == math.ceil(ctx.catalog.assume("gpu_memory_utilization") * gpu.memory_mib * MiB)


def test_gqa_kv_bytes_per_token(ctx: site.SiteContext) -> None:
    """Assert layers × 2 × (KV heads ÷ TP) × head_dim × 1 byte (fp8) for the 70B on TP 2."""
    m = ctx.catalog.models["meta-llama/Llama-3.3-70B-Instruct"]
    steps = {s.id: s for s in explain_steps(ctx.example("example-2"), ctx.catalog)}
    assert steps["kv_per_token"].result[0].value == m.layers * 2 * (m.kv_heads // 2) * m.head_dim * 1
    assert dict(steps["kv_per_token"].terms)["heads"].value == m.kv_heads // 2


def test_mla_kv_bytes_per_token_on_a_pipeline_stage(ctx: site.SiteContext) -> None:
    """Assert MLA: ceil(layers ÷ PP) × (kv_lora_rank + rope dim) × 2 bytes, whatever the TP."""
    m = ctx.catalog.models["deepseek-ai/DeepSeek-V3"]
    got = results(ctx.example("dh-671b-fp8-2n-8xh100"), ctx.catalog)
    assert got["kv_per_token"] == math.ceil(m.layers / 2) * (m.mla.kv_lora_rank + m.mla.qk_rope_head_dim) * 2


def test_blocks_concurrency_and_sequences_follow_each_other(ctx: site.SiteContext) -> None:
    """Assert blocks = ⌊KV bytes ÷ block bytes⌋, concurrency = blocks ÷ ⌈len ÷ block size⌉, sequences × DP."""
    row = ctx.example("dp-14b")
    got = results(row, ctx.catalog)
    block_size = rules_for(str(ctx.catalog.assume("vllm_version"))).block_size
    assert got["num_gpu_blocks"] == math.floor(got["kv_cache"] / got["bytes_per_block"])
    per_request = math.ceil(ctx.catalog.examples["dp-14b"].max_model_len / block_size)
    assert got["max_concurrency"] == pytest.approx(got["num_gpu_blocks"] / per_request)
    assert (
        got["seq_32768"]
        == math.floor(got["max_concurrency"]) * ctx.catalog.examples["dp-14b"].data_parallel_size
    )


def test_decode_ceiling_is_bandwidth_over_weights(ctx: site.SiteContext) -> None:
    """Assert a dense model's ceiling is bandwidth (decimal GB/s) over its per-GPU weight bytes."""
    row = ctx.example("example-1")
    gpu = ctx.catalog.gpus["l40s"]
    got = results(row, ctx.catalog)
    assert got["decode_tps_ceiling"] == pytest.approx(gpu.bandwidth_gbs * 1e9 / got["weights"])


def test_older_release_subtracts_cuda_graphs_from_the_printed_figure() -> None:
    """Assert under 0.25 accounting the printed figure already excludes CUDA graphs (no extra step)."""
    cat = load_catalog(FIXTURE)
    row = estimate(cat, Settings(model="Qwen/Qwen3-14B-FP8", server="gpu-l40s", vllm_version="0.25.0"))
    steps = {s.id: s for s in explain_steps(row, cat)}
    assert steps["available_kv"].formula_key == "formula_available_graphs" and "kv_cache" not in steps


def test_non_fitting_case_ends_with_the_nearest_change() -> None:
    """Assert a case that does not fit has no sequence steps and names the change that would fit."""
    cat = load_catalog(FIXTURE)
    row = judged(estimate(cat, Settings(model="Qwen/Qwen3-32B", server="gpu-l40s")), cat)
    assert not row["fits"] and row["verdict"] == "no-fit"
    assert not [s for s in explain_steps(row, cat) if s.id.startswith("seq_")]
    assert explain_text(row, cat, "en").rstrip().splitlines()[-1].startswith("❌ Does not fit. ")


def test_text_is_plain_and_numbered(ctx: site.SiteContext) -> None:
    """Assert the CLI text has one numbered line per step, ordinary spaces, catalog figures in it."""
    text = explain_text(ctx.example("example-1"), ctx.catalog, "en")
    n = len(explain_steps(ctx.example("example-1"), ctx.catalog))
    numbers = [m.group(1) for line in text.splitlines() if (m := re.match(r"\s*(\d+)\. ", line))]
    assert numbers == [str(i) for i in range(1, n + 1)]
    assert "\u00a0" not in text
    assert f"{ctx.catalog.gpus['l40s'].memory_mib:,} MiB" in text


def test_markdown_is_a_table_in_the_page_language(ctx: site.SiteContext) -> None:
    """Assert one table row per step, Russian separators, and the verdict under the table."""
    row = ctx.example("example-1")
    md = explain_markdown(row, ctx.catalog, "ru")
    rows = [line for line in md.splitlines() if line.startswith("| ")]
    assert len(rows) == len(explain_steps(row, ctx.catalog)) + 1
    assert rows[0] == "| Шаг | Расчёт | Результат |"
    assert "0,90 × " in md
    assert md.rstrip().endswith('<span class="sz-badge sz-badge--fits">Помещается (контекст до 32K)</span>')


@pytest.mark.parametrize(
    ("quantity", "lang", "expected"),
    [
        (Quantity(46068 * MiB, "mib"), "en", "46,068\u00a0MiB"),
        (Quantity(1.5 * GiB, "gib"), "ru", "1,50\u00a0ГиБ"),
        (Quantity(81920, "kib"), "zh", "80\u00a0KiB"),
        (Quantity(35712, "kib"), "en", "34.9\u00a0KiB"),
        (Quantity(9.5625, "ratio"), "en", "9.56×"),
        (Quantity(52.94, "tokens_per_s"), "ru", "52,9 токена/с"),
        (Quantity(313792, "tokens"), "ru", "313\u00a0792 токена"),
        (Quantity(5, "tokens_per_s"), "ru", "5,0 токена/с"),
        (Quantity(313408, "count"), "ru", "313\u00a0408"),
    ],
)
def test_quantities(quantity: Quantity, lang: str, expected: str) -> None:
    """Assert each unit is formatted with its label and the language's separators."""
    assert fmt_quantity(quantity, lang) == expected
