"""The one verdict of a case: fits, tight, borderline or does not fit, and the longest context that starts.

Every table, the explorer, the CLI (``estimate``) and the prose read their verdicts from here, so they
cannot disagree. At one context length ``c`` (launched with ``--max-model-len c``):

- ``no-fit``: vLLM refuses to start even at the optimistic end of the available-KV band;
- ``borderline``: the band straddles the point where vLLM refuses to start (it starts at the band's
  optimistic end, not at its cautious end, which the blocks are counted from);
- ``tight``: it starts at the cautious end but holds fewer whole requests of ``c`` tokens at once than
  the catalog's ``tight_below_sequences`` (the one threshold, stated on the methodology page);
- ``fits``: it starts and holds at least that many;
- ``beyond``: ``c`` is longer than the model's own context;
- ``unsupported``: vLLM has no kernel for the weight format on this GPU (``unsupported`` column,
  :mod:`sizing.engine.capability`): it stops at start-up whatever the memory, so every context of the row
  reads "not supported on this GPU", never "does not fit".

A row's verdict is its state at its own ``--max-model-len``; where that does not start (``no-fit``) it
is the state at the longest published shorter context that does start or is borderline, so a row can
read "fits up to 4K". ``verdict_context`` names that context (tokens): for ``fits`` and ``tight`` the
longest context that starts, for ``borderline`` the one in doubt, 0 for ``no-fit``.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import pandas as pd

STATES = ("fits", "tight", "borderline", "no-fit", "unsupported")
"""The verdicts, best first."""
UNSUPPORTED = "unsupported"
BEYOND = "beyond"
STARTS = ("fits", "tight")
"""The states in which vLLM starts (at the band's cautious end)."""


def context_state(sequences: Any, optimistic: Any, beyond: Any, tight_below: int) -> np.ndarray:
    """The state at one context per row: ``sequences`` whole requests the server holds at the cautious end,
    ``optimistic``: whether the band's optimistic end starts, ``beyond``: the context exceeds the model's."""
    seq = np.nan_to_num(np.asarray(sequences, dtype=np.float64))
    beyond, optimistic = np.asarray(beyond, dtype=bool), np.asarray(optimistic, dtype=bool)
    conditions = [beyond, seq >= tight_below, seq >= 1, optimistic]
    return np.select(conditions, ["beyond", "fits", "tight", "borderline"], "no-fit").astype(object)


def context_states(df: pd.DataFrame, contexts: list[int], tight_below: int) -> dict[int, np.ndarray]:
    """:func:`context_state` at every published context, from the matrix columns ``sequences_<c>`` and
    ``starts_optimistic_<c>``."""
    return {
        c: context_state(
            df[f"sequences_{c}"], df[f"starts_optimistic_{c}"], c > df["max_context"], tight_below
        )
        for c in contexts
    }


def launch_state(df: pd.DataFrame, tight_below: int) -> np.ndarray:
    """The state at each row's own ``--max-model-len`` (``fits``, ``fits_optimistic``, whole requests at once
    over the server's ``dp`` replicas)."""
    whole = np.where(df["fits"], np.floor(df["max_concurrency"].to_numpy(dtype=np.float64)) * df["dp"], 0)
    state = context_state(whole, df["fits_optimistic"], np.zeros(len(df), dtype=bool), tight_below)
    return np.where(refused(df), UNSUPPORTED, state).astype(object)


def refused(df: pd.DataFrame) -> np.ndarray:
    """Per row: vLLM has no kernel for the row's weight format on its GPU (the engine's ``unsupported``
    column, :mod:`sizing.engine.capability`; False for frames without it)."""
    if "unsupported" not in df.columns:
        return np.zeros(len(df), dtype=bool)
    return df["unsupported"].to_numpy(dtype=bool)


def verdicts(df: pd.DataFrame, contexts: list[int], tight_below: int) -> pd.DataFrame:
    """``verdict``, ``verdict_context`` and ``state_<c>`` per published context of every row of ``df``
    (see the module docstring), indexed as ``df``."""
    states = context_states(df, contexts, tight_below)
    verdict = launch_state(df, tight_below)
    launch = df["max_model_len"].to_numpy(dtype=np.int64)
    starts_to = np.where(np.isin(verdict, STARTS), launch, 0)
    borderline_at = np.zeros(len(df), dtype=np.int64)
    fallback, fallback_at = np.full(len(df), "no-fit", dtype=object), np.zeros(len(df), dtype=np.int64)
    for c in sorted(contexts):
        starts, shorter = np.isin(states[c], STARTS), c < launch
        starts_to = np.where(starts, np.maximum(starts_to, c), starts_to)
        fallback, fallback_at = (
            np.where(starts & shorter, states[c], fallback),
            np.where(starts & shorter, c, fallback_at),
        )
        borderline_at = np.where((states[c] == "borderline") & shorter, c, borderline_at)
    fallback = np.where((fallback == "no-fit") & (borderline_at > 0), "borderline", fallback)
    fallback_at = np.where(fallback == "borderline", borderline_at, fallback_at)
    no_fit = verdict == "no-fit"
    out = pd.DataFrame(
        {
            "verdict": np.where(no_fit, fallback, verdict),
            "verdict_context": np.where(
                no_fit, fallback_at, np.where(verdict == "borderline", launch, starts_to)
            ),
        },
        index=df.index,
    )
    for c, state in states.items():
        out[f"state_{c}"] = state
    return refuse_unsupported(out, df)


def refuse_unsupported(out: pd.DataFrame, df: pd.DataFrame) -> pd.DataFrame:
    """``out`` (the columns of :func:`verdicts`) with every state of the rows ``df`` marks ``unsupported``
    set to ``unsupported`` and their ``verdict_context`` to 0."""
    no_kernel = refused(df)
    for name in [n for n in out.columns if n == "verdict" or n.startswith("state_")]:
        out[name] = np.where(no_kernel, UNSUPPORTED, out[name].to_numpy(dtype=object))
    out["verdict_context"] = np.where(no_kernel, 0, out["verdict_context"].to_numpy())
    return out


def with_verdicts(df: pd.DataFrame, contexts: list[int], tight_below: int) -> pd.DataFrame:
    """``df`` with the columns of :func:`verdicts` added (a new frame)."""
    return pd.concat([df, verdicts(df, contexts, tight_below)], axis=1)


def row_verdict(row: Mapping[str, Any], contexts: list[int], tight_below: int) -> tuple[str, int]:
    """(verdict, verdict_context) of one evaluated row (an estimate): :func:`verdicts` of a one-row frame."""
    one = verdicts(pd.DataFrame([dict(row)]), [c for c in contexts if f"sequences_{c}" in row], tight_below)
    return str(one["verdict"].iloc[0]), int(one["verdict_context"].iloc[0])


def launch_verdict(row: Mapping[str, Any], tight_below: int) -> str:
    """The state of one evaluated row at its own ``--max-model-len`` (what ``estimate --json`` reports)."""
    return str(launch_state(pd.DataFrame([dict(row)]), tight_below)[0])


def judge(row: pd.Series, contexts: list[int], tight_below: int) -> pd.Series:
    """An evaluated row (an estimate) with ``verdict`` and ``verdict_context`` added."""
    verdict, context = row_verdict(row, contexts, tight_below)
    return pd.concat([row, pd.Series({"verdict": verdict, "verdict_context": context})])


def tight_below(assume: Any) -> int:
    """The catalog's one threshold of tight (``tight_below_sequences``); ``assume``: ``Catalog.assume``."""
    return int(assume("tight_below_sequences"))
