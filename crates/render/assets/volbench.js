// volbench report pages: turns the chart specifications embedded in the page (JSON in
// #volbench-data) into Chart.js charts. Numbers are formatted as volbench's text output
// formats them; series differ by dash pattern and point shape as well as colour, so a page
// printed in grey still tells them apart.
(function () {
  "use strict";
  var PALETTE = ["#1f5fa8", "#d1495b", "#2e8540", "#edae49", "#6a4c93", "#00798c", "#7f7f7f", "#b5651d"];
  var DASHES = [[], [6, 4], [2, 3], [10, 3, 2, 3], [1, 2], [12, 6]];
  var POINTS = ["circle", "triangle", "rect", "crossRot", "rectRot", "star", "cross", "rectRounded"];

  function count(v) {
    // Below 10 the digits that matter are after the point: 0.4 IOPS is not "0".
    if (v !== 0 && Math.abs(v) < 10 && Math.round(v) !== v) return v.toPrecision(2);
    if (v < 1e4) return v.toFixed(0);
    if (v < 1e6) return (v / 1e3).toFixed(1) + "k";
    return (v / 1e6).toFixed(2) + "M";
  }
  function bytes(v) {
    var units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"], i = 0;
    while (v >= 1023.95 && i + 1 < units.length) { v /= 1024; i++; }
    return (i === 0 ? v.toFixed(0) : v.toFixed(1)) + " " + units[i];
  }
  function ns(v) {
    if (v < 1e3) return v.toFixed(0) + " ns";
    if (v < 1e6) return (v / 1e3).toFixed(1) + " µs";
    if (v < 1e9) return (v / 1e6).toFixed(2) + " ms";
    return (v / 1e9).toFixed(2) + " s";
  }
  var FORMATS = {
    count: count,
    bytes_s: function (v) { return bytes(v) + "/s"; },
    ns: ns,
    pct: function (v) { return v.toFixed(2) + " %"; },
    plain: function (v) { return String(v); }
  };

  function dataset(d, i) {
    var colour = PALETTE[i % PALETTE.length];
    var mark = d.mark === true;
    return {
      label: d.label,
      // A dataset with its own x values (a curve against achieved IOPS) is drawn as points
      // on a linear x axis; the others share the chart's labels.
      data: d.xs ? d.xs.map(function (x, k) { return { x: x, y: d.data[k] }; }) : d.data,
      yAxisID: d.axis || "y",
      borderColor: colour,
      backgroundColor: colour + (mark ? "ff" : "99"),
      borderDash: mark ? [] : DASHES[i % DASHES.length],
      pointStyle: mark ? "star" : POINTS[i % POINTS.length],
      pointRadius: mark ? 9 : 3,
      pointHoverRadius: mark ? 11 : 6,
      showLine: !mark,
      borderWidth: mark ? 2 : 2,
      spanGaps: true,
      volbenchFormat: d.fmt || "plain"
    };
  }

  // A bytes axis steps in whole binary units (0, 256 MiB, 512 MiB ...), so that each label
  // is a round figure; Chart.js alone steps in powers of ten of bytes (190.7 MiB, 381.5 ...).
  function binarySteps(axis) {
    var lo = Math.min(0, axis.min), hi = axis.max;
    if (!(hi > lo)) return;
    var unit = Math.pow(1024, Math.max(0, Math.floor(Math.log(hi) / Math.log(1024) + 1e-9)));
    var span = (hi - lo) / unit, step = 1000;
    [0.1, 0.2, 0.25, 0.5, 1, 2, 2.5, 5, 10, 20, 25, 50, 100, 200, 250, 500].some(function (s) {
      if (span / s <= 8) { step = s; return true; }
      return false;
    });
    var stepBytes = step * unit;
    axis.min = Math.floor(lo / stepBytes) * stepBytes;
    axis.max = Math.ceil(hi / stepBytes) * stepBytes;
    axis.volbenchStep = stepBytes;
    axis.volbenchUnit = unit;
  }
  // Every label of a bytes axis in the axis's one unit (0.25 TiB/s, 0.5, 0.75 ...), so a
  // step below the unit does not read as 204.8 GiB/s.
  function inUnit(v, unit) {
    var names = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    var k = Math.round(Math.log(unit) / Math.log(1024));
    return String(Number((v / unit).toFixed(2))) + " " + names[k] + "/s";
  }
  function binaryTicks(axis) {
    if (!axis.volbenchStep) return;
    var ticks = [];
    for (var v = axis.min; v <= axis.max + axis.volbenchStep / 2; v += axis.volbenchStep) {
      ticks.push({ value: v });
    }
    axis.ticks = ticks;
  }
  // On a log axis only 1, 2 and 5 times a power of ten are labelled (the rest crowd), unless
  // the data spans less than that, when every tick keeps its label.
  function logLabel(axis, v) {
    if (axis.max / Math.max(axis.min, 1e-9) < 5) return true;
    var m = v / Math.pow(10, Math.floor(Math.log10(v) + 1e-9));
    return [1, 2, 5].indexOf(Math.round(m * 1000) / 1000) >= 0;
  }

  function scale(title, fmt, log, position) {
    var binary = fmt === "bytes_s" && !log;
    return {
      afterDataLimits: binary ? binarySteps : undefined,
      afterBuildTicks: binary ? binaryTicks : undefined,
      type: log ? "logarithmic" : "linear",
      position: position,
      title: { display: true, text: title },
      ticks: {
        callback: function (v, i, ticks) {
          v = Number(v);
          if (log && v > 0 && !logLabel(this, v)) return "";
          var text = this.volbenchUnit ? inUnit(v, this.volbenchUnit) : FORMATS[fmt](v);
          // A narrow axis can round neighbouring ticks to one text (6.1 µs, 6.1 µs): keep the
          // first, so no label is printed twice.
          var prev = i > 0 ? Number(ticks[i - 1].value) : null;
          var prevText = prev === null ? null : this.volbenchUnit ? inUnit(prev, this.volbenchUnit) : FORMATS[fmt](prev);
          if (prevText === text) return "";
          return text;
        }
      },
      grid: { drawOnChartArea: position === "left" }
    };
  }

  function config(c) {
    var sets = c.datasets.map(dataset);
    var first = c.datasets.find(function (d) { return (d.axis || "y") === "y"; }) || {};
    var second = c.datasets.find(function (d) { return d.axis === "y2"; });
    var numericX = c.datasets.some(function (d) { return d.xs; });
    var scales = {
      x: numericX
        ? { type: "linear", title: { display: true, text: c.x_title },
            ticks: { callback: function (v) { return FORMATS.count(Number(v)); } } }
        : { title: { display: true, text: c.x_title } },
      y: scale(c.y_title, first.fmt || "plain", c.y_log, "left")
    };
    if (c.y_from_zero && !c.y_log) scales.y.beginAtZero = true;
    if (second) {
      scales.y2 = scale(c.y2_title || "", second.fmt || "plain", false, "right");
      scales.y2.beginAtZero = true;
    }
    return {
      type: c.kind,
      data: { labels: c.labels, datasets: sets },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        interaction: { mode: "nearest", intersect: false },
        plugins: {
          title: { display: true, text: c.title, font: { size: 15 } },
          legend: { position: "bottom", labels: { usePointStyle: true } },
          tooltip: {
            callbacks: {
              label: function (ctx) {
                var f = FORMATS[ctx.dataset.volbenchFormat] || FORMATS.plain;
                var v = ctx.parsed.y;
                if (v === null) return ctx.dataset.label + ": -";
                // As the text output prints it, then the exact figure.
                var exact = Math.abs(v) >= 100 ? Math.round(v).toLocaleString("en") : v.toPrecision(4);
                var unit = { count: "", bytes_s: " B/s", ns: " ns", pct: " %" }[ctx.dataset.volbenchFormat] || "";
                return ctx.dataset.label + ": " + f(v) + " (" + exact + unit + ")";
              }
            }
          }
        },
        scales: scales
      }
    };
  }

  function draw() {
    var node = document.getElementById("volbench-data");
    if (!node || typeof Chart === "undefined") return;
    var page = JSON.parse(node.textContent);
    var drawn = 0;
    page.charts.forEach(function (c) {
      var canvas = document.getElementById(c.id);
      if (!canvas) return;
      var chart = new Chart(canvas, config(c));
      // The y axis's labels as drawn, for tests and for readers of the DOM (a canvas holds
      // no text).
      var y = chart.scales && chart.scales.y;
      if (y) canvas.setAttribute("data-y-ticks", JSON.stringify(y.ticks.map(function (t) { return t.label; })));
      drawn++;
    });
    document.body.setAttribute("data-charts-drawn", String(drawn));
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", draw);
  else draw();
})();
