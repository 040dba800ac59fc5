// Invite links page: a click in a link's box selects the whole link, ready to copy.
// A file, not an onfocus attribute: the Content-Security-Policy runs no inline script.
document.querySelectorAll("[data-select-on-focus]").forEach(function (box) {
  box.addEventListener("focus", function () { box.select(); });
});
