/*
 * Scroll affordance for wide tables. Material puts every table in a .md-typeset__scrollwrap (the
 * explorer's heatmap has its own .sz-heatmap-wrap); when the table is wider than that box, the box
 * gets the class sz-scrollable (sizing.css draws a shadow at the edge that hides columns) and a hint
 * line is inserted above it: an arrow icon and, for the site's computed tables, the translated text
 * the build wrote into data-scroll-hint. A box is measured when it comes near the screen (an
 * IntersectionObserver), so a long page does not lay out every table while it loads; measured
 * boxes are measured again when the window is resized. A box taller than its 75vh limit fades out
 * at the bottom until scrolled to its end and is followed by its row count (data-rows-hint). A box that
 * a page script adds later is handed over with window.szScrollBox(box).
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

  /* A box taller than the screen allows (75vh): a fade at its bottom edge until it is scrolled to the
   * end, and under it the row count the build wrote into data-rows-hint. */
  function atEnd(wrap) {
    wrap.classList.toggle("sz-scroll-more", wrap.scrollTop + wrap.clientHeight < wrap.scrollHeight - 2);
  }

  function measureTall(wrap) {
    var tall = wrap.scrollHeight > wrap.clientHeight + 1;
    var owner = wrap.closest("[data-rows-hint]");
    var next = wrap.nextElementSibling;
    var hasCount = next && next.classList.contains("sz-rows-hint");
    if (tall && owner && !hasCount) {
      var count = document.createElement("p");
      count.className = "sz-rows-hint";
      count.textContent = owner.getAttribute("data-rows-hint");
      wrap.parentNode.insertBefore(count, wrap.nextSibling);
    }
    if (!tall && hasCount) next.remove();
    if (tall && !wrap.hasAttribute("data-sz-fade")) {
      wrap.setAttribute("data-sz-fade", "");
      wrap.addEventListener("scroll", function () { atEnd(wrap); }, { passive: true });
    }
    if (tall) atEnd(wrap); else wrap.classList.remove("sz-scroll-more");
  }

  function measure(wrap) {
    measureTall(wrap);
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

  /* A box a page script adds after load (the explorer's ladder) asks to be measured like the others. */
  window.szScrollBox = function (wrap) {
    if (observer) observer.observe(wrap); else measure(wrap);
  };

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
