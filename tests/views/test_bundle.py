"""Tests for sizing.views.bundle: the evaluated worked examples."""

from __future__ import annotations

import pandas as pd

from sizing.catalog.settings import Settings, SpecConfig
from sizing.engine.estimate import estimate
from sizing.views.bundle import evaluate_examples


def test_an_example_is_estimated_as_the_settings_of_its_checkpoint(catalog) -> None:
    """Assert each worked example evaluates to the estimate of its checkpoint as ``--model``, with its
    server, KV type, length, plan and speculative method given as flags (the example is those settings)."""
    evaluated = evaluate_examples(catalog)
    assert list(evaluated) == list(catalog.examples)
    for eid in ("example-2", "spec-qwen36-fp8-mtp"):
        ex = catalog.examples[eid]
        spec = ex.speculative_config
        flags = Settings(
            model=ex.checkpoint,
            server=ex.server,
            kv_cache_dtype=ex.kv_cache_dtype,
            max_model_len=ex.max_model_len,
            tensor_parallel_size=ex.tensor_parallel_size,
            speculative_config=SpecConfig(spec.method, spec.num_speculative_tokens) if spec else None,
        )
        row = evaluated[eid]
        pd.testing.assert_series_equal(
            row.drop(["verdict", "verdict_context"]), estimate(catalog, flags), check_names=False
        )
