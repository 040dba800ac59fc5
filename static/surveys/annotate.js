// Annotator pages.
//
// * Selecting text in the passage (mouse, touch or keyboard) fills the span box.
// * "Save and continue" sends the page with fetch and the server answers with the next page
//   (header X-Page-Swap), which replaces <main>: one request per saved page instead of
//   POST, redirect and GET. Without this script the form posts and redirects as usual, and if
//   fetch fails the form is posted the classic way (the server is idempotent, nothing is
//   saved twice).
// * A second click while a page is being sent is ignored; every shown page gets its own
//   history entry, so Back stays on the work page (which always shows the current step).
(function () {
  "use strict";
  var SWAP_HEADER = "X-Page-Swap";

  // The span box follows the selection in the passage, however it was made: a mouse drag, a
  // long press and its handles on a touch screen (which fires no mouseup), the keyboard.
  // `selectionchange` fires for all of them; `pointerup` (mouse, pen or touch) is kept for
  // browsers that fire it before the selection settles. One pair of document listeners serves
  // every page annotate.js swaps in: they look up the current passage and box each time.
  function copySelectionToSpan() {
    var form = document.getElementById("page-form");
    var target = form && form.querySelector("[data-span-target]");
    var source = document.querySelector("[data-span-source]");
    if (!target || !source) return;
    var sel = window.getSelection();
    if (!sel || sel.isCollapsed) return;
    if (!source.contains(sel.anchorNode) || !source.contains(sel.focusNode)) return;
    var text = sel.toString().trim();
    if (text && text !== target.value) {
      target.value = text;
      target.dispatchEvent(new Event("input", { bubbles: true }));
    }
  }

  document.addEventListener("selectionchange", copySelectionToSpan);
  document.addEventListener("pointerup", copySelectionToSpan);

  function setSending(form, sending) {
    var button = form.querySelector("button[type=submit]");
    if (button) { button.disabled = sending; }
    if (sending) { form.setAttribute("data-sending", "1"); } else { form.removeAttribute("data-sending"); }
  }

  function swapIn(html, url) {
    var doc = new DOMParser().parseFromString(html, "text/html");
    var main = doc.querySelector("main");
    if (!main) { throw new Error("no <main> in the answer"); }
    document.title = doc.title;
    document.documentElement.lang = doc.documentElement.lang;
    document.querySelector("main").replaceWith(document.adoptNode(main));
    history.pushState({ swapped: true }, "", url);
    window.scrollTo(0, 0);
    init();
    var first = document.querySelector("main input:not([type=hidden]), main textarea");
    if (first) { first.focus({ preventScroll: true }); }
  }

  function sendWithFetch(form) {
    var url = form.getAttribute("action") || window.location.href;
    var body = new URLSearchParams(new FormData(form));
    var headers = { "Content-Type": "application/x-www-form-urlencoded" };
    headers[SWAP_HEADER] = "1";
    return fetch(url, { method: "POST", body: body, headers: headers, credentials: "same-origin", redirect: "follow" })
      .then(function (response) {
        // 200: the next page; 400: this page again with the reasons shown
        if (response.status !== 200 && response.status !== 400) { throw new Error("HTTP " + response.status); }
        return response.text().then(function (html) { swapIn(html, response.url || url); });
      });
  }

  function init() {
    var form = document.getElementById("page-form");
    if (!form) return;
    var sent = false;
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      if (sent) return;
      sent = true;
      setSending(form, true);
      if (!window.fetch || !window.URLSearchParams || !window.DOMParser) {
        HTMLFormElement.prototype.submit.call(form);
        return;
      }
      sendWithFetch(form).catch(function () {
        HTMLFormElement.prototype.submit.call(form);  // the classic way: POST, redirect, GET
      });
    });
    window.onpageshow = function (event) {  // back/forward cache: the form can be sent again
      // (only then: pageshow follows every load too, and would free a button a minimum time holds)
      if (!event.persisted) return;
      sent = false;
      setSending(form, false);
    };
  }

  init();
})();
