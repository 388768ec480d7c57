"""The cells of the published tables: how one raw value of a row reads in a page language.

A :class:`ColumnSpec` names a row field, its header message key and its kind; :func:`format_cell` writes
one cell per language with :mod:`sizing.render.i18n`. Headers come from ``docs/messages/<lang>.yaml`` and
carry the unit, so cells hold plain numbers: memory in GiB (2^30), KV per token in KiB (2^10), nominal
capacities and file sizes in decimal GB.

Catalog text can never break a table, inject HTML or reach Jinja: :func:`escape_cell` folds
newlines, HTML-escapes ``<>&`` and writes ``|``, backticks, backslashes and braces as character
references. (mkdocs-macros does not render a macro's output again, and after this escaping no
``{{``/``{%`` survives anyway.)
"""

from __future__ import annotations

import functools
import html
import math
import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from sizing.render.catalog_text import server_name, source_refs, translate
from sizing.render.flagtext import flag, message_with_code
from sizing.render.i18n import fmt_money, fmt_number, fmt_percent, t
from sizing.render.plural import plural
from sizing.render.speed_cells import REASON_FIELD, speed_cell
from sizing.units import GB, GiB, KiB
from sizing.views.context_plans import differs_at, plan_at, plan_contexts_of

KINDS = frozenset(
    {
        "text",
        "int",
        "gib",
        "kib",
        "gb",
        "float1",
        "float2",
        "fraction",
        "money",
        "bool",
        "verdict",
        "plan",
        "change",
        "tier",
        "server",
        "catalog",
        "places",
        "source",
        "code",
        "fixed1",
        "users",
        "usd",
    }
)
NUMERIC = frozenset(
    {"int", "gib", "kib", "gb", "float1", "fixed1", "float2", "fraction", "money", "users", "usd"}
)
KIND_UNIT = {"gib": "unit_gib", "kib": "unit_kib", "gb": "unit_gb"}
DASH = "—"
_LINE_BREAKS = re.compile(r"[ \t]*[\r\n\v\f\u2028\u2029]+[ \t]*")
_ENTITIES = {"\\": "&#92;", "|": "&#124;", "`": "&#96;", "{": "&#123;", "}": "&#125;"}


@dataclass(frozen=True)
class ColumnSpec:
    """One column: the row field ``id``, its header message key, and how its cells are formatted.

    ``unit`` is the message key of the header's unit (default from the kind: gib, kib, gb);
    ``args`` fills the header's placeholders; ``decimals`` overrides the kind's fraction digits.
    """

    id: str
    header_key: str
    kind: str
    unit: str | None = None
    args: tuple[tuple[str, str], ...] = ()
    decimals: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"column {self.id!r}: unknown kind {self.kind!r}")


# ---------------------------------------------------------------------------------------------
# Cells
# ---------------------------------------------------------------------------------------------


def escape_cell(text: str) -> str:
    """``text`` made safe for one Markdown table cell: one line, no HTML, pipes, code or Jinja.

    Line breaks fold into one space; other spaces (such as Babel's no-break group separator) stay.
    """
    escaped = html.escape(_LINE_BREAKS.sub(" ", str(text)).strip(), quote=False)
    return "".join(_ENTITIES.get(ch, ch) for ch in escaped)


def is_missing(value: Any) -> bool:
    """Whether a cell value is absent (None, NaN, empty text)."""
    if value is None or (isinstance(value, str) and value == ""):
        return True
    return isinstance(value, float) and math.isnan(value)


WORD_KEYS = ("word_yes", "word_no", "plan_single_gpu")


def cell_words(lang: str) -> dict[str, str]:
    """The fixed words cells use, looked up once per table rather than once per cell."""
    return {key: t(lang, key) for key in WORD_KEYS}


@functools.lru_cache(maxsize=1 << 16)
def _num(value: float, lang: str, decimals: int) -> str:
    """:func:`sizing.render.i18n.fmt_number`, memoised (tables repeat the same numbers many times)."""
    return fmt_number(value, lang, decimals)


def _whole_or(value: float, lang: str, decimals: int) -> str:
    """``value`` without fraction digits when it rounds to a whole number, else with ``decimals``."""
    return _num(value, lang, 0 if round(float(value), decimals).is_integer() else decimals)


