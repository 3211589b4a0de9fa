package predict

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// JobRun is one Spark job of one run of a recurring application, as
// Ellis's scale-out listener records them (Thamsen et al., "Ellis:
// Dynamically Scaling Distributed Dataflows to Meet Runtime Targets",
// CloudCom'17; dos-group/enel-experiments, EllisScaleOutListener: a row
// per job with the run, the job's index in the run, its times and the
// scale-out it ran at). A run may change its scale-out between jobs.
type JobRun struct {
	Run        string  `json:"run"`
	App        string  `json:"app"`
	Job        int     `json:"job"`
	StartMs    int64   `json:"startMs"`
	DurationMs float64 `json:"durationMs"`
	ScaleOut   float64 `json:"scaleOut"`
}

// ReadJobRuns reads a job-level runtime table: '|'- or ','-separated, a
// header naming the run (ID), the application (APP_ID), the job's index
// (JOB_ID), its duration (DURATION_MS) and scale-out (SCALE_OUT), and a
// job's start (the second STARTED_AT: the first is the run's), as
// enel-experiments' ellis-*.csv have them. Errors name the line.
func ReadJobRuns(r io.Reader, name string) ([]JobRun, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	if !sc.Scan() {
		return nil, fmt.Errorf("%s: empty, want a header with ID, APP_ID, JOB_ID, DURATION_MS and SCALE_OUT", name)
	}
	sep := "|"
	if !strings.Contains(sc.Text(), "|") {
		sep = ","
	}
	head := strings.Split(sc.Text(), sep)
	col := map[string]int{}
	starts := 0
	for i, h := range head {
		h = strings.ToUpper(strings.TrimSpace(h))
		if h == "STARTED_AT" {
			starts++
			if starts == 2 {
				col["JOB_STARTED_AT"] = i
			}
		}
		if _, ok := col[h]; !ok {
			col[h] = i
		}
	}
	for _, want := range []string{"ID", "APP_ID", "JOB_ID", "DURATION_MS", "SCALE_OUT"} {
		if _, ok := col[want]; !ok {
			return nil, fmt.Errorf("%s:1: header %q has no %s column", name, sc.Text(), want)
		}
	}
	var out []JobRun
	line := 1
	for sc.Scan() {
		line++
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		f := strings.Split(sc.Text(), sep)
		get := func(k string) (string, error) {
			i := col[k]
			if i >= len(f) {
				return "", fmt.Errorf("%s:%d: %d fields, want %s in field %d", name, line, len(f), k, i+1)
			}
			return strings.TrimSpace(f[i]), nil
		}
		num := func(k string) (float64, error) {
			s, err := get(k)
			if err != nil {
				return 0, err
			}
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || !(v >= 0) || math.IsInf(v, 0) {
				return 0, fmt.Errorf("%s:%d: %s is %q, want a non-negative number", name, line, k, s)
			}
			return v, nil
		}
		var j JobRun
		var err error
		if j.Run, err = get("ID"); err != nil {
			return nil, err
		}
		if j.App, err = get("APP_ID"); err != nil {
			return nil, err
		}
		job, err := num("JOB_ID")
		if err != nil {
			return nil, err
		}
		j.Job = int(job)
		if j.DurationMs, err = num("DURATION_MS"); err != nil {
			return nil, err
		}
		if j.ScaleOut, err = num("SCALE_OUT"); err != nil {
			return nil, err
		}
		if j.ScaleOut == 0 {
			return nil, fmt.Errorf("%s:%d: SCALE_OUT is 0, want at least one node", name, line)
		}
		if i, ok := col["JOB_STARTED_AT"]; ok && i < len(f) {
			if t, err := time.Parse("2006-01-02 15:04:05.999", strings.TrimSpace(f[i])); err == nil {
				j.StartMs = t.UnixMilli()
			}
		}
		out = append(out, j)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: a header and no jobs", name)
	}
	return out, nil
}

// JobPoints are the runs of job index job as points: the scale-out as
// machines, one data unit, the duration in ms (a job of 0 ms counts as 1
// ms: the models take logarithms).
func JobPoints(jobs []JobRun, job int) []Point {
	var pts []Point
	for _, j := range jobs {
		if j.Job == job {
			pts = append(pts, Point{Machines: j.ScaleOut, Data: 1, Runtime: max(j.DurationMs, 1)})
		}
	}
	return pts
}

