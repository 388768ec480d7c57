"""sizing.launch.address: host names, IP addresses and ports a launch command may bind."""

from __future__ import annotations

import pytest

from sizing.launch.address import valid_host, valid_port


@pytest.mark.parametrize(
    "text",
    [
        "10.0.0.10",
        "0.0.0.0",  # noqa: S104
        "::",
        "fe80::1",
        "localhost",
        "gpu-01.example.org",
        "node_1",
        "example.org.",
    ],
)
def test_hosts_accept_names_and_addresses(text):
    assert valid_host(text)


@pytest.mark.parametrize(
    "text", ["", "a;id", "$(id)", "`id`", "two words", "-x", "a..b", "x" * 64, "é.org", "a\nb", "host:80"]
)
def test_hosts_refuse_what_a_shell_would_read(text):
    assert not valid_host(text)


def test_ports_are_ints_from_1_to_65535():
    assert valid_port(1) and valid_port(65535)
    assert not any(valid_port(v) for v in (0, 65536, -1, True, "80", 80.0))
