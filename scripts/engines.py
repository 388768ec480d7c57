"""The site generators ``scripts/docs.py build --engine NAME`` can build one language with.

An engine is a small strategy: the command line that builds one language's ``mkdocs.<lang>.yml``
strictly, and the folder where that build leaves its pages. Everything else (the catalog evaluated
once, the downloads, the all-or-nothing assembly of ``site/``) is the same for every engine.

- ``mkdocs``: MkDocs 1.6 + Material, the default. ``mkdocs build --strict -d <work>/<lang>``.
- ``zensical``: Zensical, Material's successor (requirements-zensical.txt). It reads our mkdocs.yml
  files, but (0.0.73) merges ``INHERIT`` lists by appending where MkDocs replaces them (the Chinese
  site would get the English nav too), takes its ``site_dir`` only from the config, and wants both
  ``docs_dir`` and ``site_dir`` inside the folder of the config file. So each language is staged:
  its config resolved here with MkDocs' rules and written, with its pages, into a folder of the work
  area, which also keeps each build's cache of its own.
"""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from sizing import safeio

ROOT = Path(__file__).resolve().parent.parent

ZENSICAL_SETTINGS: dict[str, Any] = {"theme": {"variant": "classic"}}
"""Set on top of every language's config for Zensical: the ``classic`` variant is Material's look and
markup (Zensical's default, ``modern``, is a new design); see docs/ENGINES.md."""


@dataclass(frozen=True)
class Engine:
    """How one site generator builds one language: a command line and the folder it writes."""

    name: str
    module: str
    """The Python module run with ``python -m``."""

    def command(self, config: str, work: Path, lang: str) -> list[str]:
        """The command that builds ``config`` (relative to the repository) for ``lang``."""
        return [
            sys.executable,
            "-m",
            self.module,
            "build",
            "--strict",
            "-f",
            config,
            "-d",
            str(self.output(work, lang)),
        ]

    def output(self, work: Path, lang: str) -> Path:
        """Where the build of ``lang`` leaves its pages."""
        return work / lang

    def installed(self) -> bool:
        """Whether the engine can be imported by this Python."""
        import importlib.util  # noqa: PLC0415

        return importlib.util.find_spec(self.module) is not None


class Zensical(Engine):
    """Zensical, building a staged copy of each language (see the module docstring)."""

    def command(self, config: str, work: Path, lang: str) -> list[str]:
        """Stage ``config`` and its pages in ``work/zensical-<lang>``; the command that builds them."""
        staged = stage(ROOT / config, work / f"zensical-{lang}")
        return [sys.executable, "-m", self.module, "build", "--strict", "-f", str(staged)]

    def output(self, work: Path, lang: str) -> Path:
        """Zensical writes ``site_dir``, which :func:`stage` sets to ``site`` inside the stage."""
        return work / f"zensical-{lang}" / "site"


ENGINES: dict[str, Engine] = {
    "mkdocs": Engine("mkdocs", "mkdocs"),
    "zensical": Zensical("zensical", "zensical"),
}
"""The engines by name; the first is the default."""
INSTALL_HINT = "pip install -r requirements-zensical.txt -c constraints.txt (make setup does it)"


def merged(base: dict[str, Any], child: dict[str, Any]) -> dict[str, Any]:
    """``child`` over ``base`` as MkDocs' ``INHERIT`` does: mappings merge, everything else is replaced."""
    out = dict(base)
    for key, value in child.items():
        both = isinstance(value, dict) and isinstance(base.get(key), dict)
        out[key] = merged(base[key], value) if both else value
    return out


def resolved_config(path: Path) -> dict[str, Any]:
    """The config at ``path`` with its ``INHERIT`` chain applied (paths stay relative to the repository)."""
    config = safeio.read_yaml(path) or {}
    parent = config.pop("INHERIT", None)
    return merged(resolved_config(path.parent / parent), config) if parent else config


