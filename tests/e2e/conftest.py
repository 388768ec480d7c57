"""Browser tests keep evidence only when they fail: a full-page screenshot of every page the failing test had
open, under ``test-artifacts/failures/``. (The curated screenshots of a passing run are taken by
``test_explorer_browser.test_page_is_clean``.)"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

FAILURES = Path(__file__).resolve().parents[2] / "test-artifacts" / "failures"


def pytest_sessionstart(session: pytest.Session) -> None:
    """Start each run without the failure screenshots of an earlier one (once: in the main process)."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        shutil.rmtree(FAILURES, ignore_errors=True)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """After a failed browser test's call, save its open pages (best effort: a screenshot that fails too
    must not hide the test's own failure)."""
    outcome = yield
    report = outcome.get_result()
    browser = sys.modules.get("test_browser")
    if report.when != "call" or not report.failed or browser is None:
        return
    for index, tab in enumerate(browser.OPEN_TABS, 1):
        tab.broken = True  # closed after the test, not given to the next
        FAILURES.mkdir(parents=True, exist_ok=True)
        path = FAILURES / browser.failure_name(item.nodeid, index)
        try:
            tab.screenshot(path=str(path), full_page=True, timeout=browser.SCREENSHOT_MS)
        except Exception as exc:  # the report must keep the test's own error
            report.sections.append(("failure screenshot", f"{path}: {exc}"))
        else:
            report.sections.append(("failure screenshot", str(path)))
