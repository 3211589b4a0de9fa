package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/clusterlens/clusterlens/internal/dataflow"
	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/driver"
	"github.com/clusterlens/clusterlens/internal/hetero"
	"github.com/clusterlens/clusterlens/internal/history"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/predict"
	"github.com/clusterlens/clusterlens/internal/report"
)

// predictFlags are the predict command's flags.
type predictFlags struct {
	runs, job, dsn, platform, metrics string
	unit, group                       string
	sparkJob, fromJob                 int
	pool                              bool
	poolRuns                          map[string][]predict.Point
	input, deadline, format, model    string
	machinesFrom, speeds, from, to    string
	bound, estimator, speculation     string
	machines                          float64
	executors, nodes, reduces         int
	slots                             string
	confidence, level                 float64
	logs                              *logFlags
}

func init() {
	register(func(e *env) *cobra.Command {
		var f predictFlags
		cmd := &cobra.Command{
			Use:   "predict [PATH...]",
			Short: "Predict completion times for new data sizes, cluster sizes and node types",
			Long: `predict estimates how long a job will take, with a lower and an upper bound, from
one of three sources:

  PATH...        logs of past runs of one program: MapReduce histories (ICPE'13's job
                 profile and platform model with ARIA's bounds; --platform from
                 "predict platform") or Spark event logs (stage profiles replayed)
  --runs FILE    a CSV of past runs (machines, data size, runtime), as published
                 runtime datasets come
  --job ID|NAME  a recurring job of the run history (--store), from its runs alone

From runs alone the model is chosen by cross-validation in the asked direction
among Ernest, Bell's kernel regression, C3O's optimistic model, Amdahl's law, a
power law, pchip (between the runs) and the flat runtime the scale-out does not
change. An estimate outside what the
model was fitted on is labelled extrapolated and its interval widened. --deadline
asks the inverse: the fewest slots (MapReduce), executors (Spark) or machines
(history) that meet it. docs/PREDICT.md describes the models and their accuracy.`,
			RunE: func(cmd *cobra.Command, args []string) error {
				return runPredict(cmd.Context(), e, args, f)
			},
		}
		fl := cmd.Flags()
		fl.StringVar(&f.runs, "runs", "", "CSV of past runs: a machines, an optional data-size and a runtime column")
		fl.StringVar(&f.unit, "unit", "", "--runs: the runtime column's unit (ms, s, min, h) when its header does not say")
		fl.StringVar(&f.group, "group", "", "--runs with group columns (job, machine_type, ...): the group to predict (default: the latest run's); the others form the pool of C3O's pooled model")
		fl.BoolVar(&f.pool, "pool", false, "--runs with a job-level table: pool each job with the other jobs (C3O's idea; a candidate chosen only when it validates better)")
		fl.IntVar(&f.sparkJob, "spark-job", -1, "--runs with a job-level table (Ellis's): predict this Spark job's duration (its index in a run)")
		fl.IntVar(&f.fromJob, "from-job", -1, "--runs with a job-level table: predict the remaining time of a run from this job's index on (default: the whole run)")
		fl.StringVar(&f.job, "job", "", "recurring job of the run history (id, id prefix or name)")
		historyStoreFlag(cmd, &f.dsn)
		fl.StringVar(&f.platform, "platform", "", "MapReduce platform model (JSON from clusterlens predict platform)")
		fl.StringVar(&f.metrics, "metrics", "", "MapReduce: JVM thread samples (agent store or file) for tasks whose history has no phase ends")
		fl.StringVar(&f.input, "input", "", "new input: a size (64GB, 1.5TiB, bytes) or a factor of the latest run's (4x); CSV: its data unit")
		fl.Float64Var(&f.machines, "machines", 0, "runs and --job: machines to predict for (default: the latest run's)")
		fl.StringVar(&f.machinesFrom, "machines-from", "hosts", "--job: what counts as a run's machines: hosts, executors or cores")
		fl.StringVar(&f.model, "model", "auto", "runs and --job: ernest, kernel, optimistic, power, amdahl, pchip, flat, gboost (C3O's gradient boosting, not in auto), or auto (cross-validated choice)")
		fl.IntVar(&f.executors, "executors", 0, "Spark: executors (default: the recorded)")
		fl.IntVar(&f.nodes, "nodes", 0, "MapReduce: nodes, each with the slots per host the profile showed")
		fl.StringVar(&f.slots, "slots", "", "MapReduce: map and reduce slots, M or M,R (default: --nodes × slots per host, else the recorded)")
		fl.IntVar(&f.reduces, "reduces", 0, "MapReduce: reduce tasks (default: the profile's)")
		fl.StringVar(&f.deadline, "deadline", "", "the inverse question: fewest resources that meet this time (90s, 15m, 2h)")
		fl.StringVar(&f.bound, "bound", "high", "MapReduce --deadline: the bound to meet (low, avg or high)")
		fl.StringVar(&f.speeds, "node-speeds", "", "node-class speeds: a JSON file {\"class\": {\"cpu\": n, \"disk\": n, \"network\": n}}, or \"history\" for the classes PARC's models learn from the run history (--store)")
		fl.StringVar(&f.from, "from-type", "", "node class the past runs ran on (with --node-speeds)")
		fl.StringVar(&f.to, "to-type", "", "node class to predict for (with --node-speeds)")
		fl.Float64Var(&f.confidence, "confidence", 0.95, "probability the upper bound's longest tasks are not exceeded (logs)")
		fl.StringVar(&f.estimator, "estimator", predict.EstimatorReplay, "logs: the estimate: replay (median of Monte Carlo replays of the tasks), aria (MapReduce: ARIA's T_avg) or whatif (Spark: the recorded durations scaled, replayed once)")
		fl.StringVar(&f.speculation, "speculation", "auto", "logs: speculative execution the replays assume: on, off, or auto (as the latest run had it)")
		fl.Float64Var(&f.level, "level", 0.9, "share of cross-validation errors the interval covers (runs, --job)")
		fl.StringVar(&f.format, "format", "text", "output format: text or json")
		f.logs = addLogFlags(fl)
		cmd.AddCommand(predictBenchCmd(e), predictPlatformCmd(e))
		return cmd
	})
}

