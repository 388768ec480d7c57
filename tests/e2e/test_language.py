"""Language tests: pages a native reader trusts (issue 12).

Messages and catalog texts are checked offline; the page checks read the assembled site of the
session (``built_site``): flag values stay pasteable, zh/ru pages carry no English prose, the
glossary's rejected variants never appear, plurals follow CLDR rules, and worked examples agree
with the tables next to them.
"""

from __future__ import annotations

import functools
import re
from html import unescape
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

from sizing.render import catalog_text
from sizing.render.i18n import LANGS, fmt_number, messages
from sizing.render.plural import categories, forms, missing_categories, plural, plural_keys
from sizing.site import context as site
from sizing.views import catalog_rows as tr

ROOT = Path(__file__).resolve().parents[2]
PREFIXES = {"en": "", "zh": "zh/", "ru": "ru/"}
GLOSSARY = ROOT / "docs" / "messages" / "glossary.yaml"
NUMBERS = (1, 2, 5, 21, 22.5)
ILLUSTRATIONS = {"dh-70b-tp4", "dh-671b-fp8-8xh200", "dh-671b-fp8-2n-8xh100", "dh-671b-fp8-8xh20"}
"""Examples that show a layout other than the tables' choice; the page names the tables' plan."""


@functools.lru_cache(maxsize=1)
def real() -> site.SiteContext:
    """The repository catalog's context."""
    return site.context(ROOT / "catalog")


class _Text(HTMLParser):
    """The text of an HTML fragment outside code, scripts, styles and SVG."""

    SKIP = frozenset({"code", "pre", "script", "style", "kbd", "samp", "svg"})

    def __init__(self) -> None:
        super().__init__()
        self.depth, self.parts = 0, []

    def handle_starttag(self, tag, attrs) -> None:
        self.depth += tag in self.SKIP

    def handle_endtag(self, tag) -> None:
        self.depth -= tag in self.SKIP and self.depth > 0

    def handle_data(self, data) -> None:
        if not self.depth:
            self.parts.append(data)


def prose(html: str) -> str:
    """The article text of a page, outside code."""
    match = re.search(r"<article.*?</article>", html, re.S)
    parser = _Text()
    parser.feed(match.group(0) if match else "")
    return "\n".join(parser.parts)


def pages(site_dir: Path, lang: str) -> dict[str, str]:
    """Every HTML page of one language (404 included), by path relative to the site."""
    root = site_dir / PREFIXES[lang]
    found = [
        p for p in root.rglob("*.html") if lang != "en" or p.relative_to(root).parts[0] not in ("zh", "ru")
    ]
    return {p.relative_to(site_dir).as_posix(): p.read_text(encoding="utf-8") for p in found}


# --- Flags ----------------------------------------------------------------------------------------

FLAG_VALUE = re.compile(
    r"--[a-z][a-z0-9-]+(?:</code>)?[ \u00a0]+(?:<code>)?(\d{1,3}(?:[,\u00a0\u202f ]\d{3})+|\d+,\d+)\b"
)


@pytest.mark.parametrize("lang", LANGS)
def test_no_flag_value_is_grouped_or_has_a_decimal_comma(built_site: Path, lang: str) -> None:
    """Assert ``--max-model-len 32,768`` / ``--gpu-memory-utilization 0,90`` occur nowhere on the site."""
    bad = [
        (name, m.group(0))
        for name, html in pages(built_site, lang).items()
        for m in FLAG_VALUE.finditer(unescape(html))
    ]
    assert not bad, bad[:5]


def test_flag_pattern_catches_what_it_must() -> None:
    """Assert the pattern of the site check matches the defects the reviews found, and not raw values."""
    assert FLAG_VALUE.search("Lower --max-model-len to 12\u00a0288".replace(" to", ""))
    assert FLAG_VALUE.search("--gpu-memory-utilization 0,90")
    assert FLAG_VALUE.search("<code>--max-model-len 32,768</code>")
    assert not FLAG_VALUE.search(
        "<code>--max-model-len 32768</code>, <code>--gpu-memory-utilization 0.90</code>"
    )


# --- No English prose on zh / ru pages --------------------------------------------------------------

