"""sizing.catalog.plans: the one plan-feasibility rule, as the matrix, the CLI and the catalog use it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sizing.catalog import plans
from sizing.catalog.loader import FILES, catalog_from_texts
from sizing.catalog.plans import model_sizes, problem
from sizing.engine.case_frame import model_takes
from sizing.errors import CatalogError

ROOT = Path(__file__).resolve().parents[2]
QWEN3_14B = {
    "attention_heads": 40,
    "kv_heads": 8,
    "la_value_heads": 0,
    "linear_layers": 0,
    "expert_intermediate": 0,
    "layers": 40,
}


def plan(tp: int = 1, pp: int = 1, dp: int = 1, gpus: int = 8, **model: int) -> dict[str, int]:
    return {**QWEN3_14B, **model, "tp": tp, "pp": pp, "dp": dp, "gpus": gpus}


@pytest.mark.parametrize(
    ("case", "field", "words"),
    [
        (plan(tp=3), "tensor_parallel_size", "40 attention heads, got 3"),
        (plan(tp=16, gpus=16, attention_heads=64, kv_heads=12), "tensor_parallel_size", "12 KV heads"),
        (
            plan(tp=4, la_value_heads=6, linear_layers=30),
            "tensor_parallel_size",
            "6 linear-attention value heads",
        ),
        (plan(tp=8, expert_intermediate=1412), "tensor_parallel_size", "intermediate size 1412"),
        (plan(pp=64, gpus=64), "pipeline_parallel_size", "40 layers"),
        (plan(tp=2, dp=8, gpus=8), "data_parallel_size", "2 × 1 × 8 = 16 GPUs, but the hardware given has 8"),
    ],
)
def test_each_rule_refuses_what_vllm_refuses(case, field, words):
    found = problem(case)
    assert found is not None and found[0] == field and words in found[1]


def test_plans_vllm_runs_pass():
    for case in (
        plan(),
        plan(tp=8),
        plan(tp=2, pp=2, dp=2),
        plan(tp=16, gpus=16, kv_heads=8, attention_heads=64),
    ):
        assert problem(case) is None


def test_flag_problem_names_the_flag_and_value():
    assert plans.flag_problem(plan(tp=3)).startswith("--tensor-parallel-size 3: must divide")
    assert plans.flag_problem(plan(pp=41, gpus=41)).startswith("--pipeline-parallel-size 41: ")
    assert plans.flag_problem(plan(tp=8, gpus=4)).startswith("tensor × pipeline × data parallel = 8 × 1 × 1")


def test_the_matrix_filter_is_the_same_rule(catalog):
    """case_frame.model_takes (vectorised) agrees with problem() for every model and TP size."""
    for model in catalog.models.values():
        sizes = model_sizes(model)
        columns = {k: np.array([v]) for k, v in sizes.items()}
        tps = np.array([[1, 2, 3, 4, 6, 8, 16]])
        vector = model_takes({**{k: v[:, None] for k, v in columns.items()}, "tp": tps})[0]
        single = [problem({**sizes, "tp": int(tp), "pp": 1, "dp": 1, "gpus": 16}) is None for tp in tps[0]]
        assert list(vector) == single, model.name


def test_the_catalog_refuses_an_example_with_the_same_rule():
    catalog_texts = {stem: (ROOT / "catalog" / f"{stem}.yaml").read_text(encoding="utf-8") for stem in FILES}
    text = catalog_texts["examples"]
    first = text.split("tensor_parallel_size:", 1)
    assert len(first) == 2, "examples.yaml has no tensor_parallel_size to mutate"
    value_end = first[1].index("\n")
    broken = {**catalog_texts, "examples": first[0] + "tensor_parallel_size: 3" + first[1][value_end:]}
    with pytest.raises(CatalogError, match="tensor_parallel_size: must divide the model's"):
        catalog_from_texts(broken)