func runPredict(ctx context.Context, e *env, paths []string, f predictFlags) error {
	if f.format != "text" && f.format != "json" {
		return withCode(ExitUsage, fmt.Errorf("--format %q: want text or json", f.format))
	}
	sources := 0
	for _, on := range []bool{len(paths) > 0, f.runs != "", f.job != ""} {
		if on {
			sources++
		}
	}
	if sources != 1 {
		return withCode(ExitUsage, errors.New("give exactly one source: log PATHs, --runs FILE or --job ID"))
	}
	switch predict.Bound(f.bound) {
	case predict.BoundLow, predict.BoundAvg, predict.BoundHigh:
	default:
		return withCode(ExitUsage, fmt.Errorf("--bound %q: want low, avg or high", f.bound))
	}
	var deadline float64
	if f.deadline != "" {
		d, err := time.ParseDuration(f.deadline)
		if err != nil || d <= 0 {
			return withCode(ExitUsage, fmt.Errorf("--deadline %q: want a positive duration such as 90s or 2h", f.deadline))
		}
		deadline = float64(d.Milliseconds())
	}
	change, err := classChange(ctx, f)
	if err != nil {
		return err
	}
	var out *predict.Answer
	var loadErr error
	switch {
	case f.runs != "":
		out, err = predictFromCSV(f, deadline)
	case f.job != "":
		out, err = predictFromHistory(ctx, f, deadline)
	default:
		out, loadErr, err = predictFromLogs(ctx, e, paths, f, change, deadline)
	}
	if err != nil {
		return err
	}
	if change != nil && len(change.Assumed) > 0 {
		out.Estimate.Notes = append(out.Estimate.Notes, fmt.Sprintf("node type %s → %s: no %v speed for both classes, that work keeps its time", change.From, change.To, change.Assumed))
	}
	if f.format == "json" {
		if err := report.JSON(e.stdout, out); err != nil {
			return err
		}
	} else {
		report.PredictText(e.stdout, out)
	}
	return loadErr
}

