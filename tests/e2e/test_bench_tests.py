"""Tests for scripts/bench_tests.py: the report of the test commands' wall and CPU times."""

from __future__ import annotations

from scripts import bench_tests as bt

MACHINE = {"CPU": "test CPU", "Cores (logical)": "2", "Date (UTC)": "2026-12-05 10:00"}


def entry(wall: float, status: int = 0) -> dict:
    """One measured command as :func:`scripts.bench_tests.measure` stores it."""
    return {
        "command": "make test",
        "wall": wall,
        "cpu": 150.4,
        "status": status,
        "summary": "3 passed in 9.0s",
        "load": "idle",
        "machine": MACHINE,
    }


def test_row_shows_wall_cpu_and_the_summary() -> None:
    assert bt.row(entry(290.4)) == "| `make test` | 290 | 150 | 3 passed in 9.0s |"
    assert bt.row({**entry(1349.0), "cpu": None}).split(" | ")[2] == "n/a"


def test_verdicts_compare_with_the_target_and_the_exit_status() -> None:
    met, missed = bt.verdicts({"test": entry(299.0)}), bt.verdicts({"test": entry(301.0, status=1)})
    assert "target under 300 s: met" in met[0] and "passed" in met[0]
    assert "**NOT met**" in missed[0] and "**failed (exit 1)**" in missed[0]


def test_report_has_before_after_and_the_machine() -> None:
    text = bt.report({"test-fast": entry(80.0), "test": entry(290.0)})
    before, after = text.split("## Before")[1].split("## After")
    assert len([line for line in before.splitlines() if line.startswith("| `")]) == len(bt.BEFORE)
    assert after.count("| `make test` |") == 2 and "- CPU: test CPU" in after


def test_cpu_seconds_grow_with_a_child_process() -> None:
    import subprocess
    import sys

    start = bt.cpu_seconds()
    subprocess.run([sys.executable, "-c", "sum(range(3_000_000))"], check=True)
    assert bt.cpu_seconds() > start


def test_machine_busy_seconds_grow_while_a_child_computes() -> None:
    import subprocess
    import sys

    start = bt.machine_busy_seconds()
    subprocess.run([sys.executable, "-c", "sum(range(3_000_000))"], check=True)
    assert bt.machine_busy_seconds() > start > 0


def test_verdicts_name_the_machine_cpu_when_it_was_measured() -> None:
    assert (
        "(412 s of the machine's CPU, Chromium included)"
        in bt.verdicts({"test": {**entry(250.0), "machine_cpu": 412.4}})[0]
    )
    assert "machine's CPU" not in bt.verdicts({"test": entry(250.0)})[0]


def test_the_fresh_clone_runs_ci_in_a_folder_of_its_own_and_removes_it() -> None:
    script = bt.COMMANDS["fresh-clone"][-1]
    assert script.startswith("work=$(mktemp -d) && git clone -q . ") and 'rm -rf "$work"' in script
    assert "bash .ci/run" in script and bt.TARGETS_S["fresh-clone"] == 300.0


def test_the_summary_is_pytest_s_last_line_not_make_s() -> None:
    out = "....F\n= 1 failed, 1400 passed, 282 deselected in 538.12s (0:08:58) =\n"
    assert [m.group(0) for m in bt.SUMMARY.finditer(out)] == [
        "1 failed, 1400 passed, 282 deselected in 538.12s"
    ]
    assert not bt.SUMMARY.search("make: *** [Makefile:88: test-fast] Error 1")


def test_report_only_rewrites_the_markdown_from_the_stored_results(tmp_path, monkeypatch) -> None:
    """Assert ``--report`` measures nothing and writes the stored results with the notes."""
    import json

    monkeypatch.setattr(bt, "measure", lambda name: (_ for _ in ()).throw(AssertionError(name)))
    (tmp_path / "tests.json").write_text(json.dumps({"test-fast": entry(80.0)}), encoding="utf-8")
    assert bt.main(["--report", "--out", str(tmp_path / "tests.md")]) == 0
    text = (tmp_path / "tests.md").read_text(encoding="utf-8")
    assert "| `make test` | 80 | 150 | 3 passed in 9.0s |" in text and bt.NOTES[0] in text
