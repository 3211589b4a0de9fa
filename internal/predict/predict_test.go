package predict

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/dataflow"
	"github.com/clusterlens/clusterlens/internal/hetero"
	"github.com/clusterlens/clusterlens/internal/model"
)

func TestMakespanAndJobBounds(t *testing.T) {
	// 10 tasks of mean 6 and longest 9 on 4 slots: ARIA §3's bounds.
	m := Makespan(10, 4, StageDurations{Avg: 6, Max: 9})
	if m.Low != 15 || m.High != 9*6.0/4+9 {
		t.Errorf("makespan %+v, want low 15, high %g", m, 9*6.0/4+9)
	}
	// Fewer tasks than slots: at least the mean task.
	if m := Makespan(2, 8, StageDurations{Avg: 6, Max: 7}); m.Low != 6 || m.High != 6.0/8+7 {
		t.Errorf("one wave: %+v", m)
	}
	j := JobDurations{Maps: 40, Reduces: 20, Map: StageDurations{Avg: 10, Max: 14},
		FirstShuffle: StageDurations{Avg: 3, Max: 5}, Shuffle: StageDurations{Avg: 4, Max: 6}, Reduce: StageDurations{Avg: 2, Max: 3}}
	b, err := JobBounds(j, Slots{Map: 10, Reduce: 5})
	if err != nil {
		t.Fatal(err)
	}
	// low = 40·10/10 + 3 + (20/5 − 1)·4 + 20·2/5; high = 39·10/10 + 14 + 5 + ((19/5) − 1)·4 + 6 + 19·2/5 + 3.
	wantLow := 40.0 + 3 + 3*4 + 8
	wantHigh := 39.0 + 14 + 5 + (19.0/5-1)*4 + 6 + 19*2.0/5 + 3
	if math.Abs(b.Low-wantLow) > 1e-9 || math.Abs(b.High-wantHigh) > 1e-9 || b.Avg != (b.Low+b.High)/2 {
		t.Errorf("bounds %+v, want low %g high %g", b, wantLow, wantHigh)
	}
	if _, err := JobBounds(j, Slots{Map: 0, Reduce: 5}); err == nil {
		t.Error("no map slots: want an error")
	}
}

// TestMinSlots checks ARIA's inverse answer against a search over every
// slot pair: it meets the deadline and no pair with fewer slots does.
func TestMinSlots(t *testing.T) {
	j := JobDurations{Maps: 60, Reduces: 30, Map: StageDurations{Avg: 20, Max: 30},
		FirstShuffle: StageDurations{Avg: 8, Max: 12}, Shuffle: StageDurations{Avg: 6, Max: 9}, Reduce: StageDurations{Avg: 5, Max: 7}}
	for _, deadline := range []float64{120, 200, 400, 900} {
		for _, bound := range []Bound{BoundLow, BoundAvg, BoundHigh} {
			s, b, err := MinSlots(j, deadline, bound)
			if err != nil {
				t.Fatal(err)
			}
			pick := map[Bound]float64{BoundLow: b.Low, BoundAvg: b.Avg, BoundHigh: b.High}[bound]
			if pick > deadline {
				t.Errorf("deadline %g, %s: %+v gives %g", deadline, bound, s, pick)
			}
			best := math.MaxInt
			for m := 1; m <= j.Maps; m++ {
				for r := 1; r <= j.Reduces; r++ {
					bb, _ := JobBounds(j, Slots{m, r})
					v := map[Bound]float64{BoundLow: bb.Low, BoundAvg: bb.Avg, BoundHigh: bb.High}[bound]
					if v <= deadline && m+r < best {
						best = m + r
					}
				}
			}
			if s.Map+s.Reduce > best+1 {
				t.Errorf("deadline %g, %s: %d slots, the fewest that meet it are %d", deadline, bound, s.Map+s.Reduce, best)
			}
		}
	}
	if _, _, err := MinSlots(j, 10, BoundHigh); err == nil || !strings.Contains(err.Error(), "even with one slot per task") {
		t.Errorf("impossible deadline: %v", err)
	}
}

