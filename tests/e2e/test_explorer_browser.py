"""Real-browser tests of the explorer, the fit-table filter and wide tables (issue 11).

Uses the Chromium, served site and page fixtures of :mod:`test_browser` (each test runs against both
engines' builds; a test run in several languages runs in one on Zensical, :func:`test_browser.engine_langs`).
Checks: the explorer shows the engine's command for a chosen model, server and context; a deep link restores
the same state in every language; the filter finds server, model and translated verdict labels and says
when nothing matches; every page of every language, at 1366 and 390 px, loads without console errors or
failed requests, declares its language, clips no table without a scroll affordance and gives every verdict
text (:func:`page_visits`: MkDocs loads each page once per width, Zensical once and is then narrowed). A
passing run saves one curated set of full-page screenshots (MkDocs build, :data:`CURATED` pages, each
language, both widths) under ``test-artifacts/screenshots/``; a failing test saves its page under
``test-artifacts/failures/``.
"""

from __future__ import annotations

import itertools
import re

import pytest
from page_reading import PASSAGES, check_passages, check_reading, save_first_screen
from test_browser import (  # noqa: F401 - fixtures used by these tests
    PAGES,
    PREFIXES,
    SCREENSHOT_MS,
    SCREENSHOTS,
    SEARCH_UI,
    browser,
    chromium,
    engine_langs,
    site_url,
    tabs,
    visit,
)

from scripts.engines import ENGINES
from sizing.launch.commands import vllm_command
from sizing.render.i18n import t
from sizing.render.throughput_render import ladder_cells
from sizing.site import context as site
from sizing.views import explorer_data as xd
from sizing.views.context_plans import plan_at
from sizing.views.throughput import chosen_ladders

WIDTHS = {"desktop": (1366, 768), "phone": (390, 844)}
CURATED = ("", "explorer/", "fit-tables/")
"""Pages whose full-page screenshots a passing run keeps (per language and width, MkDocs build)."""
MODEL, SERVER = "meta-llama/Llama-3.3-70B-Instruct", "gpu-rtx-pro"


@pytest.fixture(scope="module")
def rows():
    """The explorer rows of the real catalog (what the site was built from)."""
    return xd.explorer_rows(site.context())


@pytest.fixture
def desktop(tabs) -> object:  # noqa: F811
    """A 1366×768 page."""
    return tabs(*WIDTHS["desktop"])


def expected_command(rows, checkpoint: str, precision: str, server: str, kv: str, ctx: int) -> str:
    """The engine's command for that row at ``--max-model-len ctx``, on that context's plan."""
    match = rows[
        (rows["checkpoint"] == checkpoint)
        & (rows["precision"] == precision)
        & (rows["server"] == server)
        & (rows["kv_cache_dtype"] == kv)
    ]
    assert len(match) == 1
    return vllm_command(plan_at(match.iloc[0].to_dict(), ctx), site.context().catalog)


def explorer_ready(page: object) -> None:
    """Wait until explorer.js has shown a result."""
    page.wait_for_selector(".sz-explorer__result:not([hidden]) .sz-badge")


# ---------------------------------------------------------------------------------------------
# explorer
# ---------------------------------------------------------------------------------------------


def test_explorer_picks_model_server_context_and_shows_the_command(
    desktop: object,
    site_url: str,  # noqa: F811
    rows,
) -> None:
    """Assert choosing a model, server and 4K context shows the engine's command and puts it in the URL."""
    visit(desktop, f"{site_url}explorer/")
    explorer_ready(desktop)
    desktop.select_option("select[name='model']", MODEL)
    desktop.select_option("select[name='server']", SERVER)
    desktop.select_option("select[name='kv']", "fp8")
    desktop.select_option("select[name='ctx']", "4096")
    checkpoint, precision = desktop.eval_on_selector("select[name='variant']", "s => s.value").split("|")
    command = desktop.inner_text(".sz-explorer__command code")
    assert command == expected_command(rows, checkpoint, precision, SERVER, "fp8", 4096)
    assert "--max-model-len 4096" in command
    assert "ctx=4096" in desktop.url and f"server={SERVER}" in desktop.url
    assert desktop.locator(".sz-explorer__result .sz-badge").inner_text().strip()
    assert desktop.problems.items == []


