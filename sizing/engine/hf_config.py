"""A parsed Hugging Face ``config.json`` with typed, validated access for the importer.

vLLM reads the sizes that decide memory (layer counts, heads, widths, experts) as Python integers:
``range(config.num_hidden_layers)``, ``config.hidden_size // config.num_attention_heads``. A value
JSON gives as ``36.5``, ``true`` or ``1e309`` (which Python parses as infinity) is not such an
integer, so every field that sizes memory is read through :meth:`Config.count`, which refuses it by
field. ``Infinity`` and ``NaN`` stay acceptable in keys that do not size memory (Nemotron-H's
``time_step_limit``: vLLM loads the file with Python's ``json``, which accepts them). Every refusal is
one :class:`UsageError` line naming the file and the field.
"""

from __future__ import annotations

import math
import re
from typing import Any

from sizing.catalog.ids import shown
from sizing.errors import UsageError

COUNT_LIMIT = 10**12
"""Largest count a field may hold (the catalog schema's limit on integers)."""


class Config:
    """A config.json (``text_config`` merged over the top level) with a clear error for each bad field."""

    def __init__(self, raw: dict[str, Any], label: str) -> None:
        text = raw.get("text_config") or {}
        if not isinstance(text, dict):
            raise UsageError(f"{label}: text_config must be a JSON object")
        self.data, self.label, self.raw = {**raw, **text}, label, raw
        self.model_type = str(text.get("model_type") or raw.get("model_type") or "")

    def refuse(self, field: str, problem: str) -> UsageError:
        """The one-line error for ``field`` of this file."""
        return UsageError(f"{self.label}: {field}: {problem}")

    def need(self, *keys: str) -> Any:
        """The first present, non-null value among ``keys``; UsageError naming them when none is."""
        for key in keys:
            if self.data.get(key) is not None:
                return self.data[key]
        raise UsageError(f"{self.label}: missing key {' or '.join(keys)} (needed by the sizing engine)")

    def get(self, key: str, default: Any = None) -> Any:
        """An optional key (``default`` when absent or null)."""
        value = self.data.get(key)
        return default if value is None else value

    def count(self, *keys: str, minimum: int = 1) -> int:
        """The first present key among ``keys`` as an integer of at least ``minimum`` (refused otherwise)."""
        key = next((k for k in keys if self.data.get(k) is not None), keys[0])
        return as_count(self.need(*keys), self.label, key, minimum)

    def count_or(self, key: str, default: int, minimum: int = 0) -> int:
        """An optional integer field, ``default`` when absent or null."""
        value = self.data.get(key)
        return default if value is None else as_count(value, self.label, key, minimum)

    def flag(self, key: str, required: bool = False) -> bool:
        """A JSON boolean (false when absent and not ``required``); anything else is refused by field."""
        value = self.need(key) if required else self.data.get(key)
        if value is None:
            return False
        if not isinstance(value, bool):
            raise self.refuse(key, f"must be true or false, got {_shown(value)}")
        return value

    def ratio(self, key: str) -> float | None:
        """An optional finite fraction in (0, 1] (``partial_rotary_factor``); None when absent."""
        value = self.data.get(key)
        return None if value is None else as_fraction(value, self.label, key)


def as_count(value: Any, label: str, field: str, minimum: int = 1) -> int:
    """``value`` as a count vLLM can use: a JSON integer (not a boolean), ``minimum``..10^12.

    Floats are refused even when integral (``36.0``): vLLM passes these fields to ``range`` and
    ``torch.empty``, which take integers only; non-finite values (``1e309``, ``Infinity``) are
    refused with them.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise UsageError(f"{label}: {field}: must be an integer, got {_shown(value)}")
    if not minimum <= value <= COUNT_LIMIT:
        raise UsageError(f"{label}: {field}: must be between {minimum} and {COUNT_LIMIT}, got {value}")
    return value


def as_fraction(value: Any, label: str, field: str) -> float:
    """``value`` as a finite number in (0, 1]; refused by field otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise UsageError(f"{label}: {field}: must be a finite number, got {_shown(value)}")
    if not 0 < value <= 1:
        raise UsageError(f"{label}: {field}: must be in (0, 1], got {value}")
    return float(value)


def as_list(value: Any, label: str, field: str) -> list[Any]:
    """``value`` as a JSON list ([] when null); anything else is refused by field."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise UsageError(f"{label}: {field}: must be a list, got {_shown(value)}")
    return value


def plain(name: str) -> str:
    """A key or layer name as an error line shows it: as written when it is a plain identifier, else quoted
    and cut (:func:`sizing.catalog.ids.shown`), so no name can break the line or run on."""
    return name if re.fullmatch(r"[\w.\-*/]{1,80}", name) else shown(name)


def _shown(value: Any) -> str:
    """A value as the error line shows it: JSON spelling, at most 40 characters, one line."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    text = repr(value) if isinstance(value, (int, float)) else type(value).__name__
    return text if len(text) <= 40 else text[:37] + "..."


NESTED_UNREAD = (
    "text_config",
    "vision_config",
    "quantization_config",
    "rope_parameters",
    "linear_attn_config",
)
"""Modelled keys holding objects whose own fields are checked where they are read (or not read at all)."""


def check_finite(cfg: Config, modelled: frozenset[str]) -> None:
    """Refuse NaN and infinities (``1e309`` parses as one) in any modelled field, before anything is read.

    Keys known not to change memory keep them: vLLM loads Nemotron-H's ``"time_step_limit": [0.0, Infinity]``.
    """
    for key in sorted(k for k in cfg.data if k in modelled and k not in NESTED_UNREAD):
        values = cfg.data[key] if isinstance(cfg.data[key], list) else [cfg.data[key]]
        bad = next((v for v in values if isinstance(v, float) and not math.isfinite(v)), None)
        if bad is not None:
            raise cfg.refuse(plain(key), f"must be a finite number, got {_shown(bad)}")


def check_heads(cfg: Config) -> None:
    """KV heads must divide the attention heads, as vLLM's attention layer requires.

    Source: ``vllm-project/vllm@v0.20.0:vllm/attention/layer.py`` ``Attention.__init__``
    (``assert num_heads % num_kv_heads == 0``), so ``num_key_value_heads`` ≤ ``num_attention_heads``.
    """
    heads = cfg.count("num_attention_heads")
    kv = cfg.count_or("num_key_value_heads", heads, minimum=1)
    if kv > heads:
        raise cfg.refuse("num_key_value_heads", f"must be at most num_attention_heads ({heads}), got {kv}")
    if heads % kv:
        raise cfg.refuse("num_key_value_heads", f"must divide num_attention_heads ({heads}), got {kv}")


def check_layer_list(cfg: Config, key: str, layers: int) -> list[Any]:
    """A per-layer list (``layer_types``) must name exactly ``num_hidden_layers`` layers when present."""
    value = cfg.get(key) or []
    if not isinstance(value, list):
        raise cfg.refuse(key, f"must be a list, got {type(value).__name__}")
    if value and len(value) != layers:
        raise cfg.refuse(key, f"must name num_hidden_layers ({layers}) layers, got {len(value)}")
    return value
