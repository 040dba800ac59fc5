// SCDE's passage page (templates/jinja2/surveys/scde/passage.html); loaded from the page, no
// inline script.
//
// * A candidate chosen for one blank is disabled in the other blanks' lists and marked as used
//   in the candidate list. (The server refuses reuse and empty blanks anyway.)
// * The choices made so far are kept in sessionStorage, so a reload keeps them.
// * The time the page was visible is summed from visibilitychange events and posted in the
//   hidden field visible_ms. The first "shown" token of the page is kept too, so after a
//   reload the server still measures from the page's first view (the token is signed: it can
//   only be one the server issued for this response and page).
//
// annotate.js swaps the next page into <main> without loading scripts; a MutationObserver
// notices the new <main> and sets it up.
(function () {
  "use strict";
  var current = null; // {form, visibleMs, since}

  function scdeForm() {
    var section = document.querySelector("[data-scde]");
    return section ? section.closest("form") : null;
  }

  function key(form, what) {
    return "scde:" + form.elements.response.value + ":" + form.elements.page.value + ":" + what;
  }

  function load(k) {
    try { return window.sessionStorage.getItem(k); } catch (e) { return null; }
  }

  function store(k, value) {
    try { window.sessionStorage.setItem(k, value); } catch (e) { /* private mode: nothing kept */ }
  }

  function blanks(form) {
    return Array.prototype.slice.call(form.querySelectorAll("select[data-blank]"));
  }

  // An option is disabled where another blank holds it, but never in the select that holds it
  // itself: a selected option that is disabled is not posted, and the server would then say the
  // blank is empty instead of naming the blanks that share the sentence.
  function markUsed(form) {
    var usedBy = {};
    blanks(form).forEach(function (select) {
      if (select.value !== "") {
        (usedBy[select.value] = usedBy[select.value] || []).push(select.getAttribute("data-blank"));
      }
    });
    blanks(form).forEach(function (select) {
      Array.prototype.forEach.call(select.options, function (option) {
        option.disabled = option.value !== "" && usedBy[option.value] !== undefined && option.value !== select.value;
      });
    });
    var note = form.querySelector("[data-scde]").getAttribute("data-used-note") || "";
    form.querySelectorAll("[data-candidate]").forEach(function (item) {
      var by = usedBy[item.getAttribute("data-candidate")];
      var span = item.querySelector(".used-note");
      item.classList.toggle("used", by !== undefined);
      span.hidden = by === undefined;
      span.textContent = by === undefined ? "" : "(" + note.replace("%(blank)s", by.join(", ")) + ")";
    });
  }

  function saveChoices(form) {
    var saved = {};
    blanks(form).forEach(function (select) { saved[select.name] = select.value; });
    var difficulty = form.querySelector("input[name=difficulty]:checked");
    saved.difficulty = difficulty ? difficulty.value : "";
    store(key(form, "choices"), JSON.stringify(saved));
  }

  function restoreChoices(form) {
    var saved;
    try { saved = JSON.parse(load(key(form, "choices")) || "{}"); } catch (e) { saved = {}; }
    blanks(form).forEach(function (select) {
      var value = saved[select.name];
      var exists = Array.prototype.some.call(select.options, function (o) { return o.value === value; });
      if (select.value === "" && value && exists) { select.value = value; }
    });
    if (saved.difficulty && !form.querySelector("input[name=difficulty]:checked")) {
      var radio = form.querySelector("input[name=difficulty][value='" + saved.difficulty.replace(/[^A-Za-z]/g, "") + "']");
      if (radio) { radio.checked = true; }
    }
  }

  function visibleNow() {
    if (!current) { return 0; }
    return current.visibleMs + (current.since === null ? 0 : performance.now() - current.since);
  }

  function noteVisible() {
    if (!current) { return; }
    var total = Math.round(visibleNow());
    current.form.elements.visible_ms.value = String(total);
    store(key(current.form, "visible_ms"), String(total));
  }

  function keepFirstShown(form) {
    var first = load(key(form, "shown"));
    if (first) { form.elements.shown.value = first; } else { store(key(form, "shown"), form.elements.shown.value); }
  }

  function init() {
    var form = scdeForm();
    if (!form || form.getAttribute("data-scde-ready")) { return; }
    form.setAttribute("data-scde-ready", "1");
    if (current) { noteVisible(); }
    keepFirstShown(form);
    restoreChoices(form);
    markUsed(form);
    saveChoices(form);  // choices made before this script ran
    var before = parseInt(load(key(form, "visible_ms")) || "0", 10);
    current = { form: form, visibleMs: isNaN(before) ? 0 : before, since: document.hidden ? null : performance.now() };
  }

  document.addEventListener("change", function (event) {
    var form = scdeForm();
    if (!form || !form.contains(event.target)) { return; }
    markUsed(form);
    saveChoices(form);
  });

  document.addEventListener("visibilitychange", function () {
    if (!current) { return; }
    if (document.hidden && current.since !== null) {
      current.visibleMs += performance.now() - current.since;
      current.since = null;
      noteVisible();
    } else if (!document.hidden && current.since === null) {
      current.since = performance.now();
    }
  });

  window.addEventListener("pagehide", noteVisible);

  // capture: runs before annotate.js reads the form on its own submit listener
  document.addEventListener("submit", function (event) {
    if (current && event.target === current.form) { noteVisible(); }
  }, true);

  new MutationObserver(init).observe(document.body, { childList: true });
  init();
})();
