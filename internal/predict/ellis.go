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
// ms: the models take logarithms), of ClassRescaled when the job ran
// within RescaleWindow jobs of a change of its run's scale-out.
func JobPoints(jobs []JobRun, job int) []Point {
	since := SinceRescale(jobs)
	var pts []Point
	for i, j := range jobs {
		if j.Job == job {
			p := Point{Machines: j.ScaleOut, Data: 1, Runtime: max(j.DurationMs, 1)}
			if afterRescale(since[i]) {
				p.Class = ClassRescaled
			}
			pts = append(pts, p)
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

// RescaleWindow is how many jobs after a change of scale-out count as
// following a rescale. On Ellis's runs of the design applications (GBT,
// k-means) the first four jobs after a change took more than 1.5 times
// their job's median at that scale-out 33–45% (GBT) and 24–34% (k-means)
// of the time, against 7% and 17% in runs that had not changed, and 12%
// and 17% from the fifth job on (docs/PREDICT.md): new executors start
// cold and cached partitions are recomputed.
const RescaleWindow = 4

// SinceRescale returns, for each row of jobs, how many jobs of its run ran
// at its scale-out before it since the run last changed scale-out (0: the
// first job after the change), or −1 when the run has not changed before
// it. A run's jobs are ordered by index.
func SinceRescale(jobs []JobRun) []int {
	byRun := map[string][]int{}
	for i, j := range jobs {
		byRun[j.Run] = append(byRun[j.Run], i)
	}
	out := make([]int, len(jobs))
	for _, idx := range byRun {
		slices.SortFunc(idx, func(a, b int) int { return jobs[a].Job - jobs[b].Job })
		last := -1
		for k, i := range idx {
			if k > 0 && jobs[i].ScaleOut != jobs[idx[k-1]].ScaleOut {
				last = k
			}
			out[i] = -1
			if last >= 0 {
				out[i] = k - last
			}
		}
	}
	return out
}

// ClassRescaled is the class (Point.Class) of a job that ran within
// RescaleWindow jobs of a change of its run's scale-out.
const ClassRescaled = "after-rescale"

// afterRescale reports whether a job since jobs after a change of scale-out
// (SinceRescale) is of ClassRescaled.
func afterRescale(since int) bool { return since >= 0 && since < RescaleWindow }

// RescaleNoise is the spread at level, in ln units, of the jobs of
// ClassRescaled around their typical time: the split-conformal quantile of
// |ln(duration / median)| over every job index's such rows, the median
// being of the same job index's rows at the same scale-out that do not
// follow a rescale (three or more). Pooled over the application's jobs,
// since one job has few such rows: the floor of their intervals
// (ChoiceOptions.Noise). 0 when there are none.
func RescaleNoise(jobs []JobRun, level float64) float64 {
	return jobSpread(jobs, level, true)
}

// SteadyNoise is RescaleNoise for the jobs that do not follow a rescale:
// the spread at level of those rows around their job index's median at
// their scale-out (three rows or more), pooled over the application's
// jobs. It floors the interval of a job whose own runs have no scale-out
// with three steady rows (ChoiceOptions.FallbackNoise): on Ellis's k-means
// (a design set) forward chaining left jobs 0–2 with two or three single
// runs up to 19 nodes, no spread of their own, and intervals that held
// 76 of 180 steady runs beyond. 0 when there are none.
func SteadyNoise(jobs []JobRun, level float64) float64 {
	return jobSpread(jobs, level, false)
}

// jobSpread is the level quantile of |ln(duration / median)| of the rows
// after a rescale (rescaled) or the others, the median being of the same
// job index's steady rows at the same scale-out, three or more.
func jobSpread(jobs []JobRun, level float64, rescaled bool) float64 {
	type key struct {
		job   int
		scale float64
	}
	since := SinceRescale(jobs)
	steady := map[key][]Point{}
	for i, j := range jobs {
		if !afterRescale(since[i]) {
			k := key{j.Job, j.ScaleOut}
			steady[k] = append(steady[k], Point{Runtime: max(j.DurationMs, 1)})
		}
	}
	med := map[key]float64{}
	for k, g := range steady {
		if len(g) >= 3 {
			med[k] = weightedMedian(g)
		}
	}
	var dev []float64
	for i, j := range jobs {
		m, ok := med[key{j.Job, j.ScaleOut}]
		if afterRescale(since[i]) == rescaled && ok {
			dev = append(dev, math.Abs(math.Log(max(j.DurationMs, 1)/m)))
		}
	}
	if len(dev) == 0 {
		return 0
	}
	slices.Sort(dev)
	k := int(math.Ceil(float64(len(dev)+1)*level)) - 1
	return dev[min(max(k, 0), len(dev)-1)]
}

// Remaining predicts how long the rest of a run takes: the jobs in rest
// (indices), each at its scale-out, from the earlier runs' jobs of the
// same index (FromRuns per job, Ellis's per-job models with the choice of
// this package; with a non-nil opt.Pool, each job pooled with the other
// jobs, JobPool), summed; the interval is the sum of the jobs' bounds (as
// if their errors went together, so at least their level). The first
// RescaleWindow jobs after a change of scale-out — from the start when
// rescaled (the rest starts right after one), and after every change
// within rest — are asked as ClassRescaled, their intervals floored by the
// history's RescaleNoise, the others' by their own spread or, with none,
// the history's SteadyNoise. Jobs no earlier run has are named in the error.
func Remaining(history []JobRun, rest []JobRun, rescaled bool, opt ChoiceOptions) (*Estimate, error) {
	e := &Estimate{Method: "history", Model: "per-job", Unit: "ms"}
	held, checked := 0.0, 0
	level := opt.Level
	if level <= 0 || level >= 1 {
		level = 0.9
	}
	noise, steady := RescaleNoise(history, level), SteadyNoise(history, level)
	last, after := -RescaleWindow, 0
	if rescaled {
		last = 0
	}
	for i, j := range rest {
		pts := JobPoints(history, j.Job)
		if len(pts) == 0 {
			return nil, fmt.Errorf("job %d: no earlier run has it", j.Job)
		}
		if i > 0 && j.ScaleOut != rest[i-1].ScaleOut {
			last = i
		}
		o := opt
		o.FallbackNoise = steady
		if opt.Pool != nil {
			o.Pool = JobPool(history, j.Job)
		}
		if i-last < RescaleWindow {
			o.Class, o.Noise = ClassRescaled, noise
			after++
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
	if after > 0 {
		e.Notes = append(e.Notes, fmt.Sprintf("%d job(s) within %d of a change of scale-out: their intervals reach at least a factor %s either side, the spread of jobs after the history's rescales at %.0f%%",
			after, RescaleWindow, Plain(math.Round(100*math.Exp(noise))/100), 100*level))
	}
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
	rescaled := false
	for _, j := range runs[len(runs)-1] {
		if j.Job >= from {
			j.ScaleOut = scaleOut
			rest = append(rest, j)
		} else if j.Job == from-1 {
			rescaled = j.ScaleOut != scaleOut
		}
	}
	if len(rest) == 0 {
		return nil, fmt.Errorf("the latest run has no job from index %d on (its last is %d)", from, runs[len(runs)-1][len(runs[len(runs)-1])-1].Job)
	}
	e, err := Remaining(jobs, rest, rescaled, opt)
	if err != nil {
		return nil, err
	}

	e.Notes = append(e.Notes, fmt.Sprintf("the remaining %d jobs (%d–%d) of the latest run, each predicted at %s nodes from the %d runs' jobs of the same index and summed; the interval sums the jobs' intervals",
		len(rest), rest[0].Job, rest[len(rest)-1].Job, Plain(scaleOut), len(runs)))
	return e, nil
}
