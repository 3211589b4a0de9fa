package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/driver"
	"github.com/clusterlens/clusterlens/internal/predict"
	"github.com/clusterlens/clusterlens/internal/sim"
)

// predictJSON runs predict with --format json and decodes its document.
func predictJSON(t *testing.T, args ...string) (int, predict.Answer, string) {
	t.Helper()
	code, out, errs := run(t, append([]string{"predict", "--format", "json"}, args...)...)
	var doc predict.Answer
	if code == ExitOK {
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
	}
	return code, doc, errs
}

// tempFile writes body to a file called name in a fresh folder.
func tempFile(t *testing.T, name, body string) string {
	t.Helper()
	return writeFile(t, filepath.Join(t.TempDir(), name), []byte(body))
}

func TestPredictFromCSV(t *testing.T) {
	var b strings.Builder
	b.WriteString("nodes,input_bytes,runtime_ms\n")
	for i, m := range []int{4, 8, 12, 16, 20} {
		for k := range 3 {
			fmt.Fprintf(&b, "%d,%d,%d\n", m, int64(100e9), int(40000+4e6/float64(m))+100*((i+k)%3))
		}
	}
	csv := tempFile(t, "runs.csv", b.String())
	code, doc, errs := predictJSON(t, "--runs", csv, "--machines", "14", "--input", "100e9")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	e := doc.Estimate
	want := 40000 + 4e6/14.0
	if e.Method != "history" || e.Unit != "ms" || e.Extrapolated || e.Choice == nil || e.Choice.Runs != 15 ||
		!(e.Lower <= e.Value && e.Value <= e.Upper) || (e.Value-want)/want > 0.02 || (want-e.Value)/want > 0.02 {
		t.Errorf("estimate %+v, want about %.0f ms inside its bounds", e, want)
	}
	// Beyond the runs: labelled in JSON and text.
	code, doc, _ = predictJSON(t, "--runs", csv, "--machines", "64", "--input", "100e9")
	if code != ExitOK || !doc.Estimate.Extrapolated {
		t.Errorf("64 machines: exit %d, %+v", code, doc.Estimate)
	}
	code, out, _ := run(t, "predict", "--runs", csv, "--machines", "64", "--input", "100e9")
	if code != ExitOK || !strings.Contains(out, "EXTRAPOLATED") || !strings.Contains(out, "note: extrapolated") {
		t.Errorf("text: exit %d\n%s", code, out)
	}
	// The fewest machines meeting a deadline.
	code, doc, errs = predictJSON(t, "--runs", csv, "--input", "100e9", "--deadline", "5m")
	if code != ExitOK || doc.Deadline == nil || doc.Deadline.Estimate.Upper > 300000 || doc.Deadline.Machines < 14 {
		t.Errorf("deadline: exit %d %s %+v", code, errs, doc.Deadline)
	}
}

func TestPredictUsage(t *testing.T) {
	csv := tempFile(t, "runs.csv", "nodes,runtime\n4,100\n8,60\n")
	one := tempFile(t, "one.csv", "nodes,runtime\n4,100\n4,104\n")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"predict"}, ExitUsage, "exactly one source"},
		{[]string{"predict", "--runs", csv, "--job", "x"}, ExitUsage, "exactly one source"},
		{[]string{"predict", "--runs", csv, "--format", "xml"}, ExitUsage, "--format"},
		{[]string{"predict", "--runs", csv, "--input", "lots"}, ExitUsage, "--input \"lots\""},
		{[]string{"predict", "--runs", csv, "--deadline", "soon"}, ExitUsage, "--deadline"},
		{[]string{"predict", "--runs", csv, "--model", "magic"}, ExitUsage, "unknown model"},
		{[]string{"predict", "--runs", csv, "--unit", "fortnights"}, ExitUsage, `--unit: runtime unit "fortnights": want ms, s, min or h`},
		{[]string{"predict", "--runs", csv, "--node-speeds", "x.json"}, ExitUsage, "go together"},
		{[]string{"predict", "--runs", one, "--input", "3"}, ExitError, "need 2 (1 more): the 2 runs are at 4 machines; run the job 1 more time(s) at other cluster sizes, first at"},
		{[]string{"predict", "--runs", filepath.Join(t.TempDir(), "none.csv")}, ExitError, "--runs"},
		{[]string{"predict", "bench", "--slots", "0"}, ExitUsage, "--slots"},
	} {
		code, _, errs := run(t, c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errs, c.code, c.want)
		}
	}
}

