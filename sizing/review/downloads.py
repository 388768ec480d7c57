"""The site's downloads: the whole matrix as ``fits.csv`` and column-oriented ``fits.json``.

:func:`write_downloads` writes ``downloads/fits.csv`` and ``fits.json`` (the same rows and columns,
the JSON column-oriented with a string table per text column) into the built site's root; ``export``
commits the CSV (with its stable row id) in ``generated/``.
"""

from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path
from typing import Any

import pandas as pd

from sizing.views.bundle import SiteContext
from sizing.views.matrix import matrix_view

ROOT = Path(__file__).resolve().parent.parent.parent
"""The repository (its git revision names the catalog of a build)."""


def matrix_frame(ctx: SiteContext) -> pd.DataFrame:
    """Every matrix row (all plans) as :func:`sizing.views.matrix.matrix_view`, with a unique id, sorted
    by it."""
    view = matrix_view(ctx.frame, ctx.contexts)
    return view.sort_values("id", kind="stable").reset_index(drop=True)


DIGITS = 5
"""Significant digits of every float in the downloads and ``generated/fits.csv``: GiB to 0.01 below
1000 GiB, as vLLM prints them (more would only weigh: the site stays under its size target)."""


def matrix_csv(ctx: SiteContext, with_id: bool = True) -> str:
    """The whole matrix as CSV (floats to :data:`DIGITS` significant digits, missing values empty); the site's
    download leaves out the ``id`` column (``with_id=False``): it only joins the row's other keys."""
    frame = matrix_frame(ctx) if with_id else matrix_frame(ctx).drop(columns="id")
    return frame.to_csv(index=False, float_format=f"%.{DIGITS}g", lineterminator="\n")


def _json_value(value: Any) -> Any:
    """A JSON-safe scalar (NaN -> null, NumPy -> Python, floats to :data:`DIGITS` significant digits, whole
    floats
    as integers)."""
    value = value.item() if hasattr(value, "item") else value
    if isinstance(value, float):
        if math.isnan(value):
            return None
        rounded = float(f"{value:.{DIGITS}g}")
        return int(rounded) if rounded.is_integer() and abs(rounded) < 1e15 else rounded
    return value


JSON_LAYOUT = (
    "columns: one array per column, one value per row, every array in the same row order; "
    "a column named in strings holds indices into strings[column]"
)
"""The layout note written into ``fits.json`` (the fit-tables page documents it in every language)."""


def column_arrays(frame: pd.DataFrame) -> tuple[dict[str, list[Any]], dict[str, list[Any]]]:
    """(columns, strings) of ``frame``: each column as a list of JSON values; every text column as
    indices into its table of distinct values (in first-seen order)."""
    columns: dict[str, list[Any]] = {}
    strings: dict[str, list[Any]] = {}
    for name in frame.columns:
        values = [_json_value(v) for v in frame[name].tolist()]
        if pd.api.types.is_string_dtype(frame[name]) or frame[name].dtype == object:
            table = {v: i for i, v in enumerate(dict.fromkeys(values))}
            strings[name], values = list(table), [table[v] for v in values]
        columns[name] = values
    return columns, strings


def matrix_json(ctx: SiteContext, revision: str) -> str:
    """The matrix as column-oriented JSON (:data:`JSON_LAYOUT`): revision, vLLM version, contexts,
    the row count, the string tables, then one line per column; the same rows and columns as the CSV."""
    columns, strings = column_arrays(matrix_frame(ctx).drop(columns="id"))
    head = {
        "catalog_revision": revision,
        "vllm_version": ctx.frame.attrs["vllm_version"],
        "vllm_rules": ctx.frame.attrs["rules"],
        "contexts": ctx.contexts,
        "layout": JSON_LAYOUT,
        "row_count": len(next(iter(columns.values()), [])),
        "strings": strings,
    }

    def dump(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))

    lines = [f"{dump(name)}:{dump(values)}" for name, values in columns.items()]
    return dump(head)[:-1] + ',\n"columns":{\n' + ",\n".join(lines) + "\n}}\n"


def catalog_revision(directory: Path = ROOT) -> str:
    """``git rev-parse HEAD`` of the repository holding ``directory``, or a note when there is none."""
    try:
        out = subprocess.run(
            ["git", "-C", str(directory), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown (not a git checkout)"
    return out.stdout.strip()


def download_texts(ctx: SiteContext) -> dict[str, str]:
    """The downloads' contents by file name: ``fits.csv`` and ``fits.json`` (the same for every language)."""
    revision = catalog_revision(ctx.catalog_dir or ROOT)
    return {"fits.csv": matrix_csv(ctx, with_id=False), "fits.json": matrix_json(ctx, revision)}


def write_downloads(site_lang_dirs: str | Path | list[Path], ctx: SiteContext) -> list[Path]:
    """Write ``downloads/fits.csv`` and ``downloads/fits.json`` of ``ctx`` under each language root
    (computed once)."""
    roots = [Path(d) for d in site_lang_dirs] if isinstance(site_lang_dirs, list) else [Path(site_lang_dirs)]
    texts, written = download_texts(ctx), []
    for root in roots:
        (root / "downloads").mkdir(parents=True, exist_ok=True)
        for name, text in texts.items():
            (root / "downloads" / name).write_text(text, encoding="utf-8")
            written.append(root / "downloads" / name)
    return written