// JobPool are the other job indices' runs, by index: the pool a job's
// Pooled model borrows its scaling from.
func JobPool(jobs []JobRun, except int) map[string][]Point {
	out := map[string][]Point{}
	for _, j := range jobs {
		if j.Job != except {
			k := strconv.Itoa(j.Job)
			out[k] = append(out[k], Point{Machines: j.ScaleOut, Data: 1, Runtime: max(j.DurationMs, 1)})
		}
	}
	return out
}

// RunsOf groups job rows by run, each run's jobs by index, the runs in
// the order they first appear (the table's, which is by start).
func RunsOf(jobs []JobRun) [][]JobRun {
	idx := map[string]int{}
	var out [][]JobRun
	for _, j := range jobs {
		i, ok := idx[j.Run]
		if !ok {
			i = len(out)
			idx[j.Run] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], j)
	}
	for _, r := range out {
		slices.SortFunc(r, func(a, b JobRun) int { return a.Job - b.Job })
	}
	return out
}

// Remaining predicts how long the rest of a run takes: the jobs in rest
// (indices), each at its scale-out, from the earlier runs' jobs of the
// same index (FromRuns per job, Ellis's per-job models with the choice of
// this package; with a non-nil opt.Pool, each job pooled with the other
// jobs, JobPool), summed; the interval is the sum of the jobs' bounds (as
// if their errors went together, so at least their level). Jobs no
// earlier run has are named in the error.
func Remaining(history []JobRun, rest []JobRun, opt ChoiceOptions) (*Estimate, error) {
	e := &Estimate{Method: "history", Model: "per-job", Unit: "ms"}
	held, checked := 0.0, 0
	for _, j := range rest {
		pts := JobPoints(history, j.Job)
		if len(pts) == 0 {
			return nil, fmt.Errorf("job %d: no earlier run has it", j.Job)
		}
		o := opt
		if opt.Pool != nil {
			o.Pool = JobPool(history, j.Job)
		}
		est, err := FromRuns(&RunTable{Points: pts, Unit: "ms"}, j.ScaleOut, 1, o)
		if err != nil {
			return nil, fmt.Errorf("job %d at %s nodes: %w", j.Job, Plain(j.ScaleOut), err)
		}
		if cal := est.Choice.Calibration; cal != nil {
			held += cal.Coverage * float64(cal.CoverageRuns)
			checked += cal.CoverageRuns
		}
		e.Value += est.Value
		e.Lower += est.Lower
		e.Upper += est.Upper
		e.Level = est.Level
		e.Extrapolated = e.Extrapolated || est.Extrapolated
		e.Uncalibrated = e.Uncalibrated || est.Uncalibrated
		e.Machines = j.ScaleOut
	}
	e.Data = 1
	if checked > 0 {
		e.Notes = append(e.Notes, fmt.Sprintf("the jobs' %.0f%% intervals held %.0f%% of %d held-out runs when calibrated without their split",
			100*e.Level, 100*held/float64(checked), checked))
	}
	return e, nil
}

// RemainingAt predicts the rest of a run of the application whose jobs the
// table holds, from job index from on, every job at scaleOut: the jobs are
// the latest run's from that index (Remaining). A note names them.
func RemainingAt(jobs []JobRun, from int, scaleOut float64, opt ChoiceOptions) (*Estimate, error) {
	runs := RunsOf(jobs)
	if len(runs) == 0 {
		return nil, fmt.Errorf("no runs")
	}
	var rest []JobRun
	for _, j := range runs[len(runs)-1] {
		if j.Job >= from {
			j.ScaleOut = scaleOut
			rest = append(rest, j)
		}
	}
	if len(rest) == 0 {
		return nil, fmt.Errorf("the latest run has no job from index %d on (its last is %d)", from, runs[len(runs)-1][len(runs[len(runs)-1])-1].Job)
	}
	e, err := Remaining(jobs, rest, opt)
	if err != nil {
		return nil, err
	}
	e.Notes = append(e.Notes, fmt.Sprintf("the remaining %d jobs (%d–%d) of the latest run, each predicted at %s nodes from the %d runs' jobs of the same index and summed; the interval sums the jobs' intervals",
		len(rest), rest[0].Job, rest[len(rest)-1].Job, Plain(scaleOut), len(runs)))
	return e, nil
}
