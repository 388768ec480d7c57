/*
 * Row filter. <input class="sz-filter" data-target="ID"> shows only the body rows of the table with
 * id ID, or of every table inside the element with id ID, whose text contains what was typed
 * (case-insensitive substring). One delegated listener serves every page, so it survives Material's
 * instant navigation; a value restored by the browser is applied again on each page load.
 */
(function () {
  "use strict";

  /* The body rows that the filter input controls. */
  function targetRows(input) {
    var target = document.getElementById(input.getAttribute("data-target") || "");
    if (!target) return [];
    var tables = target.tagName === "TABLE" ? [target] : target.querySelectorAll("table");
    var rows = [];
    Array.prototype.forEach.call(tables, function (table) {
      Array.prototype.push.apply(rows, (table.tBodies[0] || table).rows);
    });
    return rows.filter(function (row) { return row.parentNode.tagName !== "THEAD"; });
  }

  /* Hide the rows that do not contain the input's text. */
  function applyFilter(input) {
    var needle = input.value.trim().toLocaleLowerCase();
    targetRows(input).forEach(function (row) {
      row.hidden = needle !== "" && row.textContent.toLocaleLowerCase().indexOf(needle) === -1;
    });
  }

  document.addEventListener("input", function (event) {
    if (event.target.matches("input.sz-filter")) applyFilter(event.target);
  });

  document$.subscribe(function () {
    document.querySelectorAll("input.sz-filter").forEach(function (input) {
      if (input.value) applyFilter(input);
    });
  });
})();
