"""Time and memory of refusing hostile inputs: each must end in under 5 s and 300 MB, with one line, exit 2.

    python -m scripts.bench_hostile [--write]

Runs ``python -m sizing`` once per input in a fresh process (so the figures include start-up) and reports
its wall time, peak resident memory (``wait4``'s ``ru_maxrss``), exit status and stderr line count. With
``--write`` the table goes to ``benchmarks/hostile_inputs.md``. Scratch files live in a temporary folder.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks" / "hostile_inputs.md"
ALIAS_BOMB = (
    "a0: &a0 ["
    + ", ".join(["x"] * 10)
    + "]\n"
    + "".join(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]\n" for i in range(1, 10))
)


def _catalog(scratch: Path, text: str) -> list[str]:
    catalog = scratch / "catalog"
    shutil.rmtree(catalog, ignore_errors=True)
    shutil.copytree(ROOT / "catalog", catalog)
    (catalog / "models.yaml").write_text(text, encoding="utf-8")
    return ["--catalog", str(catalog), "list", "gpus"]


def _file(scratch: Path, make: Callable[[Path], None]) -> list[str]:
    path = scratch / "config.json"
    if path.exists() or path.is_fifo():
        path.unlink()
    make(path)
    return ["import-config", str(path)]


def _sparse(path: Path) -> None:
    with path.open("wb") as out:
        out.truncate(2 * 2**30)


CASES: dict[str, Callable[[Path], list[str]]] = {
    "import-config /dev/zero": lambda _: ["import-config", "/dev/zero"],
    "import-config a FIFO": lambda s: _file(s, os.mkfifo),
    "import-config a 2 GB sparse file": lambda s: _file(s, _sparse),
    "import-config a JSON nesting bomb (1 MB of `[`)": lambda s: _file(
        s, lambda p: p.write_text("[" * 2**20)
    ),
    "catalog YAML alias bomb (10^10 nodes in 600 bytes)": lambda s: _catalog(s, ALIAS_BOMB),
    "catalog YAML nesting bomb (500 KB of `[`)": lambda s: _catalog(s, "[" * 500_000),
}


def measure(argv: list[str]) -> tuple[float, float, int, int]:
    """(seconds, peak MB, exit status, stderr lines) of ``python -m sizing argv`` in a new process."""
    started = time.monotonic()
    child = subprocess.Popen(
        [sys.executable, "-m", "sizing", *argv], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    err = child.stderr.read() if child.stderr else b""
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    return time.monotonic() - started, usage.ru_maxrss / 1024, child.returncode, err.count(b"\n")


def main() -> int:
    """Print (and with --write save) the table; exit 1 when a case breaks a bound."""
    rows = ["| Input | Wall time | Peak memory | Exit | Stderr lines |", "|---|---:|---:|---:|---:|"]
    ok = True
    with tempfile.TemporaryDirectory(prefix="bench-hostile-") as scratch:
        for name, make in CASES.items():
            seconds, mb, status, lines = measure(make(Path(scratch)))
            ok &= seconds < 5 and mb < 300 and status == 2 and lines == 1
            rows.append(f"| {name} | {seconds:.2f} s | {mb:.0f} MB | {status} | {lines} |")
    text = "\n".join(
        [
            "# Hostile inputs: time and memory of the refusal",
            "",
            f"`python -m scripts.bench_hostile --write` on {platform.node() or 'this machine'}, "
            f"{os.cpu_count()} cores, Python {platform.python_version()}; each case a fresh "
            "`python -m sizing` process (start-up included). Bounds: 5 s, 300 MB, exit 2, one line.",
            "",
            *rows,
            "",
        ]
    )
    print(text)
    if "--write" in sys.argv[1:]:
        OUT.write_text(text, encoding="utf-8")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
