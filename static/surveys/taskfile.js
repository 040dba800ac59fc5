// Pages of tasks described by a task file. The server decides everything (which questions are
// asked, every answer's bounds); this script only helps: number-key shortcuts for choices,
// questions shown or hidden as earlier answers on the page change, a slider's value, and span
// marking (select text with the mouse or by touch; the spans go to a hidden field as JSON, in
// code points of the item's stored text).
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
      if (!input) { return; }
      var keep = f.querySelector("[data-slider-keep='" + input.getAttribute("data-question") + "']");
      out.textContent = input.value;
      out.hidden = Boolean(keep && !keep.checked);  // no value shown until one is chosen
    });
  }

  // --- spans -------------------------------------------------------------------------
  // Offsets are code points of the item's stored text, the text Python slices on the server.
  // The page gets that text unchanged as JSON (data-source: CR, CRLF and astral characters
  // intact) and shows it as HTML does (CRLF and a lone CR read as one LF). A selection gives
  // offsets in UTF-16 units of what is shown; `source(box).starts` maps them back.
  var sources = {};  // question -> {box, points: code points, starts: shown offset of each}

  function shownAs(points, i) {
    if (points[i] === "\r") { return points[i + 1] === "\n" ? "" : "\n"; }
    return points[i];
  }

  function source(box) {
    var question = box.getAttribute("data-span-text");
    var known = sources[question];
    if (known && known.box === box) { return known; }
    var points = Array.from(JSON.parse(box.getAttribute("data-source") || '""'));
    var starts = [];
    var at = 0;
    for (var i = 0; i < points.length; i += 1) { starts.push(at); at += shownAs(points, i).length; }
    starts.push(at);
    sources[question] = {box: box, points: points, starts: starts};
    return sources[question];
  }

  function shown(src, from, to) {
    var out = "";
    for (var i = from; i < to; i += 1) { out += shownAs(src.points, i); }
    return out;
  }

  function exact(src, from, to) { return src.points.slice(from, to).join(""); }

  // the code point a shown offset falls in (a start rounds down, an end rounds up, so a
  // selection never splits a character)
  function pointAt(src, offset, roundUp) {
    var low = 0;
    var high = src.points.length;
    while (low < high) {
      var mid = (low + high + (roundUp ? 0 : 1)) >> 1;
      if (roundUp ? src.starts[mid] >= offset : src.starts[mid] <= offset) {
        if (roundUp) { high = mid; } else { low = mid; }
      } else if (roundUp) { low = mid + 1; } else { high = mid - 1; }
    }
    return low;
  }

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
    var src = source(box);
    var spans = spansOf(question);
    box.textContent = "";
    var at = 0;
    spans.slice().forEach(function (s) {
      if (s.start < at) { return; }  // overlapping spans are listed, highlighted once
      box.appendChild(document.createTextNode(shown(src, at, s.start)));
      var mark = document.createElement("mark");
      mark.textContent = shown(src, s.start, s.end);
      if (s.label !== null && s.label !== undefined) {
        mark.setAttribute("data-label", s.label);
        // the label in words beside the colour (CSS shows it after the mark, outside the text)
        mark.setAttribute("data-label-text", labelText(question, s.label));
        if (colourOf(question, s.label) !== null) { mark.setAttribute("data-colour", colourOf(question, s.label)); }
      }
      box.appendChild(mark);
      at = s.end;
    });
    box.appendChild(document.createTextNode(shown(src, at, src.points.length)));
    list.textContent = "";
    spans.forEach(function (s, index) {
      var item = document.createElement("li");
      var words = document.createElement("span");
      words.textContent = "“" + shown(src, s.start, s.end) + "”" +
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

  function shownOffset(box, node, offset) {
    var range = document.createRange();
    range.selectNodeContents(box);
    range.setEnd(node, offset);
    return range.toString().length;
  }

  // the selection as {question, start, end} in code points, white space trimmed (null: none
  // in a span text); a selection reaching past the text is cut at its edge
  function marked() {
    var selection = window.getSelection();
    if (!selection || selection.isCollapsed || !selection.rangeCount) { return null; }
    var range = selection.getRangeAt(0);
    var inBox = function (node) {
      var el = node.nodeType === 1 ? node : node.parentNode;
      return el && el.closest ? el.closest("[data-span-text]") : null;
    };
    var box = inBox(range.startContainer) || inBox(range.endContainer);
    if (!box) { return null; }
    var whole = document.createRange();
    whole.selectNodeContents(box);
    var src = source(box);
    var from = range.compareBoundaryPoints(Range.START_TO_START, whole) < 0
      ? 0 : shownOffset(box, range.startContainer, range.startOffset);
    var to = range.compareBoundaryPoints(Range.END_TO_END, whole) > 0
      ? src.starts[src.points.length] : shownOffset(box, range.endContainer, range.endOffset);
    var start = pointAt(src, from, false);
    var end = pointAt(src, to, true);
    while (start < end && /\s/.test(src.points[start])) { start += 1; }
    while (end > start && /\s/.test(src.points[end - 1])) { end -= 1; }
    if (start >= end) { return null; }
    return {question: box.getAttribute("data-span-text"), start: start, end: end, text: exact(src, start, end)};
  }

  function labelButtons(question, on) {
    form().querySelectorAll("[data-for='" + question + "']").forEach(function (b) { b.disabled = !on; });
    var note = form().querySelector("[data-span-pending='" + question + "']");
    if (note) {
      var box = document.querySelector("[data-span-text='" + question + "']");
      note.textContent = on && pending && box
        ? note.getAttribute("data-words").replace("%s", shown(source(box), pending.start, pending.end)) : "";
    }
  }

  // a selection made (mouse release, or the selection settling after a long press or a drag of
  // its handles): it waits for its label; without labels a mouse release marks it at once
  function select(byMouse) {
    var found = marked();
    if (!found) { return; }
    var labelled = form().querySelector("[data-for='" + found.question + "'][data-span-label]:not([data-span-label=''])");
    if (byMouse && !labelled) {
      store(found.question, withSpan(found.question, {start: found.start, end: found.end, text: found.text, label: null}));
      pending = null;
      labelButtons(found.question, false);
      window.getSelection().removeAllRanges();
      return;
    }
    if (pending && pending.question !== found.question) { labelButtons(pending.question, false); }
    pending = found;
    labelButtons(found.question, true);
  }

  function label(button) {
    var question = button.getAttribute("data-for");
    if (!pending || pending.question !== question) { return; }
    var value = button.getAttribute("data-span-label");
    store(question, withSpan(question, {start: pending.start, end: pending.end, text: pending.text, label: value === "" ? null : value}));
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
  document.addEventListener("mouseup", function () { window.setTimeout(function () { select(true); }, 0); });
  var settling = null;  // touch: the selection is read once it has stopped changing
  document.addEventListener("selectionchange", function () {
    window.clearTimeout(settling);
    settling = window.setTimeout(function () { if (form()) { select(false); } }, 250);
  });
  document.addEventListener("mousedown", function (event) {
    // a label button keeps the selection it is about to label
    if (event.target.closest && event.target.closest("[data-span-label]")) { event.preventDefault(); }
  });
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("[data-span-label]");
    if (button) { label(button); }
  });
  document.addEventListener("focusin", function (event) {
    var box = event.target.closest && event.target.closest("fieldset.question");
    if (box) { active = box; }
  });
  // a slider moved (mouse, touch or keys), or clicked where it stands, is answered: its keep box
  // is ticked for the server
  function sliderChosen(event) {
    var input = event.target;
    if (input && input.type === "range" && form()) {
      var keep = form().querySelector("[data-slider-keep='" + input.getAttribute("data-question") + "']");
      if (keep && !keep.checked) { keep.checked = true; applyConditions(); }
    }
  }
  document.addEventListener("input", sliderChosen);
  document.addEventListener("click", sliderChosen);
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
