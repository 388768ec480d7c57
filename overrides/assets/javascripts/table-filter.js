/*
 * Row filter. <input class="sz-filter" data-target="ID"> shows only the body rows of the tables
 * inside the element with id ID (or of the table with that id) that contain every word typed
 * (case-insensitive). A row is matched together with its section: inside a .sz-fit-section the
 * heading and caption (server and GPU names) count as part of every row, so "L40S" keeps the L40S
 * tables whole. A section with no matching row is hidden with its chart; when nothing matches,
 * the <p class="sz-filter-empty" data-for="ID"> written next to the box is shown. Text only: the
 * script compares strings the build wrote and computes nothing. One delegated listener serves every
 * page, so it survives Material's instant navigation; a restored value is applied on each load.
 */
(function () {
  "use strict";

  function words(text) {
    return text.trim().toLocaleLowerCase().split(/\s+/).filter(Boolean);
  }

  function containsAll(text, needles) {
    return needles.every(function (needle) { return text.indexOf(needle) !== -1; });
  }

  /* The groups a filter controls: each section (or the target itself) with its own text and rows. */
  function groups(target) {
    var sections = target.querySelectorAll(".sz-fit-section");
    var parts = sections.length ? Array.prototype.slice.call(sections) : [target];
    return parts.map(function (part) {
      var label = Array.prototype.map.call(part.querySelectorAll("h2, h3, .sz-fit-caption"),
        function (el) { return el.textContent; }).join(" ");
      var rows = [];
      var tables = part.tagName === "TABLE" ? [part] : part.querySelectorAll("table");
      Array.prototype.forEach.call(tables, function (table) {
        Array.prototype.push.apply(rows, table.tBodies[0] ? table.tBodies[0].rows : []);
      });
      return { element: part, label: label.toLocaleLowerCase(), rows: rows, section: sections.length > 0 };
    });
  }

  /* Show the rows (and sections) matching the input; return how many rows are shown. */
  function applyFilter(input) {
    var target = document.getElementById(input.getAttribute("data-target") || "");
    if (!target) return 0;
    var needles = words(input.value);
    var shown = 0;
    groups(target).forEach(function (group) {
      var visible = 0;
      group.rows.forEach(function (row) {
        var text = group.label + " " + row.textContent.toLocaleLowerCase();
        row.hidden = needles.length > 0 && !containsAll(text, needles);
        if (!row.hidden) visible += 1;
      });
      if (group.section) group.element.hidden = visible === 0;
      shown += visible;
    });
    var empty = document.querySelector(".sz-filter-empty[data-for='" + target.id + "']");
    if (empty) empty.hidden = !(needles.length > 0 && shown === 0);
    return shown;
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
