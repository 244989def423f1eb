/* Dataset project page: refresh each task's quality panel (validity, quality line, row preview) when a job
   ends. The socket pushes the counts (#dataset-counts, with data-status and data-done) as runs start and end;
   once nothing is being annotated and the counts moved since the panels were drawn, the panels load again.
   Panels listen for "ds-refresh" on the body (hx-trigger). The page works without this: reload it. */
(function () {
  "use strict";

  function signature() {
    var counts = document.getElementById("dataset-counts");
    if (!counts) return null;
    return {
      status: counts.getAttribute("data-status"),
      busy: ["annotating", "validating"].indexOf(counts.getAttribute("data-status")) !== -1,
      key: [counts.getAttribute("data-status"), counts.getAttribute("data-done"), counts.getAttribute("data-total")].join(":")
    };
  }

  var drawn = null;
  var sawWork = false;

  document.addEventListener("DOMContentLoaded", function () {
    var now = signature();
    drawn = now && now.key;
  });

  document.addEventListener("htmx:wsAfterMessage", function () {
    var now = signature();
    if (!now || !window.htmx) return;
    if (now.busy) {
      sawWork = true;
      // "Next, press Annotate all" is no longer true once a job runs.
      document.querySelectorAll(".message--next").forEach(function (message) { message.remove(); });
      return;
    }
    // "Annotating N levels" is no longer true once the job has ended: its message goes.
    if (sawWork || ["done", "failed"].indexOf(now.status) !== -1) {
      document.querySelectorAll(".message--job").forEach(function (message) { message.remove(); });
    }
    if (now.key !== drawn || sawWork) {
      drawn = now.key;
      sawWork = false;
      htmx.trigger(document.body, "ds-refresh");
    }
  });
})();

/* Folded tasks (a project of many tasks shows the first open): a link to a task or to anything inside one
   (the jump list's #task-x, a redirect's #level-12) opens the folds around its target before the browser
   scrolls there. */
(function () {
  "use strict";

  function reveal(hash) {
    if (!hash || hash.length < 2) return;
    var target = document.getElementById(decodeURIComponent(hash.slice(1)));
    if (!target) return;
    var fold = target.querySelector("[data-task-fold]") || target.closest("[data-task-fold]");
    if (fold && !fold.open) fold.open = true;
    target.scrollIntoView();
  }

  document.addEventListener("DOMContentLoaded", function () {
    if (document.querySelector("[data-task-fold]")) reveal(window.location.hash);
  });
  window.addEventListener("hashchange", function () { reveal(window.location.hash); });
})();
