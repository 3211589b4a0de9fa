// clusterlens web UI: draws the charts described in #cl-charts into the
// page's placeholders (div[data-chart=ID]) with ECharts, then checks
// itself (every chart painted, tooltips format, no script error) and
// records the result on <body> for the browser test. The tables are
// rendered on the server; without this script the page still reads.
(function () {
  "use strict";
  var errors = window.__clErrors || [];
  var charts = [];
  var PALETTE = ["#2563eb", "#ea580c", "#16a34a", "#9333ea", "#b91c1c", "#0891b2", "#b7791f", "#475569"];

  function dur(ms) {
    if (ms == null || isNaN(ms)) return "-";
    var a = Math.abs(ms);
    if (a < 1000) return Math.round(ms) + "ms";
    if (a < 60000) return (a % 1000 ? (ms / 1000).toFixed(1) : String(ms / 1000)) + "s";
    var sec = Math.floor(a % 60000 / 1000), min = Math.floor(a % 3600000 / 60000);
    if (a < 3600000) return Math.floor(ms / 60000) + "m" + (sec ? String(sec).padStart(2, "0") + "s" : "");
    if (a < 86400000 * 2) return Math.floor(ms / 3600000) + "h" + (min ? String(min).padStart(2, "0") + "m" : "");
    return (ms / 86400000).toFixed(a % 86400000 ? 1 : 0) + "d";
  }
  // STEPS are round durations for axis ticks: a tick every 1, 2, 5, 10,
  // 15, 30 s, 1, 2, 5, 10, 15, 30 min, 1, 2, 3, 6, 12 h, days.
  var STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 15e3, 3e4, 6e4, 12e4, 3e5, 6e5, 9e5, 18e5,
    36e5, 72e5, 108e5, 216e5, 432e5, 864e5, 1728e5, 6048e5];
  // msAxis bounds a duration axis from 0 to maxMs with about n ticks at a
  // round duration, so that ticks read "5m", "10m", not "t+3m11s".
  function msAxis(maxMs, n) {
    if (!(maxMs > 0)) return {};
    var step = STEPS[STEPS.length - 1];
    for (var i = 0; i < STEPS.length; i++) if (maxMs / STEPS[i] <= n) { step = STEPS[i]; break; }
    if (maxMs / step > n) step = Math.ceil(maxMs / n / 864e5) * 864e5;
    return { min: 0, max: Math.ceil(maxMs / step) * step, interval: step };
  }
  // seriesMax is the largest y of C (of the stacked sums, for a stacked chart).
  function seriesMax(C) {
    var m = 0, sums = {};
    C.series.forEach(function (S) {
      S.data.forEach(function (p) {
        if (C.stack && (S.kind || C.kind) === "bar") { sums[p[0]] = (sums[p[0]] || 0) + Math.max(0, p[1]); m = Math.max(m, sums[p[0]]); }
        else m = Math.max(m, p[1]);
      });
    });
    return m;
  }
  function bytes(n) {
    var u = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"], i = 0;
    while (Math.abs(n) >= 1024 && i < u.length - 1) { n /= 1024; i++; }
    return (i ? n.toFixed(1) : Math.round(n)) + " " + u[i];
  }
  function value(v, unit) {
    if (v == null || isNaN(v)) return "-";
    switch (unit) {
      case "ms": return dur(v);
      case "bytes": return bytes(v);
      case "bytes/s": return bytes(v) + "/s";
      case "%": return v.toFixed(Math.abs(v) < 10 && v % 1 ? 1 : 0) + "%";
      case "ratio": return v.toFixed(2) + "×";
      default: return Number(v).toLocaleString("en-US", { maximumFractionDigits: 2 });
    }
  }
  function utc(ms) { return new Date(ms).toISOString().replace("T", " ").replace(/\.\d+Z$/, "Z"); }
  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) { return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]; });
  }
  var tip = { confine: true, trigger: "axis", transitionDuration: 0, hideDelay: 0, backgroundColor: "rgba(255,255,255,0.97)", borderColor: "#aab4bf", textStyle: { color: "#1b2430", fontSize: 13 } };

  function option(C) {
    var xLabel = function (v) {
      if (C.xTime) return utc(v).slice(5, 16);
      if (C.xCats) return C.xCats[v] == null ? "" : C.xCats[v];
      return value(v, "");
    };
    var series = C.series.map(function (S, i) {
      var kind = S.kind || C.kind;
      var s = { name: S.name, type: kind, data: S.data, showSymbol: kind === "scatter" || S.data.length < 40,
        itemStyle: { color: S.color || PALETTE[i % PALETTE.length] }, large: S.data.length > 2000 };
      if (kind === "line") s.lineStyle = { width: 1.6, type: S.dashed ? "dashed" : "solid" };
      if (kind === "scatter") s.symbolSize = S.data.length > 2000 ? 3 : 6;
      if (C.stack && kind === "bar") s.stack = "all";
      if (kind === "bar") s.barMaxWidth = 28;
      return s;
    });
    return {
      animation: false,
      textStyle: { fontFamily: "system-ui, -apple-system, Segoe UI, Roboto, DejaVu Sans, sans-serif", fontSize: 13 },
      title: { text: C.title, left: 8, top: 4, textStyle: { fontSize: 14 } },
      legend: { top: 4, right: 8, type: "scroll", width: "55%" },
      grid: { left: 70, right: 24, top: 40, bottom: 50 },
      tooltip: Object.assign({}, tip, C.kind === "scatter" ? { trigger: "item" } : {}, { formatter: function (ps) {
        ps = [].concat(ps);
        var out = esc(xLabel(ps[0].value[0]));
        ps.forEach(function (p) { out += "<br>" + p.marker + esc(p.seriesName) + ": " + esc(value(p.value[1], C.yUnit)); });
        return out;
      } }),
      xAxis: C.xCats
        ? { type: "category", data: C.xCats.map(function (_, i) { return i; }), name: C.xName, nameLocation: "middle", nameGap: 30, axisLabel: { formatter: xLabel, hideOverlap: true } }
        : { type: C.xTime ? "time" : "value", name: C.xName, nameLocation: "middle", nameGap: 30, scale: !C.xTime, axisLabel: { hideOverlap: true, formatter: C.xTime ? undefined : xLabel },
            min: C.xMax > C.xMin ? C.xMin : null, max: C.xMax > C.xMin ? C.xMax : null },
      yAxis: Object.assign({ type: "value", name: C.yName, axisLabel: { formatter: function (v) { return value(v, C.yUnit); } } },
        C.yUnit === "ms" ? msAxis(seriesMax(C), 6) : {}),
      dataZoom: C.xTime ? [{ type: "inside" }] : [],
      series: series
    };
  }

  // draw draws chart C in its placeholder, or redraws it there.
  function draw(C) {
    var box = document.querySelector('div[data-chart="' + C.id + '"]');
    if (!box) { errors.push("chart " + C.id + ": no placeholder"); return; }
    var had = charts.filter(function (c) { return c.id === C.id; })[0];
    try {
      if (had) { had.chart.setOption(option(C), { notMerge: true, lazyUpdate: false }); return; }
      box.classList.add("chart");
      box.style.height = (C.height || 260) + "px";
      var c = echarts.init(box, null, { renderer: "canvas" });
      c.setOption(option(C));
      charts.push({ id: C.id, chart: c, box: box });
    } catch (e) { errors.push(C.id + ": " + (e && e.message ? e.message : String(e))); }
  }
  var specs = document.getElementById("cl-charts");
  var all = specs ? JSON.parse(specs.textContent) : [];
  all.forEach(draw);
  window.addEventListener("resize", function () { charts.forEach(function (c) { c.chart.resize(); }); });

  // A live view (docs/UI.md) names its stream in <body data-live>: each
  // event carries the live part of the page as HTML (#cl-live) and its
  // charts. When the source ends ("end") or the connection is lost, the
  // page keeps the last data and says so. After an end the browser comes
  // back as the server asked (the event's retry and id): an update then
  // (the log replaced by a new run) makes the page live again. window.__clLive records each
  // update (when it arrived, when it was drawn and how long that took) and
  // window.__clFrames the time between animation frames, for the tests.
  var liveURL = document.body.dataset.live;
  if (liveURL && window.EventSource) {
    var box = document.getElementById("cl-live"), status = document.getElementById("cl-live-status");
    var log = window.__clLive = [], frames = window.__clFrames = [];
    var lastAt = 0, newest = 0, ended = false, STALE = 10000;
    var say = function (s) { if (status) status.textContent = s; };
    var apply = function (ev) {
      var t0 = performance.now(), arrived = Date.now();
      var d = JSON.parse(ev.data);
      var next = document.createElement("template");
      next.innerHTML = d.html;
      morph(box, next.content);
      void box.offsetHeight;
      var t1 = performance.now();
      (d.charts || []).forEach(function (C) {
        if (typeof echarts !== "undefined") draw(C);
      });
      void box.offsetHeight; // the layout is part of the update's time
      lastAt = Date.now(); newest = d.newestMs || newest;
      log.push({ arrived: arrived, at: lastAt, newestMs: d.newestMs, ms: performance.now() - t0, htmlMs: t1 - t0, tasks: (document.getElementById("cl-live-tasks") || {}).textContent });
      return d;
    };
    // morph makes el's children those of next, touching only what
    // differs: with a thousand rows, most cells keep their nodes and the
    // browser lays out only what changed.
    var morph = function (el, next) {
      var a = el.childNodes, b = next.childNodes, i;
      for (i = 0; i < b.length; i++) {
        var x = a[i], y = b[i];
        if (!x) { el.appendChild(y.cloneNode(true)); continue; }
        if (x.nodeType !== y.nodeType || x.nodeName !== y.nodeName) { el.replaceChild(y.cloneNode(true), x); continue; }
        if (x.nodeType === 3) { if (x.nodeValue !== y.nodeValue) x.nodeValue = y.nodeValue; continue; }
        if (x.nodeType !== 1) continue;
        var same = x.attributes.length === y.attributes.length;
        for (var k = 0; same && k < y.attributes.length; k++) same = x.getAttribute(y.attributes[k].name) === y.attributes[k].value;
        if (!same) { el.replaceChild(y.cloneNode(true), x); continue; }
        morph(x, y);
      }
      while (a.length > b.length) el.removeChild(el.lastChild);
    };
    var es = new EventSource(liveURL);
    es.addEventListener("update", function (ev) {
      if (ended) { ended = false; delete document.body.dataset.liveEnded; }
      apply(ev);
      say("Live: updated " + utc(lastAt) + (newest ? "; newest data " + utc(newest) : "") + " (at most one update a second).");
    });
    es.addEventListener("end", function (ev) {
      var d = apply(ev);
      ended = true;
      document.body.dataset.liveEnded = "true";
      say("No longer live: " + d.ended + ". Showing the last data, as of " + utc(lastAt) + ".");
    });
    es.onerror = function () {
      if (ended) return;
      say("The connection to the server is lost; showing the last data" + (lastAt ? ", as of " + utc(lastAt) : "") + ". Reconnecting…");
    };
    // A source that stopped sending (the collector, the agents, a driver
    // that hangs) is said so after STALE ms, the last data kept.
    setInterval(function () {
      if (!ended && lastAt && Date.now() - lastAt > STALE) say("Nothing new since " + utc(lastAt) + " (the source stopped, or is quiet): showing the last data" + (newest ? ", newest " + utc(newest) : "") + ".");
    }, 1000);
    var prev = 0;
    var frame = function (t) { if (prev) frames.push(t - prev); prev = t; if (frames.length > 100000) frames.splice(0, 50000); requestAnimationFrame(frame); };
    requestAnimationFrame(frame);
  }

  function painted(box) {
    var cv = box.querySelector("canvas");
    if (!cv || !cv.width || !cv.height) return false;
    try {
      var px = cv.getContext("2d").getImageData(0, 0, cv.width, cv.height).data;
      for (var i = 3; i < px.length; i += 4 * 7) if (px[i] !== 0) return true;
    } catch (e) { errors.push("self-check " + box.id + ": " + e.message); }
    return false;
  }
  function tooltips() {
    charts.forEach(function (c) {
      (c.chart.getOption().series || []).forEach(function (se, i) {
        if (!se.data || !se.data.length) return;
        try {
          c.chart.dispatchAction({ type: "showTip", seriesIndex: i, dataIndex: 0 });
          var t = c.box.querySelector("div[style*='z-index']");
          if (t && /undefined|NaN/.test(t.textContent)) errors.push("tooltip " + c.id + " series " + i + ": " + t.textContent.slice(0, 120));
        } catch (e) { errors.push("tooltip " + c.id + " series " + i + ": " + (e && e.message ? e.message : String(e))); }
      });
      c.chart.dispatchAction({ type: "hideTip" });
      c.chart.dispatchAction({ type: "updateAxisPointer", currTrigger: "leave" });
    });
  }
  // geometry checks what a chart shows, beyond paint: the bars of a
  // stacked chart sit on the bar below them (or on 0), and each axis
  // covers its data without running far past it (a time axis from 1970
  // for data of this year). It returns what is wrong, one line each.
  function geometry() {
    var bad = [];
    charts.forEach(function (c) {
      var C = specs ? all.filter(function (x) { return x.id === c.id; })[0] : null;
      if (!C || !C.series.length) return;
      var model = c.chart.getModel();
      if (C.stack) {
        var zero = c.chart.convertToPixel({ yAxisIndex: 0 }, 0), tops = {};
        C.series.forEach(function (S, k) {
          if ((S.kind || C.kind) !== "bar") return;
          var data = model.getSeriesByIndex(k).getData();
          for (var i = 0; i < data.count(); i++) {
            var v = data.get(data.mapDimension("y"), i), l = data.getItemLayout(i);
            if (!l || !(v > 0)) continue;
            var x = Math.round(l.x + l.width / 2), base = Math.max(l.y, l.y + l.height), top = Math.min(l.y, l.y + l.height);
            var want = tops[x] == null ? zero : tops[x];
            if (Math.abs(base - want) > 1.5) bad.push(c.id + ": series " + S.name + " bar " + i + " stands at " + base.toFixed(1) + "px, not on " + want.toFixed(1) + "px");
            tops[x] = top;
          }
        });
      }
      ["x", "y"].forEach(function (dim) {
        if (dim === "x" && C.xCats) return;
        var axis = model.getComponent(dim + "Axis").axis, ext = axis.scale.getExtent(), lo = Infinity, hi = -Infinity;
        C.series.forEach(function (S) { S.data.forEach(function (p) { var v = p[dim === "x" ? 0 : 1]; lo = Math.min(lo, v); hi = Math.max(hi, v); }); });
        if (dim === "y" && C.stack) hi = seriesMax(C);
        if (!(hi >= lo)) return;
        if (ext[0] > lo + 1e-9 || ext[1] < hi - 1e-9) bad.push(c.id + ": " + dim + " axis " + ext.join("..") + " does not cover the data " + lo + ".." + hi);
        var want = dim === "y" ? [Math.min(lo, 0), hi] : C.xMax > C.xMin ? [Math.min(lo, C.xMin), Math.max(hi, C.xMax)] : [lo, hi];
        // (ECharts shows one point in time with a day on either side.)
        var span = Math.max(want[1] - want[0], dim === "x" && C.xTime ? 864e5 : 1e-6);
        if (ext[1] - ext[0] > 4 * span) bad.push(c.id + ": " + dim + " axis " + ext.join("..") + " runs far past the data " + lo + ".." + hi);
        if (dim === "y") { // two ticks that read the same tell nothing
          var labels = axis.scale.getTicks().map(function (t) { return value(t.value != null ? t.value : t, C.yUnit); });
          if (labels.some(function (l, i) { return labels.indexOf(l) !== i; })) bad.push(c.id + ": y ticks read the same: " + labels.join(", "));
        }
        // No cluster ran before 2000: a time axis from 1970 draws a time
        // of 0 (unknown) as a date.
        if (dim === "x" && C.xTime && ext[0] < 946684800000) bad.push(c.id + ": time axis from " + utc(ext[0]) + ": a time of 0 drawn as a date");
      });
    });
    return bad;
  }
  function selfCheck() {
    tooltips();
    document.body.dataset.webGeometry = JSON.stringify(geometry());
    var empty = charts.filter(function (c) { return !painted(c.box); }).map(function (c) { return c.id; });
    var b = document.body.dataset;
    b.webCharts = String(charts.length);
    b.webChartsOk = String(charts.length - empty.length);
    b.webChartsEmpty = empty.join(" ");
    b.webChartIds = charts.map(function (c) { return c.id; }).join(" ");
    b.webJsErrors = JSON.stringify(errors);
    b.webSelfcheck = "done";
  }
  // After the report's own self-check (50 ms) on an application page.
  setTimeout(selfCheck, 150);
})();