// classChange reads --node-speeds for --from-type → --to-type: a JSON
// table, or "history": the node classes PARC's joint model learns from
// the run history (--store).
func classChange(ctx context.Context, f predictFlags) (*predict.ClassChange, error) {
	if f.speeds == "" && f.from == "" && f.to == "" {
		return nil, nil
	}
	if f.speeds == "" || f.from == "" || f.to == "" {
		return nil, withCode(ExitUsage, errors.New("--node-speeds, --from-type and --to-type go together"))
	}
	var t predict.NodeSpeeds
	if f.speeds == "history" {
		st, err := readHistory(ctx, f.dsn)
		if err != nil {
			return nil, err
		}
		defer st.Close()
		runs, err := st.Runs(ctx, history.Filter{Detail: true, Oldest: true})
		if err != nil {
			return nil, err
		}
		m, err := hetero.Fit(runs, hetero.Params{})
		if err != nil {
			return nil, fmt.Errorf("node classes from the run history: %w", err)
		}
		t = predict.HeteroSpeeds(m.Classes())
	} else {
		r, err := os.Open(f.speeds)
		if err != nil {
			return nil, withCode(ExitUsage, fmt.Errorf("--node-speeds: %w", err))
		}
		defer r.Close()
		if t, err = predict.ReadSpeedTable(r, f.speeds); err != nil {
			return nil, withCode(ExitUsage, err)
		}
	}
	c, err := predict.NewClassChange(t, f.from, f.to)
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	return c, nil
}

// parseInput reads --input: a size with an optional unit, or a factor of
// base ("4x").
func parseInput(s string, base float64) (float64, error) {
	if s == "" {
		return base, nil
	}
	t := strings.TrimSpace(s)
	if f, ok := strings.CutSuffix(t, "x"); ok {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || !(v > 0) {
			return 0, fmt.Errorf("--input %q: want a positive factor such as 4x", s)
		}
		return v * base, nil
	}
	units := []struct {
		suffix string
		mult   float64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"B", 1}}
	mult := 1.0
	for _, u := range units {
		if n, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = strings.TrimSpace(n), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v > 0) {
		return 0, fmt.Errorf("--input %q: want a positive size (64GB, 1.5TiB, bytes) or a factor (4x)", s)
	}
	return v * mult, nil
}

func choiceOptions(f predictFlags) (predict.ChoiceOptions, error) {
	opt := predict.ChoiceOptions{Level: f.level, Pool: f.poolRuns}
	if f.model != "" && f.model != "auto" {
		if _, err := predict.NewModel(f.model); err != nil {
			return opt, withCode(ExitUsage, fmt.Errorf("--model: %w", err))
		}
		opt.Models = []string{f.model}
	}
	return opt, nil
}

func predictFromCSV(f predictFlags, deadline float64) (*predict.Answer, error) {
	b, err := os.ReadFile(f.runs)
	if err != nil {
		return nil, fmt.Errorf("--runs: %w", err)
	}
	if head, _, _ := strings.Cut(string(b), "\n"); strings.Contains(head, "JOB_ID") && strings.Contains(head, "SCALE_OUT") {
		return predictFromJobTable(b, f)
	}
	t, err := predict.ReadRunsCSV(bytes.NewReader(b), f.runs)
	if err != nil {
		return nil, err
	}
	if f.unit != "" {
		if t.Unit, err = predict.Unit(f.unit); err != nil {
			return nil, withCode(ExitUsage, fmt.Errorf("--unit: %w", err))
		}
	}
	t.AssumeUnit()
	t, pool, err := t.Split(f.group)
	if err != nil {
		return nil, withCode(ExitUsage, fmt.Errorf("--group: %w", err))
	}
	f.poolRuns = pool
	out, err := predictFromTable(t, f, deadline)
	if err == nil && t.UnitAssumed {
		out.Estimate.Notes = append(out.Estimate.Notes, fmt.Sprintf("the runtime column's header names no unit: %s assumed from the values (--unit to say)", t.Unit))
	}
	return out, err
}

