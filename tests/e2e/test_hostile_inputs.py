"""Hostile inputs: what a careless or hostile user types ends with one line on stderr and a stated exit
status,
and changes nothing outside the test's scratch folder (the repository is checksummed before and after).

Every case is a row of a table (its input, its exit status) and runs in this process (``sizing.cli.main``,
``scripts.docs.main``): no subprocess, no site build. Add a row for every new bug. The interruption of a
real build is in ``test_a_terminated_build_ends_its_children_and_keeps_the_site``.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

import pytest

from scripts import docs
from sizing.cli import main
from sizing.render.terminal import MAX_WIDTH

ROOT = Path(__file__).resolve().parents[2]
SKIP = {
    ".git",
    ".venv",
    "__pycache__",
    ".pytest_cache",
    ".hypothesis",
    "site",
    "build",
    ".cache",
    ".ruff_cache",
    ".mypy_cache",
    "test-artifacts",
}
M = ("--model", "Qwen/Qwen3-14B", "--gpu", "l40s")


def tree_digest(root: Path) -> str:
    """SHA-256 over every file's path and bytes under ``root`` (caches, .git and .venv left out)."""
    digest = hashlib.sha256()
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(d for d in subfolders if d not in SKIP and not d.startswith(".site-build-"))
        for name in sorted(files):
            path = Path(folder, name)
            digest.update(str(path.relative_to(root)).encode("utf-8", "surrogateescape"))
            digest.update(path.read_bytes() if path.is_file() else b"<not a file>")
    return digest.hexdigest()


@pytest.fixture(scope="module")
def repository_digest() -> str:
    return tree_digest(ROOT)


@pytest.fixture(autouse=True)
def _repository_unchanged(repository_digest: str):
    """Every case leaves the repository byte for byte as it found it."""
    yield
    assert tree_digest(ROOT) == repository_digest, "a hostile input changed the repository"


def run(
    capsys: pytest.CaptureFixture[str], entry: Callable[[list[str]], int], argv: list[str]
) -> tuple[int, str]:
    """(exit status, stderr) of ``entry(argv)`` run in this process."""
    try:
        status = entry(argv)
    except SystemExit as exc:  # argparse's own exit
        status = int(exc.code or 0)
    return status, capsys.readouterr().err


def assert_one_line(status: int, err: str, expected: int = 2) -> None:
    assert status == expected, err
    assert err.count("\n") == 1 and err.strip(), err
    assert "Traceback" not in err and len(err) < 500, err


# --- files a user hands us -----------------------------------------------------------------------

NEST = "[" * 200_000
ALIAS_BOMB = (
    "a0: &a0 ["
    + ", ".join(["x"] * 10)
    + "]\n"
    + "".join(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]\n" for i in range(1, 10))
)


def _fifo(folder: Path, name: str) -> Path:
    path = folder / name
    os.mkfifo(path)
    return path


def _sparse(folder: Path, name: str) -> Path:
    path = folder / name
    with path.open("wb") as out:
        out.truncate(2 * 2**30)
    return path


