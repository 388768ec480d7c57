"""Tests of sizing/review/calibration_left.py: the skipped and outlying logs with their kinds."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from sizing.errors import CatalogError
from sizing.review.calibration import CASE_FILES, DIR
from sizing.review.calibration_left import KINDS, left_out


def test_every_skipped_log_and_outlier_is_listed_with_what_its_log_states() -> None:
    """Assert the real cases file: every skipped log once, in file order, then the outliers."""
    files = [yaml.safe_load((DIR / name).read_text(encoding="utf-8")) for name in CASE_FILES]
    found = left_out()
    skipped = [case for spec in files for case in spec["skipped"]]
    assert [x.case for x in found] == [
        *skipped,
        *(case for spec in files for case in spec.get("outliers") or {}),
    ]
    maverick = next(x for x in found if x.case.startswith("vdb-llama-4-maverick-17b-128e-instruct-mi300x"))
    assert (maverick.kind, maverick.gpu) == ("not-modelled", "8x MI300X")
    assert not any(x.case.startswith("vdb-llama-3.3-70b-instruct-mi300x") for x in found)  # ROCm is modelled
    llama2 = next(x for x in found if x.case == "llama2-7b-a100-80g-tp1-gmu090")
    assert (llama2.kind, llama2.outlier) == ("old-profiler", False)
    assert (llama2.model, llama2.version, llama2.gpu) == ("meta-llama/Llama-2-7b", "", "A100 80GB")
    assert llama2.reason.startswith("A 2023")
    e2b = next(x for x in found if x.case == "gemma-4-e2b-l4-tp1-eager-v021")
    assert (e2b.gpu, e2b.kind, e2b.outlier) == ("1x L4", "no-config", False)  # the bracketed remark is cut
    assert all(x.kind in KINDS and x.model for x in found)


def _cases_dir(tmp_path: Path, skipped: object) -> Path:
    """A calibration folder with the real logs and a cases file whose ``skipped`` is ``skipped``."""
    (tmp_path / "vllm_logs.yaml").write_text(
        (DIR / "vllm_logs.yaml").read_text(encoding="utf-8"), encoding="utf-8"
    )
    (tmp_path / "cases.yaml").write_text(yaml.safe_dump({"cases": {}, "skipped": skipped}), encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(
    ("entry", "field"),
    [
        ("just a sentence", "reason"),
        ({"kind": "old-profiler"}, "reason"),
        ({"kind": "lost", "reason": "why"}, "kind"),
    ],
)
def test_a_bad_entry_stops_with_one_line_naming_it(tmp_path: Path, entry: object, field: str) -> None:
    """Assert the error names the file, the entry and the field."""
    with pytest.raises(CatalogError) as err:
        left_out(_cases_dir(tmp_path, {"some-log": entry}))
    assert str(err.value).startswith(f"calibration/cases.yaml: skipped.some-log.{field}: ")
