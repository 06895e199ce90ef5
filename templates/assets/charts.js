/* evidence-kit: draw the interactive version of every chart with the vendored vega-embed.
   The spec sits HTML-escaped in data-vl-spec; the static SVG above it is the fallback, hidden
   once the interactive chart has drawn (and shown where scripts do not run). */
(function () {
  "use strict";
  // Where a host site loads this file on every page (the MkDocs plugin), the Vega bundle beside it is
  // loaded only on a page that has a chart, once, also after an instant navigation.
  var here = document.currentScript && document.currentScript.src;
  var loading = null;
  function withBundle(then) {
    if (typeof window.vegaEmbed === "function") { then(); return; }
    if (!here || !document.querySelector("div.ek-vega[data-vl-spec]")) { return; }
    if (!loading) {
      loading = new Promise(function (done, failed) {
        var script = document.createElement("script");
        script.src = here.replace(/charts\.js([?#].*)?$/, "vega-bundle.js");
        script.onload = done;
        script.onerror = failed;
        document.head.appendChild(script);
      });
    }
    loading.then(then, function () { console.error("chart failed: the Vega bundle did not load"); });
  }
  function draw() {
    if (typeof window.vegaEmbed !== "function") { return; }
    document.querySelectorAll("div.ek-vega[data-vl-spec]").forEach(function (el) {
      if (el.dataset.ekDrawn) { return; }
      el.dataset.ekDrawn = "1";
      var spec = JSON.parse(el.getAttribute("data-vl-spec"));
      window.vegaEmbed(el, spec, { mode: "vega-lite", renderer: "svg", actions: false })
        .then(function () {
          el.dataset.ekDrawn = "done";
          var prev = el.previousElementSibling;
          var img = prev && prev.querySelector("img.ek-chart");
          if (img) { prev.hidden = true; }
        })
        .catch(function (err) { el.dataset.ekDrawn = "failed"; console.error("chart failed:", err); });
    });
  }
  function drawAll() { withBundle(draw); }
  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(drawAll);
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", drawAll);
  } else {
    drawAll();
  }
})();