// predictFromJobTable answers from a job-level table (Ellis's): one Spark
// job's duration (--spark-job) or the rest of a run (--from-job, default
// the whole run) at --machines nodes (default: the latest job's).
func predictFromJobTable(b []byte, f predictFlags) (*predict.Answer, error) {
	jobs, err := predict.ReadJobRuns(bytes.NewReader(b), f.runs)
	if err != nil {
		return nil, err
	}
	opt, err := choiceOptions(f)
	if err != nil {
		return nil, err
	}
	scale := f.machines
	if scale <= 0 {
		scale = jobs[len(jobs)-1].ScaleOut
	}
	if f.pool {
		opt.Pool = map[string][]predict.Point{}
	}
	if f.sparkJob >= 0 {
		pts := predict.JobPoints(jobs, f.sparkJob)
		if len(pts) == 0 {
			return nil, withCode(ExitUsage, fmt.Errorf("--spark-job %d: no run has that job", f.sparkJob))
		}
		if f.pool {
			opt.Pool = predict.JobPool(jobs, f.sparkJob)
		}
		if opt.Level > 0 && opt.Level < 1 {
			opt.FallbackNoise = predict.SteadyNoise(jobs, opt.Level)
		}
		est, err := predict.FromRuns(&predict.RunTable{Points: pts, Unit: "ms"}, scale, 1, opt)
		if err != nil {
			return nil, err
		}
		return &predict.Answer{Estimate: est}, nil
	}
	est, err := predict.RemainingAt(jobs, max(f.fromJob, 0), scale, opt)
	if err != nil {
		return nil, err
	}
	return &predict.Answer{Estimate: est}, nil
}

func predictFromHistory(ctx context.Context, f predictFlags, deadline float64) (*predict.Answer, error) {
	st, err := readHistory(ctx, f.dsn)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	job, err := history.FindJob(ctx, st, f.job, history.GroupOptions{})
	if err != nil {
		return nil, err
	}
	runs, err := st.Runs(ctx, history.Filter{JobKeys: job.Variants, Oldest: true})
	if err != nil {
		return nil, err
	}
	t, err := predict.HistoryRuns(runs, predict.Machines(f.machinesFrom))
	if err != nil {
		return nil, withCode(ExitUsage, fmt.Errorf("--machines-from: %w", err))
	}
	if len(t.Points) == 0 {
		return nil, fmt.Errorf("recurring job %s: none of its %d runs succeeded with a duration", job.ID, len(runs))
	}
	return predictFromTable(t, f, deadline)
}

// predictFromTable answers from a table of runs: for --machines and
// --input (defaults: the latest run's), or the fewest machines meeting
// the deadline.
func predictFromTable(t *predict.RunTable, f predictFlags, deadline float64) (*predict.Answer, error) {
	opt, err := choiceOptions(f)
	if err != nil {
		return nil, err
	}
	last := t.Points[len(t.Points)-1]
	data, err := parseInput(f.input, last.Data)
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	machines := f.machines
	if machines <= 0 {
		machines = last.Machines
	}
	return predict.AnswerRuns(t, machines, data, opt, deadline)
}

// predictFromLogs profiles the program of the logs and predicts for the
// flags' target.
func predictFromLogs(ctx context.Context, e *env, paths []string, f predictFlags, change *predict.ClassChange, deadline float64) (*predict.Answer, error, error) {
	opts, err := f.logs.options()
	if err != nil {
		return nil, nil, err
	}
	res, err := readLogs(e, paths, opts)
	if err != nil {
		partial(e, res)
		return nil, nil, err
	}
	loadErr := partial(e, res)
	if len(res.Apps) == 0 {
		return nil, loadErr, errors.New("no application could be read")
	}
	decodelogs.ByStart(res.Apps)
	engine := res.Apps[0].Engine
	for _, a := range res.Apps {
		if a.Engine != engine {
			return nil, loadErr, withCode(ExitUsage, errors.New("the logs mix Spark applications and MapReduce jobs: give runs of one program"))
		}
	}
	var out *predict.Answer
	if engine == model.MapReduce {
		out, err = predictMapReduce(ctx, e, res.Apps, f, change, deadline)
	} else {
		out, err = predictSpark(res.Apps, f, change, deadline)
	}
	return out, loadErr, err
}

