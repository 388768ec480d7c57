"""Workloads and throughput constants: read, validated, one-line errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from sizing.catalog.loader import load_catalog
from sizing.catalog.workloads import load_constants, load_workloads
from sizing.errors import CatalogError

ROOT = Path(__file__).resolve().parents[2]


def test_published_workloads_are_the_three_public_shapes() -> None:
    shapes = {name: (w.input_len, w.output_len) for name, w in load_workloads().items()}
    assert shapes == {"chat": (1024, 1024), "long-prompt": (8192, 1024), "reasoning": (1024, 8192)}
    assert all(w.meaning.zh and w.meaning.ru for w in load_workloads().values())


def test_a_bad_workload_names_its_field(tmp_path: Path) -> None:
    (tmp_path / "workloads.yaml").write_text(
        "chat: {input_len: 0, output_len: 5, concurrency: [1], meaning: {en: a, zh: b, ru: c}}\n"
    )
    with pytest.raises(CatalogError) as err:
        load_workloads(tmp_path)
    assert "chat" in str(err.value) and "input_len" in str(err.value)


def test_peaks_are_optional_and_dense() -> None:
    gpus = load_catalog(ROOT / "catalog").gpus
    assert gpus["h100-80gb"].tflops_dense is not None and gpus["h100-80gb"].tflops_dense.fp8 == 1978
    assert gpus["a100-80gb"].tflops_dense is not None and gpus["a100-80gb"].tflops_dense.fp8 is None
    assert gpus["rtx-3090"].tflops_dense is None  # no primary source: the estimate refuses it by name
    mi300x, mi355x = gpus["mi300x"].tflops_dense, gpus["mi355x"].tflops_dense
    assert mi300x is not None and (mi300x.bf16, mi300x.fp8, mi300x.fp4) == (
        1307.4,
        2614.9,
        None,
    )  # not sparse
    assert mi355x is not None and (mi355x.bf16, mi355x.fp8, mi355x.fp4) == (2516.6, 5033.2, 10066.3)


def test_constants_missing_file_is_empty_and_bad_file_names_entry(tmp_path: Path) -> None:
    assert load_constants(tmp_path / "none.yaml") == {}
    bad = tmp_path / "throughput.yaml"
    bad.write_text(
        "classes: {dense: {eta_bw: 1.5, eta_compute: 0.4, tau_layer_s: 0, tau_seq_s: 0,"
        " eta_kv: 1, overlap_loss: 0, tau_allreduce_s: 0, tau_step_s: 0, eta_experts: 1, wave_share: 0,"
        " band: {}, errors: {},"
        " runs: 1, sources: 1}}\n"
    )
    with pytest.raises(CatalogError) as err:
        load_constants(bad)
    assert "dense" in str(err.value) and "eta_bw" in str(err.value)