@pytest.mark.parametrize(("engine", "lang"), engine_langs(), scope="session")
def test_deep_link_restores_the_same_state(desktop: object, site_url: str, lang: str, rows) -> None:  # noqa: F811
    """Assert a link with a hash opens that model, checkpoint, server, KV type and context in every
    language."""
    checkpoint = "nvidia/Llama-3.3-70B-Instruct-FP8"
    state = f"model={MODEL}&checkpoint={checkpoint}&precision=fp8&server={SERVER}&kv=fp8&ctx=131072"
    visit(desktop, f"{site_url}{PREFIXES[lang]}explorer/#{state}")
    explorer_ready(desktop)
    values = {
        name: desktop.eval_on_selector(f"select[name='{name}']", "s => s.value")
        for name in ("model", "variant", "server", "kv", "ctx")
    }
    assert values == {
        "model": MODEL,
        "variant": f"{checkpoint}|fp8",
        "server": SERVER,
        "kv": "fp8",
        "ctx": "131072",
    }
    row = rows[
        (rows["checkpoint"] == checkpoint) & (rows["server"] == SERVER) & (rows["kv_cache_dtype"] == "fp8")
    ]
    status = row.iloc[0]["status_131072"]
    key = {
        "fits": "verdict_fits",
        "tight": "verdict_tight",
        "no-fit": "verdict_does_not_fit",
        "beyond": "explorer_status_beyond",
    }[status]
    assert desktop.locator(".sz-explorer__result .sz-badge").inner_text().strip() == t(lang, key)
    if status in ("fits", "tight"):
        command = desktop.inner_text(".sz-explorer__command code")
        assert command == expected_command(rows, checkpoint, "fp8", SERVER, "fp8", 131072)
    assert desktop.problems.items == []


def test_heatmap_cell_opens_its_answer(desktop: object, site_url: str) -> None:  # noqa: F811
    """Assert a heatmap cell carries a text label and clicking it shows that model and server above."""
    visit(desktop, f"{site_url}explorer/")
    explorer_ready(desktop)
    desktop.select_option("select[name='ctx']", "4096")
    cell = desktop.locator("td.sz-heat--fits a").nth(3)
    assert cell.locator("small").inner_text().strip() == t("en", "heat_fits")
    href = cell.get_attribute("href")
    assert "ctx=4096" in href
    cell.click()
    desktop.wait_for_function("h => location.hash === h", arg=href)
    server = href.split("server=")[1].split("&")[0]
    assert desktop.eval_on_selector("select[name='server']", "s => s.value") == server
    assert desktop.problems.items == []


# ---------------------------------------------------------------------------------------------
# fit-table filter
# ---------------------------------------------------------------------------------------------


def visible_rows(page: object) -> list[str]:
    """Texts of the fit-table body rows shown (their section and row not hidden)."""
    return page.eval_on_selector_all(
        "#sz-fit-tables .sz-fit-section:not([hidden]) tbody tr:not([hidden])",
        "rs => rs.map(r => r.textContent)",
    )


def filter_fit_tables(page: object, text: str) -> None:
    """Type ``text`` into the fit tables' filter box."""
    page.fill("input.sz-filter", text)


@pytest.mark.parametrize(
    ("engine", "lang", "text"),
    engine_langs(
        [
            ("en", "L40S"),
            ("en", "Llama 3.3"),
            ("zh", t("zh", "verdict_does_not_fit")),
            ("ru", t("ru", "verdict_does_not_fit")),
        ]
    ),
    scope="session",
)
def test_filter_finds_servers_models_and_translated_labels(
    desktop: object,
    site_url: str,  # noqa: F811
    lang: str,
    text: str,
) -> None:
    """Assert the filter keeps some rows, each matching in its row or its server's heading, and hides the
    rest."""
    visit(desktop, f"{site_url}{PREFIXES[lang]}fit-tables/")
    total = len(visible_rows(desktop))
    filter_fit_tables(desktop, text)
    shown = visible_rows(desktop)
    assert 0 < len(shown) < total, (text, len(shown), total)
    matched = desktop.eval_on_selector_all(
        "#sz-fit-tables .sz-fit-section:not([hidden]) tbody tr:not([hidden])",
        """rs => rs.map(r => { const s = r.closest('.sz-fit-section');
             const label = Array.from(s.querySelectorAll('h3, .sz-fit-caption')).map(e =>
             e.textContent).join(' ');
             return (label + ' ' + r.textContent).toLowerCase(); })""",
    )
    assert all(all(word in m for word in text.lower().split()) for m in matched)
    assert desktop.locator(".sz-filter-empty").is_hidden()
    if text == "L40S":
        assert (
            desktop.locator("#fit-gpu-l40s").is_visible() and desktop.locator("#fit-gpu-rtx-pro").is_hidden()
        )
        charts = desktop.locator("#sz-fit-tables figure.sz-chart")
        assert 0 < sum(charts.nth(i).is_visible() for i in range(charts.count())) < charts.count()
    assert desktop.problems.items == []


