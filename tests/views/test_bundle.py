"""Tests for sizing.views.bundle: a catalog example as a request, and the evaluated examples."""

from __future__ import annotations

from sizing.engine.estimate import Request, knobs_of
from sizing.views.bundle import example_request


def test_an_example_becomes_the_request_of_its_checkpoint_server_and_plan(catalog) -> None:
    """Assert every catalog example's request names its checkpoint as the model and carries its server,
    KV type, length, parallel sizes, expert parallelism and speculative method unchanged."""
    for example in catalog.examples.values():
        req = example_request(example)
        assert (req.model, req.server, req.kv_cache_dtype, req.max_model_len) == (
            example.checkpoint,
            example.server,
            example.kv_cache_dtype,
            example.max_model_len,
        )
        assert (
            req.tensor_parallel_size,
            req.pipeline_parallel_size,
            req.data_parallel_size,
            req.enable_expert_parallel,
        ) == (
            example.tensor_parallel_size,
            example.pipeline_parallel_size,
            example.data_parallel_size,
            example.enable_expert_parallel,
        )
        spec, asked = req.speculative_config, example.speculative
        if asked:
            assert spec is not None and (spec.method, spec.num_speculative_tokens) == (
                asked.method,
                asked.num_speculative_tokens,
            )
        else:
            assert spec is None
    assert any(ex.speculative for ex in catalog.examples.values())


def test_knobs_take_every_setting_of_a_request_and_the_catalogs_memory_fraction(catalog) -> None:
    """Assert the settings of a request reach its Knobs, and an unset --gpu-memory-utilization is the
    catalog's."""
    req = Request(
        model="Qwen/Qwen3-14B",
        gpu="l40s",
        max_model_len=8192,
        max_num_seqs=64,
        block_size=32,
        enforce_eager=True,
        kv_cache_memory_bytes=1 << 30,
        llm_class=True,
        limit_mm_per_prompt=2,
        language_model_only=True,
        max_num_batched_tokens=4096,
    )
    knobs = knobs_of(catalog, req)
    assert (knobs.max_model_len, knobs.max_num_seqs, knobs.block_size, knobs.max_num_batched_tokens) == (
        8192,
        64,
        32,
        4096,
    )
    assert knobs.enforce_eager and knobs.llm_class and knobs.language_model_only
    assert (knobs.kv_cache_memory_bytes, knobs.limit_mm_per_prompt) == (1 << 30, 2)
    assert knobs.gpu_memory_utilization == float(catalog.assume("gpu_memory_utilization"))
    assert knobs_of(catalog, Request(model="x", gpu_memory_utilization=0.8)).gpu_memory_utilization == 0.8
