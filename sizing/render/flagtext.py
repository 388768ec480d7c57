"""Messages that quote command-line flags: the flag and its value stay code in every language.

A value that belongs to a flag is what vLLM parses, so it is written raw (``32768``, ``0.90``)
whatever the page language, and on pages it is set as ``<code>``: ``--max-model-len 32768``
must survive copy and paste. Numbers that are quantities (GiB, tokens, requests) are still
formatted for the language by :mod:`sizing.render.i18n`; only flag values go through here.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping

from sizing.render.i18n import t

__all__ = ["flag", "flag_value", "message_with_code"]


def flag_value(value: object) -> str:
    """A flag value as vLLM reads it: integers bare, fractions with two decimals and a dot."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and not value.is_integer():
        return f"{value:.2f}"
    if isinstance(value, (int, float)):
        return str(int(value))
    return str(value)


def flag(name: str, value: object) -> str:
    """``--name value`` (``value`` through :func:`flag_value`)."""
    return f"{name} {flag_value(value)}"


def _sentinel(i: int) -> str:
    return f"\ue000{i}\ue001"


def message_with_code(
    lang: str,
    key: str,
    code: Mapping[str, str],
    markdown: bool = True,
    escape: Callable[[str], str] = html.escape,
    **plain: str,
) -> str:
    """The ``lang`` text of ``key``: ``code`` placeholders as code spans, ``plain`` ones as text.

    With ``markdown`` the result is escaped by ``escape`` (the table-cell escaper) with each code
    value inserted afterwards as ``<code>…</code>``; without it (CLI text) code values are bare.
    """
    if not markdown:
        return t(lang, key, **code, **plain)
    names = list(code)
    text = escape(t(lang, key, **{n: _sentinel(i) for i, n in enumerate(names)}, **plain))
    for i, name in enumerate(names):
        text = text.replace(_sentinel(i), f"<code>{html.escape(code[name], quote=False)}</code>")
    return text


def plain_text(markup: str) -> str:
    """``markup`` (a cell or message with ``<code>`` spans and HTML entities) as plain terminal text."""
    return html.unescape(re.sub(r"</?code>", "", markup))