@pytest.mark.parametrize(("engine", "lang"), engine_langs(), scope="session")
def test_filter_says_when_no_row_matches(desktop: object, site_url: str, lang: str) -> None:  # noqa: F811
    """Assert a text no row has hides every table and shows the translated "no rows match" message."""
    visit(desktop, f"{site_url}{PREFIXES[lang]}fit-tables/")
    filter_fit_tables(desktop, "qqq-no-such-model")
    assert visible_rows(desktop) == []
    assert desktop.locator(".sz-filter-empty").inner_text().strip() == t(lang, "filter_no_rows")
    filter_fit_tables(desktop, "")
    assert desktop.locator(".sz-filter-empty").is_hidden() and len(visible_rows(desktop)) > 0


# ---------------------------------------------------------------------------------------------
# every page at both widths: clipping, verdict text, console, screenshots
# ---------------------------------------------------------------------------------------------

CLIPPED = """async () => {
  const frame = () => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
  const problems = [];
  const main = document.querySelector('.md-content');
  if (document.documentElement.scrollWidth > window.innerWidth + 1)
    problems.push('the page scrolls sideways');
  const tables = Array.from(document.querySelectorAll('.md-content table'));
  for (const table of tables) {  // each near the screen for a frame: the observer measures its box
    table.scrollIntoView({block: 'center'});
    await frame();
  }
  await new Promise(done => setTimeout(done, 120));  // IntersectionObserver callbacks come after the frame
  for (const [i, table] of tables.entries()) {
    const box = table.closest('.md-typeset__scrollwrap, .sz-heatmap-wrap');
    if (!box) {
      if (table.getBoundingClientRect().right > main.getBoundingClientRect().right + 1)
        problems.push(`table ${i}`);
      continue;
    }
    const overflow = getComputedStyle(box).overflowX;
    if (box.scrollWidth > box.clientWidth + 1) {
      const hint = box.previousElementSibling;
      if (!box.classList.contains('sz-scrollable') || !['auto', 'scroll'].includes(overflow)
          || !hint || !hint.classList.contains('sz-scroll-hint'))
        problems.push(`table ${i} clipped without a hint`);
    }
  }
  window.scrollTo(0, 0);
  return problems;
}"""
"""Scrolls each table into view for a frame (the hint is added when a table comes near the screen, and
stays), waits once for the observer's callbacks, then checks every table."""


def is_emoji(ch: str) -> bool:
    """Whether ``ch`` is in the symbol and emoji blocks (U+2600–U+27BF, U+1F300–U+1FAFF)."""
    return 0x2600 <= ord(ch) <= 0x27BF or 0x1F300 <= ord(ch) <= 0x1FAFF


BADGES = "() => Array.from(document.querySelectorAll('.sz-badge')).map(b => b.textContent.trim())"


def screenshot_name(lang: str, path: str, width: str) -> str:
    """``en-fit-tables-1366.png``, ``zh-home-390.png``."""
    return f"{lang}-{path.strip('/') or 'home'}-{WIDTHS[width][0]}.png"


def page_visits() -> list[object]:
    """``(engine, lang, path, widths)`` of :func:`test_page_is_clean`: the MkDocs build (the published one)
    loads each page of each language once per width; the Zensical build, whose pages carry the same content
    (``test_engine_parity``), loads each once at 1366 px and is then narrowed to 390 px, so every page,
    language and width is still checked in both builds."""
    visits = []
    for engine, lang, path in itertools.product(ENGINES, PREFIXES, PAGES):
        groups = [(width,) for width in WIDTHS] if engine == "mkdocs" else [tuple(WIDTHS)]
        page = path.strip("/") or "home"
        visits += [
            pytest.param(engine, lang, path, group, id=f"{engine}-{lang}-{page}-{'+'.join(group)}")
            for group in groups
        ]
    return visits


def resize(page: object, width: str) -> None:
    """Give ``page`` the viewport of ``width`` and wait until the layout has settled (two frames)."""
    columns, rows = WIDTHS[width]
    page.set_viewport_size({"width": columns, "height": rows})
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")


@pytest.mark.parametrize(("engine", "lang", "path", "widths"), page_visits(), scope="session")
def test_page_is_clean(
    tabs,  # noqa: F811
    site_url: str,  # noqa: F811
    engine: str,
    lang: str,
    path: str,
    widths: tuple[str, ...],
) -> None:
    """Assert the page, at each of ``widths`` in turn (the first loads it, the next resize it), passes
    :func:`check_page`."""
    page = tabs(*WIDTHS[widths[0]])
    visit(page, f"{site_url}{PREFIXES[lang]}{path}")
    if path == "explorer/":
        explorer_ready(page)
    for width in widths:
        if width != widths[0]:
            resize(page, width)
        check_page(page, engine, lang, path, width)


