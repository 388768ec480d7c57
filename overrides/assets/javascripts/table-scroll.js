/*
 * Scroll affordance for wide tables. Material puts every table in a .md-typeset__scrollwrap (the
 * explorer's heatmap has its own .sz-heatmap-wrap); when the table is wider than that box, the box
 * gets the class sz-scrollable (sizing.css draws a shadow at the edge that hides columns) and a hint
 * line is inserted above it: an arrow icon and, for the site's computed tables, the translated text
 * the build wrote into data-scroll-hint. A box is measured when it comes near the screen (an
 * IntersectionObserver), so a long page does not lay out every table while it loads; measured
 * boxes are measured again when the window is resized.
 */
(function () {
  "use strict";

  var BOXES = ".md-typeset__scrollwrap, .sz-heatmap-wrap";
  var seen = [];

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

  var observer = "IntersectionObserver" in window ? new IntersectionObserver(function (entries) {
    entries.forEach(function (entry) {
      if (!entry.isIntersecting) return;
      observer.unobserve(entry.target);
      seen.push(entry.target);
      measure(entry.target);
    });
  }, { rootMargin: "200px 0px" }) : null;

  var timer = null;
  window.addEventListener("resize", function () {
    clearTimeout(timer);
    timer = setTimeout(function () { seen.forEach(measure); }, 150);
  });

  document$.subscribe(function () {
    seen = [];
    document.querySelectorAll(BOXES).forEach(function (wrap) {
      if (observer) observer.observe(wrap); else measure(wrap);
    });
  });
})();
