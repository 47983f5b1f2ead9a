// Draws the report's line charts as inline SVG from the JSON in #cassbench-data. No library
// and no network: the page is one file that opens anywhere.
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  var COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"];
  function el(name, attrs, parent) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) { e.setAttribute(k, attrs[k]); }
    if (parent) { parent.appendChild(e); }
    return e;
  }
  function text(parent, x, y, s, anchor, cls) {
    var t = el("text", { x: x, y: y, "text-anchor": anchor || "middle", "class": cls || "tick" }, parent);
    t.textContent = s;
    return t;
  }
  function niceTicks(lo, hi, n) {
    var span = hi - lo, step = Math.pow(10, Math.floor(Math.log10(span / n)));
    var err = span / n / step;
    step *= err >= 7.5 ? 10 : err >= 3.5 ? 5 : err >= 1.5 ? 2 : 1;
    var out = [];
    for (var v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) { out.push(v); }
    return out;
  }
  function fmt(v) {
    if (Math.abs(v) >= 1e6) { return (v / 1e6).toPrecision(3) + "M"; }
    if (Math.abs(v) >= 1e3) { return (v / 1e3).toPrecision(3) + "k"; }
    return String(Math.round(v * 100) / 100);
  }
  function draw(chart, holder) {
    var W = 720, H = 300, L = 70, R = 20, T = 30, B = 45;
    var svg = el("svg", { width: W, height: H, viewBox: "0 0 " + W + " " + H, "class": "chart", "data-chart": chart.id }, holder);
    text(svg, W / 2, 18, chart.title, "middle", "title");
    var xs = [], ys = [];
    chart.series.forEach(function (s) { s.points.forEach(function (p) { xs.push(chart.logX ? Math.log10(p[0]) : p[0]); ys.push(p[1]); }); });
    if (xs.length === 0) { text(svg, W / 2, H / 2, "no data"); return; }
    var x0 = Math.min.apply(null, xs), x1 = Math.max.apply(null, xs), y1 = Math.max.apply(null, ys) * 1.1 || 1;
    if (x1 === x0) { x1 = x0 + 1; }
    var sx = function (v) { return L + (W - L - R) * ((chart.logX ? Math.log10(v) : v) - x0) / (x1 - x0); };
    var sy = function (v) { return H - B - (H - T - B) * v / y1; };
    niceTicks(0, y1, 5).forEach(function (v) {
      el("line", { x1: L, x2: W - R, y1: sy(v), y2: sy(v), "class": "grid" }, svg);
      text(svg, L - 6, sy(v) + 4, fmt(v), "end");
    });
    if (chart.logX) {
      chart.xTicks.forEach(function (t) { text(svg, sx(t[0]), H - B + 16, t[1]); });
    } else {
      niceTicks(x0, x1, 6).forEach(function (v) { text(svg, sx(v), H - B + 16, fmt(v)); });
    }
    el("line", { x1: L, x2: W - R, y1: H - B, y2: H - B, "class": "axis" }, svg);
    el("line", { x1: L, x2: L, y1: T, y2: H - B, "class": "axis" }, svg);
    text(svg, (L + W - R) / 2, H - 8, chart.xLabel);
    var yl = text(svg, 14, (T + H - B) / 2, chart.yLabel);
    yl.setAttribute("transform", "rotate(-90 14 " + (T + H - B) / 2 + ")");
    chart.series.forEach(function (s, i) {
      var color = COLORS[i % COLORS.length];
      el("polyline", {
        "class": "series", "data-series": s.name, fill: "none", stroke: color, "stroke-width": 1.8,
        points: s.points.map(function (p) { return sx(p[0]).toFixed(1) + "," + sy(p[1]).toFixed(1); }).join(" ")
      }, svg);
      if (chart.series.length > 1) {
        el("rect", { x: L + 10, y: T + 4 + 16 * i, width: 12, height: 3, fill: color }, svg);
        text(svg, L + 28, T + 9 + 16 * i, s.name, "start", "legend");
      }
    });
  }
  var data = JSON.parse(document.getElementById("cassbench-data").textContent);
  data.charts.forEach(function (chart) {
    var holder = document.getElementById("chart-" + chart.id);
    if (!holder) { throw new Error("no place for chart " + chart.id); }
    draw(chart, holder);
  });
  document.body.setAttribute("data-charts-drawn", String(data.charts.length));
})();
