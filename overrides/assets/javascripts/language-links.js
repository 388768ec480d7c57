/* Keep the reader on the same page when they switch language.
 *
 * Material matches the current URL against each language's sitemap; with English at the site root
 * that match is ambiguous (every /zh/ and /ru/ page also lies under /), so the reader could land on
 * the other language's home page. Every language has the same page paths below its own root, so the
 * target is simply: target root + (current URL minus current root). Runs in the capture phase so it
 * decides before Material's own handler. */
(function () {
  "use strict";

  function rootOf(lang) {
    var link = document.querySelector('a.md-select__link[hreflang="' + lang + '"]');
    return link ? link.href : null;
  }

  function samePage(targetRoot) {
    var currentRoot = rootOf(document.documentElement.lang);
    var here = window.location.href;
    if (!currentRoot || here.indexOf(currentRoot) !== 0) return targetRoot;
    return targetRoot + here.slice(currentRoot.length);
  }

  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("a.md-select__link[hreflang]");
    if (!link) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    window.location.href = samePage(link.href);
  }, true);
})();
