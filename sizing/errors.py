"""The one error a bad catalog (or a bad command-line value) produces."""

from __future__ import annotations


def one_line(text: str) -> str:
    """``text`` with every control or invisible character escaped as Python writes it (``\\n``, ``\\x1b``),
    so a message quoting a hostile id stays on one line."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class CatalogError(Exception):
    """A catalog entry is invalid.

    The message always names the file, the entry and the field, as
    ``catalog/gpus.yaml: l40s.memory_mib: must be greater than 0, got -46068``.
    The CLI and the site build print it on one line and exit with status 2.
    """

    def __init__(self, file: str, entry: str, field: str, problem: str) -> None:
        self.file, self.entry, self.field, self.problem = file, entry, field, problem
        where = ".".join(part for part in (entry, field) if part)
        super().__init__(one_line(f"{file}: {where or '(file)'}: {problem}"))


class UsageError(Exception):
    """A command-line request that cannot be evaluated (unknown id, impossible combination); one line."""

    def __init__(self, message: str) -> None:
        super().__init__(one_line(message))
