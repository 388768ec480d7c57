/*
 * Sortable tables. Every <table class="sz-sortable">, and every table inside an element with that
 * class (e.g. <div class="sz-sortable" markdown> around a Markdown table), gets vendored Tablesort.
 * Runs on every page load, including Material's instant navigation, through document$.
 *
 * Numbers are written in the page's locale (ru "14,93 ГиБ", "250 000"; en/zh "250,000"), which
 * Tablesort's number sort cannot read. A cell that starts with a number and has no data-sort of its
 * own gets data-sort = that number in plain notation, so columns sort by value in every language.
 */
(function () {
  "use strict";

  var SPACES = /[\s\u00a0\u202f]/g;
  var LEADING_NUMBER = /^[-+\u2212]?[^\d\s]{0,3}\s?\d/;

  /* The first number in text, written with "." as the decimal mark, or null. */
  function plainNumber(text, lang) {
    var compact = text.replace(SPACES, "").replace(/\u2212/g, "-");
    compact = lang === "ru" ? compact.replace(/,/g, ".") : compact.replace(/,/g, "");
    var match = compact.match(/-?\d+(?:\.\d+)?/);
    return match ? match[0] : null;
  }

  /* Give numeric cells a locale-free data-sort value. */
  function addSortKeys(table, lang) {
    table.querySelectorAll("tbody td:not([data-sort])").forEach(function (cell) {
      var text = cell.textContent.trim();
      if (!LEADING_NUMBER.test(text)) return;
      var value = plainNumber(text, lang);
      if (value !== null) cell.setAttribute("data-sort", value);
    });
  }

  /* Set up every sortable table of the page. */
  function setUp() {
    var lang = (document.documentElement.lang || "en").slice(0, 2);
    document.querySelectorAll("table.sz-sortable, .sz-sortable table").forEach(function (table) {
      if (table.hasAttribute("data-sz-sortable")) return;
      table.setAttribute("data-sz-sortable", "");
      addSortKeys(table, lang);
      new Tablesort(table);
    });
  }

  /* After the page has loaded, not while it is parsed (long pages have thousands of cells). */
  document$.subscribe(function () { setTimeout(setUp, 0); });
})();