func predictMapReduce(ctx context.Context, e *env, apps []*model.App, f predictFlags, change *predict.ClassChange, deadline float64) (*predict.Answer, error) {
	threads, err := threadSamples(ctx, e, f.metrics, apps)
	if err != nil {
		return nil, err
	}
	var runs [][]predict.Task
	for _, a := range apps {
		runs = append(runs, predict.Tasks(a, threads))
	}
	if f.platform == "" {
		return nil, withCode(ExitUsage, errors.New("MapReduce prediction needs the cluster's platform model: run the microbenchmarks (clusterlens predict bench), fit them (clusterlens predict platform HISTORIES --out platform.json) and give --platform platform.json"))
	}
	pl, err := readPlatform(f.platform)
	if err != nil {
		return nil, err
	}
	jp, err := predict.ProfileJob(apps[0].Name, apps, runs, pl)
	if err != nil {
		return nil, err
	}
	input, err := parseInput(f.input, jp.InputBytes)
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	slots, err := targetSlots(f, jp)
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	if f.estimator != predict.EstimatorReplay && f.estimator != predict.EstimatorARIA {
		return nil, withCode(ExitUsage, fmt.Errorf("--estimator %q: want %s or %s for MapReduce", f.estimator, predict.EstimatorReplay, predict.EstimatorARIA))
	}
	spec, err := speculationFlag(f.speculation, apps[len(apps)-1])
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	tg := predict.MRTarget{InputBytes: input, Reduces: f.reduces, Slots: slots, Speeds: change, Confidence: f.confidence,
		Estimator: f.estimator, Replay: predict.ReplayOptions{Speculation: spec}}
	return predict.AnswerMR(jp, pl, tg, deadline, predict.Bound(f.bound))
}

// targetSlots are --slots, else --nodes (default: the hosts the profile
// ran on) × the profile's slots per host.
func targetSlots(f predictFlags, jp *predict.JobProfile) (predict.Slots, error) {
	if f.slots != "" {
		parts := strings.Split(f.slots, ",")
		m, err := strconv.Atoi(strings.TrimSpace(parts[0]))
		r := m
		if err == nil && len(parts) == 2 {
			r, err = strconv.Atoi(strings.TrimSpace(parts[1]))
		}
		if err != nil || len(parts) > 2 || m <= 0 || r <= 0 {
			return predict.Slots{}, fmt.Errorf("--slots %q: want M or M,R, positive integers", f.slots)
		}
		return predict.Slots{Map: m, Reduce: r}, nil
	}
	n := f.nodes
	if n <= 0 {
		n = max(1, jp.Hosts)
	}
	per := max(1, jp.SlotsPerHost)
	return predict.Slots{Map: n * per, Reduce: n * per}, nil
}

// speculationFlag is --speculation: on, off, or auto (as the run had it).
func speculationFlag(v string, app *model.App) (predict.Speculation, error) {
	s := predict.SpeculationOf(app)
	switch v {
	case "auto":
	case "on":
		s.On = true
	case "off":
		s.On = false
	default:
		return s, fmt.Errorf("--speculation %q: want on, off or auto", v)
	}
	return s, nil
}

func predictSpark(apps []*model.App, f predictFlags, change *predict.ClassChange, deadline float64) (*predict.Answer, error) {
	if f.estimator != predict.EstimatorReplay && f.estimator != predict.EstimatorWhatIf {
		return nil, withCode(ExitUsage, fmt.Errorf("--estimator %q: want %s or %s for Spark", f.estimator, predict.EstimatorReplay, predict.EstimatorWhatIf))
	}
	spec, err := speculationFlag(f.speculation, apps[len(apps)-1])
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	sp, err := predict.ProfileSpark(apps...)
	if err != nil {
		return nil, err
	}
	input, err := parseInput(f.input, float64(sp.InputBytes))
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	execs := f.executors
	if execs <= 0 {
		execs = sp.Executors
	}
	tg := predict.SparkTarget{InputBytes: input, Executors: execs, Speeds: change, Confidence: f.confidence,
		Estimator: f.estimator, Replay: predict.ReplayOptions{Speculation: spec}}
	return predict.AnswerSpark(sp, tg, deadline)
}

// threadSamples reconstructs the jobs' tasks from the JVM thread samples
// of --metrics SOURCE, when it is given.
func threadSamples(ctx context.Context, e *env, spec string, apps []*model.App) (*dataflow.ThreadReconstruction, error) {
	if spec == "" {
		return nil, nil
	}
	return driver.ThreadTasks(ctx, driver.OpenMetrics(spec, e.metricNote), apps)
}

func readPlatform(path string) (*predict.Platform, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--platform: %w", err)
	}
	var pl predict.Platform
	if err := json.Unmarshal(b, &pl); err != nil {
		return nil, fmt.Errorf("%s: platform model: %w", path, err)
	}
	return &pl, nil
}
