// The quality report page: while a run is being computed, ask its state every few seconds
// and reload the page once it has finished (done or failed). No inline script: CSP-ready.
(function () {
  "use strict";
  var state = document.getElementById("run-state");
  if (!state || !window.fetch) { return; }
  var url = state.getAttribute("data-status-url");
  var shown = state.querySelector("[data-status]");
  function poll() {
    fetch(url, { credentials: "same-origin", headers: { "Accept": "application/json" } })
      .then(function (response) { return response.json(); })
      .then(function (body) {
        if (shown) { shown.textContent = body.status; }
        if (body.status === "running") { window.setTimeout(poll, 3000); } else { window.location.reload(); }
      })
      .catch(function () { window.setTimeout(poll, 10000); });
  }
  window.setTimeout(poll, 2000);
})();