QUOTED = re.compile(r"“[^”]*”|«[^»]*»|\"[^\"]*\"|\([A-Za-z][A-Za-z ,-]*\)|（[A-Za-z][A-Za-z ,-]*）")
TOKEN = re.compile(r"-{0,2}[A-Za-z0-9][A-Za-z0-9_.\-/:@+]*")
ALLOWED = {"zh": {"token", "auto", "logits"}, "ru": {"auto"}}
"""Lower-case Latin words a zh/ru page may use as words: loanwords of the community docs and values."""


def latin_words(text: str, lang: str) -> list[str]:
    """Lower-case Latin words in ``text`` outside quotes, glosses in brackets, flags and ids."""
    words = []
    for token in TOKEN.findall(QUOTED.sub(" ", text)):
        word = token.rstrip(".:")
        if word.isalpha() and word.islower() and len(word) > 1 and word not in ALLOWED[lang]:
            words.append(word)
    return words


def test_latin_prose_check_catches_english() -> None:
    """Assert English prose is caught, and ids, units, flags, quoted log lines and glosses are not."""
    assert latin_words("PCIe 4.0 x16 (no NVLink) GQA + sliding window 128", "ru") == ["sliding", "window"]
    assert (
        latin_words(
            "«Model loading took» 24,54 ГиБ --quantization Qwen/Qwen3-14B-FP8 (continuous batching)", "ru"
        )
        == []
    )


@pytest.mark.parametrize("lang", ["zh", "ru"])
def test_no_latin_prose_on_translated_pages(built_site: Path, lang: str) -> None:
    """Assert zh/ru pages (tables, captions, notes, 404 included) hold no English words outside code."""
    found = {
        name: sorted(set(latin_words(prose(html), lang))) for name, html in pages(built_site, lang).items()
    }
    assert not {k: v for k, v in found.items() if v}


@pytest.mark.parametrize("lang", ["zh", "ru"])
def test_theme_strings_are_translated(built_site: Path, lang: str) -> None:
    """Assert no 'Permanent link' title and no English 404 text on zh/ru pages."""
    for name, html in pages(built_site, lang).items():
        assert "Permanent link" not in html, name
    assert "Not found" not in (built_site / PREFIXES[lang] / "404.html").read_text(encoding="utf-8")


# --- Glossary -------------------------------------------------------------------------------------


def glossary() -> dict:
    """docs/messages/glossary.yaml."""
    return yaml.safe_load(GLOSSARY.read_text(encoding="utf-8"))


def rejected_in(text: str, lang: str, variant: str) -> bool:
    """Whether ``variant`` occurs in ``text`` (a substring in Chinese, a whole word otherwise)."""
    if lang == "zh":
        return variant in text
    return re.search(rf"(?<![\w-]){re.escape(variant)}(?![\w-])", text) is not None


def test_glossary_has_a_term_per_language() -> None:
    """Assert every concept names its term in en, zh and ru."""
    for concept, entry in glossary().items():
        assert all(entry.get(lang) for lang in LANGS), concept


@pytest.mark.parametrize("lang", ["en", "zh", "ru"])
def test_no_rejected_variant_in_labels(lang: str) -> None:
    """Assert no message of ``lang`` uses a variant the glossary rejected."""
    bad = [
        (key, v)
        for entry in glossary().values()
        for v in (entry.get("rejected") or {}).get(lang, [])
        for key, text in messages(lang).items()
        if rejected_in(text, lang, v)
    ]
    assert not bad


@pytest.mark.parametrize("lang", ["zh", "ru"])
def test_no_rejected_variant_on_pages(built_site: Path, lang: str) -> None:
    """Assert the built pages of ``lang`` use the glossary's terms, not the rejected variants."""
    text = "\n".join(prose(html) for html in pages(built_site, lang).values())
    bad = [
        v
        for entry in glossary().values()
        for v in (entry.get("rejected") or {}).get(lang, [])
        if rejected_in(text, lang, v)
    ]
    assert not bad


def test_zh_legend_names_are_column_headers(built_site: Path) -> None:
    """Assert each term the zh fit-tables legend explains is a column header of those tables."""
    source = (ROOT / "docs" / "zh" / "fit-tables.md").read_text(encoding="utf-8")
    terms = re.findall(r"^- \*\*([^*]+)\*\*", source, re.M)
    headers = " | ".join(
        re.findall(r"<th[^>]*>(.*?)</th>", pages(built_site, "zh")["zh/fit-tables/index.html"])
    )
    assert terms and all(term in unescape(headers) for term in terms), terms


