package predict

import (
	"math"
	"strings"
	"testing"
)

// rescaledRuns is a job-level table of two jobs: run r1 stays at 4 nodes,
// r2 and r3 change to 8 before job 1 and stay there for jobs 1–5.
func rescaledRuns() []JobRun {
	var jobs []JobRun
	add := func(run string, job int, scale, ms float64) {
		jobs = append(jobs, JobRun{Run: run, Job: job, ScaleOut: scale, DurationMs: ms})
	}
	for i, run := range []string{"r1", "r2", "r3", "r4"} {
		add(run, 0, 4, 1000+float64(i))
		for job := 1; job <= 5; job++ {
			scale, ms := 4.0, 500.0+float64(i)
			if run != "r1" {
				scale = 8
				ms = 250 + float64(i)
				if job == 1 {
					ms = 500 + float64(i) // twice the steady time right after the change
				}
			}
			add(run, job, scale, ms)
		}
	}
	return jobs
}

func TestSinceRescale(t *testing.T) {
	jobs := rescaledRuns()
	since := SinceRescale(jobs)
	for i, j := range jobs {
		want := -1
		if j.Run != "r1" && j.Job >= 1 {
			want = j.Job - 1
		}
		if since[i] != want {
			t.Errorf("run %s job %d: %d jobs since a rescale, want %d", j.Run, j.Job, since[i], want)
		}
	}
	pts := JobPoints(jobs, 1)
	var rescaled int
	for _, p := range pts {
		if p.Class == ClassRescaled {
			rescaled++
		}
	}
	if rescaled != 3 || len(pts) != 4 {
		t.Errorf("job 1: %d of %d runs after a rescale, want 3 of 4", rescaled, len(pts))
	}
}

// TestRescaleNoise checks the spread of the jobs after a rescale against
// their steady median, computed by hand. In rescaledRuns alone no job
// within the window has three steady runs at its scale-out to compare
// with: 0. With three runs at 8 nodes from the start (steady, 250–252 ms),
// the jobs 1–4 after the change compare with medians of 251 ms: jobs 2–4
// (251–253 ms) stray little, job 1 (501–503 ms) most, and the 90% quantile
// of the twelve is the largest, ln(503/251).
func TestRescaleNoise(t *testing.T) {
	jobs := rescaledRuns()
	if got := RescaleNoise(jobs, 0.9); got != 0 {
		t.Errorf("rescale noise %.3f without steady runs to compare with, want 0", got)
	}
	for i, run := range []string{"s1", "s2", "s3"} {
		for job := range 6 {
			jobs = append(jobs, JobRun{Run: run, Job: job, ScaleOut: 8, DurationMs: 250 + float64(i)})
		}
	}
	if got, want := RescaleNoise(jobs, 0.9), math.Log(503.0/251); math.Abs(got-want) > 1e-9 {
		t.Errorf("rescale noise %.4f, want ln(503/251) = %.4f", got, want)
	}
	// At 50% the ⌈13·0.5⌉ = 7th smallest: 0 ×3, ln(252/251) ×3, then ln(253/251).
	if got, want := RescaleNoise(jobs, 0.5), math.Log(253.0/251); math.Abs(got-want) > 1e-9 {
		t.Errorf("rescale noise at 50%% %.4f, want ln(253/251) = %.4f", got, want)
	}
}

// TestSteadyNoise checks the spread of the jobs that follow no rescale
// against their medians, by hand: three runs at 4 nodes throughout, job 0
// 100, 110 and 121 ms (median 110), job 1 50, 50 and 60 ms (median 50).
// The six |ln(duration/median)| are 0 ×3, ln 1.1 ×2 and ln 1.2: at 90% the
// ⌈7·0.9⌉-th smallest is past the six, the largest; at 50% the 4th, ln 1.1.
// No row follows a rescale: RescaleNoise is 0.
func TestSteadyNoise(t *testing.T) {
	var jobs []JobRun
	for i, run := range []string{"a", "b", "c"} {
		jobs = append(jobs, JobRun{Run: run, Job: 0, ScaleOut: 4, DurationMs: []float64{100, 110, 121}[i]},
			JobRun{Run: run, Job: 1, ScaleOut: 4, DurationMs: []float64{50, 50, 60}[i]})
	}
	for level, want := range map[float64]float64{0.9: math.Log(1.2), 0.5: math.Log(1.1)} {
		if got := SteadyNoise(jobs, level); math.Abs(got-want) > 1e-9 {
			t.Errorf("steady noise at %g: %.4f, want %.4f", level, got, want)
		}
	}
	if got := RescaleNoise(jobs, 0.9); got != 0 {
		t.Errorf("rescale noise %.4f with no rescale, want 0", got)
	}
}