// scenarioFile writes a scenario of one application on nodes of the
// benchmark class.
func scenarioFile(t *testing.T, nodes int, app sim.AppSpec) string {
	t.Helper()
	sc := sim.Scenario{Name: "predict", Cluster: sim.ClusterSpec{Nodes: nodes, Classes: []sim.HardwareClass{driver.BenchClass}},
		Apps: []sim.AppSpec{app}, Scheduler: sim.SchedulerSpec{Speculation: true}, Metrics: sim.MetricsSpec{Off: true}}
	b, err := json.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	return tempFile(t, "scenario.json", string(b))
}

// TestPredictMapReduceCommands runs the whole MapReduce path through the
// command line: the benchmark script, the benchmarks on the simulator,
// the platform model and its table, a job profile from a history and a
// prediction with its inverse.
func TestPredictMapReduceCommands(t *testing.T) {
	code, out, _ := run(t, "predict", "bench", "--slots", "64", "--dir", "/bench")
	if code != ExitOK || strings.Count(out, "loadgen") != 40 || !strings.Contains(out, "teragen -D dfs.blocksize=33554432") {
		t.Errorf("script: exit %d\n%.400s", code, out)
	}
	bench := t.TempDir()
	if code, out, errs := run(t, "predict", "bench", "--simulate", bench, "--nodes", "4"); code != ExitOK || !strings.Contains(out, "40 microbenchmarks") {
		t.Fatalf("bench --simulate: exit %d %s %s", code, out, errs)
	}
	platform := filepath.Join(t.TempDir(), "platform.json")
	code, out, errs := run(t, "predict", "platform", filepath.Join(bench, "mapreduce"), "--out", platform)
	if code != ExitOK {
		t.Fatalf("platform: exit %d %s", code, errs)
	}
	for _, want := range []string{"from 40 benchmark jobs", "read+collect", "spill+merge", "shuffle", "write", "two, break at", "wrote " + platform} {
		if !strings.Contains(out, want) {
			t.Errorf("platform output lacks %q:\n%s", want, out)
		}
	}
	logs := t.TempDir()
	if code, _, errs := run(t, "simulate", "--scenario", scenarioFile(t, 4, mrSpec("terasort", 2, 4)), "--out", logs); code != ExitOK {
		t.Fatal(errs)
	}
	hist := filepath.Join(logs, "mapreduce")
	if code, _, errs := run(t, "predict", hist); code != ExitUsage || !strings.Contains(errs, "predict bench") {
		t.Errorf("without --platform: exit %d %s", code, errs)
	}
	code, doc, errs := predictJSON(t, hist, "--platform", platform, "--input", "8x", "--nodes", "8")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	e := doc.Estimate
	if e.Method != "icpe13" || doc.MapReduce == nil || doc.Profile == nil || doc.MapReduce.Maps != 128 || doc.Profile.SlotsPerHost != 8 ||
		!(e.Lower <= e.Value && e.Value <= e.Upper) || doc.Profile.Sources["history"] == 0 {
		t.Errorf("estimate %+v, profile %+v, prediction %+v", e, doc.Profile, doc.MapReduce)
	}
	if e.Model != "icpe13+replay" || doc.MapReduce.Replayed == nil || !doc.MapReduce.Replayed.Spec.On || e.Value != doc.MapReduce.Replayed.MedianMs {
		t.Errorf("default estimate: model %s, replayed %+v, value %v", e.Model, doc.MapReduce.Replayed, e.Value)
	}
	code, aria, errs := predictJSON(t, hist, "--platform", platform, "--input", "8x", "--nodes", "8", "--estimator", "aria", "--speculation", "off")
	if code != ExitOK || aria.Estimate.Model != "icpe13+aria" || aria.MapReduce.Replayed != nil || aria.Estimate.Value != aria.MapReduce.Bounds.Avg {
		t.Errorf("--estimator aria: exit %d %s %+v", code, errs, aria.Estimate)
	}
	for _, bad := range [][]string{{"--estimator", "whatif"}, {"--speculation", "maybe"}} {
		if code, _, errs := run(t, append([]string{"predict", hist, "--platform", platform}, bad...)...); code != ExitUsage || !strings.Contains(errs, bad[0]) {
			t.Errorf("%v: exit %d %s", bad, code, errs)
		}
	}
	code, doc, errs = predictJSON(t, hist, "--platform", platform, "--input", "8x", "--deadline", "10m")
	if code != ExitOK || doc.Deadline == nil || doc.Deadline.Slots == nil || doc.Deadline.Estimate.Upper > 600000 {
		t.Errorf("deadline: exit %d %s %+v", code, errs, doc.Deadline)
	}
	if code, _, errs := run(t, "predict", hist, "--platform", platform, "--input", "8x", "--deadline", "1s"); code != ExitError || !strings.Contains(errs, "even with one slot per task") {
		t.Errorf("impossible deadline: exit %d %s", code, errs)
	}
	// Another node type through a speed table.
	speeds := tempFile(t, "speeds.json", `{"bench-8c": {"cpu": 1, "disk": 160, "network": 115}, "fast": {"cpu": 1.6, "disk": 400, "network": 250}}`)
	code, moved, errs := predictJSON(t, hist, "--platform", platform, "--input", "8x", "--nodes", "8", "--node-speeds", speeds, "--from-type", "bench-8c", "--to-type", "fast")
	if code != ExitOK || moved.Estimate.Value >= e.Value {
		t.Errorf("faster nodes: exit %d %s, %v ms against %v", code, errs, moved.Estimate.Value, e.Value)
	}
}