# --- Plurals --------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_every_plural_message_covers_the_languages_categories(lang: str) -> None:
    """Assert each plural message has a form for every CLDR category of the language."""
    assert plural_keys(lang) and all(not missing_categories(lang, key) for key in plural_keys(lang))


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("number", NUMBERS)
def test_plural_messages_render_each_number_with_its_form(lang: str, number: float) -> None:
    """Render every plural message for 1, 2, 5, 21 and 22.5: the number appears, in the form its
    CLDR category picks (ru: 1 и 21 -> one, 2 -> few, 5 -> many, 22,5 -> other)."""
    shown = fmt_number(number, lang, 1 if isinstance(number, float) else 0)
    for key in plural_keys(lang):
        text = plural(lang, key, number, shown)
        assert shown in text and "{n}" not in text, (key, text)
        table = forms(lang, key)
        from babel import Locale

        category = Locale.parse(lang).plural_form(number)
        assert text == table.get(category, table["other"]).replace("{n}", shown)


@pytest.mark.parametrize(
    ("number", "expected"),
    [
        (1, "1 токен"),
        (2, "2 токена"),
        (5, "5 токенов"),
        (21, "21 токен"),
        (22.5, "22,5 токена"),
    ],
)
def test_russian_tokens_agree_with_the_number(number: float, expected: str) -> None:
    """Assert the Russian noun after a computed number agrees with it."""
    assert (
        plural("ru", "plural_tokens", number, fmt_number(number, "ru", 1 if isinstance(number, float) else 0))
        == expected
    )


def test_russian_forms_differ_where_the_grammar_does() -> None:
    """Assert one/few/many are distinct for every Russian noun whose forms inflect."""
    assert categories("ru") >= {"one", "few", "many"}
    for key in plural_keys("ru"):
        f = forms("ru", key)
        if key not in ("plural_gpus", "plural_bytes"):  # «1 байт», «5 байт»: one and many coincide
            assert len({f["one"], f["few"], f["many"]}) == 3, key


@pytest.mark.parametrize("lang", ["ru"])
def test_no_message_puts_a_counted_noun_after_a_placeholder(lang: str) -> None:
    """Assert no Russian message writes ``{n} токенов`` by concatenation: counted nouns go through plural."""
    nouns = r"(токен|запрос|реплик|слоё|слоя|последовательност|блок|ядер|узл)"
    bad = [
        k
        for k, v in messages(lang).items()
        if not k.startswith("plural_") and re.search(r"\}\s*\(?" + nouns, v)
    ]
    assert not bad


# --- Typography -----------------------------------------------------------------------------------


def test_russian_typography(built_site: Path) -> None:
    """Assert ru pages use « » (no straight quotes), a real minus, and a no-break space before units."""
    text = "\n".join(prose(html) for html in pages(built_site, "ru").values())
    assert '"' not in text
    assert not re.findall(r"(?<![\w\-–—])-\d", text)
    assert not re.findall(r"\d (?:ГиБ|КиБ|МиБ|ГБ|ТБ|ГБ/с)(?!\w)", text)


NEGATIVE_MEMORY = re.compile(
    r"(?<![\w\-/])[-−]\d+(?:[.,]\d+)?(?:\s|\u00a0|\u202f)?(?:[KMG]iB|[КМГ]иБ|GB|ГБ)(?!\w)"
)
"""A negative memory figure: a sign right before the number (a subtraction has a space after its sign, an id
such as ``a100-80GB`` a word before it)."""


@pytest.mark.parametrize("lang", LANGS)
def test_no_negative_memory_figure_on_any_page(built_site: Path, lang: str) -> None:
    """Assert no page of any language shows a negative amount of memory, in prose, tables or code: a case
    short of memory says "short by" (issue 23: "only -1.10 GiB of KV cache blocks remain")."""
    assert NEGATIVE_MEMORY.search("only -1.10 GiB") and NEGATIVE_MEMORY.search("−0,44 ГиБ")
    assert not NEGATIVE_MEMORY.search("a100-80GB; 71.68 GiB − 65.74 GiB")
    found = {
        name: NEGATIVE_MEMORY.findall(re.sub(r"<[^>]+>", " ", html))
        for name, html in pages(built_site, lang).items()
    }
    assert not {name: hits for name, hits in found.items() if hits}


