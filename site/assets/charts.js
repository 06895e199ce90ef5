/* evidence-kit: draw the interactive version of every chart with the vendored vega-embed.
   The spec sits HTML-escaped in data-vl-spec; the static SVG above it is the fallback, hidden
   once the interactive chart has drawn (and shown where scripts do not run). */
(function () {
  "use strict";
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
  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(draw);
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", draw);
  } else {
    draw();
  }
})();
