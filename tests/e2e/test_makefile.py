"""Makefile set-up targets: the Python version is checked before .venv is made, a busy port before a build."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def make(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["make", "--no-print-directory", "-C", str(ROOT), f"PY={sys.executable}", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_an_old_python_is_named_before_anything_is_installed():
    result = make("check-python", "PY_MIN=3.999")
    assert result.returncode != 0
    version = ".".join(map(str, sys.version_info[:2]))
    assert "Python 3.999 or newer is needed" in result.stderr and f"is {version}" in result.stderr
    assert "make setup PY=" in result.stderr


def test_the_running_python_passes_the_check():
    assert make("check-python").returncode == 0


def test_a_busy_port_fails_before_the_build_with_a_hint():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = make("check-port", f"PORT={port}")
    assert result.returncode != 0 and f"port {port}" in result.stderr and "make serve PORT=" in result.stderr


def test_a_free_port_passes():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    assert make("check-port", f"PORT={port}").returncode == 0


def test_serve_passes_the_port_to_the_server_through_the_environment():
    dry = make("-n", "serve", "PORT=8123")
    assert '-m scripts.docs serve --port "$PORT"' in dry.stdout and "8123" not in dry.stdout


@pytest.mark.parametrize(
    "port",
    [
        "abc",
        "0",
        "65536",
        "",
        "1; touch {mark}",
        "$(shell touch {mark})",
        "'$(touch {mark})'",
        "`touch {mark}`",
    ],
)
def test_a_port_that_is_not_a_number_is_named_and_runs_nothing(tmp_path, port):
    mark = tmp_path / "ran"
    result = make("check-port", f"PORT={port.format(mark=mark)}")
    assert result.returncode != 0 and "is not a port number from 1 to 65535" in result.stderr
    assert "in use" not in result.stderr and not mark.exists()


def test_the_stamp_is_written_only_after_pip_succeeds():
    recipe = make("-n", "-B", ".venv/.installed").stdout
    assert recipe.index("pip install") < recipe.index("touch .venv/.installed")
    assert "rm -rf .venv" in recipe.split("pip install", 1)[1].split("touch", 1)[0]


def test_a_failed_first_set_up_leaves_no_venv(tmp_path):
    """A pip failure (here: a requirement no index has) removes the .venv that run created."""
    for name in ("Makefile", "constraints.txt", "requirements-zensical.txt"):
        shutil.copy(ROOT / name, tmp_path / name)
    (tmp_path / "requirements.txt").write_text("./no-such-package-dir\n", encoding="utf-8")
    command = ["make", "--no-print-directory", "-C", str(tmp_path), f"PY={sys.executable}", "setup"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode != 0 and "pip install failed" in result.stderr
    assert not (tmp_path / ".venv").exists()


def last_command(target: str) -> str:
    """The last line ``make -n TARGET`` would run."""
    return make("-n", "-B", target).stdout.strip().splitlines()[-1]


@pytest.mark.parametrize(("target", "workers"), [("test", 3), ("test-fast", 2)])
def test_the_test_commands_end_with_pytest_on_their_workers(target, workers):
    """Its summary line is the last line of the run, and its exit status (5 when no test ran) make's; the
    browser tests' waits get one more worker than the cores, the computing tests one per core."""
    line = last_command(target).removeprefix("SIZING_PROPERTY_EXAMPLES=fast ")
    assert line.startswith(f".venv/bin/python -m pytest -q -n {workers} --dist worksteal"), line
    assert last_command(target).startswith("SIZING_PROPERTY_EXAMPLES=fast ") == (target == "test-fast")
    assert ('-m "not site and not browser"' in line) == (target == "test-fast")
    assert (
        make("-n", "-B", target, "WORKERS=0")
        .stdout.strip()
        .splitlines()[-1]
        .removeprefix("SIZING_PROPERTY_EXAMPLES=fast ")
        .startswith(".venv/bin/python -m pytest -q -n 0 --dist worksteal")
    )


@pytest.mark.parametrize("failing", ["mypy", "throughput_fit"])
def test_either_static_check_fails_the_target(failing):
    """mypy and the throughput fit's check run side by side; a failure of either one fails ``make``."""
    line = next(x for x in make("-n", "-B", "test").stdout.splitlines() if "mypy &" in x)
    commands = {
        "mypy": ".venv/bin/mypy",
        "throughput_fit": ".venv/bin/python -m scripts.throughput_fit --check",
    }

    def status(results: dict[str, str]) -> int:
        script = line
        for name, command in commands.items():
            script = script.replace(command, results[name])
        return subprocess.run(["sh", "-c", script], check=False).returncode

    assert status({"mypy": "true", "throughput_fit": "true"} | {failing: "false"}) != 0
    assert status({"mypy": "true", "throughput_fit": "true"}) == 0


def test_setup_names_what_to_install_when_apt_cannot_run(tmp_path):
    """Without apt-get (or root) and without Chromium, ``make browser`` fails with one line naming the fix."""
    command = [
        shutil.which("make"),
        "--no-print-directory",
        "-C",
        str(ROOT),
        "browser",
        f"CHROMIUM={tmp_path}/none",
    ]
    result = subprocess.run(
        command, capture_output=True, text=True, timeout=60, check=False, env={"PATH": str(tmp_path)}
    )
    first, *rest = result.stderr.strip().splitlines()
    assert result.returncode != 0 and all("Error 1" in line for line in rest), result.stderr
    assert first == (
        f"make: {tmp_path}/none or a Chinese font is missing and cannot be installed here (needs "
        "apt-get and root): install chromium and fonts-wqy-zenhei, then run make setup again"
    )
