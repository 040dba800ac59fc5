// Pages of tasks described by a task file. The server decides everything (which questions are
// asked, every answer's bounds); this script only helps: number-key shortcuts for choices,
// questions shown or hidden as earlier answers on the page change, a slider's value, and span
// marking (select text with the mouse; the spans go to a hidden field as JSON offsets).
// Listeners sit on the document, so they survive annotate.js swapping in the next page.
(function () {
  "use strict";
  if (window.taskfileBound) { return; }
  window.taskfileBound = true;
  var pending = null;  // {question, start, end}: a selection waiting for its label

  // an item's page, or a study's comprehension check or exit survey (their forms say data-questions)
  function form() { return document.querySelector("#page-form, form[data-questions]"); }

  function answerOf(f, question) {
    var inputs = f.querySelectorAll("[name='" + question + "']");
    var values = [];
    inputs.forEach(function (input) {
      if ((input.type === "radio" || input.type === "checkbox")) {
        if (input.checked) { values.push(input.value); }
      } else if (input.value !== "") { values.push(input.value); }
    });
    return values;
  }

  function holds(rule, values) {
    var wanted = rule.values.map(String);
    var match = values.some(function (v) { return wanted.indexOf(v) >= 0; });
    if (!values.length) { return false; }
    return rule.test === "not_equals" ? !match : match;
  }

  function applyConditions() {
    var f = form();
    if (!f) { return; }
    f.querySelectorAll("[data-show-if]").forEach(function (box) {
      var rule = JSON.parse(box.getAttribute("data-show-if"));
      if (!f.querySelector("[name='" + rule.question + "']")) { return; }  // decided on an earlier page
      box.hidden = !holds(rule, answerOf(f, rule.question));
    });
    f.querySelectorAll("output[data-slider-value]").forEach(function (out) {
      var input = document.getElementById(out.getAttribute("data-slider-value"));
      if (input) { out.textContent = input.value; }
    });
  }

  // --- spans -------------------------------------------------------------------------
  function spansOf(question) {
    var field = form() && form().querySelector("input[name='" + question + "']");
    try { return field && field.value ? JSON.parse(field.value) : []; } catch (e) { return []; }
  }

  function store(question, spans) {
    spans.sort(function (a, b) { return a.start - b.start || a.end - b.end; });
    form().querySelector("input[name='" + question + "']").value = JSON.stringify(spans);
    draw(question);
  }

  function withSpan(question, span) {
    // the spans with `span` added, unless the same span (place and label) is there already
    var spans = spansOf(question);
    var twice = spans.some(function (s) {
      return s.start === span.start && s.end === span.end && String(s.label) === String(span.label);
    });
    return twice ? spans : spans.concat([span]);
  }

  function colourOf(question, value) {
    // each label's colour (the palette of app.css) is its button's, so marks and buttons agree
    var button = form().querySelector("[data-for='" + question + "'][data-span-label='" + value + "']");
    return button ? button.getAttribute("data-colour") : null;
  }

  function labelText(question, value) {
    var button = form().querySelector("[data-for='" + question + "'][data-span-label='" + value + "']");
    return button ? button.getAttribute("data-label-text") : String(value);
  }

  function draw(question) {
    var box = document.querySelector("[data-span-text='" + question + "']");
    var list = document.querySelector("[data-span-list='" + question + "']");
    if (!box || !list) { return; }
    var text = box.getAttribute("data-text");
    if (text === null) { text = box.textContent; box.setAttribute("data-text", text); }
    var spans = spansOf(question);
    box.textContent = "";
    var at = 0;
    spans.slice().forEach(function (s) {
      if (s.start < at) { return; }  // overlapping spans are listed, highlighted once
      box.appendChild(document.createTextNode(text.slice(at, s.start)));
      var mark = document.createElement("mark");
      mark.textContent = text.slice(s.start, s.end);
      if (s.label !== null && s.label !== undefined) {
        mark.setAttribute("data-label", s.label);
        // the label in words beside the colour (CSS shows it after the mark, outside the text)
        mark.setAttribute("data-label-text", labelText(question, s.label));
        if (colourOf(question, s.label) !== null) { mark.setAttribute("data-colour", colourOf(question, s.label)); }
      }
      box.appendChild(mark);
      at = s.end;
    });
    box.appendChild(document.createTextNode(text.slice(at)));
    list.textContent = "";
    spans.forEach(function (s, index) {
      var item = document.createElement("li");
      var words = document.createElement("span");
      words.textContent = "“" + text.slice(s.start, s.end) + "”" +
        (s.label !== null && s.label !== undefined ? " — " + labelText(question, s.label) : "");
      var remove = document.createElement("button");
      remove.type = "button";
      remove.textContent = list.getAttribute("data-remove");
      remove.addEventListener("click", function () {
        var kept = spansOf(question);
        kept.splice(index, 1);
        store(question, kept);
      });
      item.appendChild(words);
      item.appendChild(remove);
      list.appendChild(item);
    });
  }

  function offsetIn(box, node, offset) {
    var range = document.createRange();
    range.selectNodeContents(box);
    range.setEnd(node, offset);
    return range.toString().length;
  }

  function labelButtons(question, on) {
    form().querySelectorAll("[data-for='" + question + "']").forEach(function (b) { b.disabled = !on; });
  }

  function select() {
    var selection = window.getSelection();
    if (!selection || selection.isCollapsed || !selection.rangeCount) { return; }
    var range = selection.getRangeAt(0);
    var box = range.commonAncestorContainer.nodeType === 1 ? range.commonAncestorContainer : range.commonAncestorContainer.parentNode;
    box = box.closest("[data-span-text]");
    if (!box) { return; }
    var question = box.getAttribute("data-span-text");
    var start = offsetIn(box, range.startContainer, range.startOffset);
    var end = offsetIn(box, range.endContainer, range.endOffset);
    var text = box.getAttribute("data-text") || box.textContent;
    while (start < end && /\s/.test(text[start])) { start += 1; }
    while (end > start && /\s/.test(text[end - 1])) { end -= 1; }
    if (start >= end) { return; }
    if (form().querySelector("[data-for='" + question + "']")) {
      pending = {question: question, start: start, end: end};
      labelButtons(question, true);
    } else {
      store(question, withSpan(question, {start: start, end: end, label: null}));
      selection.removeAllRanges();
    }
  }

  function label(button) {
    var question = button.getAttribute("data-for");
    if (!pending || pending.question !== question) { return; }
    var value = button.getAttribute("data-span-label");
    store(question, withSpan(question, {start: pending.start, end: pending.end, label: value}));
    pending = null;
    labelButtons(question, false);
    window.getSelection().removeAllRanges();
  }

  // --- shortcuts ---------------------------------------------------------------------
  var active = null;  // the question last touched: number keys answer it

  function shortcut(event) {
    var target = event.target;
    if (event.ctrlKey || event.metaKey || event.altKey) { return; }
    if (target && (target.tagName === "TEXTAREA" || (target.tagName === "INPUT" && /text|number|search/.test(target.type)))) { return; }
    var f = form();
    if (!f) { return; }
    var key = event.key.toLowerCase();
    if (pending) {
      var labels = f.querySelectorAll("[data-for='" + pending.question + "']");
      for (var i = 0; i < labels.length; i += 1) {
        var kbd = labels[i].querySelector("kbd");
        if (kbd && kbd.textContent === key) { event.preventDefault(); label(labels[i]); return; }
      }
    }
    var boxes = Array.prototype.filter.call(f.querySelectorAll("fieldset.question"), function (b) {
      return !b.hidden && b.querySelector("label kbd");
    });
    var box = active && boxes.indexOf(active) >= 0 ? active : boxes.filter(function (b) {
      return !b.querySelector("input:checked");
    })[0] || boxes[0];
    if (!box) { return; }
    var options = box.querySelectorAll("label");
    for (var j = 0; j < options.length; j += 1) {
      var mark = options[j].querySelector("kbd");
      if (mark && mark.textContent === key) {
        event.preventDefault();
        var input = options[j].querySelector("input");
        input.click();
        // one answer given with a key: the keys move on to the next question (a choice of
        // several stays until the annotator moves on)
        active = input.type === "radio" ? (boxes[boxes.indexOf(box) + 1] || box) : box;
        return;
      }
    }
  }

  document.addEventListener("keydown", shortcut);
  document.addEventListener("mouseup", function () { window.setTimeout(select, 0); });
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("[data-span-label]");
    if (button) { label(button); }
  });
  document.addEventListener("focusin", function (event) {
    var box = event.target.closest && event.target.closest("fieldset.question");
    if (box) { active = box; }
  });
  document.addEventListener("input", applyConditions);
  document.addEventListener("change", applyConditions);
  document.addEventListener("click", function (event) {
    if (!event.isTrusted) { return; }  // a key's own click: the keys have moved on already
    var box = event.target.closest && event.target.closest("fieldset.question");
    if (box) { active = box; }
  });

  function holdSave() {
    // a page with a minimum time: its button waits what is left of it since the page was first
    // shown (the server refuses sooner saves)
    var note = document.querySelector("[data-min-seconds]");
    var button = form() && form().querySelector("button[type=submit]");
    if (!note || !button) { return; }
    var wait = firstShown(form(), parseFloat(note.getAttribute("data-wait-seconds") || note.getAttribute("data-min-seconds")));
    if (!(wait > 0)) { return; }
    button.disabled = true;
    window.setTimeout(function () { button.disabled = false; }, wait * 1000);
  }

  function firstShown(f, wait) {
    // the tab keeps each page's first "shown" note: a reload sends that one again and waits only
    // what is left of the minimum since then (the server counts from the note it gets)
    var shown = f.querySelector("input[name=shown]");
    var response = f.querySelector("input[name=response]");
    var page = f.querySelector("input[name=page]");
    if (!shown || !response || !page) { return wait; }
    var key = "shown:" + response.value + ":" + page.value;
    try {
      var kept = JSON.parse(window.sessionStorage.getItem(key) || "null");
      if (kept && kept.token) {
        shown.value = kept.token;
        return kept.wait - (Date.now() - kept.at) / 1000;
      }
      window.sessionStorage.setItem(key, JSON.stringify({token: shown.value, at: Date.now(), wait: wait}));
    } catch (e) { /* no storage in this tab: the server's wait alone */ }
    return wait;
  }

  function init() {
    active = null;
    pending = null;
    holdSave();
    applyConditions();
    document.querySelectorAll("[data-span-text]").forEach(function (box) { draw(box.getAttribute("data-span-text")); });
  }
  // annotate.js replaces <main> after each save: watch for the new page
  new MutationObserver(function () { if (form() && !form().hasAttribute("data-taskfile")) { form().setAttribute("data-taskfile", "1"); init(); } })
    .observe(document.body, {childList: true, subtree: true});
  if (form()) { form().setAttribute("data-taskfile", "1"); init(); }
})();