def _text(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


FILES: dict[str, tuple[Callable[[Path], Path], str]] = {
    "/dev/zero": (lambda _: Path("/dev/zero"), "is a device"),
    "a FIFO": (lambda d: _fifo(d, "config.json"), "is a FIFO"),
    "a 2 GB sparse file": (lambda d: _sparse(d, "config.json"), "larger than 16 MiB"),
    "a folder": (lambda d: d, "is a folder"),
    "a JSON nesting bomb": (lambda d: _text(d, "config.json", NEST), "nested deeper than 32"),
    "1e309": (
        lambda d: _text(d, "config.json", '{"num_hidden_layers": 1e309, "hidden_size": 8}'),
        "num_hidden_layers: must be a finite number",
    ),
    "NaN": (
        lambda d: _text(d, "config.json", '{"hidden_size": NaN}'),
        "hidden_size: must be a finite number",
    ),
}


@pytest.mark.parametrize("case", list(FILES))
def test_import_config_reads_only_a_bounded_regular_file(capsys, tmp_path, case):
    make, words = FILES[case]
    status, err = run(capsys, main, ["import-config", str(make(tmp_path))])
    assert_one_line(status, err)
    assert words in err


def _catalog_with(tmp_path: Path, stem: str, make: Callable[[Path], object]) -> Path:
    catalog = Path(shutil.copytree(ROOT / "catalog", tmp_path / "catalog"))
    (catalog / f"{stem}.yaml").unlink()
    make(catalog / f"{stem}.yaml")
    return catalog


CATALOGS: dict[str, tuple[str, Callable[[Path], object], str]] = {
    "a YAML alias bomb": ("models", lambda p: p.write_text(ALIAS_BOMB, encoding="utf-8"), "alias bomb"),
    "a YAML nesting bomb": (
        "gpus",
        lambda p: p.write_text(NEST[:400_000], encoding="utf-8"),
        "nested deeper",
    ),
    "a FIFO": ("servers", os.mkfifo, "is a FIFO"),
    "a recursive alias": (
        "precisions",
        lambda p: p.write_text("a: &a {b: *a}\n", encoding="utf-8"),
        "recursive",
    ),
    "a newline in an id": (
        "gpus",
        lambda p: p.write_text('"l40s\\nerror: fake": {bogus: 1}\n', encoding="utf-8"),
        "l40s\\nerror: fake",
    ),
}


@pytest.mark.parametrize("case", list(CATALOGS))
def test_a_hostile_catalog_file_is_one_line(capsys, tmp_path, case):
    stem, make, words = CATALOGS[case]
    catalog = _catalog_with(tmp_path, stem, make)
    status, err = run(capsys, main, ["--catalog", str(catalog), "list", "gpus"])
    assert_one_line(status, err)
    assert words in err and f"{stem}.yaml" in err


def test_diff_refuses_an_alias_bomb_committed_at_a_revision(capsys, tmp_path):
    """CI runs ``diff`` on a pull request's catalog: a bomb committed there is refused, not expanded."""
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "catalog", repo / "catalog")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "catalog" / "models.yaml").write_text(ALIAS_BOMB, encoding="utf-8")
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "bomb"], check=True)
    shutil.copy(ROOT / "catalog" / "models.yaml", repo / "catalog" / "models.yaml")
    status, err = run(capsys, main, ["--catalog", str(repo / "catalog"), "diff", "HEAD"])
    assert_one_line(status, err)
    assert "HEAD" in err and "alias bomb" in err


# --- command-line values ---------------------------------------------------------------------------

ARGS = [
    ["command", *M, "--host", "a;id"],
    ["command", *M, "--host", "$(id)"],
    ["command", *M, "--host", "`id`"],
    ["command", *M, "--port", "0"],
    ["command", *M, "--port", "65536"],
    ["estimate", *M, "--vllm-version", ""],
    ["table", "--vllm-version", ""],
    ["estimate", "--model", "Qwen/Qwen3-14B", "--server", ""],
    ["estimate", "--model", "", "--gpu", "l40s"],
    ["estimate", "--model", "Qwen/Qwen3-14B\nerror: fake second line", "--gpu", "l40s"],
    ["estimate", "--model", "Qwen/Qwen3-14B", "--gpu", "l40s\x1b[31m"],
    ["estimate", *M, "--speculative-config", "[" * 100_000],
    ["estimate", *M, "--speculative-config", '{"method": "mtp", "num_speculative_tokens": 1e309}'],
]


@pytest.mark.parametrize("argv", ARGS, ids=[repr(" ".join(a))[:60] for a in ARGS])
def test_hostile_flag_values_are_one_line(capsys, argv):
    status, err = run(capsys, main, argv)
    assert_one_line(status, err)


def test_a_huge_columns_is_bounded(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "99999999")
    status = main(["table", "--model", "Qwen/Qwen3-14B", "--server", "gpu-l40s"])
    out = capsys.readouterr().out
    assert status == 0 and out and max(len(line) for line in out.splitlines()) <= MAX_WIDTH


# --- outputs: write only into a folder of our own --------------------------------------------------


