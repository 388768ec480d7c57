/*
 * Scroll affordance for wide tables. Material puts every table in a .md-typeset__scrollwrap (the
 * explorer's heatmap has its own .sz-heatmap-wrap); when
 * the table is wider than that box, the box gets the class sz-scrollable (sizing.css draws a shadow
 * at the edge that hides columns) and a hint line is inserted above it: an arrow icon and, for the
 * site's computed tables, the translated text the build wrote into data-scroll-hint. Re-measured on
 * every page load (Material's instant navigation too) and when the window is resized.
 */
(function () {
  "use strict";

  function hintFor(wrap) {
    var owner = wrap.closest("[data-scroll-hint]");
    var hint = document.createElement("div");
    hint.className = "sz-scroll-hint";
    hint.textContent = owner ? owner.getAttribute("data-scroll-hint") : "";
    if (!owner) hint.setAttribute("aria-hidden", "true");
    return hint;
  }

  function measure(wrap) {
    var wide = wrap.scrollWidth > wrap.clientWidth + 1;
    wrap.classList.toggle("sz-scrollable", wide);
    var previous = wrap.previousElementSibling;
    var hasHint = previous && previous.classList.contains("sz-scroll-hint");
    if (wide && !hasHint) wrap.parentNode.insertBefore(hintFor(wrap), wrap);
    if (!wide && hasHint) previous.remove();
    if (wide) wrap.setAttribute("tabindex", "0");
  }

  function measureAll() {
    document.querySelectorAll(".md-typeset__scrollwrap, .sz-heatmap-wrap").forEach(measure);
  }

  var timer = null;
  window.addEventListener("resize", function () {
    clearTimeout(timer);
    timer = setTimeout(measureAll, 150);
  });

  document$.subscribe(function () {
    measureAll();
    // Fonts and late layout can change widths once more after the first paint.
    window.requestAnimationFrame(measureAll);
  });
})();
