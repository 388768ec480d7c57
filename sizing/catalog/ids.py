"""Catalog ids as people type them: matched without regard to case, near misses answered with suggestions.

``resolve("--gpu", "L40S", cat.gpus)`` returns ``"l40s"``; ``resolve("--gpu", "h100", cat.gpus)`` raises
``--gpu: unknown GPU 'h100' (did you mean h100-80gb, h100-pcie, h100-nvl?)``. Suggestions are ids that
start with, contain or closely resemble (:func:`difflib.get_close_matches`) what was typed.
"""

from __future__ import annotations

import difflib
from typing import Iterable

from sizing.catalog.loader import Catalog
from sizing.errors import UsageError

MAX_SUGGESTIONS = 3
SHOWN_CHARS = 80


def shown(name: str) -> str:
    """``name`` as an error message quotes it: repr, cut to :data:`SHOWN_CHARS` characters."""
    text = repr(name)
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "…"


def suggestions(name: str, ids: Iterable[str]) -> list[str]:
    """Up to three ids close to ``name`` (any case): prefix matches, then containment, then similar ones."""
    ids = list(ids)
    lowered = {i.lower(): i for i in ids}
    key = name.lower().strip()
    short = {i.lower().rsplit("/", 1)[-1]: i for i in ids}
    found = [i for k, i in lowered.items() if key and (k.startswith(key) or short_of(k).startswith(key))]
    found += [i for k, i in lowered.items() if key and len(key) >= 3 and key in k]
    found += [lowered[k] for k in difflib.get_close_matches(key, lowered, n=MAX_SUGGESTIONS, cutoff=0.6)]
    found += [short[k] for k in difflib.get_close_matches(key, short, n=MAX_SUGGESTIONS, cutoff=0.6)]
    return list(dict.fromkeys(found))[:MAX_SUGGESTIONS]


def short_of(model_id: str) -> str:
    """The part of an ``org/name`` id after the slash (the whole id when there is none)."""
    return model_id.rsplit("/", 1)[-1]


def did_you_mean(name: str, ids: Iterable[str]) -> str:
    """`` (did you mean a, b?)`` or, with nothing close, an empty string."""
    close = suggestions(name, ids)
    return f" (did you mean {', '.join(close)}?)" if close else ""


def resolve(flag: str, name: str, ids: Iterable[str], kind: str) -> str:
    """The catalog id ``name`` denotes, ignoring case; else a UsageError naming ``flag`` with suggestions."""
    ids = list(ids)
    if name in ids:
        return name
    same = [i for i in ids if i.lower() == name.lower()]
    if len(same) == 1:
        return same[0]
    raise UsageError(
        f"{flag}: unknown {kind} {shown(name)}{did_you_mean(name, ids)}; "
        f"`python -m sizing list {kind_list(kind)}` lists them"
    )


def kind_list(kind: str) -> str:
    """The ``list`` subcommand of an id kind."""
    return {"GPU": "gpus", "server": "servers", "precision": "precisions"}.get(kind, "models")


def model_names(cat: Catalog) -> list[str]:
    """Every name ``--model`` accepts from the catalog: model ids, then checkpoint ids."""
    checkpoints = [c.id for m in cat.models.values() for c in m.checkpoints]
    return list(dict.fromkeys([*cat.models, *checkpoints]))


def resolve_model(cat: Catalog, name: str) -> str | None:
    """The model or checkpoint id ``name`` denotes, ignoring case; None when the catalog has no such id."""
    names = model_names(cat)
    if name in names:
        return name
    same = [i for i in names if i.lower() == name.lower()]
    return same[0] if len(same) == 1 else None