def plan_label(row: Mapping[str, Any], lang: str, words: Mapping[str, str] | None = None) -> str:
    """``1 GPU`` (zh ``单卡``), ``DP 2``, ``TP 2``, ``TP 4 × DP 2``, ``TP 8 × PP 2``: how the server runs
    the model. The one plan formatter of the site: tables, captions and chart legends use it."""
    plan = row.get("plan")
    if is_missing(plan):
        return DASH
    tp, pp, dp = (_num(int(row[k]), lang, 0) for k in ("tp", "pp", "dp"))
    if plan == "dp":
        return (words or cell_words(lang))["plan_single_gpu"] if int(row["dp"]) == 1 else f"DP {dp}"
    if plan == "dp-ep":  # data-parallel attention, experts spread over every rank
        return " × ".join([*([f"TP {tp}"] if int(row["tp"]) > 1 else []), f"DP {dp}"]) + " + EP"
    parts = [
        f"TP {tp}",
        *([f"PP {pp}"] if int(row["pp"]) > 1 else []),
        *([f"DP {dp}"] if int(row["dp"]) > 1 else []),
    ]
    return " × ".join(parts)


def plan_cell(row: Mapping[str, Any], lang: str, words: Mapping[str, str] | None = None) -> str:
    """:func:`plan_label`, followed by the plan of each published context launched on another plan
    (:mod:`sizing.views.context_plans`): ``DP 4 (128K: TP 2 × DP 2)``."""
    others = [
        t(lang, "plan_at_context", context=context_label(c), plan=plan_label(plan_at(row, c), lang, words))
        for c in plan_contexts_of(row)
        if differs_at(row, c)
    ]
    own = plan_label(row, lang, words)
    if not others:
        return own
    return t(lang, "plan_with_contexts", plan=own, others=t(lang, "list_separator").join(others))


def _code_message(lang: str, key: str, code: Mapping[str, str], **plain: str) -> str:
    """A message with flags as code spans, escaped for a table cell."""
    return message_with_code(lang, key, code, True, escape_cell, **plain)


def weight_only_note(row: Mapping[str, Any], lang: str) -> str:
    """The note for a format the GPU has no tensor cores for (vLLM runs it weight-only), or ""."""
    hw = str(row.get("weight_only") or "")
    return t(lang, f"note_weight_only_{hw}") if hw in ("fp8", "fp4") else ""


def change_label(row: Mapping[str, Any], lang: str) -> str:
    """Why the plan was chosen or, for a row that does not fit, the nearest change that would fit;
    plus the weight-only note where the GPU lacks the format's tensor cores."""
    text = _change_text(row, lang)
    note = escape_cell(weight_only_note(row, lang)) if bool(row.get("fits")) else ""
    return "; ".join(part for part in (text, note) if part)


_PLAN_ID = re.compile(r"^(?P<plan>[a-z-]+)-tp(?P<tp>\d+)-pp(?P<pp>\d+)-dp(?P<dp>\d+)$")


def target_plan(text: str) -> dict[str, Any] | None:
    """The plan of a suggested case, ``tp-tp8-pp1-dp1`` (the engine's ``change_plan``), as plan fields; None
    when the suggestion keeps the row's plan."""
    match = _PLAN_ID.match(text)
    if not match:
        return None
    return {"plan": match["plan"], **{k: int(match[k]) for k in ("tp", "pp", "dp")}}


def _change_text(row: Mapping[str, Any], lang: str) -> str:
    code, value = row.get("change") or "", str(row.get("change_value") or "")
    reason = str(row.get("reason") or "")
    if not code:
        if (
            reason == "fits-one-gpu"
            and not is_missing(row.get("server_gpus"))
            and int(row["server_gpus"]) == 1
        ):
            reason = "fits-the-gpu"  # "one copy per GPU" says nothing on a one-GPU server
        return (
            escape_cell(t(lang, f"reason_{reason.replace('-', '_')}"))
            if reason and reason != "no-fit"
            else ""
        )
    if code == "max-model-len":
        return _code_message(lang, "change_max_model_len", {"flag": flag("--max-model-len", int(value))})
    if code == "kv-fp8":
        return _code_message(lang, "change_kv_fp8", {"flag": "--kv-cache-dtype fp8"})
    if code == "gpu-memory-utilization":
        gmu = {"flag": flag("--gpu-memory-utilization", float(value))}
        plan = target_plan(str(row.get("change_plan") or ""))
        if plan:
            return _code_message(lang, "change_gmu_plan", gmu, plan=plan_label(plan, lang))
        return _code_message(lang, "change_gmu", gmu)
    if code == "more-gpus":
        return escape_cell(
            t(
                lang,
                "change_more_gpus",
                value=plural(lang, "plural_gpus", int(value), fmt_number(int(value), lang)),
            )
        )
    return escape_cell(t(lang, f"change_{code.replace('-', '_')}", value=value))