func TestPredictSparkCommand(t *testing.T) {
	logs := t.TempDir()
	if code, _, errs := run(t, "simulate", "--scenario", scenarioFile(t, 4, sparkSpec("sort", 2, 8)), "--out", logs); code != ExitOK {
		t.Fatal(errs)
	}
	code, doc, errs := predictJSON(t, logs, "--input", "4x", "--executors", "16")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	e := doc.Estimate
	if e.Method != "spark-stages" || doc.Spark == nil || doc.Spark.Slots != 64 || len(doc.Spark.Stages) != 3 || !e.Extrapolated ||
		!(e.Lower <= e.Value && e.Value <= e.Upper) {
		t.Errorf("estimate %+v, spark %+v", e, doc.Spark)
	}
	if e.Model != "stage-profiles+replay" || doc.Spark.Replayed == nil || doc.Spark.WhatIfMs <= 0 || e.Value != doc.Spark.Replayed.MedianMs {
		t.Errorf("default estimate: model %s, spark %+v", e.Model, doc.Spark)
	}
	code, whatif, errs := predictJSON(t, logs, "--input", "4x", "--executors", "16", "--estimator", "whatif")
	if code != ExitOK || whatif.Estimate.Model != "stage-profiles+whatif" || whatif.Spark.Replayed != nil || whatif.Estimate.Value != doc.Spark.WhatIfMs {
		t.Errorf("--estimator whatif: exit %d %s %+v against %v", code, errs, whatif.Estimate, doc.Spark.WhatIfMs)
	}
	if code, _, errs := run(t, "predict", logs, "--estimator", "aria"); code != ExitUsage || !strings.Contains(errs, "--estimator") {
		t.Errorf("--estimator aria for Spark: exit %d %s", code, errs)
	}
	code, doc, errs = predictJSON(t, logs, "--input", "4x", "--deadline", "30m")
	if code != ExitOK || doc.Deadline == nil || doc.Deadline.Executors < 1 || doc.Deadline.Estimate.Upper > 1800000 {
		t.Errorf("deadline: exit %d %s %+v", code, errs, doc.Deadline)
	}
}

