// GCRC option pages. Without this script everything works: a sentence is the label of its
// checkbox, so a click toggles it, and the server refuses a wrong statement without an error
// reason (and a reason for a true one). With it, the "wrong statement" box and the error reason
// follow each other: unticking the box clears the reason, choosing a reason ticks the box, and
// the reason's empty choice reads "none: a true statement" only while the box is unticked
// (otherwise it asks for the reason), so the page never shows both at once.
// Listeners sit on the document, so they survive annotate.js swapping in the next page.
(function () {
  "use strict";
  if (window.gcrcBound) { return; }
  window.gcrcBound = true;

  function relabel(wrong, reason) {
    var none = reason.querySelector("option[value='']");
    var label = reason.getAttribute(wrong.checked ? "data-none-wrong" : "data-none-true");
    if (none && label) { none.textContent = label; }
  }

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
    relabel(wrong, reason);
  });
})();
