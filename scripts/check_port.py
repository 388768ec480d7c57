"""``make check-port``: ``PORT`` must be a port number (1–65535) that is free on 127.0.0.1, before a build.

    python -m scripts.check_port PORT

The Makefile hands the value over as an argument (``"$$PORT"`` from the environment), so it is never
pasted into code or into a shell line. Only the standard library and :mod:`sizing.launch.address` (itself
standard-library only) are imported: this runs with the system Python, before ``.venv`` exists.
"""

from __future__ import annotations

import socket
import sys

from sizing.launch.address import valid_port

HOST = "127.0.0.1"


def problem(text: str) -> str | None:
    """Why ``text`` cannot be served on: not a port number, or a port already in use; None when free."""
    if not (text.isascii() and text.isdigit() and valid_port(int(text))):
        return (
            f"make: PORT={text[:20]!r} is not a port number from 1 to 65535; give one: make serve PORT=8001"
        )
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((HOST, int(text)))
        except OSError:
            return f"make: port {int(text)} on {HOST} is in use; choose another: make serve PORT=8001"
    return None


def main(argv: list[str] | None = None) -> int:
    """Print the problem with the port given (one line) and return 2, or return 0 when it is free."""
    args = sys.argv[1:] if argv is None else argv
    found = problem(args[0] if args else "")
    if found:
        print(found, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
