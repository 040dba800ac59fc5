// GCRC option pages. Without this script everything works: a sentence is the label of its
// checkbox, so a click toggles it. With it, the "wrong statement" box and the error reason
// follow each other: unticking the box clears the reason, choosing a reason ticks the box.
// Listeners sit on the document, so they survive annotate.js swapping in the next page.
(function () {
  "use strict";
  if (window.gcrcBound) { return; }
  window.gcrcBound = true;

  document.addEventListener("change", function (event) {
    var target = event.target;
    var form = target.form;
    if (!form || form.id !== "page-form") { return; }
    var wrong = form.querySelector("input[name=wrong]");
    var reason = form.querySelector("select[name=error]");
    if (!wrong || !reason) { return; }
    if (target === wrong && !wrong.checked) {
      reason.value = "";
    } else if (target === reason && reason.value) {
      wrong.checked = true;
    }
  });
})();
