// The adjudicator's page. Without this script everything works: the own-value box carries its
// format as an HTML pattern (checked by the browser when it is not empty) and the server parses
// it anyway. With it, typing in the box chooses "my own value", and the box is checked as typed
// only while it is the chosen value (a half-typed box left behind never blocks saving the others).
(function () {
  "use strict";
  var form = document.getElementById("adjudicate-form");
  if (!form) { return; }

  function parts(fieldset) {
    var own = fieldset.querySelector("input[type=text]");
    var chosen = fieldset.querySelector("input[type=radio][value=own]");
    return { own: own, chosen: chosen };
  }

  function follow(fieldset) {
    var p = parts(fieldset);
    if (!p.own || !p.chosen) { return; }
    if (p.own.dataset.pattern === undefined) { p.own.dataset.pattern = p.own.getAttribute("pattern") || ""; }
    if (p.chosen.checked) {
      p.own.required = true;
      if (p.own.dataset.pattern) { p.own.setAttribute("pattern", p.own.dataset.pattern); }
    } else {
      p.own.required = false;
      p.own.removeAttribute("pattern");
    }
  }

  form.addEventListener("input", function (event) {
    var fieldset = event.target.closest("fieldset.adj-field");
    if (!fieldset || event.target.type !== "text") { return; }
    var p = parts(fieldset);
    if (p.chosen && !p.chosen.checked) { p.chosen.checked = true; }
    follow(fieldset);
  });
  form.addEventListener("change", function (event) {
    var fieldset = event.target.closest("fieldset.adj-field");
    if (fieldset) { follow(fieldset); }
  });
  form.querySelectorAll("fieldset.adj-field").forEach(follow);
})();