def check_page(page: object, engine: str, lang: str, path: str, width: str) -> None:
    """Assert the loaded page is in its language with no console error, script error or failed request,
    reads as :func:`page_reading.check_reading` asks, its passages read true
    (:func:`page_reading.check_passages`), every wide table scrolls with a visible hint and verdict badges
    have text; on the MkDocs build, keep the curated screenshots (whole), the first screen of the others and
    the passages' sections."""
    keep = engine == "mkdocs"
    assert page.evaluate("innerWidth") == WIDTHS[width][0]
    assert page.evaluate("document.documentElement.lang") == lang
    check_reading(page, f"{lang}/{path} at {WIDTHS[width][0]} px")
    check_passages(page, lang, path, str(WIDTHS[width][0]) if keep else None)
    if keep and path not in CURATED:
        save_first_screen(page, screenshot_name(lang, path, width))
    assert page.evaluate(CLIPPED) == []
    badges = page.evaluate(BADGES)
    assert all(text and not any(is_emoji(ch) for ch in text) for text in badges), badges[:5]
    assert page.problems.items == []
    if keep and path in CURATED:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(
            path=str(SCREENSHOTS / screenshot_name(lang, path, width)), full_page=True, timeout=SCREENSHOT_MS
        )


def test_every_passage_is_on_a_visited_page() -> None:
    """Assert each passage of :mod:`page_reading` is on a page :func:`test_page_is_clean` visits."""
    assert {page for page, _ in PASSAGES.values()} <= set(PAGES)


def test_screenshot_names_are_unique() -> None:
    """Assert every curated page, language and width gets its own screenshot file."""
    names = {screenshot_name(lang, path, width) for lang in PREFIXES for path in CURATED for width in WIDTHS}
    assert len(names) == len(PREFIXES) * len(CURATED) * len(WIDTHS)
    assert all(re.fullmatch(r"(en|zh|ru)-[a-z-]+-(1366|390)\.png", name) for name in names)


def search_results(page: object, url: str, word: str, engine: str) -> int:
    """How many documents the theme's search lists for ``word`` on ``url`` (``SEARCH_UI`` per engine)."""
    opener, box, result = SEARCH_UI[engine]
    visit(page, url)
    if opener:
        page.click(opener)
    page.fill(box, word)
    page.press(box, "End")
    page.wait_for_selector(result)
    return page.locator(result).count()


def test_chinese_search_finds_gpu_names(desktop: object, site_url: str, engine: str) -> None:  # noqa: F811
    """Assert "L40S" finds as many documents on /zh/ as on the English site (the stemmer cut it before)."""
    english = search_results(desktop, site_url, "L40S", engine)
    assert english >= 2
    assert search_results(desktop, f"{site_url}zh/", "L40S", engine) >= english
    assert desktop.problems.items == []


@pytest.mark.parametrize(("engine", "lang"), engine_langs(["en", "ru"]), scope="session")
def test_explorer_shows_the_chat_ladder_of_the_answer(desktop: object, site_url: str, lang: str) -> None:  # noqa: F811
    """Assert the answer carries the build's chat ladder for that model × server: five concurrency steps,
    the Throughput and cost page's cells (cautious end), its note; a GPU without peaks says why instead."""
    frame = chosen_ladders(site.context())
    own = frame[
        (frame["checkpoint"] == "Qwen/Qwen3-14B-FP8")
        & (frame["server"] == "gpu-l40s")
        & (frame["kv_cache_dtype"] == "fp8")
        & (frame["precision"] == "fp8")
    ]
    state = "model=Qwen/Qwen3-14B&checkpoint=Qwen/Qwen3-14B-FP8&precision=fp8&server=gpu-l40s&kv=fp8&ctx=4096"
    visit(desktop, f"{site_url}{PREFIXES[lang]}explorer/#{state}")
    explorer_ready(desktop)
    desktop.wait_for_selector(".sz-explorer__ladder-table tbody tr")
    cells = desktop.eval_on_selector_all(
        ".sz-explorer__ladder-table tbody tr",
        "rows => rows.map(r => Array.from(r.cells, c => c.textContent))",
    )
    assert cells == [ladder_cells(lang, row)[:6] for row in own.to_dict("records")]
    assert desktop.inner_text(".sz-explorer__ladder-note").startswith(
        t(lang, "tp_ladder_note", low="", high="")[:20]
    )
    desktop.select_option("select[name='server']", "ref-1x-rtx-4090")
    desktop.wait_for_selector(".sz-explorer__ladder-none")
    assert t(lang, "speed_reason_no_peak") in desktop.inner_text(".sz-explorer__ladder-none")
    assert desktop.problems.items == []