# --- Correctness: pages against their tables ----------------------------------------------------------


def test_worked_examples_show_the_tables_setting() -> None:
    """Assert every worked example has the plan and sequences of its table row (the tables use an FP8 KV
    cache), except layouts the page names as illustrations and examples with speculative decoding, which the
    tables run without (the methodology page compares them with their baseline)."""
    ctx = real()
    from sizing.views.table_rows import example_table_row as table_row

    for eid in (e for e in ctx.examples if ctx.catalog.examples[e].speculative_config is None):
        ex, row = ctx.example(eid), table_row(ctx, eid)
        same = (ex["plan"], int(ex["tp"]), int(ex["dp"]), ex["sequences_32768"]) == (
            row["plan"],
            int(row["tp"]),
            int(row["dp"]),
            row["sequences_32768"],
        )
        assert same or eid in ILLUSTRATIONS, eid


@pytest.mark.parametrize("lang", LANGS)
def test_pages_name_the_tables_plan_where_an_example_differs(lang: str) -> None:
    """Assert the prose that compares an example with the tables reads the table's plan."""
    choosing = (ROOT / "docs" / lang / "choosing-a-gpu-server.md").read_text(encoding="utf-8")
    deployment = (ROOT / "docs" / lang / "deployment-hardware.md").read_text(encoding="utf-8")
    assert 'sz_table_plan("example-2-fp8")' in choosing
    assert all(f'sz_table_plan("{eid}")' in deployment for eid in ILLUSTRATIONS)
    assert 'sz_example("dh-70b-bf16-2x80")' in deployment  # its verdict sentence names the change that fits
    assert 'sz_verdict("dh-70b-bf16-2x80")' in deployment or 'sz_change("dh-70b-bf16-2x80")' in deployment


NOMINAL = {"en": "nominal", "zh": "标称", "ru": "номинальн"}
DECIMAL = {"en": "decimal", "zh": "十进制", "ru": "десятичн"}


@pytest.mark.parametrize("lang", LANGS)
def test_no_page_calls_card_memory_decimal(lang: str) -> None:
    """Assert no sentence says a card's nominal capacity is in decimal GB (it is binary)."""
    for page in (ROOT / "docs" / lang).glob("*.md"):
        text = " ".join(page.read_text(encoding="utf-8").split())
        for sentence in re.split(r"[.;]\s|[。；]", text):
            low = sentence.lower()
            assert not (NOMINAL[lang] in low and DECIMAL[lang] in low), (page.name, sentence)


# --- Catalog texts ------------------------------------------------------------------------------------


def shown_catalog_texts() -> set[str]:
    """Every catalog text a page shows through a translated column."""
    ctx = real()
    texts = set(tr.gpu_catalog_rows(ctx)["interconnect"]) | set(tr.model_catalog_rows(ctx)["attention"])
    texts |= set(tr.server_catalog_rows(ctx)["kind"]) | set(tr.assumption_rows(ctx)["reason"])
    texts |= {p for places in tr.server_catalog_rows(ctx)["locations"] for p in places.split(", ") if p}
    texts |= {v for v in tr.precision_catalog_rows(ctx)["needs_hw"] if v}
    return {t for t in texts if not re.fullmatch(r"[A-Z]+", t)}  # GQA, MLA: the same in every language


def test_every_shown_catalog_text_is_translated() -> None:
    """Assert each catalog text shown on a page has a zh and a ru translation, and none is stale."""
    table = catalog_text.translations()
    shown = shown_catalog_texts()
    assert not [t for t in shown if not (table.get(t, {}).get("zh") and table.get(t, {}).get("ru"))]
    assert not set(table) - shown


def test_server_names_and_sources_read_in_the_page_language() -> None:
    """Assert multi-node names are composed per language and sources lose internal tool notes."""
    assert catalog_text.server_name("ru", "2 nodes × 8× H100 80GB") == "2 узла × 8× H100 80GB"
    assert catalog_text.server_name("zh", "2 nodes × 8× H100 80GB") == "2 节点 × 8× H100 80GB"
    refs = catalog_text.source_refs("ru", "public nvidia-smi logs (find_string '95830MiB'); https://x.org/a")
    assert "find_string" not in refs and refs.endswith("https://x.org/a")