func TestTooFewRunsSaysHowManyMore(t *testing.T) {
	pts := []Point{{Machines: 4, Data: 1, Runtime: 100}, {Machines: 4, Data: 1, Runtime: 104}, {Machines: 8, Data: 1, Runtime: 60}}
	_, err := FromRuns(&RunTable{Points: pts}, 16, 1, ChoiceOptions{Models: []string{"ernest"}})
	var tf *TooFewError
	if !errors.As(err, &tf) {
		t.Fatalf("error %v, want a TooFewError", err)
	}
	msg := err.Error()
	for _, want := range []string{"ernest", "2 distinct", "need 4 (2 more)", "at 4 and 8 machines", "2 more time(s)", "first at 15 machines", "experiment design"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
}

// TestExtrapolationIsLabelled: a question inside the runs is not labelled,
// one beyond them is, with a wider interval the farther it goes.
func TestExtrapolationIsLabelled(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var pts []Point
	for _, m := range []float64{4, 8, 12, 16, 20, 24} {
		for range 5 {
			pts = append(pts, Point{Machines: m, Data: 1, Runtime: (30 + 400/m) * (1 + 0.03*rng.NormFloat64())})
		}
	}
	tab := &RunTable{Points: pts, Unit: "s"}
	in, err := FromRuns(tab, 14, 1, ChoiceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if in.Extrapolated || strings.Contains(strings.Join(in.Notes, " "), "extrapolated") {
		t.Errorf("14 machines inside 4–24: extrapolated %v, notes %v", in.Extrapolated, in.Notes)
	}
	near, _ := FromRuns(tab, 32, 1, ChoiceOptions{})
	far, _ := FromRuns(tab, 96, 1, ChoiceOptions{})
	for _, e := range []*Estimate{near, far} {
		if !e.Extrapolated || len(e.Notes) == 0 || !strings.Contains(e.Notes[0], "extrapolated") {
			t.Errorf("%g machines beyond 24: not labelled (%+v)", e.Machines, e)
		}
	}
	rel := func(e *Estimate) float64 { return (e.Upper - e.Lower) / e.Value }
	if !(rel(far) > rel(near) && rel(near) > rel(in)) {
		t.Errorf("relative interval widths %.3f (inside), %.3f (32), %.3f (96): want growing", rel(in), rel(near), rel(far))
	}
	if _, err := FromRuns(tab, 0, 1, ChoiceOptions{}); err == nil {
		t.Error("0 machines: want an error")
	}
}

func TestReadRunsCSV(t *testing.T) {
	tab, err := ReadRunsCSV(strings.NewReader("#Cores,Input Fraction, Time (s)\n4,0.5,10\n8,0.5,6\n\n"), "runs.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Points) != 2 || tab.Unit != "s" || tab.Points[1] != (Point{Machines: 8, Data: 0.5, Runtime: 6}) {
		t.Errorf("%+v", tab)
	}
	tab, err = ReadRunsCSV(strings.NewReader("Nodes,Runtime\n4,846235\n"), "bell.csv")
	if err != nil || tab.Points[0].Data != 1 || tab.DataColumn != "" {
		t.Errorf("without a data column: %+v %v", tab, err)
	}
	// The runtime's unit from a suffix, parentheses or brackets, in any
	// of its spellings; none when the header names none.
	for _, c := range []struct{ head, unit string }{
		{"nodes,runtime_s", "s"}, {"nodes,duration_ms", "ms"}, {"nodes,Time (sec)", "s"}, {"nodes,elapsed [minutes]", "min"},
		{"nodes,wall_time_hours", "h"}, {"nodes,Runtime", ""}, {"nodes,gross_runtime", ""}, {"nodes,Duration-msec", "ms"},
	} {
		tab, err := ReadRunsCSV(strings.NewReader(c.head+"\n4,10\n"), "runs.csv")
		if err != nil {
			t.Errorf("%q: %v", c.head, err)
		} else if tab.Unit != c.unit || tab.Points[0].Runtime != 10 {
			t.Errorf("%q: unit %q, runtime %g; want %q, 10", c.head, tab.Unit, tab.Points[0].Runtime, c.unit)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"", "runs.csv: empty"},
		{"nodes,Time (cycles)\n4,10\n", `runs.csv:1: column 2 (Time (cycles)): runtime unit "cycles": want ms, s, min or h`},
		{"nodes,runtime_furlongs\n4,10\n", `runs.csv:1: header "nodes,runtime_furlongs": want a machines column`},
		{"a,b\n1,2\n", "runs.csv:1: header"},
		{"nodes,runtime\n4,abc\n", `runs.csv:2: column 2 (runtime) is "abc", want a positive number`},
		{"nodes,runtime\n4,10\n-1,10\n", "runs.csv:3: column 1 (nodes)"},
		{"nodes,data,runtime\n4,1\n", "runs.csv:2: 2 fields"},
		{"nodes,runtime\n", "a header and no runs"},
	} {
		_, err := ReadRunsCSV(strings.NewReader(c.in), "runs.csv")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.in, err, c.want)
		}
	}
}

