"""How much text a context holds: characters of Chinese, Russian or English prose per ``--max-model-len``.

The tokens per character are the catalog's (``tokens_per_char_<lang>`` in ``catalog/assumptions.yaml``,
measured by ``python -m scripts.tokens_per_char`` with the Qwen and DeepSeek tokenizers on the site's own
pages; the larger of the two is kept, so the figure is the cautious one).
"""

from __future__ import annotations

import math
from typing import Any, Callable

TEXT_LANGS = ("zh", "ru", "en")
"""The languages whose tokens per character the catalog holds."""


def characters_held(tokens: int, text_lang: str, assume: Callable[[str], Any]) -> int:
    """Whole characters of prose in ``text_lang`` that ``tokens`` tokens hold: floor(tokens / tokens per
    character); ``assume``: ``Catalog.assume``. Raises KeyError for a language the catalog has no ratio
    for."""
    if text_lang not in TEXT_LANGS:
        raise KeyError(f"no tokens_per_char for {text_lang!r}; one of {', '.join(TEXT_LANGS)}")
    return math.floor(tokens / float(assume(f"tokens_per_char_{text_lang}")))
