"""Where each explorer suggestion leads: the case a reader opens by following "the nearest change".

For every explorer row (:func:`sizing.render.explorer_data.explorer_rows`) and every published context,
a row that does not fit there gets a target, ``[row index, context]``, when the catalog has a case the
suggestion names that fits at that context:

- a row that fits at its own ``--max-model-len`` but not at a longer context: the same row at the
  longest published context where it fits (a shorter ``--max-model-len`` the engine advises for a row
  that fits nowhere is not a published case: it stays text);
- ``kv-fp8``: the same checkpoint on the same server with ``--kv-cache-dtype fp8``;
- ``checkpoint``: the suggested checkpoint on the same server with the same KV cache type;
- ``more-gpus``: the same checkpoint and KV type on the server with the fewest GPUs of the same type,
  at least as many as suggested, where it fits; failing that, the server with the fewest GPUs of
  any type where it fits (the explorer names the server it leads to).

Otherwise the target is ``None`` and the explorer shows the suggestion as text. These are look-ups in
the rows the engine already evaluated; nothing is computed here.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

FITTING = ("fits", "tight")
Target = list[int] | None


def _bare(name: str) -> str:
    """A precision name without parentheses, as the advice writes it (``FP8 (E4M3)`` -> ``FP8 E4M3``)."""
    return name.replace("(", "").replace(")", "")


class Lookup:
    """The explorer rows indexed for the look-ups of :func:`targets`."""

    def __init__(self, rows: pd.DataFrame, contexts: list[int]) -> None:
        self.contexts = contexts
        self.records: list[dict[str, Any]] = rows.to_dict("records")
        self.by_case = {self.case(r): i for i, r in enumerate(self.records)}
        self.by_gpu: dict[tuple[Any, ...], list[int]] = {}
        for i, r in enumerate(self.records):
            self.by_gpu.setdefault((r["checkpoint"], r["precision"], r["kv_cache_dtype"], r["gpu"]), []).append(i)
        names = rows.drop_duplicates("precision")
        self.precision_ids = {_bare(n): p for n, p in zip(names["precision_name"].astype(str), names["precision"].astype(str))}

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


def _checkpoint(look: Lookup, r: dict[str, Any], context: int) -> Target:
    checkpoint, _, label = str(r["change_value"]).partition(" (")  # "org/name (FP8 E4M3)": ids have no space
    precision = look.precision_ids.get(_bare(label[:-1]), label[:-1])
    return look.at(look.by_case.get((checkpoint, precision, str(r["server"]), str(r["kv_cache_dtype"]))), context)


def _more_gpus(look: Lookup, r: dict[str, Any], context: int) -> Target:
    need = int(r["change_value"])
    same = look.by_gpu.get((r["checkpoint"], r["precision"], r["kv_cache_dtype"], r["gpu"]), [])
    fitting = [i for i in same if int(look.records[i]["server_gpus"]) >= need and look.fits(i, context)]
    if not fitting:  # no server of these GPUs is large enough: the smallest server of any GPU that holds it
        fitting = [i for key, some in look.by_gpu.items() if key[:3] == (r["checkpoint"], r["precision"],
                   r["kv_cache_dtype"]) for i in some if look.fits(i, context)]
    best = min(fitting, key=lambda i: (int(look.records[i]["server_gpus"]), i), default=None)
    return look.at(best, context)


def target(look: Lookup, index: int, context: int) -> Target:
    """The case row ``index``'s suggestion at ``context`` leads to (see the module docstring)."""
    r = look.records[index]
    if r[f"status_{context}"] != "no-fit":
        return None
    change = str(r.get("change") or "")
    if bool(r["fits"]):
        return _shorter(look, index)
    if change == "kv-fp8":
        return look.at(look.by_case.get((str(r["checkpoint"]), str(r["precision"]), str(r["server"]), "fp8")), context)
    if change == "checkpoint":
        return _checkpoint(look, r, context)
    if change == "more-gpus":
        return _more_gpus(look, r, context)
    return None


def targets(rows: pd.DataFrame, contexts: list[int]) -> list[list[Target]]:
    """Per row, per context in ``contexts``: the target of its suggestion (:func:`target`)."""
    look = Lookup(rows, contexts)
    return [[target(look, i, c) for c in contexts] for i in range(len(look.records))]