def stage(config_path: Path, folder: Path) -> Path:
    """Write the resolved config of ``config_path`` and a copy of its pages into ``folder``; its path.

    The theme overrides are used in place (an absolute ``custom_dir``); pages are copied, because
    Zensical requires ``docs_dir`` inside the config's folder.
    """
    config = merged(resolved_config(config_path), ZENSICAL_SETTINGS)
    root = config_path.parent
    shutil.copytree(root / config["docs_dir"], folder / config["docs_dir"])
    config["theme"] = {**config["theme"], "custom_dir": str(root / config["theme"]["custom_dir"])}
    config["site_dir"] = "site"
    config["watch"] = [str(root / path) for path in config.get("watch", [])]
    target = folder / "mkdocs.yml"
    target.write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return target


# ---------------------------------------------------------------------------------------------
# What still differs between the two builds: the one list (tests/test_engine_parity.py, README)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Difference:
    """One way the Zensical build differs from the MkDocs + Material one, and what to do about it."""

    key: str
    what: str
    reason: str
    plan: str
    status: str
    """``solved`` (configured or worked around here), ``accepted`` (not content), ``blocker``."""


DIFFERENCES: tuple[Difference, ...] = (
    Difference(
        "theme-markup",
        "Page chrome outside the article: header, nav, footer, scripts, hashed asset names "
        "(assets/stylesheets/classic/…), a skip anchor inside the article.",
        "Zensical ships its own build of Material's templates; not computed content.",
        "None needed: the parity test compares the article's content, title and anchors.",
        "accepted",
    ),
    Difference(
        "home-title",
        "The home page's <title> is \"Home - LLM GPU sizing guide\" (nav title first); Material's is the "
        "site name alone.",
        "Zensical's template has no home-page case for the title.",
        "Accept (the page heading is the same), or set the title in overrides/ once Zensical's component "
        "system lands.",
        "accepted",
    ),
    Difference(
        "search-index",
        "Material writes search/search_index.json (lunr; Han text segmented by jieba at build time, U+200B "
        "separator); Zensical writes search.json for its own engine, which segments Chinese in the browser "
        "and ignores plugins.search.lang and the jieba options. Its search box is a dialog in a shadow root.",
        "A different search engine with its own index format and UI.",
        "The browser tests search a word in every language on both builds (test_browser.py).",
        "accepted",
    ),
    Difference(
        "search-lang",
        "The Russian index is for Russian only (Zensical: lang = theme.language); Material's also stems "
        "English ([ru, en]).",
        "Zensical has no search `lang` option (0.0.73).",
        "Check English terms on /ru/ by hand before the switch; most are model and flag names, which are not "
        "stemmed anyway.",
        "accepted",
    ),
    Difference(
        "sitemap-gz",
        "No sitemap.xml.gz (sitemap.xml is written).",
        "Zensical does not gzip it.",
        "None needed: crawlers read sitemap.xml.",
        "accepted",
    ),
    Difference(
        "inherit-lists",
        "INHERIT appends lists (nav, palette) where MkDocs replaces them: the Chinese site had the English "
        "nav too.",
        "Zensical merges configs with deepmerge's always_merger.",
        "Solved: scripts/engines.py resolves INHERIT with MkDocs' rules and stages the result.",
        "solved",
    ),
    Difference(
        "raw-html-links",
        "Relative links in raw HTML are rewritten relative to the source file (downloads links pointed one "
        "folder too high).",
        "Zensical treats them like Markdown links.",
        "Solved: sz_downloads is given the source's folder under Zensical (sizing/site/docs_macros.py).",
        "solved",
    ),
    Difference(
        "validation",
        "MkDocs' `validation:` block (omitted files, absolute and unrecognised links, anchors) is ignored.",
        "Zensical has its own checks under --strict.",
        "tests/test_links.py checks every internal link and anchor of both assembled sites.",
        "solved",
    ),
)
"""Every known difference; a parity test that finds another one fails until it is listed here."""


def difference(key: str) -> Difference:
    """The listed difference ``key`` (KeyError if it is not listed)."""
    return {d.key: d for d in DIFFERENCES}[key]
