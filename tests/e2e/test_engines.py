"""Tests for scripts/engines.py: each engine's command line, and the Zensical staging of a language."""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

from scripts.engines import DIFFERENCES, ENGINES, ZENSICAL_SETTINGS, merged, resolved_config, stage

ROOT = Path(__file__).resolve().parents[2]


def test_merged_follows_mkdocs_inherit_rules() -> None:
    """Assert mappings merge key by key while lists and scalars of the child replace the parent's."""
    base = {"theme": {"name": "material", "language": "en"}, "nav": ["a", "b"], "site_name": "A"}
    child = {"theme": {"language": "zh"}, "nav": ["c"]}
    assert merged(base, child) == {
        "theme": {"name": "material", "language": "zh"},
        "nav": ["c"],
        "site_name": "A",
    }
    assert base["theme"]["language"] == "en"


def test_resolved_chinese_config_has_only_its_own_lists() -> None:
    """Assert the Chinese config keeps the shared settings but has its own nav and palette only."""
    config = resolved_config(ROOT / "mkdocs.zh.yml")
    assert "INHERIT" not in config and config["theme"]["custom_dir"] == "overrides"
    english = resolved_config(ROOT / "mkdocs.yml")
    assert next(iter(config["nav"][0])) == "首页" and len(config["nav"]) == len(english["nav"])
    assert [next(iter(e.values())) for e in config["nav"]] == [next(iter(e.values())) for e in english["nav"]]
    assert len(config["theme"]["palette"]) == 2 and config["theme"]["language"] == "zh"
    assert config["plugins"]["macros"]["modules"] == ["sizing.site.docs_macros"]


def test_stage_writes_a_self_contained_config(tmp_path: Path) -> None:
    """Assert the staged config builds into the stage, uses the overrides in place and has the pages."""
    staged = stage(ROOT / "mkdocs.ru.yml", tmp_path / "ru")
    config = yaml.safe_load(staged.read_text(encoding="utf-8"))
    assert config["site_dir"] == "site" and config["docs_dir"] == "docs/ru"
    assert Path(config["theme"]["custom_dir"]) == ROOT / "overrides"
    assert config["theme"]["variant"] == ZENSICAL_SETTINGS["theme"]["variant"]
    assert sorted(p.name for p in (tmp_path / "ru" / "docs" / "ru").glob("*.md")) == sorted(
        p.name for p in (ROOT / "docs" / "ru").glob("*.md")
    )


def test_command_lines(tmp_path: Path) -> None:
    """Assert MkDocs builds into work/<lang> directly and Zensical builds its staged config."""
    mkdocs, zensical = ENGINES["mkdocs"], ENGINES["zensical"]
    expected = [
        sys.executable,
        "-m",
        "mkdocs",
        "build",
        "--strict",
        "-f",
        "mkdocs.zh.yml",
        "-d",
        str(tmp_path / "zh"),
    ]
    assert mkdocs.command("mkdocs.zh.yml", tmp_path, "zh") == expected
    command = zensical.command("mkdocs.zh.yml", tmp_path, "zh")
    assert command[:5] == [sys.executable, "-m", "zensical", "build", "--strict"]
    assert Path(command[-1]).is_file()
    assert zensical.output(tmp_path, "zh") == tmp_path / "zensical-zh" / "site"
    assert list(ENGINES)[0] == "mkdocs" and mkdocs.installed() and zensical.installed()


def test_every_difference_is_explained() -> None:
    """Assert each listed difference has a unique key, a reason, a plan and a known status."""
    assert len({d.key for d in DIFFERENCES}) == len(DIFFERENCES)
    for entry in DIFFERENCES:
        assert entry.what and entry.reason and entry.plan, entry.key
        assert entry.status in ("solved", "accepted", "blocker"), entry.key
