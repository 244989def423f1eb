/* Review helpers: keyboard review (1-5, a/n/r, Enter = save & next), moves through the review queue,
   tag suggestions in the correction editor.
   Loaded by the review panel (re-inserted on every swap) and the queue page, so it installs once. */
(function () {
  "use strict";
  if (window.heditReview) return;
  window.heditReview = true;
  // Readiness in the DOM as well: a page's own CSP lets tests wait on an element, not on evaluated script.
  document.documentElement.setAttribute("data-hedit-review", "ready");

  var TOKEN_BREAK = /[,()]/;

  // Only fields that take text swallow keys: a focused radio or button leaves the shortcuts on.
  var NOT_TEXT = /^(radio|checkbox|button|submit|reset|range|color|file|image)$/;
  function typing(target) {
    if (!target || !target.closest) return false;
    var field = target.closest("input, textarea, select, [contenteditable]");
    if (!field) return false;
    return !(field.tagName === "INPUT" && NOT_TEXT.test(field.type));
  }

  var VERDICT_KEYS = { a: "accept", n: "needs-fix", r: "reject" };

  // Run page: 1-5 rate, a/n/r judge, Enter saves and opens the next run of the queue.
  function reviewKey(evt) {
    var form = document.getElementById("review-form");
    if (!form) return false;
    var key = evt.key, input = null;
    if (/^[1-5]$/.test(key)) {
      input = form.querySelector("input[name=rating][value='" + key + "']");
    } else if (VERDICT_KEYS[key]) {
      input = form.querySelector("input[name=verdict][value='" + VERDICT_KEYS[key] + "']");
    } else if (key === "Enter" && !evt.shiftKey) {
      // Enter on a link, button or disclosure keeps its own meaning.
      if (evt.target.closest && evt.target.closest("a, button, summary")) return false;
      var button = document.getElementById("review-save-next");
      if (!button) return false;
      button.click();  // a click, so htmx sends the button's name ("next") with the form
      return true;
    }
    if (!input) return false;
    input.checked = true;
    input.dispatchEvent(new Event("change", { bubbles: true }));
    return true;
  }

  // The tag under the caret: from after the previous comma/parenthesis to before the next one.
  function tokenBounds(area) {
    var text = area.value, caret = area.selectionStart == null ? text.length : area.selectionStart;
    var start = caret, end = caret;
    while (start > 0 && !TOKEN_BREAK.test(text.charAt(start - 1))) start--;
    while (end < text.length && !TOKEN_BREAK.test(text.charAt(end))) end++;
    while (start < end && /\s/.test(text.charAt(start))) start++;
    return { start: start, end: Math.max(caret, start), fullEnd: end };
  }

  function tokenAtCaret(area) {
    var b = tokenBounds(area);
    return area.value.slice(b.start, b.end).trim();
  }

  // The suggestion list under the editor. Closed, it stays closed for the text it was closed on: focus or a
  // pick (which sends "input" for the validity check) does not bring it back, typing does.
  var closedFor = null;

  function suggestionBox() { return document.getElementById("tag-suggestions"); }

  function suggestionsOpen() {
    var box = suggestionBox();
    return !!box && !box.hidden;
  }

  function closeSuggestions() {
    var box = suggestionBox();
    var area = document.getElementById("correction-hed");
    closedFor = area ? area.value : "";
    if (!box) return;
    box.hidden = true;
    box.textContent = "";
    var trigger = document.getElementById("tag-suggest");
    if (trigger && window.htmx) htmx.trigger(trigger, "htmx:abort");  // an answer on its way is dropped
  }

  // Ask for suggestions matching the word at the caret, not only the end of the text.
  document.addEventListener("htmx:configRequest", function (evt) {
    var elt = evt.detail.elt;
    if (!elt || elt.id !== "tag-suggest") return;
    var area = document.getElementById("correction-hed");
    if (!area) return;
    if (closedFor !== null && area.value === closedFor) {
      evt.preventDefault();  // closed for this very text: no request, nothing reopens
      return;
    }
    closedFor = null;
    evt.detail.parameters.q = tokenAtCaret(area);
  });

  document.addEventListener("htmx:beforeSwap", function (evt) {
    var target = evt.detail.target;
    if (target && target.id === "tag-suggestions" && closedFor !== null) evt.detail.shouldSwap = false;
  });

  document.addEventListener("htmx:afterSwap", function (evt) {
    var target = evt.detail.target;
    if (!target || target.id !== "tag-suggestions") return;
    target.hidden = !target.textContent.trim();
  });

  // Escape closes the list (from the editor or the list), and leaves the caret in the editor.
  document.addEventListener("keydown", function (evt) {
    if (evt.key !== "Escape" || !suggestionsOpen()) return;
    var box = suggestionBox();
    var area = document.getElementById("correction-hed");
    if (evt.target !== area && !box.contains(evt.target)) return;
    evt.preventDefault();
    closeSuggestions();
    if (area) area.focus();
  });

  // A click anywhere but the editor and the list closes it. On "click", not "mousedown": the list going away
  // moves what is below it, and a press must end on the button it started on.
  document.addEventListener("click", function (evt) {
    if (!suggestionsOpen()) return;
    var box = suggestionBox();
    var area = document.getElementById("correction-hed");
    if (evt.target === area || box.contains(evt.target)) return;
    closeSuggestions();
  });

  // A chosen suggestion replaces the word at the caret; value-taking tags get their "/".
  document.addEventListener("click", function (evt) {
    var button = evt.target.closest ? evt.target.closest(".tag-suggestion") : null;
    if (!button) return;
    var area = document.getElementById("correction-hed");
    if (!area) return;
    var b = tokenBounds(area);
    var tag = button.getAttribute("data-tag") + (button.hasAttribute("data-takes-value") ? "/" : "");
    var current = area.value.slice(b.start, b.fullEnd);
    // Keep a value already typed after the tag ("Duratio/2 s" -> "Duration/2 s").
    var slash = current.indexOf("/");
    var rest = slash >= 0 && button.hasAttribute("data-takes-value") ? current.slice(slash + 1) : "";
    var insert = tag + rest;
    area.value = area.value.slice(0, b.start) + insert + area.value.slice(b.fullEnd);
    var caret = b.start + insert.length;
    area.focus();
    area.setSelectionRange(caret, caret);
    closeSuggestions();  // picked: the list goes, and the "input" below (for the validity check) does not reopen it
    area.dispatchEvent(new Event("input", { bubbles: true }));
  });

  function go(link) {
    if (link && link.href) window.location.assign(link.href);
  }

  // Queue page: j/k or arrows move the highlighted row, Enter opens it.
  function queueRows() {
    return Array.prototype.slice.call(document.querySelectorAll("[data-queue-row]"));
  }

  function select(rows, index) {
    rows.forEach(function (row) { row.classList.remove("is-selected"); row.removeAttribute("aria-selected"); });
    var row = rows[index];
    if (!row) return;
    row.classList.add("is-selected");
    row.setAttribute("aria-selected", "true");
    row.focus({ preventScroll: true });
    row.scrollIntoView({ block: "nearest" });
  }

  document.addEventListener("keydown", function (evt) {
    if (evt.altKey || evt.ctrlKey || evt.metaKey || typing(evt.target)) return;
    var key = evt.key;
    var rows = queueRows();
    if (rows.length) {
      var current = rows.findIndex(function (row) { return row.classList.contains("is-selected"); });
      if (key === "j" || key === "ArrowDown") {
        select(rows, Math.min(current + 1, rows.length - 1));
      } else if (key === "k" || key === "ArrowUp") {
        select(rows, Math.max(current - 1, 0));
      } else if ((key === "Enter" || key === "o") && current >= 0) {
        go(rows[current].querySelector("[data-queue-link]"));
      } else {
        return;
      }
      evt.preventDefault();
      return;
    }
    if (reviewKey(evt)) {
      evt.preventDefault();
      return;
    }
    // Session page: move to the next or previous run still waiting for a review.
    if (key === "j" || key === "ArrowRight") {
      go(document.querySelector("[data-review-next]"));
    } else if (key === "k" || key === "ArrowLeft") {
      go(document.querySelector("[data-review-prev]"));
    }
  });

  // A run followed live has just finished: fetch the panel again so its review forms appear.
  function refreshPanelIfFinished() {
    var panel = document.getElementById("review-panel");
    var status = document.getElementById("session-status");
    if (!panel || !status || !window.htmx || panel.getAttribute("data-finished") !== "false") return;
    var state = status.getAttribute("data-status");
    if (["succeeded", "invalid", "failed", "cancelled"].indexOf(state) < 0) return;
    panel.setAttribute("data-finished", "pending");
    htmx.ajax("GET", panel.getAttribute("data-panel-url"), { target: "#review-panel", swap: "outerHTML" });
  }
  document.addEventListener("htmx:oobAfterSwap", refreshPanelIfFinished);
  document.addEventListener("htmx:afterSettle", refreshPanelIfFinished);

  document.addEventListener("DOMContentLoaded", function () {
    var rows = queueRows();
    if (rows.length) select(rows, 0);
  });
})();
