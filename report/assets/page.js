// The report's own script: it renders each formula with KaTeX to MathML
// (the browser draws MathML natively, so no font or stylesheet is needed)
// and, when served live, swaps in the fresh <main> after each event.
(function () {
  "use strict";
  function render(root) {
    root.querySelectorAll("span.math:not([data-done])").forEach(function (el) {
      var tex = el.textContent;
      el.setAttribute("data-done", "1");
      try {
        katex.render(tex, el, { output: "mathml", throwOnError: true, displayMode: el.getAttribute("data-display") === "1" });
      } catch (e) {
        // A formula KaTeX cannot parse stays as its TeX source, marked;
        // KaTeX's own error rendering would need an inline style the
        // page's policy forbids.
        el.textContent = tex;
        el.className = "math math-error";
        el.title = String(e && e.message || e);
      }
    });
  }
  render(document);
  var body = document.body;
  if (body.getAttribute("data-live") !== "1" || !window.EventSource) {
    return;
  }
  var busy = false, again = false;
  function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    fetch(location.pathname + "?part=main", { cache: "no-store" })
      .then(function (r) { return r.text(); })
      .then(function (t) {
        var doc = new DOMParser().parseFromString(t, "text/html");
        var fresh = doc.querySelector("main");
        if (fresh) {
          document.querySelector("main").replaceWith(document.adoptNode(fresh));
          render(document);
        }
      })
      .catch(function () {})
      .finally(function () {
        busy = false;
        if (again) { again = false; refresh(); }
      });
  }
  var seq = document.querySelector("main").getAttribute("data-seq") || "0";
  var es = new EventSource("/events?since=" + encodeURIComponent(seq));
  es.onmessage = refresh;
})();