// TestPredictNodeSpeedsFromHistory takes the node classes PARC's joint
// model learns from a heterogeneous fleet's run history: a Spark run's
// prediction on the fastest class is shorter than on the slowest, and the
// network time it cannot scale is said.
func TestPredictNodeSpeedsFromHistory(t *testing.T) {
	fleet, _ := simDir(t, "parc", 1)
	store := "sqlite:" + filepath.Join(t.TempDir(), "history.db")
	if code, _, errs := run(t, "index", "--store", store, fleet); code != ExitOK {
		t.Fatalf("index: exit %d %s", code, errs)
	}
	logs := t.TempDir()
	if code, _, errs := run(t, "simulate", "--scenario", scenarioFile(t, 4, sparkSpec("wordcount", 2, 8)), "--out", logs); code != ExitOK {
		t.Fatal(errs)
	}
	code, fast, errs := predictJSON(t, logs, "--store", store, "--node-speeds", "history", "--from-type", "class-3", "--to-type", "class-1")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	code, slow, errs := predictJSON(t, logs, "--store", store, "--node-speeds", "history", "--from-type", "class-1", "--to-type", "class-3")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if fast.Estimate.Value >= slow.Estimate.Value || !strings.Contains(strings.Join(fast.Estimate.Notes, " "), "no [network] speed") {
		t.Errorf("class-3 → class-1 %.0f ms, class-1 → class-3 %.0f ms; notes %v", fast.Estimate.Value, slow.Estimate.Value, fast.Estimate.Notes)
	}
	if code, _, errs := run(t, "predict", logs, "--store", store, "--node-speeds", "history", "--from-type", "class-1", "--to-type", "no-such-class"); code != ExitUsage || !strings.Contains(errs, "no cpu, disk or network speed") {
		t.Errorf("unknown class: exit %d %s", code, errs)
	}
}

// TestPredictUnitsAndPlainNumbers: a CSV whose header names no unit gets
// one (assumed from the values, said so), and neither the text nor the
// JSON prints a number with an exponent; a job-level table (Ellis's)
// answers one Spark job and the rest of a run.
func TestPredictUnitsAndPlainNumbers(t *testing.T) {
	var b strings.Builder
	b.WriteString("Nodes,Runtime\n")
	for _, m := range []int{4, 8, 12, 16, 20, 24} {
		for k := range 3 {
			fmt.Fprintf(&b, "%d,%d\n", m, 200000+4000000/m+1000*k)
		}
	}
	csv := tempFile(t, "bell.csv", b.String())
	code, out, errs := run(t, "predict", "--runs", csv, "--machines", "48")
	if code != ExitOK || strings.Contains(out, "e+") || !strings.Contains(out, "ms assumed") || !strings.Contains(out, "the run that would help most") {
		t.Errorf("text: exit %d %s\n%s", code, errs, out)
	}
	code, doc, errs := predictJSON(t, "--runs", csv, "--machines", "48")
	if code != ExitOK || doc.Estimate.Unit != "ms" || doc.Estimate.Level != 0.9 || doc.Estimate.Choice.Calibration.Method != "conformal" {
		t.Errorf("json: exit %d %s %+v", code, errs, doc.Estimate)
	}
	_, raw, _ := run(t, "predict", "--runs", csv, "--machines", "48", "--format", "json")
	if strings.Contains(raw, "e+") {
		t.Errorf("json has an exponent:\n%s", raw)
	}
	b.Reset()
	b.WriteString("ID|APP_ID|STARTED_AT|FINISHED_AT|APP_EVENT_ID|JOB_ID|STARTED_AT|FINISHED_AT|DURATION_MS|SCALE_OUT\n")
	for r, so := range []int{4, 6, 8, 10, 12, 4, 8} {
		for j := range 3 {
			fmt.Fprintf(&b, "%d|App|2021-07-04 19:22:18.08|2021-07-04 19:36:51.115|%d|%d|2021-07-04 19:22:18.08|2021-07-04 19:22:18.901|%d|%d\n", r+1, r+1, j, 1000*(j+1)+60000/so, so)
		}
	}
	jobs := tempFile(t, "ellis.csv", b.String())
	code, doc, errs = predictJSON(t, "--runs", jobs, "--spark-job", "2", "--machines", "6")
	if code != ExitOK || doc.Estimate.Value < 11000 || doc.Estimate.Value > 14000 {
		t.Errorf("one Spark job at 6 nodes (measured 13,000 ms): exit %d %s %+v", code, errs, doc.Estimate)
	}
	code, doc, errs = predictJSON(t, "--runs", jobs, "--from-job", "1", "--machines", "6")
	if code != ExitOK || doc.Estimate.Value < 22000 || doc.Estimate.Value > 28000 {
		t.Errorf("jobs 1–2 at 6 nodes (measured 25,000 ms): exit %d %s %+v", code, errs, doc.Estimate)
	}
}