func TestSpeedTable(t *testing.T) {
	st, err := ReadSpeedTable(strings.NewReader(`{"m5": {"cpu": 1, "disk": 200, "network": 1000}, "c5": {"cpu": 2, "disk": 100, "network": 1000}}`), "speeds.json")
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewClassChange(st, "m5", "c5")
	if err != nil {
		t.Fatal(err)
	}
	if c.Factor[CPU] != 0.5 || c.Factor[Disk] != 2 || c.Factor[Network] != 1 {
		t.Errorf("factors %v", c.Factor)
	}
	// Fixed time stays; read (disk) doubles; collect (CPU) halves.
	if got := c.part(MapFirst, 1000, 300, 100); got != 1000+600+50 {
		t.Errorf("scaled part %g", got)
	}
	if _, err := NewClassChange(st, "m5", "r5"); err == nil || !strings.Contains(err.Error(), "no cpu, disk or network speed") {
		t.Errorf("unknown class: %v", err)
	}
	// PARC's classes: factors against the median node, no network.
	hs := HeteroSpeeds([]hetero.Class{
		{Name: "class-1 c5.2xlarge", Factors: []hetero.ResourceFactor{{Resource: hetero.ResourceCPU, Factor: hetero.Factor{Value: 0.5}}, {Resource: hetero.ResourceIO, Factor: hetero.Factor{Value: 1}}}},
		{Name: "class-2 m5.xlarge", Factors: []hetero.ResourceFactor{{Resource: hetero.ResourceCPU, Factor: hetero.Factor{Value: 1}}, {Resource: hetero.ResourceIO, Factor: hetero.Factor{Value: 1.25}}}},
	})
	c, err = NewClassChange(hs, "m5.xlarge", "class-1")
	if err != nil {
		t.Fatal(err)
	}
	if c.Factor[CPU] != 0.5 || c.Factor[Disk] != 0.8 || c.Factor[Network] != 1 || !slices.Equal(c.Assumed, []Resource{Network}) {
		t.Errorf("from PARC's classes: %+v", c)
	}
	for _, bad := range []string{`{"m5": {"gpu": 1}}`, `{"m5": {"cpu": 0}}`, `[1]`, `{"m5": {"cpu": 1}} x`} {
		if _, err := ReadSpeedTable(strings.NewReader(bad), "s.json"); err == nil && bad != `{"m5": {"cpu": 1}} x` {
			t.Errorf("%s: want an error", bad)
		}
	}
}

func TestTail(t *testing.T) {
	var r []float64
	for i := range 1000 {
		r = append(r, 0.8+0.4*float64(i)/999) // uniform 0.8–1.2
	}
	tl := newTail(r)
	if math.Abs(tl.At(0.5)-1) > 0.01 || math.Abs(tl.At(0.95)-1.18) > 0.01 {
		t.Errorf("median %g, 95%% %g", tl.At(0.5), tl.At(0.95))
	}
	prev := 0.0
	for p := 0.001; p < 1; p += 0.001 {
		v := tl.At(p)
		if v < prev-1e-12 || v < tl.Min || v > tl.Max {
			t.Fatalf("At(%g) = %g after %g: not monotone within [min, max]", p, v, prev)
		}
		prev = v
	}
	if a, b := tl.MaxOf(10, 0.5), tl.MaxOf(1000, 0.5); !(a < b && b <= tl.Max) {
		t.Errorf("typical longest of 10 %g, of 1000 %g", a, b)
	}
	small := newTail([]float64{0.9, 1, 1.1})
	if len(small.Q) != 1 || small.At(0.5) != 1 || small.At(0.99) != 1.1 {
		t.Errorf("3 ratios resolve the median only: %+v, At(0.99) %g", small, small.At(0.99))
	}
	w := newTail(r).wider(newTail([]float64{0.5, 1, 3}))
	if w.Max != 3 || w.Min != 0.5 {
		t.Errorf("wider: %+v", w)
	}
}