// TestFallbackNoiseFloorsTheInterval: runs of one each at two cluster
// sizes have no spread of their own and leave the estimate uncalibrated;
// FallbackNoise (a spread of related runs) then floors its interval, and
// it gives way to the runs' own spread where they have one.
func TestFallbackNoiseFloorsTheInterval(t *testing.T) {
	pts := []Point{{Machines: 4, Data: 1, Runtime: 100}, {Machines: 8, Data: 1, Runtime: 55}}
	fallback := math.Log(3)
	e, err := FromRuns(&RunTable{Points: pts}, 16, 1, ChoiceOptions{FallbackNoise: fallback})
	if err != nil {
		t.Fatal(err)
	}
	if !e.Uncalibrated || e.Choice.Calibration.Noise != fallback {
		t.Fatalf("uncalibrated %v, noise %.3f: want uncalibrated with the fallback %.3f", e.Uncalibrated, e.Choice.Calibration.Noise, fallback)
	}
	if e.Lower > e.Value/3*(1+1e-9) || e.Upper < e.Value*3*(1-1e-9) {
		t.Errorf("interval [%.1f, %.1f] around %.1f: want at least a factor 3 either side", e.Lower, e.Upper, e.Value)
	}
	// Three runs at 4 nodes, 100–102 ms: their own spread, ln(101/100).
	pts = append(pts, Point{Machines: 4, Data: 1, Runtime: 101}, Point{Machines: 4, Data: 1, Runtime: 102})
	e, err = FromRuns(&RunTable{Points: pts}, 16, 1, ChoiceOptions{FallbackNoise: fallback})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := e.Choice.Calibration.Noise, math.Log(101.0/100); math.Abs(got-want) > 1e-9 {
		t.Errorf("noise %.4f with a spread of the runs' own, want ln(101/100) = %.4f", got, want)
	}
}

func TestRunNoiseByClass(t *testing.T) {
	var pts []Point
	for i := range 10 {
		pts = append(pts, Point{Machines: 4, Data: 1, Runtime: 100 + float64(i)})
		pts = append(pts, Point{Machines: 4, Data: 1, Runtime: 100 * float64(1+i%3), Class: ClassRescaled})
	}
	steady, rescaled := runNoise(pts, "", 0.9), runNoise(pts, ClassRescaled, 0.9)
	// 100–109 around their median 104.5: the ⌈11·0.9⌉ = 10th smallest of ten
	// deviations, the largest, ln(104.5/100); 100 ×4, 200 ×3 and 300 ×3
	// around their median 200: the largest, ln 2.
	if want := math.Log(104.5 / 100); math.Abs(steady-want) > 1e-9 {
		t.Errorf("steady spread %.4f, want %.4f", steady, want)
	}
	if want := math.Log(2); math.Abs(rescaled-want) > 1e-9 {
		t.Errorf("rescaled spread %.4f, want %.4f", rescaled, want)
	}
}

func TestMinResiduals(t *testing.T) {
	for level, want := range map[float64]int{0.9: 9, 0.8: 4, 0.95: 19, 0.5: 1} {
		if got := MinResiduals(level); got != want {
			t.Errorf("MinResiduals(%g) = %d, want %d", level, got, want)
		}
	}
}

