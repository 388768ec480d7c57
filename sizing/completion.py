"""``python -m sizing completion bash``: a bash completion script written from the parser itself.

argparse has no completion of its own, so the script is generated: the commands, each command's
options, the choices of options that have them, and the catalog's ids after ``--model``, ``--gpu``,
``--server`` and ``--precision`` (as they are when the script is written). Install it with
``python -m sizing completion bash > ~/.local/share/bash-completion/completions/sizing``; it
completes the ``sizing`` console script.
"""

from __future__ import annotations

import argparse
import shlex

from sizing.catalog.ids import model_names
from sizing.catalog.loader import Catalog

FUNCTION = "_sizing_complete"


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))  # noqa: SLF001
    return dict(action.choices)


def _options(parser: argparse.ArgumentParser) -> list[str]:
    return [flag for action in parser._actions for flag in action.option_strings]  # noqa: SLF001


def _values(parser: argparse.ArgumentParser, cat: Catalog) -> dict[str, list[str]]:
    """Per option: the words it takes (argparse choices, else catalog ids)."""
    ids = {
        "--model": model_names(cat),
        "--gpu": list(cat.gpus),
        "--server": list(cat.servers),
        "--precision": list(cat.precisions),
    }
    values: dict[str, list[str]] = dict(ids)
    for sub in _subparsers(parser).values():
        for action in sub._actions:  # noqa: SLF001 - argparse has no public API for its actions
            if action.choices and action.option_strings:
                for flag in action.option_strings:
                    values[flag] = [str(c) for c in action.choices]
    return values


def _case(items: dict[str, list[str]], indent: str) -> list[str]:
    lines = []
    for key, words in items.items():
        lines.append(f"{indent}{shlex.quote(key)}) words={shlex.quote(' '.join(words))} ;;")
    return lines


def bash_script(parser: argparse.ArgumentParser, cat: Catalog) -> str:
    """The bash completion script for ``parser`` and the catalog ``cat``."""
    subs = _subparsers(parser)
    values = _values(parser, cat)
    per_command = {
        name: _options(sub)
        + [
            c
            for a in sub._actions  # noqa: SLF001
            if not a.option_strings and a.choices
            for c in a.choices
        ]
        for name, sub in subs.items()
    }
    lines = [
        "# bash completion for sizing (python -m sizing completion bash)",
        f"{FUNCTION}() {{",
        '  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} words="" cmd="" w',
        '  case "$prev" in',
        *_case(values, "    "),
        "  esac",
        '  if [ -z "$words" ]; then',
        '    for w in "${COMP_WORDS[@]:1:COMP_CWORD-1}"; do',
        f'      case "$w" in {"|".join(subs)}) cmd=$w; break ;; esac',
        "    done",
        '    case "$cmd" in',
        *_case(per_command, "      "),
        f"      *) words={shlex.quote(' '.join([*subs, *_options(parser)]))} ;;",
        "    esac",
        "  fi",
        '  COMPREPLY=($(compgen -W "$words" -- "$cur"))',
        "}",
        f"complete -F {FUNCTION} sizing",
        "",
    ]
    return "\n".join(lines)
