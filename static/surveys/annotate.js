// Annotator pages: selecting text in the passage fills the span box; a second click on
// submit is ignored (the server is idempotent anyway).
(function () {
  "use strict";
  var form = document.getElementById("page-form");
  if (!form) return;
  var target = form.querySelector("[data-span-target]");
  var source = document.querySelector("[data-span-source]");
  if (target && source) {
    source.addEventListener("mouseup", function () {
      var sel = window.getSelection();
      if (!sel || sel.isCollapsed) return;
      if (!source.contains(sel.anchorNode) || !source.contains(sel.focusNode)) return;
      var text = sel.toString().trim();
      if (text) {
        target.value = text;
        target.dispatchEvent(new Event("input", { bubbles: true }));
      }
    });
  }
  var sent = false;
  form.addEventListener("submit", function (event) {
    if (sent) { event.preventDefault(); return; }
    sent = true;
    var button = form.querySelector("button[type=submit]");
    if (button) { button.disabled = true; }
  });
  window.addEventListener("pageshow", function () {  // back/forward cache: re-enable
    sent = false;
    var button = form.querySelector("button[type=submit]");
    if (button) { button.disabled = false; }
  });
})();
