"""The logs the calibration does not use as it uses the others, each with the kind of reason why.

``calibration/cases.yaml`` names two sets besides the reproduced cases:

- ``skipped``: logs that are not reproduced at all (``{kind, reason}``);
- ``outliers``: reproduced logs that miss the project's error bounds (``{kind, reason, bounds}``).

The ``kind`` is one word from :data:`KINDS`, which the site translates; the ``reason`` is the maintainers'
English detail, kept in ``calibration/results.md``. :func:`left_out` joins both with what the log itself
says (model, vLLM release, GPU), so the methodology page can list them in every language.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sizing.errors import CatalogError
from sizing.review.calibration import DIR, load

KINDS = (
    "old-profiler",
    "too-little-logged",
    "not-in-catalog",
    "not-modelled",
    "no-config",
    "approximate",
    "unexplained",
    "only-one-of-its-kind",
)
"""Why a log is skipped or misses the bounds: a release before the modelled profiler, a log without the
figures or settings a check needs, a checkpoint not in the catalog, an architecture the engine does not
express, no public config.json, approximate figures, a charge no modelled term explains, or the only log
of its kind (nothing else constrains the term it needs)."""
FILE = "calibration/cases.yaml"


@dataclass(frozen=True)
class LeftOut:
    """One skipped or outlying log: its id, the kind of reason, the detail and what the log states."""

    case: str
    kind: str
    reason: str
    model: str
    version: str
    gpu: str
    outlier: bool = False


def _entry(case: str, spec: Any, section: str) -> tuple[str, str]:
    """(kind, reason) of one ``section`` entry, or a one-line error naming the file, entry and field."""
    entry = f"{section}.{case}"
    if not isinstance(spec, dict) or not isinstance(spec.get("reason"), str) or not spec["reason"].strip():
        raise CatalogError(FILE, entry, "reason", "give the kind and an English reason: {kind: …, reason: …}")
    if spec.get("kind") not in KINDS:
        raise CatalogError(FILE, entry, "kind", f"{spec.get('kind')!r} is not one of {', '.join(KINDS)}")
    return spec["kind"], " ".join(spec["reason"].split())


def _short(text: object) -> str:
    """A log's free-text field up to its first parenthesis (the model or GPU it names, not the notes)."""
    return str(text or "").split(" (")[0].strip()


def left_out(directory: Path = DIR) -> tuple[LeftOut, ...]:
    """Every skipped log, then every outlier, in file order, with the log's model, release and GPU."""
    logs, spec = load(directory)
    found: list[LeftOut] = []
    for section in ("skipped", "outliers"):
        for case, entry in (spec.get(section) or {}).items():
            kind, reason = _entry(case, entry, section)
            log = logs.get(case, {})
            found.append(
                LeftOut(
                    case,
                    kind,
                    reason,
                    _short(log.get("model")),
                    _short(log.get("vllm_version")),
                    _short(log.get("gpu")),
                    outlier=section == "outliers",
                )
            )
    return tuple(found)
