// clusterlens HTML report: draws the JSON blob in #clusterlens-data with
// ECharts, then checks itself (every chart drew something, no script
// errors) and records the result on <body> for the browser test.
(function () {
  "use strict";
  var errors = window.__clErrors || [];
  var charts = []; // {id, chart}
  var D = JSON.parse(document.getElementById("clusterlens-data").textContent);
  var CAUSES = D.causes, CCOL = D.causeColors;
  var IDLE = "#e3e8ee", BOOT = "#8a99a8";
  var SEVERITY = ["none", "low", "moderate", "severe", "critical"];

  // ---- formatting -------------------------------------------------------
  function dur(ms) {
    if (ms == null || isNaN(ms) || ms < 0) return "-";
    if (ms < 1000) return Math.round(ms) + " ms";
    var s = ms / 1000;
    if (s < 60) return (ms % 1000 ? s.toFixed(s < 10 ? 2 : 1) : String(s)) + " s";
    var m = Math.floor(s / 60), sec = Math.floor(s % 60);
    if (m < 60) return m + "m" + (sec ? String(sec).padStart(2, "0") + "s" : "");
    var h = Math.floor(m / 60);
    return h + "h" + (m % 60 ? String(m % 60).padStart(2, "0") + "m" : "");
  }
  // STEPS are round durations for axis ticks (1, 2, 5, 10, 15, 30 s; 1, 2,
  // 5, 10, 15, 30 min; 1, 2, 3, 6, 12 h; days): msAxis bounds a duration
  // axis from 0 to at least maxMs with about n ticks at one of them, so
  // that ticks read "t+3m", "t+3m30s", not "t+3m11s".
  var STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 15e3, 3e4, 6e4, 12e4, 3e5, 6e5, 9e5, 18e5,
    36e5, 72e5, 108e5, 216e5, 432e5, 864e5, 1728e5, 6048e5];
  function msStep(maxMs, n) {
    for (var i = 0; i < STEPS.length; i++) if (maxMs / STEPS[i] <= n) return STEPS[i];
    return Math.ceil(maxMs / n / 864e5) * 864e5;
  }
  function msAxis(maxMs, n, exact) {
    if (!(maxMs > 0)) return {};
    var step = msStep(maxMs, n);
    return { min: 0, max: exact ? maxMs : Math.ceil(maxMs / step) * step, interval: step };
  }
  // stepsAxis bounds a wall-time axis over the instants ts (ms, relative
  // to start) at a round step (msStep), reaching back before start when
  // an instant does.
  function stepsAxis(ts, start) {
    var lo = 0, hi = 0;
    ts.forEach(function (t) { lo = Math.min(lo, t - start); hi = Math.max(hi, t - start); });
    if (!(hi > lo)) return {};
    var step = msStep(hi - lo, 8);
    return { min: Math.floor(lo / step) * step, max: Math.ceil(hi / step) * step, interval: step };
  }
  // shortHosts maps each host name to a shorter one that still tells them
  // apart: the domain they all share dropped, and a long prefix they all
  // share cut to its first characters ("psarthi-nds-cpu-test-w-3.c.p.internal"
  // -> "psa…w-3"). One host, or names that share nothing, stay whole.
  function shortHosts(names) {
    var hs = names.filter(function (h) { return h; }), out = {};
    names.forEach(function (h) { out[h] = h; });
    if (hs.length < 2) return out;
    var pre = hs[0], suf = hs[0];
    hs.forEach(function (h) {
      while (pre && h.indexOf(pre) !== 0) pre = pre.slice(0, -1);
      while (suf && h.slice(h.length - suf.length) !== suf) suf = suf.slice(1);
    });
    var d = suf.indexOf("."); // the shared domain, from a dot on
    suf = d >= 0 ? suf.slice(d) : "";
    var cut = pre.length; // the shared prefix up to a separator
    while (cut > 0 && "-._".indexOf(pre[cut - 1]) < 0) cut--;
    hs.forEach(function (h) {
      var x = suf && h.length > suf.length ? h.slice(0, h.length - suf.length) : h;
      if (cut > 8 && x.length > cut) x = x.slice(0, 3) + "…" + x.slice(cut);
      out[h] = x;
    });
    return out;
  }
  // labelWidth is how wide the longest of labels draws at fontPx, plus room.
  var measure = document.createElement("canvas").getContext("2d");
  function labelWidth(labels, fontPx, max) {
    measure.font = fontPx + "px system-ui, -apple-system, Segoe UI, Roboto, DejaVu Sans, sans-serif";
    var w = 40;
    labels.forEach(function (l) { w = Math.max(w, measure.measureText(String(l)).width); });
    return Math.min(max || 420, Math.ceil(w) + 14);
  }
  function bytes(n) {
    var u = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"], i = 0;
    while (Math.abs(n) >= 1024 && i < u.length - 1) { n /= 1024; i++; }
    return (i ? n.toFixed(1) : String(Math.round(n))) + " " + u[i];
  }
  function tplus(ms) { return "t+" + dur(ms); }
  function pct(part, whole) { return whole > 0 ? (100 * part / whole).toFixed(part / whole < 0.1 ? 1 : 0) + "%" : "-"; }
  function num(n) { return n == null ? "-" : Number(n).toLocaleString("en-US"); }
  function coreHours(ms) { return (ms / 3.6e6).toFixed(ms < 3.6e5 ? 3 : 2); }
  function utc(ms) { return ms > 0 ? new Date(ms).toISOString().replace("T", " ").replace(/\.\d+Z$/, "Z") : "-"; }
  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }
  function dot(color) { return '<span style="display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:6px;background:' + color + '"></span>'; }
  function unitValue(v, unit) {
    if (Math.abs(v) >= 1e15) return (v < 0 ? "-" : "") + "∞";
    switch (unit) {
      case "id": return String(v);
      case "flag": return v ? "yes" : "no";
      case "percent": return num(v) + "%";
      case "ms": return dur(v);
      case "core-ms": return coreHours(v) + " core-hours";
      case "share": return (100 * v).toFixed(1) + "%";
      case "bytes": return bytes(v);
      case "ratio": return Number(v).toFixed(2) + "×";
      case "count": case "executors": case "slots": case "tasks": return num(Math.round(v * 100) / 100) + (unit === "count" ? "" : " " + unit);
      default: return (Math.abs(v) >= 1000 ? num(Math.round(v)) : Number(v).toPrecision(4).replace(/\.?0+$/, "")) + (unit ? " " + unit : "");
    }
  }

  // ---- DOM helpers --------------------------------------------------------
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  }
  function add(parent, tag, cls, text) { var e = el(tag, cls, text); parent.appendChild(e); return e; }
  function heading(parent, text, explain) {
    add(parent, "h3", null, text);
    if (explain) add(parent, "p", "explain", explain);
  }
  function notAvailable(parent, why) { add(parent, "div", "na", why); }
  // The first EAGER charts are drawn at once; later ones (pages with many
  // applications) when they come near the viewport.
  var EAGER = 60, made = 0, lazy = 0, observer = null;
  if ("IntersectionObserver" in window) {
    observer = new IntersectionObserver(function (entries) {
      entries.forEach(function (en) {
        if (!en.isIntersecting || !en.target.__draw) return;
        observer.unobserve(en.target);
        var f = en.target.__draw; en.target.__draw = null; lazy--;
        f();
      });
    }, { rootMargin: "600px 0px" });
  }
  // Charts of one group (the timeline and the node metrics under it) zoom
  // and point together.
  function chartBox(parent, id, height, build, group) {
    var box = add(parent, "div", "chart");
    box.id = id;
    box.style.height = Math.round(height) + "px";
    var draw = function () {
      try {
        var c = echarts.init(box, null, { renderer: "canvas" });
        var opt = build();
        opt.animation = false;
        opt.textStyle = { fontFamily: "system-ui, -apple-system, Segoe UI, Roboto, DejaVu Sans, sans-serif", fontSize: 13 };
        c.setOption(opt);
        if (group) { c.group = group; echarts.connect(group); }
        charts.push({ id: id, chart: c, box: box });
      } catch (e) {
        errors.push(id + ": " + (e && e.message ? e.message : String(e)));
      }
    };
    if (made++ < EAGER || !observer) { draw(); return; }
    box.__draw = draw; lazy++;
    observer.observe(box);
  }
  var baseTooltip = { confine: true, backgroundColor: "rgba(255,255,255,0.97)", borderColor: "#aab4bf", textStyle: { color: "#1b2430", fontSize: 13 } };

  // ---- page ---------------------------------------------------------------
  var main = document.getElementById("report");
  var toc = document.getElementById("toc");
  if (D.applications.length > 1) {
    toc.hidden = false;
    add(toc, "b", null, D.applications.length + " applications: ");
  }
  if (D.applications.length === 0) notAvailable(main, "No application was found in the input.");
  D.applications.forEach(function (A, i) {
    var sec = add(main, "section", "app");
    sec.id = "app-" + i;
    if (D.applications.length > 1) {
      var a = add(toc, "a", null, A.identity.name || A.identity.id);
      a.href = "#app-" + i;
    }
    var h2 = add(sec, "h2", null, A.identity.name || A.identity.id);
    add(h2, "small", null, A.identity.id + (A.identity.attempt ? " attempt " + A.identity.attempt : ""));
    add(sec, "div", "meta", [A.identity.engine + (A.identity.version ? " " + A.identity.version : ""),
      A.identity.user ? "user " + A.identity.user : "", utc(A.identity.start) + " → " + utc(A.identity.end),
      A.identity.complete ? "complete" : "incomplete log", A.identity.source].filter(Boolean).join("  ·  "));
    var p = "a" + i + "-";
    // A part that fails is reported and the rest of the page still drawn.
    [overview, findings, queries, timeline, nodeMetrics, nodeDiag, stages, nodes, whatIf, notes].forEach(function (part) {
      try { part(sec, A, p); } catch (e) {
        errors.push("application " + i + " " + part.name + ": " + (e && e.message ? e.message : String(e)));
        notAvailable(sec, "This part failed to draw: " + (e && e.message ? e.message : String(e)));
      }
    });
  });
  // ---- SQL queries ----------------------------------------------------------
  // command is the command a statement that ran no job executed (query.Query.Command).
  function command(q) {
    var ops = q.operators || [];
    if ((q.jobs || []).length || ops.length !== 1) return "";
    var c = ops[0].name.replace(/^Execute /, "");
    return c !== ops[0].name || /Command$/.test(c) ? c : "";
  }
  function queries(sec, A) {
    if (!A.queries || !A.queries.length) return;
    var counts = {}, cmds = [];
    var qs = A.queries.filter(function (q) {
      var c = command(q);
      if (!c) return true;
      if (!counts[c]) cmds.push(c);
      counts[c] = (counts[c] || 0) + 1;
      return false;
    }).sort(function (x, y) { return y.wallMs - x.wallMs; });
    heading(sec, "SQL queries (" + qs.length + ")", "The longest first: wall time and share of the application, the cores its tasks used, and its operators that took the most time, with rows in and out, bytes, skew (largest task over the median) and spill.");
    if (cmds.length) add(sec, "p", "explain", "Statements that ran no job, not listed: " + cmds.map(function (c) { return c + " ×" + counts[c]; }).join(", ") + ".");
    if (!qs.length) return;
    var t = add(sec, "table", "data");
    var hr = add(add(t, "thead"), "tr");
    ["query", "status", "wall", "share", "cores used", "jobs", "stages", "top operators (time, rows out, skew)"].forEach(function (h) { add(hr, "th", null, h); });
    var tb = add(t, "tbody");
    qs.slice(0, 50).forEach(function (q) {
      var tr = add(tb, "tr");
      var d = add(tr, "td", null, String(q.id));
      d.title = q.description || "";
      add(tr, "td", null, q.status);
      add(tr, "td", null, (q.wallMs / 1000).toFixed(1) + " s");
      add(tr, "td", null, (100 * q.share).toFixed(0) + "%");
      add(tr, "td", null, (100 * q.utilization).toFixed(0) + "% of " + q.slots);
      add(tr, "td", null, (q.jobs || []).join(", "));
      add(tr, "td", null, (q.stages || []).join(", "));
      var ops = (q.operators || []).slice().sort(function (x, y) { return y.timeMs - x.timeMs; }).slice(0, 3);
      add(tr, "td", null, ops.map(function (o) {
        return o.name + " " + (o.timeMs / 1000).toFixed(1) + " s, " + o.rowsOut + " rows" + (o.skew ? ", skew " + o.skew.toFixed(1) + "x" : "");
      }).join("; "));
    });
  }
  function notes(sec, A) {
    if (!A.notes || !A.notes.length) return;
    heading(sec, "Notes");
    var ul = add(sec, "ul", "notes");
    A.notes.forEach(function (n) { add(ul, "li", null, n); });
  }

  // ---- overview -------------------------------------------------------------
  function card(parent, k, v, d) {
    var c = add(parent, "div", "card");
    add(c, "div", "k", k); add(c, "div", "v", v); if (d) add(c, "div", "d", d);
  }
  function overview(sec, A, p) {
    heading(sec, "Overview");
    var t = A.totals, e = A.efficiency, df = A.dataflow;
    var cards = add(sec, "div", "cards");
    card(cards, "Wall clock", dur(A.identity.durationMs), utc(A.identity.start).slice(0, 19));
    card(cards, "Tasks", num(t.tasks), num(t.failedTasks) + " failed" + (t.resubmittedTasks ? " (" + num(t.resubmittedTasks) + " resubmitted)" : "") + " · " + num(t.killedTasks) + " killed · " + num(t.stages) + " stages · " + num(t.jobs) + " jobs");
    card(cards, "Executors", num(t.executors), num(t.hosts) + " hosts" + (e ? " · " + num(e.slots) + " slots" : ""));
    if (df && df.totalMs > 0) {
      card(cards, "Slot time busy", pct(df.causes[0], df.totalMs), "of " + dur(df.totalMs) + " allocated slot time");
      // Spark's driver time is perfmodel's (no stage running), the number the terminal and the findings give.
      if (!e) card(cards, "Driver alone", pct(df.driverMs, df.wallMs), dur(df.driverMs) + " with no task running (bootstrap " + dur(df.bootstrapMs) + ")");
    }
    if (e) card(cards, "Driver alone", pct(e.driverMs, e.appMs), dur(e.driverMs) + " with no stage running, in " + num(e.gaps) + " gaps (longest " + dur(e.longestGapMs) + ")");
    if (e) card(cards, "Core-hours wasted", coreHours(e.coreMsWasted), "of " + coreHours(e.coreMsAvailable) + " available (" + pct(e.coreMsWasted, e.coreMsAvailable) + ")");
    var worst = 0;
    A.findings.forEach(function (f) { worst = Math.max(worst, SEVERITY.indexOf(f.severity)); });
    card(cards, "Findings", String(A.findings.length), A.findings.length ? "worst: " + SEVERITY[worst] : "nothing to fix");

    var row = add(sec, "div", "row2");
    var left = add(row, "div"), right = add(row, "div");
    add(left, "p", "explain", e
      ? "Wall clock split between the driver working alone and the executors running stages, against two lower bounds (Sparklens): the critical path (infinite executors) and perfect parallelism (these executors, no skew)."
      : "Wall clock split between the driver (or job client) working alone and tasks running.");
    wallChart(left, A, p + "wall");
    add(right, "p", "explain", "Where the allocated slot time went (HiTune breakdown): busy work versus time lost, by cause.");
    if (df && df.totalMs > 0) causesChart(right, df, p + "causes");
    else notAvailable(right, "No dataflow breakdown for this application.");
  }
  function wallChart(parent, A, id) {
    var e = A.efficiency, df = A.dataflow;
    var cats = [], driver = [], exec = [];
    if (e) {
      cats = ["recorded run", "critical path bound", "perfect parallelism bound"];
      driver = [e.driverMs, e.driverMs, e.driverMs];
      exec = [e.executorMs, Math.max(e.criticalPathAppMs - e.driverMs, 0), Math.max(e.idealAppMs - e.driverMs, 0)];
    } else if (df) {
      cats = ["recorded run"]; driver = [df.driverMs]; exec = [Math.max(df.wallMs - df.driverMs, 0)];
    } else {
      cats = ["recorded run"]; driver = [0]; exec = [A.identity.durationMs];
    }
    chartBox(parent, id, 90 + 46 * cats.length, function () {
      return {
        grid: { left: 175, right: 40, top: 36, bottom: 30 },
        legend: { top: 4, data: ["driver alone", "executors working"] },
        tooltip: Object.assign({ trigger: "axis", axisPointer: { type: "shadow" }, formatter: function (ps) {
          var tot = 0; ps.forEach(function (q) { tot += q.value; });
          var s = "<b>" + esc(ps[0].name) + "</b>: " + dur(tot);
          ps.forEach(function (q) { s += "<br>" + dot(q.color) + esc(q.seriesName) + ": " + dur(q.value) + " (" + pct(q.value, tot) + ")"; });
          return s;
        } }, baseTooltip),
        xAxis: Object.assign({ type: "value", axisLabel: { formatter: dur } }, msAxis(Math.max.apply(null, driver.map(function (d, i) { return d + exec[i]; }).concat([0])), 6)),
        yAxis: { type: "category", data: cats, inverse: true },
        series: [
          { name: "driver alone", type: "bar", stack: "w", data: driver, itemStyle: { color: CCOL[6] }, barWidth: 24 },
          { name: "executors working", type: "bar", stack: "w", data: exec, itemStyle: { color: CCOL[0] }, barWidth: 24,
            label: { show: true, position: "right", color: "#1b2430", formatter: function (q) { return dur(driver[q.dataIndex] + q.value); } } }
        ]
      };
    });
  }
  function causesChart(parent, df, id) {
    chartBox(parent, id, 90 + 46 * 3, function () {
      var data = [];
      CAUSES.forEach(function (c, k) { if (df.causes[k] > 0) data.push({ name: c, value: df.causes[k], itemStyle: { color: CCOL[k] } }); });
      return {
        tooltip: Object.assign({ trigger: "item", formatter: function (q) {
          return dot(q.color) + "<b>" + esc(q.name) + "</b><br>" + dur(q.value) + " slot time (" + q.percent + "%)";
        } }, baseTooltip),
        legend: { orient: "vertical", left: 8, top: "middle", itemWidth: 12, itemHeight: 10 },
        series: [{ type: "pie", radius: ["42%", "75%"], center: ["66%", "52%"], data: data,
          label: { formatter: function (q) { return q.percent >= 3 ? q.percent.toFixed(0) + "%" : ""; } } }]
      };
    });
  }

  // ---- findings -------------------------------------------------------------
  function evidenceTable(parent, rows) {
    var tb = add(parent, "table");
    var hr = add(tb, "tr");
    add(hr, "th", null, "evidence"); add(hr, "th", null, "value"); add(hr, "th", null, "compared with");
    rows.forEach(function (ev) {
      var r = add(tb, "tr");
      add(r, "td", null, ev.name);
      add(r, "td", "num", unitValue(ev.value, ev.unit));
      var lim = (ev.limits || []).map(function (l) { return unitValue(l, ev.unit); }).join(" / ");
      add(r, "td", null, lim ? (ev.compare || "") + " " + lim : "");
    });
  }
  function finding(parent, f) {
    var box = add(parent, "div", "finding " + f.severity);
    var t = add(box, "div", "title");
    add(t, "span", "sev " + f.severity, f.severity);
    t.appendChild(document.createTextNode(f.title));
    if (f.scope) add(t, "span", "scope", f.scope.kind + (f.scope.ids && f.scope.ids.length ? " " + f.scope.ids.slice(0, 12).join(", ") + (f.scope.ids.length > 12 ? " … (" + f.scope.ids.length + ")" : "") : ""));
    add(box, "div", "summary", f.summary);
    add(box, "div", "impact", impactSentence(f.impact));
    var ev = f.evidence || [];
    // The numbers that were graded or gated first; the context folded.
    var main = ev.filter(function (e) { return e.limits && e.limits.length; });
    var rest = ev.filter(function (e) { return !(e.limits && e.limits.length); });
    if (!main.length) { main = rest.slice(0, 4); rest = rest.slice(4); }
    if (main.length) evidenceTable(box, main);
    if (rest.length) {
      var d = add(box, "details", "more");
      add(d, "summary", null, rest.length + " more number" + (rest.length > 1 ? "s" : ""));
      evidenceTable(d, rest);
    }
    if (f.recommendation) add(box, "div", "reco", f.recommendation);
    (f.settings || []).forEach(function (s) { add(box, "div", "reco", "set " + s.key + "=" + s.value + " (now " + (s.current || "unset") + ")"); });
    add(box, "div", "source", "Source: " + f.source + "  ·  detector " + f.id);
    if (f.symptoms && f.symptoms.length) {
      var sd = add(box, "details", "more");
      add(sd, "summary", null, "explains " + f.symptoms.length + " more finding" + (f.symptoms.length > 1 ? "s" : "") + " of the same cause: " +
        f.symptoms.map(function (s) { return s.title; }).join(", "));
      f.symptoms.forEach(function (s) { finding(sd, s); });
    }
  }
  // impactSentence says what a finding cost the run (finding.Impact.Sentence).
  function impactSentence(im) {
    if (!im) return "Its cost cannot be measured from the log: at most low.";
    var parts = [];
    if (im.wallMs > 0) parts.push(dur(im.wallMs) + " of wall time (" + Math.round(100 * im.share) + "% of the run)");
    if (im.coreMs > 0) parts.push(coreHours(im.coreMs) + " core-hours");
    if (!parts.length) return "It cost the run nothing measurable (" + im.basis + ").";
    var how = im.method === "replay" ? "replayed without it, the replay " + (100 * (im.modelError || 0)).toFixed(1) + "% off the recorded run" :
      im.method === "estimate" ? "estimated" : "measured";
    return "It cost " + parts.join(" and ") + " (" + how + ": " + im.basis + ").";
  }
  function findings(sec, A) {
    heading(sec, "Findings (" + A.findings.length + ")", "Ranked by what they cost the run: the wall time and core time it would have saved without them, which sets their severity (a share of the run and an absolute cost). Each finding shows the numbers behind it, with the thresholds (low / moderate / severe / critical, or a single gate) they were compared with; other numbers are folded, and so are the findings one cause explains. Low-severity findings are folded at the end.");
    if (!A.findings.length) { notAvailable(sec, "No finding at or above the reported severity."); return; }
    var low = A.findings.filter(function (f) { return f.severity === "low" || f.severity === "none"; });
    A.findings.forEach(function (f) { if (low.indexOf(f) < 0) finding(sec, f); });
    if (low.length) {
      var d = add(sec, "details", "more low");
      if (low.length === A.findings.length) d.open = true;
      add(d, "summary", null, low.length + " low-severity finding" + (low.length > 1 ? "s" : "") + ": " +
        low.map(function (f) { return f.title; }).filter(function (x, i, xs) { return xs.indexOf(x) === i; }).join(", "));
      low.forEach(function (f) { finding(d, f); });
    }
  }

  // ---- timeline --------------------------------------------------------------
  function timeline(sec, A, p) {
    var T = A.timeline;
    heading(sec, "Timeline", "HiTune's pipeline space-time diagram: wall time across, one row per task slot (executor/slot host), coloured by activity. Light grey: the slot was allocated but idle; white: no executor there yet (or any more). Darker bands across all rows: the bootstrap before the first task and stretches with no task running anywhere (the driver alone). Hover for stage, task and times; Ctrl + wheel or the slider zooms.");
    if (!T) { notAvailable(sec, "No timeline: " + ((A.notes || []).join("; ") || "no task was reconstructed.")); return; }
    if (!T.rows.length) { notAvailable(sec, "No timeline: no task attempt could be placed on an executor slot."); return; }
    add(sec, "p", "explain", T.note);
    var n = T.rows.length;
    var rowH = Math.max(4, Math.min(18, Math.floor(900 / Math.max(n, 1))));
    // Row labels "executor/slot host": the hosts shortened so that every
    // label shows whole (they were cut at 180 px: "psarthi-nds-cpu-test-w-...").
    var rowHosts = T.rows.map(function (r) { var i = r.indexOf(" "); return i < 0 ? "" : r.slice(i + 1); });
    var short = shortHosts(rowHosts);
    var rowLabels = T.rows.map(function (r, i) { return rowHosts[i] ? r.slice(0, r.indexOf(" ") + 1) + short[rowHosts[i]] : r; });
    var rowFont = rowH >= 12 ? 11 : 9, rowLeft = labelWidth(rowLabels, rowFont, 360) + 10;
    chartBox(sec, p + "timeline", n * rowH + 150, function () {
      var bars = T.mode === "exact" ? T.bars : T.cells;
      var series = [];
      function rect(params, api, x0, x1, row, frac, color, opacity) {
        var a = api.coord([x0, row]), b = api.coord([x1, row]);
        var h = api.size([0, 1])[1] * frac;
        var r = echarts.graphic.clipRectByRect({ x: a[0], y: a[1] - h / 2, width: Math.max(b[0] - a[0], 0.6), height: h },
          { x: params.coordSys.x, y: params.coordSys.y, width: params.coordSys.width, height: params.coordSys.height });
        return r && { type: "rect", shape: r, style: { fill: color, opacity: opacity } };
      }
      series.push({ name: "idle (allocated)", type: "custom", data: T.alloc, progressive: 0, silent: true, z: 1,
        encode: { x: [1, 2], y: 0 }, itemStyle: { color: IDLE },
        renderItem: function (params, api) { return rect(params, api, api.value(1), api.value(2), api.value(0), 0.86, IDLE, 1); } });
      // The bootstrap and the driver-alone stretches span every row.
      var bands = [];
      if (T.bootstrapMs > 0) bands.push([0, T.bootstrapMs, 0]);
      T.gaps.forEach(function (g) { bands.push([g[0], g[1], 1]); });
      if (bands.length) series.push({ name: "bootstrap / driver alone", type: "custom", data: bands, progressive: 0, z: 2,
        encode: { x: [0, 1] }, itemStyle: { color: BOOT },
        renderItem: function (params, api) {
          var a = api.coord([api.value(0), 0]), b = api.coord([api.value(1), 0]), cs = params.coordSys;
          var x0 = Math.max(a[0], cs.x), x1 = Math.min(b[0], cs.x + cs.width);
          if (x1 <= x0) return null;
          return { type: "group", children: [
            { type: "rect", shape: { x: x0, y: cs.y, width: Math.max(x1 - x0, 1), height: cs.height }, style: { fill: BOOT, opacity: api.value(2) ? 0.3 : 0.22 } },
            { type: "text", style: { text: api.value(2) ? "" : "bootstrap", x: x0 + 4, y: cs.y + 3, fill: "#44515e", font: "11px sans-serif" } }
          ] };
        } });
      T.activities.forEach(function (name, k) {
        var data = [];
        for (var i = 0; i < bars.length; i++) if (bars[i][3] === k) data.push(bars[i]);
        if (!data.length) return;
        series.push({ name: name, type: "custom", data: data, progressive: 0, z: 3, itemStyle: { color: T.colors[k] },
          encode: T.mode === "exact" ? { x: [1, 2], y: 0 } : { y: 0 },
          renderItem: T.mode === "exact"
            ? function (params, api) { return rect(params, api, api.value(1), api.value(2), api.value(0), 0.86, T.colors[k], 1); }
            : function (params, api) {
              return rect(params, api, api.value(1) * T.binMs, api.value(2) * T.binMs, api.value(0), 0.86, T.colors[k], 0.3 + 0.7 * api.value(4) / 1000);
            } });
      });
      return {
        legend: { top: 4, type: "scroll" },
        grid: { left: rowLeft, right: 30, top: 40, bottom: 70 },
        tooltip: Object.assign({ trigger: "item", formatter: function (q) {
          var v = q.value;
          if (q.seriesName === "bootstrap / driver alone") {
            return (v[2] ? "no task running anywhere: the driver works alone" : "bootstrap: before the first task") + "<br>" + tplus(v[0]) + " → " + tplus(v[1]) + " (" + dur(v[1] - v[0]) + ")";
          }
          var row = esc(T.rows[v[0]]);
          if (q.seriesName === "idle (allocated)") return row;
          if (T.mode === "exact") {
            return dot(q.color) + "<b>" + esc(q.seriesName) + "</b> " + dur(v[2] - v[1]) + "<br>stage " + v[4] + " · task " + v[5] +
              "<br>" + row + "<br>" + tplus(v[1]) + " → " + tplus(v[2]) + "<br>" + utc(T.start + v[1]) + taskProfile(A.metrics, v[4], v[5]);
          }
          return row + "<br>" + tplus(v[1] * T.binMs) + " → " + tplus(v[2] * T.binMs) + "<br>" + dot(q.color) + "mostly <b>" + esc(q.seriesName) +
            "</b><br>tasks held " + (v[4] / 10).toFixed(0) + "% of the allocated slot time";
        } }, baseTooltip),
        dataZoom: [{ id: "dzIn", type: "inside", xAxisIndex: 0, filterMode: "weakFilter", zoomOnMouseWheel: "ctrl", moveOnMouseWheel: false },
          { id: "dzSlider", type: "slider", xAxisIndex: 0, filterMode: "weakFilter", height: 18, bottom: 10, labelFormatter: function (v) { return tplus(v); } }],
        xAxis: Object.assign({ type: "value", min: 0, max: T.wallMs, name: "wall time", nameLocation: "middle", nameGap: 26,
          axisLabel: { formatter: function (v) { return tplus(v); }, showMaxLabel: false }, splitLine: { lineStyle: { color: "#eef1f4" } } }, msAxis(T.wallMs, 8, true)),
        yAxis: { type: "category", data: rowLabels, inverse: true, axisTick: { show: false },
          axisLabel: { fontSize: rowFont, interval: rowH >= 11 ? 0 : Math.ceil(12 / rowH) - 1, width: rowLeft - 8, overflow: "truncate" } },
        series: series
      };
    }, A.metrics ? p + "time" : null);
  }

  // ---- node metrics under the timeline (HiTune Figure 16) ----------------------
  function nodeMetrics(sec, A, p) {
    var M = A.metrics;
    var RES = { cpu: "#e5484d", disk: "#f59e0b", network: "#2563eb" };
    if (!M) return;
    heading(sec, "Node metrics under the timeline", "Each node's CPU use, disk and network throughput on the timeline's time axis (HiTune's Figure 16): samples joined with the tasks that ran on the node. Zooming one chart zooms the timeline and the others.");
    add(sec, "p", "explain", M.note);
    if (!M.hosts.length) { notAvailable(sec, "No node of this application has samples."); return; }
    [["cpu", "CPU (cpu_usage)", M.cpu, function (v) { return v.toFixed(0) + "%"; }],
      ["disk", "disk read + write", M.disk, bytesRate],
      ["net", "network received + sent", M.net, bytesRate]].forEach(function (k) {
      chartBox(sec, p + "metric-" + k[0], 230, function () {
        var series = M.hosts.map(function (h, i) {
          var data = [];
          k[2][i].forEach(function (v, b) { data.push([(b + 0.5) * M.binMs, v == null ? null : v]); });
          return { name: h, type: "line", data: data, showSymbol: false, sampling: "lttb", lineStyle: { width: 1.2 }, connectNulls: false };
        });
        return {
          title: { text: k[1], left: 8, top: 2, textStyle: { fontSize: 13, fontWeight: "normal" } },
          legend: M.hosts.length <= 12 ? { top: 2, right: 30, type: "scroll", width: "60%" } : { show: false },
          grid: { left: 190, right: 30, top: 34, bottom: 36 },
          tooltip: Object.assign({ trigger: "axis", formatter: function (ps) {
            if (!ps.length) return "";
            var out = tplus(ps[0].value[0]);
            ps.filter(function (q) { return q.value[1] != null; }).sort(function (a, b) { return b.value[1] - a.value[1]; }).slice(0, 8)
              .forEach(function (q) { out += "<br>" + dot(q.color) + esc(q.seriesName) + ": " + k[3](q.value[1]); });
            return out;
          } }, baseTooltip),
          dataZoom: [{ id: "dzIn", type: "inside", xAxisIndex: 0, filterMode: "none", zoomOnMouseWheel: "ctrl", moveOnMouseWheel: false },
            { id: "dzSlider", type: "slider", show: false, xAxisIndex: 0, filterMode: "none" }],
          xAxis: Object.assign({ type: "value", min: 0, max: M.wallMs, axisLabel: { formatter: function (v) { return tplus(v); }, showMaxLabel: false },
            splitLine: { lineStyle: { color: "#eef1f4" } } }, msAxis(M.wallMs, 8, true)),
          yAxis: { type: "value", min: 0, max: k[0] === "cpu" ? 100 : null, axisLabel: { formatter: k[3] } },
          series: series
        };
      }, p + "time");
    });
    stageMatrix(sec, M, p, A.nodes);
    if (!M.stages.length) return;
    add(sec, "p", "explain", "What bounded each stage: the share of its tasks' run time on CPU, disk and network, from the tasks' own metrics (CPU time, shuffle wait, bytes) with I/O split by what the nodes' samples show; docs/CORRELATE.md gives the rules.");
    chartBox(sec, p + "profiles", 90 + 24 * M.stages.length, function () {
      var cats = M.stages.map(function (s) { return "stage " + s.id + (s.attempt ? "." + s.attempt : "") + " · " + s.class; });
      return {
        legend: { top: 4 },
        grid: { left: 190, right: 40, top: 34, bottom: 30 },
        tooltip: Object.assign({ trigger: "axis", axisPointer: { type: "shadow" }, formatter: function (ps) {
          var s = M.stages[ps[0].dataIndex];
          var out = "<b>stage " + s.id + "</b> " + esc(s.name) + "<br>" + esc(s.class) + ", " + num(s.tasks) + " task attempts";
          ps.forEach(function (q) { out += "<br>" + dot(q.color) + esc(q.seriesName) + ": " + q.value.toFixed(0) + "% of the run time"; });
          return out;
        } }, baseTooltip),
        xAxis: { type: "value", max: 100, axisLabel: { formatter: "{value}%" } },
        yAxis: { type: "category", data: cats, inverse: true, axisLabel: { width: 180, overflow: "truncate" } },
        series: ["cpu", "disk", "network"].map(function (r) {
          return { name: r, type: "bar", stack: "share", itemStyle: { color: RES[r] }, data: M.stages.map(function (s) { return 100 * s[r]; }) };
        })
      };
    });
  }
  // The stage-resource matrix's CPU column as a heat map: nodes × stages.
  function stageMatrix(sec, M, p, N) {
    var X = M.matrix;
    if (!X) return;
    var marks = abnormalMarks(X, M, N);
    add(sec, "p", "explain", "Stage × node: each node's mean CPU use (cpu_usage) during each stage's active period on it (HybridTune's stage-resource correlation, the matrices its abnormal-node detection compares); blank where the stage did not run on the node." +
      (N ? " ◆ marks the nodes HybridTune's Algorithm 4 found abnormal in a stage (" + marks.length + "; details under Node diagnosis)." : ""));
    var mShort = shortHosts(M.hosts), mHosts = M.hosts.map(function (h) { return mShort[h]; });
    chartBox(sec, p + "stagematrix", 120 + 20 * M.hosts.length, function () {
      var data = [];
      X.cpu.forEach(function (row, y) { row.forEach(function (v, x) { if (v != null) data.push([x, y, v, X.samples[y][x]]); }); });
      return {
        grid: { left: labelWidth(mHosts, 12, 360) + 10, right: 30, top: 20, bottom: 80 },
        tooltip: Object.assign({ trigger: "item", formatter: function (q) {
          return "<b>" + esc(M.hosts[q.value[1]]) + "</b> · " + esc(X.stages[q.value[0]]) + "<br>mean cpu_usage " + q.value[2].toFixed(1) + "% over " + q.value[3] + " samples";
        } }, baseTooltip),
        xAxis: { type: "category", data: X.stages, splitArea: { show: true } },
        yAxis: { type: "category", data: mHosts, inverse: true, axisLabel: { width: labelWidth(mHosts, 12, 360), overflow: "truncate" } },
        visualMap: { seriesIndex: 0, min: 0, max: 100, calculable: false, orient: "horizontal", left: "center", bottom: 4, itemHeight: 180,
          text: ["100% CPU", "0%"], inRange: { color: ["#f8fafc", "#fde2c4", "#f87171", "#b91c1c"] } },
        series: [{ type: "heatmap", data: data, progressive: 0, itemStyle: { borderColor: "#fff", borderWidth: 1 } }].concat(marks.length ? [{
          name: "abnormal node", type: "scatter", symbol: "diamond", symbolSize: 11, z: 5, data: marks,
          itemStyle: { color: "#111827", borderColor: "#fff", borderWidth: 1 },
          tooltip: { formatter: function (q) {
            return "<b>" + esc(M.hosts[q.value[1]]) + "</b> · " + esc(X.stages[q.value[0]]) + "<br>abnormal: average cosine similarity " + q.value[2].toFixed(2) + (q.value[3] ? "<br>outlier metrics: " + esc(q.value[3]) : "");
          } } }] : [])
      };
    });
  }
  // The (stage column, host row) cells of the abnormal nodes, with the score and the outlier metrics.
  function abnormalMarks(X, M, N) {
    var out = [];
    if (!N) return out;
    N.stages.forEach(function (s) {
      var x = X.stages.indexOf("stage " + s.stageId + (s.attempt ? "." + s.attempt : ""));
      if (x < 0) return;
      s.abnormal.forEach(function (a) {
        var y = M.hosts.indexOf(a.host);
        if (y >= 0) out.push([x, y, a.score, a.outliers.map(function (o) { return o.metric; }).join(", ")]);
      });
    });
    return out;
  }

  // ---- node diagnosis: Ganesha's culprits and HybridTune's abnormal nodes ----------
  function nodeDiag(sec, A, p) {
    var N = A.nodes;
    if (!N) return;
    heading(sec, "Node diagnosis: culprit nodes", "Ganesha's black-box peer comparison (Pan et al., 2009, §4.3) over the application's span: every node's OS metrics are labelled with the profile's states, each node's recent labels form a histogram, and a node farther (square-root Jensen–Shannon distance) than the threshold from more than half of its peers raises an alarm; a weighted alarm count above the indictment threshold indicts it. clusterlens then names the resource and tells culprits from the innocent peers they disturbed (docs/PEER.md).");
    var P = N.peers;
    if (!P) {
      notAvailable(sec, "The peer comparison did not run: " + (N.notes || []).join("; "));
    } else {
      add(sec, "p", "explain", P.hosts + " nodes, " + num(P.vectors) + " metric vectors (" + num(P.unknownVectors) + " unknown), " + P.steps.length + " steps of " + P.params.stepS + " s; " +
        (P.workloadAware ? "each node compared with the nodes running as many task attempts; " : "every node compared with every other; ") + "profile " +
        (P.profile === "self-trained" ? "self-trained (learned from this run's own samples, no fault-free reference: states are learned from every node at once, so a node unlike the majority still stands out, but a fault on most nodes would look normal)" : P.profile) +
        ", K = " + P.k + " states; distance threshold " + P.params.distThreshold + ", indictment above " + P.params.indictThreshold + ".");
      var ind = P.culprits.concat(P.innocent);
      if (!ind.length) {
        notAvailable(sec, "No node was indicted: every node behaved like its peers.");
      } else {
        alarmChart(sec, p, N, P, ind);
        culpritTable(sec, N, P, ind);
      }
    }
    abnormalTable(sec, N);
  }
  function alarmChart(sec, p, N, P, ind) {
    chartBox(sec, p + "alarms", 280, function () {
      var series = [];
      ind.forEach(function (c) {
        var name = c.host + (c.role === "culprit" ? " · culprit, " + c.resource : " · innocent peer of " + c.victimOf);
        series.push({ name: name, type: "line", showSymbol: false, lineStyle: { width: c.role === "culprit" ? 2.4 : 1.2, type: c.role === "culprit" ? "solid" : "dashed" },
          data: P.steps.map(function (t, i) { return [t - N.start, c.alarmCount[i]]; }) });
        series.push({ name: name, type: "scatter", symbolSize: 7,
          data: c.alarmedSteps.map(function (i) { return [P.steps[i] - N.start, c.alarmCount[i]]; }) });
      });
      series[0].markLine = { silent: true, symbol: "none", lineStyle: { type: "dashed", color: "#b91c1c" },
        label: { formatter: "indictment > " + P.params.indictThreshold, position: "insideEndTop" }, data: [{ yAxis: P.params.indictThreshold }] };
      return {
        title: { text: "weighted alarm count (dots: steps that raised an alarm)", left: 8, top: 2, textStyle: { fontSize: 13, fontWeight: "normal" } },
        legend: { top: 24, type: "scroll" },
        grid: { left: 60, right: 30, top: 60, bottom: 36 },
        tooltip: Object.assign({ trigger: "item", formatter: function (q) {
          return esc(q.seriesName) + "<br>" + (q.value[0] < 0 ? "t−" + dur(-q.value[0]) : tplus(q.value[0])) + ": weighted alarm count " + Number(q.value[1]).toFixed(2);
        } }, baseTooltip),
        xAxis: Object.assign({ type: "value", axisLabel: { formatter: function (v) { return v < 0 ? "t−" + dur(-v) : tplus(v); }, showMaxLabel: false }, splitLine: { lineStyle: { color: "#eef1f4" } } }, stepsAxis(P.steps, N.start)),
        yAxis: { type: "value", min: 0, name: "alarm count" },
        series: series
      };
    });
  }
  function culpritTable(sec, N, P, ind) {
    add(sec, "p", "explain", "Evidence per indicted node: when it was first indicted, its alarms and largest weighted count, its label histogram's distances to its peers at the indictment, the metrics farthest from its peers' (means over its alarmed steps; z in the profile's normalised units) and how its task attempts ran against their stages' medians.");
    var tb = add(sec, "table", "nd");
    var hr = add(tb, "tr");
    ["node", "verdict", "resource", "first indicted", "alarms", "largest count", "JS distance to peers", "metrics: node vs peers (z)", "attempts"].forEach(function (h) { add(hr, "th", null, h); });
    ind.forEach(function (c) {
      var r = add(tb, "tr", c.role === "culprit" ? "culprit" : "innocent");
      add(r, "td", null, c.host);
      add(r, "td", null, c.role === "culprit" ? "culprit" : "innocent peer of " + c.victimOf);
      add(r, "td", null, c.resource);
      add(r, "td", "num", tplus(c.firstIndictedMs - N.start));
      add(r, "td", "num", c.alarms + " of " + P.steps.length);
      add(r, "td", "num", Number(c.maxAlarmCount).toFixed(2) + " > " + P.params.indictThreshold);
      var d = c.distances;
      add(r, "td", "num", d.peers ? "median " + d.median.toFixed(2) + " (" + d.min.toFixed(2) + "–" + d.max.toFixed(2) + "), " + d.beyond + " of " + d.peers + " > " + d.threshold : "-");
      add(r, "td", null, (c.evidence || []).map(function (e) { return e.metric + " " + metricNum(e.node) + " vs " + metricNum(e.peers) + " (" + (e.z >= 0 ? "+" : "") + e.z.toFixed(1) + ")"; }).join("; "));
      add(r, "td", "num", c.attempts ? c.attempts + " at " + Number(c.slowdown).toFixed(2) + "× median" : "-");
    });
  }
  function abnormalTable(sec, N) {
    heading(sec, "Abnormal nodes per stage", "HybridTune's Algorithm 4: within each stage the nodes that ran it are compared by the cosine similarity of their mean metrics; a node whose average similarity is under the threshold (and the gap under the stage's median) is abnormal. Algorithm 5 names its outlier metrics (PCA to the principal metrics, then magnitude and two-class distance tests). Per stage this is a hint: node metrics mix every application on the node (docs/ANOMALY.md).");
    if (!N.stages.length) { notAvailable(sec, "No abnormal node in the " + N.stagesCompared + " stages compared (stages that ran on at least three sampled nodes)."); return; }
    var tb = add(sec, "table", "nd");
    var hr = add(tb, "tr");
    ["stage", "node", "similarity", "stage median", "threshold", "slow shuffle rates, outlier metrics (node vs peers' median)", "most different metrics"].forEach(function (h) { add(hr, "th", null, h); });
    N.stages.forEach(function (s) {
      s.abnormal.forEach(function (a) {
        var r = add(tb, "tr");
        add(r, "td", null, "stage " + s.stageId + (s.attempt ? "." + s.attempt : "") + (s.name ? " · " + s.name : ""));
        add(r, "td", null, a.host);
        add(r, "td", "num", a.score.toFixed(2));
        add(r, "td", "num", s.medianScore.toFixed(2));
        add(r, "td", "num", s.threshold.toFixed(2));
        add(r, "td", null, (a.slow || []).map(function (x) { return "slow " + x.rate + " " + Math.round(x.value) + " vs " + Math.round(x.peerMedian) + " bytes/ms"; }).concat(a.outliers.map(function (o) { return o.metric + " " + metricNum(o.value) + " vs " + metricNum(o.peerMedian) + (o.magnitude ? " (magnitude)" : "") + (o.distant ? " (distance)" : ""); })).join("; ") || "-");
        add(r, "td", null, a.differing.map(function (d) { return d.metric; }).join(", "));
      });
    });
  }
  function metricNum(v) {
    var a = Math.abs(v);
    if (a >= 1e9) return (v / 1e9).toFixed(1) + "G";
    if (a >= 1e6) return (v / 1e6).toFixed(1) + "M";
    if (a >= 1e4) return (v / 1e3).toFixed(1) + "k";
    return Number(v).toFixed(1);
  }
  function bytesRate(v) { return bytes(v) + "/s"; }
  // A task attempt's resource profile for the timeline's tooltip.
  function taskProfile(M, stage, task) {
    var t = M && M.tasks && M.tasks[stage + "/" + task];
    if (!t) return "";
    return "<br>" + esc(M.classes[t[0]]) + ": cpu " + t[1] + "%, disk " + t[2] + "%, network " + t[3] + "% of its run time";
  }

  // ---- stages -----------------------------------------------------------------
  function stages(sec, A, p) {
    var df = A.dataflow;
    heading(sec, "Stages: where each stage's slot time went", "Slot time of each stage's task attempts, split by cause, plus the idle slot time of its straggler tail. ★ marks stages on the critical path.");
    if (!df || !df.stages.length) { notAvailable(sec, "No stage breakdown for this application."); return; }
    if (df.stagesAll > df.stages.length) add(sec, "p", "explain", "Showing the " + df.stages.length + " stages with the most slot time of " + df.stagesAll + ", in stage order.");
    // A stage with under 1% of the largest stage's slot time draws no
    // visible bar: it is named, not drawn as an empty row (26 of a real
    // TPC-DS query's 37 stages were).
    var most = Math.max.apply(null, df.stages.map(function (s) { return s.totalMs; }).concat([0]));
    var S = df.stages.filter(function (s) { return s.totalMs >= 0.01 * most; });
    var tiny = df.stages.filter(function (s) { return s.totalMs < 0.01 * most; });
    if (tiny.length) add(sec, "p", "explain", tiny.length + " stage" + (tiny.length > 1 ? "s" : "") + " with under 1% of the largest stage's slot time, not drawn: " +
      tiny.map(function (s) { return s.id + (s.attempt ? "." + s.attempt : "") + " (" + dur(s.totalMs) + ")"; }).join(", ") + ".");
    chartBox(sec, p + "stages", 110 + 24 * S.length, function () {
      var cats = S.map(function (s) { return (s.critical ? "★ " : "") + "stage " + s.id + (s.attempt ? "." + s.attempt : "") + (s.kind && s.kind !== "stage" && s.kind !== "spark" ? " " + s.kind : ""); });
      var series = CAUSES.map(function (c, k) {
        return { name: c, type: "bar", stack: "s", barMaxWidth: 18, itemStyle: { color: CCOL[k] },
          data: S.map(function (s) { return s.causes[k]; }) };
      }).filter(function (s) { return s.data.some(function (v) { return v > 0; }); });
      return {
        legend: { top: 4, type: "scroll" },
        grid: { left: 130, right: 40, top: 40, bottom: 40 },
        tooltip: Object.assign({ trigger: "axis", axisPointer: { type: "shadow" }, formatter: function (ps) {
          var s = S[ps[0].dataIndex];
          var out = "<b>stage " + s.id + "." + s.attempt + "</b> " + esc(s.name) + "<br>" + num(s.tasks) + " task attempts · wall " + dur(s.wallMs) +
            " (from " + tplus(s.startMs) + ") · straggler tail " + dur(s.tailMs) + (s.critical ? "<br>on the critical path" : "") +
            "<br>slot time " + dur(s.totalMs) + ":";
          ps.forEach(function (q) { if (q.value > 0) out += "<br>" + dot(q.color) + esc(q.seriesName) + ": " + dur(q.value) + " (" + pct(q.value, s.totalMs) + ")"; });
          return out;
        } }, baseTooltip),
        xAxis: Object.assign({ type: "value", name: "slot time", nameLocation: "middle", nameGap: 26, axisLabel: { formatter: dur } },
          msAxis(Math.max.apply(null, S.map(function (s) { return s.totalMs; }).concat([0])), 6)),
        yAxis: { type: "category", data: cats, inverse: true, axisLabel: { fontSize: 12 } },
        series: series
      };
    });
  }

  // ---- nodes ------------------------------------------------------------------------
  function nodes(sec, A, p) {
    var df = A.dataflow, NT = A.nodeTime;
    heading(sec, "Nodes", "Per-node heat maps. First: each node's allocated slot time by cause (numbers: % of that node's slot time; colour: how far it lies above (red) or below (blue) the median node, in percentage points, full colour at 10 points or the largest difference, so a node unlike its peers stands out). Second: over wall time, the share of each node's allocated slots that ran tasks (orange: idle slots; white: no executor there).");
    if (!df || !df.nodes.length) { notAvailable(sec, "No node breakdown for this application."); return; }
    if (df.nodesAll > df.nodes.length) add(sec, "p", "explain", "Showing the " + df.nodes.length + " nodes with the most slot time of " + df.nodesAll + ".");
    var N = df.nodes;
    var cols = [];
    CAUSES.forEach(function (c, k) { if (N.some(function (n) { return n.causes[k] > 0; })) cols.push(k); });
    var nShort = shortHosts(N.map(function (n) { return n.host; }));
    var hostName = function (h) { return h || "(unknown host)"; };
    var nLabels = N.map(function (n) { return n.host ? nShort[n.host] : "(unknown host)"; });
    chartBox(sec, p + "nodes", 130 + 24 * N.length, function () {
      // Colour: the node's share minus the median share of its peers, in
      // percentage points, so that a node unlike the others stands out.
      var data = [], med = {}, span = 10; // at least 10 points, so that small differences stay pale
      cols.forEach(function (k) {
        var xs = N.map(function (n) { return n.totalMs > 0 ? 100 * n.causes[k] / n.totalMs : 0; }).sort(function (a, b) { return a - b; });
        med[k] = xs.length % 2 ? xs[(xs.length - 1) / 2] : (xs[xs.length / 2 - 1] + xs[xs.length / 2]) / 2;
      });
      N.forEach(function (n, y) {
        cols.forEach(function (k, x) {
          var share = n.totalMs > 0 ? 100 * n.causes[k] / n.totalMs : 0;
          span = Math.max(span, Math.abs(share - med[k]));
          data.push([x, y, Math.round(10 * share) / 10, share - med[k], n.causes[k], med[k]]);
        });
      });
      return {
        grid: { left: labelWidth(nLabels, 12, 360) + 10, right: 30, top: 30, bottom: 70 },
        tooltip: Object.assign({ trigger: "item", formatter: function (q) {
          var n = N[q.value[1]], k = cols[q.value[0]];
          return "<b>" + esc(hostName(n.host)) + "</b> (" + n.executors + " executors, " + n.slots + " slots)<br>" + dot(CCOL[k]) + esc(CAUSES[k]) + ": " +
            dur(q.value[4]) + " = " + q.value[2] + "% of its " + dur(n.totalMs) + " slot time<br>median node: " + q.value[5].toFixed(1) + "%";
        } }, baseTooltip),
        xAxis: { type: "category", data: cols.map(function (k) { return CAUSES[k]; }), position: "top", axisLabel: { interval: 0, fontSize: 12 }, splitArea: { show: true } },
        yAxis: { type: "category", data: nLabels, inverse: true, axisLabel: { width: labelWidth(nLabels, 12, 360), overflow: "truncate" } },
        visualMap: { dimension: 3, min: -span, max: span, calculable: false, orient: "horizontal", left: "center", bottom: 8, itemHeight: 220,
          text: ["above the median node", "below"], formatter: function (v) { return (v > 0 ? "+" : "") + v.toFixed(1) + " pp"; },
          inRange: { color: ["#60a5fa", "#dbeafe", "#f8fafc", "#fde2c4", "#f87171", "#ef4444"] } },
        series: [{ type: "heatmap", data: data, label: { show: true, fontSize: 11, color: "#1b2430", formatter: function (q) { return q.value[2] > 0 ? q.value[2] + "%" : ""; } },
          itemStyle: { borderColor: "#fff", borderWidth: 1 } }]
      };
    });
    if (!NT || !NT.hosts.length) return;
    if (NT.all > NT.hosts.length) add(sec, "p", "explain", "Over time: the " + NT.hosts.length + " nodes with the most slot time of " + NT.all + ".");
    var ntShort = shortHosts(NT.hosts), ntLabels = NT.hosts.map(function (h) { return ntShort[h]; });
    chartBox(sec, p + "nodetime", 130 + 22 * NT.hosts.length, function () {
      var data = [], bins = NT.busy.length ? NT.busy[0].length : 0, xs = [];
      for (var b = 0; b < bins; b++) xs.push(tplus(b * NT.binMs));
      NT.busy.forEach(function (row, y) { row.forEach(function (v, x) { if (v >= 0) data.push([x, y, v / 10]); }); });
      return {
        grid: { left: labelWidth(ntLabels, 12, 360) + 10, right: 30, top: 20, bottom: 80 },
        tooltip: Object.assign({ trigger: "item", formatter: function (q) {
          return "<b>" + esc(NT.hosts[q.value[1]]) + "</b><br>" + tplus(q.value[0] * NT.binMs) + " → " + tplus((q.value[0] + 1) * NT.binMs) +
            "<br>tasks held " + q.value[2].toFixed(0) + "% of its allocated slot time";
        } }, baseTooltip),
        xAxis: { type: "category", data: xs, name: "wall time", nameLocation: "middle", nameGap: 28 },
        yAxis: { type: "category", data: ntLabels, inverse: true, axisLabel: { width: labelWidth(ntLabels, 12, 360), overflow: "truncate" } },
        visualMap: { seriesIndex: 0, min: 0, max: 100, calculable: false, orient: "horizontal", left: "center", bottom: 4, itemHeight: 180,
          text: ["100% of slots busy", "0%"], inRange: { color: ["#fdba74", "#fde7c7", "#9ecae1", "#2171b5", "#08306b"] } },
        series: [{ type: "heatmap", data: data, progressive: 0 }]
      };
    });
  }

  // ---- what-if -------------------------------------------------------------------
  function whatIf(sec, A, p) {
    var W = A.whatIf;
    heading(sec, "What if: completion time against executors", "The recorded tasks replayed through a scheduler that respects the stage DAG, with 10% to 500% of the recorded executors (Sparklens's what-if). The big dot is the recorded run.");
    if (!W || !W.estimates || !W.estimates.length) { notAvailable(sec, "No what-if for this application" + (A.identity.engine === "spark" ? "." : " (Spark applications only).")); return; }
    add(sec, "p", "explain", "At 100% the replay gives " + dur(W.modelMs) + " against " + dur(W.recordedMs) + " recorded (" + (100 * W.modelError).toFixed(1) + "% off).");
    chartBox(sec, p + "whatif", 380, function () {
      var est = W.estimates.map(function (e) { return [e.percent, e.appMs, e.slots, e.executors, e.utilization]; });
      return {
        legend: { top: 4 },
        grid: { left: 80, right: 70, top: 44, bottom: 50 },
        tooltip: Object.assign({ trigger: "axis", formatter: function (ps) {
          var out = "";
          ps.forEach(function (q) {
            var v = q.value;
            if (q.seriesName === "estimated completion") out += "<b>" + v[0] + "% of the executors</b> (" + Number(v[3]).toFixed(1) + " executors, " + v[2] + " slots)<br>" + dot(q.color) + "estimated " + dur(v[1]);
            else if (q.seriesName === "cluster utilization") out += "<br>" + dot(q.color) + "utilization " + (100 * v[4]).toFixed(0) + "%";
            else out += "<br>" + dot(q.color) + "recorded " + dur(v[1]);
          });
          return out;
        } }, baseTooltip),
        xAxis: { type: "value", name: "executors (% of recorded)", nameLocation: "middle", nameGap: 30, min: 0, axisLabel: { formatter: "{value}%" } },
        yAxis: [Object.assign({ type: "value", name: "completion time", axisLabel: { formatter: dur } },
          msAxis(Math.max.apply(null, est.map(function (e) { return e[1]; }).concat([W.recordedMs])), 6)),
          { type: "value", name: "utilization", min: 0, max: 100, axisLabel: { formatter: "{value}%" }, splitLine: { show: false } }],
        series: [
          { name: "estimated completion", type: "line", data: est, symbolSize: 7, lineStyle: { width: 3 }, itemStyle: { color: "#2563eb" }, encode: { x: 0, y: 1 } },
          { name: "cluster utilization", type: "line", yAxisIndex: 1, data: est.map(function (e) { return [e[0], 100 * e[4], e[2], e[3], e[4]]; }),
            itemStyle: { color: "#9aa5b1" }, lineStyle: { type: "dashed" }, symbolSize: 4, encode: { x: 0, y: 1 } },
          { name: "recorded run", type: "scatter", data: [[100, W.recordedMs]], symbolSize: 16, itemStyle: { color: "#e5484d" }, z: 5 }
        ]
      };
    });
  }

  // ---- resize and self-check ---------------------------------------------------------
  window.addEventListener("resize", function () { charts.forEach(function (c) { c.chart.resize(); }); });
  function painted(box) {
    var cv = box.querySelector("canvas");
    if (!cv || !cv.width || !cv.height) return false;
    try {
      var px = cv.getContext("2d").getImageData(0, 0, cv.width, cv.height).data;
      for (var i = 3; i < px.length; i += 4 * 7) if (px[i] !== 0) return true;
    } catch (e) { errors.push("self-check " + box.id + ": " + e.message); }
    return false;
  }
  // Show one tooltip per series of every chart, so that a broken
  // formatter shows up as an error here rather than under someone's mouse.
  function tooltips() {
    charts.forEach(function (c) {
      var opt = c.chart.getOption();
      (opt.series || []).forEach(function (se, i) {
        if (!se.data || !se.data.length) return;
        try {
          c.chart.dispatchAction({ type: "showTip", seriesIndex: i, dataIndex: 0 });
          var tip = c.box.querySelector("div[style*='z-index']");
          if (tip && /undefined|NaN/.test(tip.textContent)) errors.push("tooltip " + c.id + " series " + i + ": " + tip.textContent.slice(0, 120));
        } catch (e) { errors.push("tooltip " + c.id + " series " + i + ": " + (e && e.message ? e.message : String(e))); }
      });
      c.chart.dispatchAction({ type: "hideTip" });
      c.chart.dispatchAction({ type: "updateAxisPointer", currTrigger: "leave" });
    });
  }
  // readable checks what the charts show beyond paint: every category
  // label fits the room its axis gives it (a label cut to
  // "psarthi-nds-cpu-test-w-..." tells no host from another), and every
  // time axis ticks at a round duration (STEPS). One line per problem.
  function readable() {
    var bad = [];
    charts.forEach(function (c) {
      var opt = c.chart.getOption(), model = c.chart.getModel();
      (opt.yAxis || []).forEach(function (ax, k) {
        if (ax.type !== "category" || !ax.data || !ax.axisLabel || ax.axisLabel.overflow !== "truncate") return;
        var room = ax.axisLabel.width, left = (opt.grid && opt.grid[0] && opt.grid[0].left) || 0;
        measure.font = (ax.axisLabel.fontSize || 12) + "px system-ui, -apple-system, Segoe UI, Roboto, DejaVu Sans, sans-serif";
        var cut = ax.data.filter(function (l) { var w = measure.measureText(String(l.value != null ? l.value : l)).width; return w > room + 0.5 || w > left; });
        if (cut.length) bad.push(c.id + ": " + cut.length + " labels cut, e.g. " + String(cut[0].value != null ? cut[0].value : cut[0]));
      });
      // A row of a bar chart whose bars add to under 1.5 px is drawn empty.
      var y0 = (opt.yAxis || [])[0];
      if (y0 && y0.type === "category" && (opt.series || []).some(function (se) { return se.type === "bar"; })) {
        var widths = {};
        (opt.series || []).forEach(function (se, k) {
          if (se.type !== "bar") return;
          var data = model.getSeriesByIndex(k).getData();
          for (var i = 0; i < data.count(); i++) { var l = data.getItemLayout(i); if (l) widths[i] = (widths[i] || 0) + Math.abs(l.width); }
        });
        var empty = Object.keys(widths).filter(function (i) { return widths[i] < 1.5; });
        if (empty.length) bad.push(c.id + ": " + empty.length + " rows drawn empty");
      }
      (opt.xAxis || []).forEach(function (ax, k) {
        var f = ax.axisLabel && ax.axisLabel.formatter;
        if (ax.type !== "value" || typeof f !== "function" || String(f(60000)).indexOf("t+") !== 0) return; // a wall-time axis
        var ticks = model.getComponent("xAxis", k).axis.scale.getTicks().map(function (t) { return t.value != null ? t.value : t; });
        for (var i = 1; i < ticks.length - 1; i++) {
          var step = ticks[i] - ticks[i - 1];
          if (STEPS.indexOf(step) < 0 && step % 864e5 || ticks[i] % step) { bad.push(c.id + ": x ticks at " + f(ticks[i - 1]) + ", " + f(ticks[i]) + ": not a round duration"); break; }
        }
      });
    });
    return bad;
  }
  function selfCheck() {
    tooltips();
    try { document.body.dataset.unreadable = JSON.stringify(readable()); } catch (e) { errors.push("readable: " + (e && e.message ? e.message : String(e))); }
    var empty = [];
    charts.forEach(function (c) { if (!painted(c.box)) empty.push(c.id); });
    var b = document.body.dataset;
    b.charts = String(charts.length);
    b.chartsOk = String(charts.length - empty.length);
    b.chartsEmpty = empty.join(" ");
    b.chartIds = charts.map(function (c) { return c.id; }).join(" ");
    b.chartsLazy = String(lazy);
    b.jsErrors = JSON.stringify(errors);
    b.selfcheck = "done";
  }
  setTimeout(selfCheck, 50);
})();