// TestFewResidualsSpanTheCandidates: four configurations asked beyond them
// leave one forward-chaining split and one held-out configuration of two
// runs, too few for a 90% interval: it is flagged, says so, and reaches
// every fitted model's estimate.
func TestFewResidualsSpanTheCandidates(t *testing.T) {
	var pts []Point
	for _, m := range []float64{4, 8, 12, 16} {
		for k := range 2 {
			pts = append(pts, Point{Machines: m, Data: 1, Runtime: 1000/m + 20 + float64(k)})
		}
	}
	e, err := FromRuns(&RunTable{Points: pts}, 32, 1, ChoiceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cal := e.Choice.Calibration
	if cal.Method != "conformal" || !cal.Few || cal.Residuals >= MinResiduals(0.9) {
		t.Fatalf("calibration %+v: want conformal on fewer than 9 residuals, flagged", cal)
	}
	for name, m := range e.Choice.fitted {
		if v, ok := m.Predict(32, 1); ok && (v < e.Lower || v > e.Upper) {
			t.Errorf("%s's estimate %.1f outside the interval [%.1f, %.1f]", name, v, e.Lower, e.Upper)
		}
	}
	if !strings.Contains(strings.Join(e.Notes, "\n"), "fewer than the 9") {
		t.Errorf("notes %q do not say the residuals are too few", e.Notes)
	}
}

// TestMondrianByClass: runs of a class that strays far (twice or half the
// time) beside steady ones: asked as the steady class the interval rests
// on the steady runs' residuals and is narrower than asked as the
// straying class, whose interval reaches its spread.
func TestMondrianByClass(t *testing.T) {
	var pts []Point
	for _, m := range []float64{4, 6, 8, 10, 12, 14, 16} {
		for k := range 6 {
			pts = append(pts, Point{Machines: m, Data: 1, Runtime: 2000/m + 50 + float64(k)})
		}
		pts = append(pts, Point{Machines: m, Data: 1, Runtime: 2 * (2000/m + 50), Class: ClassRescaled})
		pts = append(pts, Point{Machines: m, Data: 1, Runtime: (2000/m + 50) / 2, Class: ClassRescaled})
	}
	steady, err := FromRuns(&RunTable{Points: pts}, 9, 1, ChoiceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rescaled, err := FromRuns(&RunTable{Points: pts}, 9, 1, ChoiceOptions{Class: ClassRescaled, Noise: math.Log(2)})
	if err != nil {
		t.Fatal(err)
	}
	ws, wr := math.Log(steady.Upper/steady.Value), math.Log(rescaled.Upper/rescaled.Value)
	if ws > 0.1 || wr < math.Log(2)-1e-9 {
		t.Errorf("half-widths: steady %.3f (want under 0.1), after a rescale %.3f (want at least ln 2)", ws, wr)
	}
	if rescaled.Choice.Calibration.Class != ClassRescaled {
		t.Errorf("calibration class %q", rescaled.Choice.Calibration.Class)
	}
}

// TestRemainingAfterRescale: the rest of a run asked right after a change
// of scale-out floors its first jobs' intervals by the history's spread
// after rescales and says so.
func TestRemainingAfterRescale(t *testing.T) {
	jobs := rescaledRuns()
	e, err := RemainingAt(jobs, 1, 8, ChoiceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(e.Notes, "\n"), "of a change of scale-out") {
		t.Errorf("notes %q do not name the rescale", e.Notes)
	}
	same, err := RemainingAt(jobs, 1, 4, ChoiceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.Join(same.Notes, "\n"), "of a change of scale-out") {
		t.Errorf("no rescale (the latest run stays at 4 nodes), but the notes say %q", same.Notes)
	}
}

// TestConformalQCountsClusters: sixty residuals, five per configuration.
// Alike within their configuration they are worth twelve, and the 90%
// quantile is the ⌈13·0.9⌉ = 12th of twelve, the largest; unrelated to
// it, the textbook ⌈61·0.9⌉ = 55th smallest of sixty.
func TestConformalQCountsClusters(t *testing.T) {
	var alike, apart []residual
	for c := range 12 {
		for k := range 5 {
			cfg := [2]float64{float64(4 * (c + 1)), 0}
			alike = append(alike, residual{r: 0.01 * float64(c+1), split: c, config: cfg})
			// Each configuration's five values spread over the whole
			// range: 0.01 … 0.60, none shared.
			apart = append(apart, residual{r: 0.01 * float64(k*12+c+1), split: c, config: cfg})
		}
	}
	if q, _, _, _ := conformalQ(alike, 0.9, false); math.Abs(q-0.12) > 1e-12 {
		t.Errorf("alike within configurations: q = %.3f, want the largest, 0.12", q)
	}
	if q, _, _, _ := conformalQ(apart, 0.9, false); math.Abs(q-0.55) > 1e-12 {
		t.Errorf("apart: q = %.3f, want the 55th smallest of 60, 0.55", q)
	}
}
