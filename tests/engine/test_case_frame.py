"""The catalog's cases before settings: compute classes and groups found from the case positions."""

from __future__ import annotations

import numpy as np

from sizing.engine.case_frame import case_frame
from sizing.engine.cases import Groups


def test_a_compute_class_shares_gpu_plan_model_and_kv_dtype(catalog):
    frame, (classes, representative, *_), _ = case_frame(catalog)
    key = [
        "checkpoint",
        "precision",
        "online_quantization",
        "kv_cache_dtype",
        "gpu",
        "tp",
        "pp",
        "ep",
        "max_context",
        "total_bytes",
    ]
    assert (frame[key].iloc[representative[classes]].to_numpy() == frame[key].to_numpy()).all()
    assert len(representative) < len(frame)  # servers of one GPU type share their classes


def test_groups_from_case_positions_are_the_groups_of_the_key_columns(catalog):
    # evaluate() groups rows by their positions (model row, server, KV dtype); the same partitions
    # follow from the key columns.
    frame, _, groups = case_frame(catalog)
    by_key = Groups.of(frame)
    for name in ("combination", "checkpoint_server", "model_server_kv"):
        mine, theirs = getattr(groups, name).ids, getattr(by_key, name).ids
        pairs = len(np.unique(mine.astype(np.int64) * (theirs.max() + 1) + theirs))
        assert pairs == len(np.unique(mine)) == len(np.unique(theirs)), name
    assert groups.combination.starts is not None  # combinations are runs of consecutive rows