// TestPlatformTwoSegments fits parts whose length bends at 200 MB and one
// that does not: only the first gets two segments.
func TestPlatformTwoSegments(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var job []Task
	for i := range 400 {
		sh := float64(10+rng.IntN(1000)) * (1 << 20)
		shuffle := 1000 + sh/(50<<20)*1000
		if sh > 200<<20 {
			shuffle += (sh - 200<<20) / (20 << 20) * 1000 // merging on disk
		}
		in := float64(32+rng.IntN(224)) * (1 << 20)
		out := in * (0.2 + 1.6*rng.Float64())
		mapFirst := 900 + in/(40<<20)*1000 + out/(500<<20)*1000
		noise := func(v float64) int64 { return int64(v * (1 + 0.03*rng.NormFloat64())) }
		launch := int64(1_000_000 + i*100_000)
		job = append(job,
			Task{In: int64(in), Out: int64(out), Launch: launch, FirstMs: noise(mapFirst), Finish: launch + noise(mapFirst) + noise(out/(60<<20)*1000), Source: SourceHistory, Host: "h"},
			Task{Reduce: true, In: int64(sh), Out: int64(sh), Launch: launch, FirstMs: noise(shuffle), Finish: launch + noise(shuffle) + noise(sh/(80<<20)*1000), Source: SourceHistory, Host: "h"})
	}
	pl, err := FitPlatform([][]Task{job}, PlatformOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sh := pl.Parts[ReduceFirst]
	if len(sh.Segments) != 2 || math.Abs(sh.Break/(1<<20)-200) > 60 || sh.ChowP > 0.01 {
		t.Errorf("shuffle: %d segments, break %.0f MiB, p %.3g; want two near 200 MiB", len(sh.Segments), sh.Break/(1<<20), sh.ChowP)
	}
	if mf := pl.Parts[MapFirst]; len(mf.Segments) != 1 {
		t.Errorf("read+collect is one line, fitted %d segments (gain %.2f)", len(mf.Segments), mf.Gain)
	} else if c := mf.Segments[0].Coef; math.Abs(c[0]-900) > 100 || math.Abs(c[1]*(40<<20)/1000-1) > 0.05 || math.Abs(c[2]*(500<<20)/1000-1) > 0.2 {
		t.Errorf("read+collect coefficients %v, want about 900 ms + 25 ms/MiB read + 2 ms/MiB collected", c)
	}
	for _, e := range pl.Errors([][]Task{job}) {
		if e.JobMedian > 0.02 {
			t.Errorf("%s: mean error %.3f on its own tasks", e.Part, e.JobMedian)
		}
	}
	if _, err := FitPlatform([][]Task{job[:4]}, PlatformOptions{}); err == nil || !strings.Contains(err.Error(), "need 8") {
		t.Errorf("4 tasks: %v", err)
	}
}

// TestTasksFromThreadSamples: where the history has no phase ends, the
// thread samples' map (and shuffle) phases give them.
func TestTasksFromThreadSamples(t *testing.T) {
	app := &model.App{ID: "job_1_0001", Engine: model.MapReduce, Hosts: []string{"", "n1"}}
	st := &model.Stage{ID: 0, Kind: model.StageMap}
	var m model.TaskMetrics
	m[model.HDFSBytesRead], m[model.MapOutputBytes] = 1000, 500
	st.AddTask(model.Task{Index: 0, Launch: 1000, Finish: 9000, Status: model.TaskSuccess, Host: 1, HasMetrics: true}, &m)
	st.AddTask(model.Task{Index: 1, Launch: 1000, Finish: 9000, Status: model.TaskSuccess, Host: 1, HasMetrics: true}, &m)
	app.Stages = []*model.Stage{st}
	tr := &dataflow.ThreadReconstruction{Instances: []dataflow.VertexInstance{
		{Pool: dataflow.PoolMap, Phase: dataflow.Map, Main: true, Attempt: "attempt_1_0001_m_000000_0", Start: 1500, End: 4000},
		{Pool: dataflow.PoolMap, Phase: dataflow.Map, Main: true, Attempt: "attempt_1_0001_m_000000_0", Start: 4000, End: 6000},
		{Pool: dataflow.PoolMap, Phase: dataflow.Spill, Main: false, Attempt: "attempt_1_0001_m_000000_0", Start: 6000, End: 8900},
	}}
	ts := Tasks(app, tr)
	if len(ts) != 2 || ts[0].Source != SourceThreads || ts[0].FirstMs != 5000 || ts[1].Source != SourceCounters {
		t.Errorf("tasks %+v", ts)
	}
	// The history's own phase end wins.
	m[model.MapPhaseFinish] = 3000
	st.SetTaskMetrics(0, &m)
	if ts := Tasks(app, tr); ts[0].Source != SourceHistory || ts[0].FirstMs != 2000 {
		t.Errorf("with mapFinishTime: %+v", ts[0])
	}
}

func TestPlanAndHadoopScript(t *testing.T) {
	plan := Plan(PlanOptions{Slots: 16})
	if len(plan) != 40 {
		t.Fatalf("%d benchmarks, want 4 splits × 5 map selectivities × 2", len(plan))
	}
	seen := map[[2]int]bool{}
	waves := map[int]int{}
	for _, b := range plan {
		seen[[2]int{b.SplitMB, int(b.MapSelectivity * 10)}] = true
		waves[b.Maps/16]++
		if b.Reduces != 4 && b.Reduces != 8 && b.Reduces != 16 {
			t.Errorf("%s: %d reduces", b.Name, b.Reduces)
		}
	}
	if len(seen) != 20 || waves[1] != 20 || waves[3] != 20 {
		t.Errorf("combinations %d, waves %v", len(seen), waves)
	}
	var sb strings.Builder
	if err := WriteHadoopScript(&sb, plan, "/bench"); err != nil {
		t.Fatal(err)
	}
	s := sb.String()
	if strings.Count(s, " teragen ") != 4 || strings.Count(s, " loadgen ") != 40 || !strings.Contains(s, "-keepmap 180 ") ||
		!strings.Contains(s, "-D dfs.blocksize=268435456 ") || !strings.Contains(s, "-indir \"$DIR/in-256m\"") {
		t.Errorf("script:\n%s", s)
	}
}

// TestGBoost: C3O's gradient boosting fits runs inside their range closely
// and answers beyond it with the nearest runs' level (trees are flat
// there); a single configuration is too few.
func TestGBoost(t *testing.T) {
	var pts []Point
	for _, m := range []float64{4, 8, 12, 16, 20, 24} {
		for _, d := range []float64{10, 20, 40} {
			pts = append(pts, Point{Machines: m, Data: d, Runtime: 30 + 40*d/m})
		}
	}
	var g GBoost
	if err := g.Fit(pts); err != nil {
		t.Fatal(err)
	}
	for _, p := range pts {
		if got, ok := g.Predict(p.Machines, p.Data); !ok || math.Abs(got-p.Runtime) > 0.01*p.Runtime {
			t.Errorf("%g machines, data %g: %.2f, fitted %.2f", p.Machines, p.Data, got, p.Runtime)
		}
	}
	at24, _ := g.Predict(24, 40)
	if beyond, _ := g.Predict(96, 40); beyond != at24 {
		t.Errorf("96 machines: %.2f, want the level at 24 (%.2f)", beyond, at24)
	}
	var tf *TooFewError
	if err := (&GBoost{}).Fit(pts[:1]); !errors.As(err, &tf) {
		t.Errorf("one configuration: %v, want a TooFewError", err)
	}
	if e, err := FromRuns(&RunTable{Points: pts}, 14, 30, ChoiceOptions{Models: []string{"gboost"}}); err != nil || e.Model != "gboost" {
		t.Errorf("FromRuns with gboost: %v %+v", err, e)
	}
}

// TestAnswersFromFewConfigurations: two cluster sizes are enough for an
// answer (Amdahl's law or the power law), labelled uncalibrated with a
// wider interval; one is not, and the refusal names the run that helps.
func TestAnswersFromFewConfigurations(t *testing.T) {
	two := []Point{{Machines: 4, Data: 1, Runtime: 100}, {Machines: 4, Data: 1, Runtime: 104}, {Machines: 8, Data: 1, Runtime: 60}}
	e, err := FromRuns(&RunTable{Points: two, Unit: "s"}, 16, 1, ChoiceOptions{})
	if err != nil {
		t.Fatalf("two configurations: %v", err)
	}
	if !e.Uncalibrated || !e.Extrapolated || e.Choice.Calibration.Method != "uncalibrated" {
		t.Errorf("two configurations: uncalibrated %v extrapolated %v (%+v)", e.Uncalibrated, e.Extrapolated, e.Choice.Calibration)
	}
	if !(e.Value > 20 && e.Value < 60) || e.Upper/e.Lower < 1.5 {
		t.Errorf("two configurations at 16 machines: %g (%g–%g), want between Amdahl's 40 and the power law's, wide", e.Value, e.Lower, e.Upper)
	}
	if e.Next == nil || e.Next.Machines <= 8 || e.Next.Machines >= 16 {
		t.Errorf("next run %+v: want a cluster size between the runs' 8 and the question's 16", e.Next)
	}
	// One configuration: flat (the two runs' mean, 102), uncalibrated,
	// between no speed-up and linear scaling, widened by a quarter per
	// doubling beyond the runs; the next run named.
	one := []Point{{Machines: 4, Data: 1, Runtime: 100}, {Machines: 4, Data: 1, Runtime: 104}}
	for _, c := range []struct{ m, lo, hi float64 }{
		{16, 102.0 * 4 / 16 / 1.5, 102 * 1.5}, // two doublings beyond
		{2, 102 / 1.25, 102 * 2 * 1.25},       // one doubling below
	} {
		e, err = FromRuns(&RunTable{Points: one}, c.m, 1, ChoiceOptions{})
		if err != nil || e.Model != "flat" || !e.Uncalibrated || e.Value < 100 || e.Value > 104 || e.Next == nil {
			t.Fatalf("one configuration at %g machines: %+v, %v; want flat's 100–104, uncalibrated, and the next run", c.m, e, err)
		}
		if math.Abs(e.Lower/c.lo-1) > 0.02 || math.Abs(e.Upper/c.hi-1) > 0.02 {
			t.Errorf("one configuration at %g machines: interval %g–%g, want about %g–%g", c.m, e.Lower, e.Upper, c.lo, c.hi)
		}
	}
	// Another data size: flat has no answer there, and nothing else fits.
	_, err = FromRuns(&RunTable{Points: one}, 4, 3, ChoiceOptions{})
	var tf *TooFewError
	if !errors.As(err, &tf) || !strings.Contains(err.Error(), "first at") {
		t.Errorf("one configuration at three times its data: %v, want a refusal naming the next run", err)
	}
}

func TestReadJobRunsRejects(t *testing.T) {
	head := "ID|APP_ID|STARTED_AT|FINISHED_AT|APP_EVENT_ID|JOB_ID|STARTED_AT|FINISHED_AT|DURATION_MS|SCALE_OUT\n"
	for body, want := range map[string]string{
		head + "1|A|x|x|1|0|x|x|NaN|4\n": "jobs.csv:2: DURATION_MS is \"NaN\"",
		head + "1|A|x|x|1|0|x|x|5|0\n":   "jobs.csv:2: SCALE_OUT is 0",
		head + "1|A\n":                   "jobs.csv:2: 2 fields, want JOB_ID",
		"ID|APP_ID|JOB_ID\n":             "jobs.csv:1: header",
	} {
		if _, err := ReadJobRuns(strings.NewReader(body), "jobs.csv"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", body, err, want)
		}
	}
}
