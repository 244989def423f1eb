/* HEDit Portal: the little behaviour htmx does not cover. Pages work without it. */
(function () {
  "use strict";

  // Highest step number on the page, so a reconnecting socket asks only for later steps.
  function lastStepSeq() {
    var last = 0;
    document.querySelectorAll("#progress [data-step-seq]").forEach(function (el) {
      last = Math.max(last, parseInt(el.getAttribute("data-step-seq"), 10) || 0);
    });
    return last;
  }

  if (window.htmx) {
    var plainSocket = htmx.createWebSocket || function (url) { return new WebSocket(url, []); };
    htmx.createWebSocket = function (url) {
      if (/[?&]after=\d+/.test(url)) {
        url = url.replace(/([?&]after=)\d+/, "$1" + lastStepSeq());
      }
      return plainSocket(url);
    };
  }

  // A step already on the page (rendered by the server or sent before a reconnect) is dropped.
  document.addEventListener("htmx:wsBeforeMessage", function (evt) {
    var match = /data-step-seq="(\d+)"/.exec(evt.detail.message || "");
    if (match && document.getElementById("step-" + match[1])) {
      evt.preventDefault();
    }
  });

  document.addEventListener("click", function (evt) {
    var button = evt.target.closest("[data-copy-text]");
    if (!button) return;
    var text = button.getAttribute("data-copy-text");
    var done = function () {
      var label = button.textContent;
      button.textContent = "Copied";
      button.classList.add("is-done");
      setTimeout(function () { button.textContent = label; button.classList.remove("is-done"); }, 1500);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () { fallbackCopy(text); done(); });
    } else {
      fallbackCopy(text);
      done();
    }
  });

  function fallbackCopy(text) {
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.className = "offscreen-copy";
    document.body.appendChild(area);
    area.select();
    try { document.execCommand("copy"); } catch (e) { /* nothing more we can do */ }
    document.body.removeChild(area);
  }

  // An htmx request the server refused with an error page (403, 404, 405) or could not answer (5xx, no network):
  // htmx swaps nothing (base.html's htmx-config); one line beside what was asked says so, replaced by the next.
  function sayFailed(evt, text) {
    var elt = evt.detail && evt.detail.elt;
    if (!elt || !elt.isConnected) elt = document.querySelector("main") || document.body;
    var anchor = elt.closest("form, li, section, .card") || elt;
    var line = anchor.querySelector(":scope > .htmx-failure") || document.createElement("p");
    line.className = "error-line htmx-failure";
    line.setAttribute("role", "alert");
    line.textContent = text;
    if (!line.parentNode) anchor.appendChild(line);
  }

  document.addEventListener("htmx:responseError", function (evt) {
    var status = evt.detail.xhr ? evt.detail.xhr.status : 0;
    var why = {403: "You may not do this here.", 404: "This is gone: reload the page for what is there now.",
               405: "This cannot be done here."}[status] ||
      "The server could not do this (error " + status + "); nothing was changed. Try again, or reload the page.";
    sayFailed(evt, why);
  });
  document.addEventListener("htmx:sendError", function (evt) {
    sayFailed(evt, "The server could not be reached; nothing was sent. Try again once you are online.");
  });

  // Close the user menu when clicking elsewhere.
  document.addEventListener("click", function (evt) {
    document.querySelectorAll("details.user-menu[open]").forEach(function (menu) {
      if (!menu.contains(evt.target)) menu.removeAttribute("open");
    });
  });
})();
