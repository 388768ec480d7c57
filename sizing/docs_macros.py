"""mkdocs-macros entry point (``plugins.macros.modules: [sizing.docs_macros]``): a thin shim.

All logic lives in the rest of :mod:`sizing`. Each macro is a plain function whose first
parameter is the page language; :func:`define_env` registers it under an ``sz_`` name and
passes the language of the page being rendered, read at call time. Adding a macro is one
line in :func:`define_env`::

    _register(env, "sz_fit_table", render.fit_table)   # {{ sz_fit_table(server="l40s") }}

Only ``define_env`` with ``env.macro`` is used, the subset Zensical's macros extension supports.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from sizing import charts
from sizing import i18n
from sizing import macros


def _register(env: Any, name: str, function: Callable[..., str]) -> None:
    """Register ``function(lang, *args, **kwargs)`` as the macro ``name(*args, **kwargs)``."""
    if not name.startswith("sz_"):
        raise ValueError(f"macro {name!r}: site macros are named sz_…")

    @functools.wraps(function)
    def macro(*args: Any, **kwargs: Any) -> str:
        return function(i18n.page_lang(env), *args, **kwargs)

    env.macro(macro, name)


def define_env(env: Any) -> None:
    """Register the site's macros with mkdocs-macros (called once per language build)."""
    _register(env, "sz_t", i18n.t)  # {{ sz_t("col_model") }} -> the label in the page language
    _register(env, "sz_chart_concurrency", charts.concurrency_chart)  # {{ sz_chart_concurrency("gpu-l40s") }}
    _register(env, "sz_chart_price", charts.price_chart)  # {{ sz_chart_price() }}
    _register(env, "sz_table", macros.table)  # {{ sz_table("what-fits") }}
    _register(env, "sz_fit_tables", macros.fit_tables)  # {{ sz_fit_tables() }}
    _register(env, "sz_example", macros.example)  # {{ sz_example("example-1") }}
    _register(env, "sz_value", macros.value)  # {{ sz_value("example-1", "weights_gib") }}
    _register(env, "sz_command", macros.command)  # {{ sz_command("example-1", engine="sglang") }}
    _register(env, "sz_parallel_tabs", macros.parallel_tabs)  # {{ sz_parallel_tabs(["dh-70b-tp4"]) }}
    _register(env, "sz_downloads", macros.downloads)  # {{ sz_downloads(page.url) }}
    _register(env, "sz_calibration_table", macros.calibration_table)  # {{ sz_calibration_table() }}
    _register(env, "sz_explorer", macros.explorer)  # {{ sz_explorer(page.url) }}
    _register(env, "sz_headline", macros.headline)  # {{ sz_headline("example-1", page.url) }}