def _number(kind: str, value: float, lang: str, decimals: int | None) -> str:
    """A numeric cell of ``kind`` (bytes for gib/kib/gb); kib, gb and float1 drop a zero fraction."""
    if kind == "gib":
        return _num(value / GiB, lang, 2 if decimals is None else decimals)
    if kind == "kib":
        return _whole_or(value / KiB, lang, 1 if decimals is None else decimals)
    if kind == "gb":
        return _whole_or(value / GB, lang, 1 if decimals is None else decimals)
    if kind == "fraction":
        return fmt_percent(value, lang, decimals or 0)
    if kind == "float1":
        return _whole_or(value, lang, 1 if decimals is None else decimals)
    digits = {"int": 0, "float2": 2, "fixed1": 1}[kind]
    return _num(value, lang, digits if decimals is None else decimals)


def format_cell(
    col: ColumnSpec, row: Mapping[str, Any], lang: str, words: Mapping[str, str] | None = None
) -> str:
    """The text of one cell in ``lang`` (``—`` when the value is missing); ``words``: :func:`cell_words`."""
    if col.kind == "plan":
        return plan_cell(row, lang, words)
    if col.kind == "change":
        return change_label(row, lang)
    value: Any = row.get(col.id)
    if col.kind in REASON_FIELD:
        return escape_cell(speed_cell(col.kind, value, row, lang, DASH))
    if is_missing(value):
        return DASH
    if col.kind in TEXT_KINDS:
        return TEXT_KINDS[col.kind](str(value), lang)
    words = words or cell_words(lang)
    if col.kind == "bool":
        return words["word_yes" if value else "word_no"]
    if col.kind == "verdict":
        return verdict_cell(row, lang)
    if col.kind == "money":
        return fmt_money(float(value), str(row.get("currency") or "USD"), lang, col.decimals)
    return _number(col.kind, float(value), lang, col.decimals)


TEXT_KINDS: dict[str, Callable[[str, str], str]] = {
    "text": lambda v, lang: escape_cell(v),
    "code": lambda v, lang: f"<code>{escape_cell(v)}</code>",
    "server": lambda v, lang: escape_cell(server_name(lang, v)),
    "catalog": lambda v, lang: escape_cell(translate(lang, v)),
    "source": lambda v, lang: escape_cell(source_refs(lang, v)),
    "tier": lambda v, lang: escape_cell(t(lang, f"tier_{v}")),
    "places": lambda v, lang: escape_cell(
        t(lang, "list_separator").join(translate(lang, p) for p in v.split(", "))
    ),
}
"""Text cells: as written, as code, a server name, a translated catalog text, a source, a tier."""


def verdict_state(row: Mapping[str, Any]) -> str:
    """The row's verdict (:mod:`sizing.views.verdict`): ``fits``, ``tight``, ``borderline`` or ``no-fit``, the
    word key and the badge class. Decided there; this only reads it."""
    state = row.get("verdict")
    if is_missing(state):
        raise ValueError("a verdict cell needs the row's 'verdict' (sizing.views.verdict.verdicts)")
    return str(state)


VERDICT_WORD = {
    "fits": "verdict_fits",
    "tight": "verdict_tight",
    "borderline": "verdict_borderline",
    "no-fit": "verdict_does_not_fit",
    "unsupported": "verdict_unsupported",
}
VERDICT_AT = {"fits": "verdict_fits_to", "tight": "verdict_tight_to", "borderline": "verdict_borderline_at"}
"""The verdict with the context it names: fits/tight up to the longest that starts, borderline at one."""


def verdict_text(row: Mapping[str, Any], lang: str) -> str:
    """``Fits up to 128K``, ``Tight up to 4K``, ``Borderline at 32K`` or ``Does not fit`` (no emoji: the site
    draws it as a badge)."""
    state = verdict_state(row)
    if state in ("no-fit", "unsupported"):
        return t(lang, VERDICT_WORD[state])
    return t(lang, VERDICT_AT[state], context=context_label(int(row["verdict_context"])))


def verdict_cell(row: Mapping[str, Any], lang: str) -> str:
    """:func:`verdict_text`, escaped for a table cell."""
    return escape_cell(verdict_text(row, lang))


def header(col: ColumnSpec, lang: str) -> str:
    """The header of ``col`` in ``lang``, with its unit: ``Weights per GPU (GiB)``."""
    label = t(lang, col.header_key, **dict(col.args))
    unit = col.unit or KIND_UNIT.get(col.kind)
    text = t(lang, "col_with_unit", label=label, unit=t(lang, unit)) if unit else label
    return escape_cell(text)


def context_label(tokens: int) -> str:
    """``4K``, ``32K``, ``128K`` for multiples of 1024 tokens, else the number."""
    return f"{tokens // 1024}K" if tokens % 1024 == 0 else str(tokens)
