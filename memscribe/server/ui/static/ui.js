// memscribe UI: keyboard shortcuts. "/" focuses the search box; Escape leaves it.
(function () {
  "use strict";
  function typing(el) {
    return el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));
  }
  document.addEventListener("keydown", function (event) {
    if (event.key === "/" && !typing(document.activeElement) && !event.ctrlKey && !event.metaKey && !event.altKey) {
      var box = document.getElementById("search-q") || document.getElementById("q");
      if (box) {
        event.preventDefault();
        box.focus();
        box.select();
      }
    } else if (event.key === "Escape" && typing(document.activeElement)) {
      document.activeElement.blur();
    }
  });
})();
