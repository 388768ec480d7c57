"""Where each explorer suggestion leads: the case a reader opens by following "the nearest change".

For every explorer row (:func:`sizing.views.explorer_data.explorer_rows`) and every published context,
a row that does not fit there (no-fit or borderline) gets a target, ``[row index, context]``, when the
catalog has a case the suggestion names that fits at that context:

- a row that starts at a shorter published context: the same row at the longest such context;
- otherwise the case of the row's nearest change as :func:`sizing.views.advice.suggestion` names it
  (``kv-fp8``: the fp8 KV case; ``checkpoint``: the suggested checkpoint on the same server;
  ``more-gpus``: the catalog server with the fewest of these GPUs that has enough), when the explorer
  has that case and it fits there; for ``more-gpus`` with no such server, the server with the fewest
  GPUs of any type where the same checkpoint fits (the explorer names the server it leads to).

Otherwise the target is ``None`` (a shorter ``--max-model-len`` or a higher ``--gpu-memory-utilization``
than the published cases) and the explorer shows the suggestion as text. These are look-ups in the rows
the engine already evaluated; nothing is computed here.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from sizing.catalog.loader import Catalog
from sizing.views.advice import suggestion

FITTING = ("fits", "tight")
Target = list[int] | None


class Lookup:
    """The explorer rows indexed for the look-ups of :func:`targets`."""

    def __init__(self, rows: pd.DataFrame, contexts: list[int]) -> None:
        self.contexts = contexts
        self.records: list[dict[str, Any]] = rows.to_dict("records")
        self.by_case = {self.case(r): i for i, r in enumerate(self.records)}
        self.by_checkpoint: dict[tuple[Any, ...], list[int]] = {}
        for i, r in enumerate(self.records):
            key = (r["checkpoint"], r["precision"], r["kv_cache_dtype"])
            self.by_checkpoint.setdefault(key, []).append(i)

    @staticmethod
    def case(r: dict[str, Any]) -> tuple[str, str, str, str]:
        """(checkpoint, precision, server, KV type) of a row."""
        return str(r["checkpoint"]), str(r["precision"]), str(r["server"]), str(r["kv_cache_dtype"])

    def fits(self, index: int, context: int) -> bool:
        """Whether row ``index`` holds a whole sequence of ``context`` tokens."""
        return self.records[index][f"status_{context}"] in FITTING

    def at(self, index: int | None, context: int) -> Target:
        """``[index, context]`` when that row fits there, else None."""
        return [index, context] if index is not None and self.fits(index, context) else None


def _shorter(look: Lookup, index: int) -> Target:
    fitting = [c for c in look.contexts if look.fits(index, c)]
    return [index, fitting[-1]] if fitting else None


def _any_server(look: Lookup, r: dict[str, Any], context: int) -> Target:
    """The server with the fewest GPUs of any type where the row's checkpoint and KV type fit at
    ``context``."""
    same = look.by_checkpoint.get((r["checkpoint"], r["precision"], r["kv_cache_dtype"]), [])
    fitting = [i for i in same if look.fits(i, context)]
    best = min(fitting, key=lambda i: (int(look.records[i]["server_gpus"]), i), default=None)
    return look.at(best, context)


def target(look: Lookup, cat: Catalog, index: int, context: int) -> Target:
    """The case row ``index``'s suggestion at ``context`` leads to (see the module docstring)."""
    r = look.records[index]
    if r[f"status_{context}"] not in ("no-fit", "borderline"):
        return None
    shorter = _shorter(look, index)
    if shorter is not None and shorter[1] < context:
        return shorter
    found = suggestion(r, cat)
    if found is None:
        return None
    case = found["target"]
    if case is None:
        return _any_server(look, r, context) if found["kind"] == "more-gpus" else None
    if found["kind"] not in ("kv-fp8", "checkpoint", "more-gpus"):
        return None
    key = (str(case["checkpoint"]), str(case["precision"]), str(case["server"]), str(case["kv_cache_dtype"]))
    return look.at(look.by_case.get(key), context)


def targets(rows: pd.DataFrame, contexts: list[int], cat: Catalog) -> list[list[Target]]:
    """Per row, per context in ``contexts``: the target of its suggestion (:func:`target`)."""
    look = Lookup(rows, contexts)
    return [[target(look, cat, i, c) for c in contexts] for i in range(len(look.records))]
