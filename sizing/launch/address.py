"""Where a launch command may bind: host names, IP addresses and TCP ports a shell line can carry.

Standard library only, so ``scripts/check_port.py`` can use it with the system Python before ``.venv``
exists.
"""

from __future__ import annotations

import ipaddress
import re

HOSTNAME = re.compile(r"(?=.{1,253}\Z)(?!-)[A-Za-z0-9_-]{1,63}(?<!-)(\.(?!-)[A-Za-z0-9_-]{1,63}(?<!-))*\.?")
"""A DNS host name: dot-separated labels of letters, digits, ``-`` and ``_``, 63 characters each, 253 in
all."""


def valid_host(text: str) -> bool:
    """Whether ``text`` is an IPv4/IPv6 address or a host name (:data:`HOSTNAME`): nothing a shell reads."""
    try:
        ipaddress.ip_address(text)
        return True
    except ValueError:
        return HOSTNAME.fullmatch(text) is not None


def valid_port(value: object) -> bool:
    """Whether ``value`` is a TCP port number, 1–65535 (an int, not a bool)."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value <= 65535