def _home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    (home / "Documents").mkdir(parents=True)
    (home / ".bashrc").write_text("export PATH\n", encoding="utf-8")
    (home / "Documents" / "draft.md").write_text("my draft\n", encoding="utf-8")
    return home


TARGETS: dict[str, Callable[[Path], Path]] = {
    "the repository root": lambda _: ROOT,
    "docs": lambda _: ROOT / "docs",
    "docs/en": lambda _: ROOT / "docs" / "en",
    "catalog": lambda _: ROOT / "catalog",
    "a home-like folder": _home,
    "a folder with one file": lambda t: _text(t, "notes.txt", "mine").parent,
    "a file": lambda t: _text(t, "passwd", "keep me\n"),
    "a symbolic link to a folder": lambda t: _link(t),
}


def _link(tmp_path: Path) -> Path:
    (tmp_path / "target").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "target")
    return tmp_path / "link"


@pytest.mark.parametrize("target", list(TARGETS))
@pytest.mark.parametrize("command", ["export", "build"])
def test_outputs_refuse_a_folder_they_did_not_write(capsys, tmp_path, command, target):
    path = TARGETS[target](tmp_path)
    before = tree_digest(tmp_path)
    if command == "export":
        status, err = run(capsys, main, ["export", "--out", str(path)])
    else:
        status, err = run(capsys, docs.main, ["build", "--site", str(path)])
    assert_one_line(status, err)
    assert "Nothing was changed" in err or "not a folder" in err
    assert tree_digest(tmp_path) == before


def test_export_writes_into_a_new_folder_then_updates_its_own(capsys, tmp_path):
    small = [
        "--catalog",
        str(ROOT / "tests" / "data" / "site_catalog"),
    ]  # the folder rules, on a small catalog
    out = tmp_path / "snapshots"
    assert main([*small, "export", "--out", str(out)]) == 0
    (out / ".DS_Store").write_bytes(b"\x00\x05\x16\x07\xff\xfe binary")
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    (out / "fit-gone.md").write_text(
        "<!-- generated — do not edit; run `python -m sizing export` -->\n", "utf-8"
    )
    assert main([*small, "export", "--out", str(out)]) == 0  # its own folder: the removed table goes
    assert not (out / "fit-gone.md").exists() and (out / "notes.txt").read_text(encoding="utf-8") == "mine"
    assert main([*small, "export", "--check", "--out", str(out)]) == 0
    assert capsys.readouterr().err == ""


def test_export_check_ignores_stray_files_in_generated(capsys, tmp_path):
    copy = Path(shutil.copytree(ROOT / "generated", tmp_path / "generated"))
    (copy / ".DS_Store").write_bytes(bytes(range(256)))
    (copy / "photo.md").write_bytes(b"\xff\xd8\xff\xe0 not text")
    os.mkfifo(copy / "pipe.md")
    status, err = run(capsys, main, ["export", "--check", "--out", str(copy)])
    assert status == 0 and err == ""


# --- interrupting a build --------------------------------------------------------------------------


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        found |= {int(c) for c in task.read_text().split()}
    return found


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to see child processes")
def test_a_terminated_build_ends_its_children_and_keeps_the_site(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / docs.SITE_MARKER).write_text("", encoding="utf-8")
    (site / "index.html").write_text("previous", encoding="utf-8")
    before = tree_digest(site)
    build = subprocess.Popen(
        [sys.executable, "-m", "scripts.docs", "build", "--site", str(site)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline, children = time.monotonic() + 60, set()
    while not children and time.monotonic() < deadline and build.poll() is None:
        time.sleep(0.05)
        children = _children(build.pid)
    assert children, "the build started no child process"
    build.send_signal(signal.SIGTERM)
    _, err = build.communicate(timeout=60)
    assert_one_line(build.returncode, err, 143)
    assert "left unchanged" in err
    assert all(not Path(f"/proc/{c}").exists() or "Z" in _state(c) for c in children)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"] and tree_digest(site) == before


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][:1]
    except (FileNotFoundError, IndexError):
        return "Z"
