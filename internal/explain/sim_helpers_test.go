package explain

import (
	"fmt"
	"os"
	"testing"

	"github.com/clusterlens/clusterlens/internal/history"
	"github.com/clusterlens/clusterlens/internal/sim"
)

// usualDays is how many days of usual runs each seed's history holds.
const usualDays = 20

// simRun simulates one day of a recurring job of the regression scenarios
// with cause injected and returns the job's run as the history keeps it;
// ok is false for a cause the job cannot have.
func simRun(t testing.TB, job string, day int, cause string, seed uint64) (*history.Run, sim.RegressionTruth, bool) {
	t.Helper()
	sc, truth, ok := sim.RegressionRun(job, day, cause, seed)
	if !ok {
		return nil, truth, false
	}
	return simulated(t, sc, job, seed*1000+uint64(day)), truth, true
}

// simulated simulates sc with noise seed and returns job's run. With
// CLUSTERLENS_EVAL_NOISE=calibrated the Spark task noise is the
// simulator's default (calibrated on real logs: a heavier straggler tail)
// instead of the regression scenarios' milder one.
func simulated(t testing.TB, sc *sim.Scenario, job string, seed uint64) *history.Run {
	t.Helper()
	if os.Getenv("CLUSTERLENS_EVAL_NOISE") == "calibrated" {
		sc.Scheduler.SparkNoise = sim.NoiseSpec{}
	}
	res, err := sim.Simulate(sc, seed, nil)
	if err != nil {
		t.Fatalf("simulate %s with seed %d: %v", sc.Name, seed, err)
	}
	for i, at := range res.Truth.Apps {
		if at.Job == job {
			for _, app := range res.Apps {
				if app.ID == at.ID {
					return history.FromApp(app, fmt.Sprintf("sim/%s/%s/%d", sc.Name, app.Name, seed), false, nil)
				}
			}
			t.Fatalf("app %d of truth not simulated", i)
		}
	}
	t.Fatalf("no application of job %s", job)
	return nil
}

// counterfactual returns the judged day's run without its cause: the
// same scenario and noise seed, and the regression scenarios draw with
// common random numbers, so it differs from the run by the cause alone;
// with usualInput, the day's input is the usual runs' median (the
// counterfactual of more data: the day's own ±10% is more data too).
func counterfactual(t testing.TB, job string, day int, seed uint64, usualInput bool) *history.Run {
	sc, _, _ := sim.RegressionRun(job, day, "", seed)
	if usualInput {
		var gb []float64
		for d := range usualDays {
			u, _, _ := sim.RegressionRun(job, d, "", seed)
			gb = append(gb, u.Apps[0].InputGB)
		}
		sc.Apps[0].InputGB = median(gb)
	}
	return simulated(t, sc, job, seed*1000+uint64(day))
}

// simCase is one judged run of the simulator evaluation: the injected
// cause, the run and its counterfactual (the same day and noise without
// the cause), the usual runs, and the explanation.
type simCase struct {
	seed         uint64
	job, cause   string
	truth        sim.RegressionTruth
	run, cf      *history.Run
	usual        []*history.Run
	usualMs      float64 // the usual runs' median duration
	e            *Explanation
	effect, frac float64 // the cause's effect (run − counterfactual) and its fraction of the usual time
	truthShare   float64 // effect over the run's extra time against the usual time
}

// history of a seed: its job and usual runs (newest first, as Usual
// returns them).
func simHistory(t testing.TB, seed uint64) (string, []*history.Run) {
	job := sim.RegressionJobs[int(seed)%len(sim.RegressionJobs)]
	var usual []*history.Run
	for day := usualDays - 1; day >= 0; day-- {
		r, _, _ := simRun(t, job, day, "", seed)
		usual = append(usual, r)
	}
	return job, usual
}

// simCases explains, for seed, a run of every cause on day usualDays
// (with its counterfactual) and clean runs on the days after, judging
// nodes with nodes (nil: OwnHistory).
func simCases(t testing.TB, seed uint64, clean int, p Params, nodes NodeModel) []simCase {
	job, usual := simHistory(t, seed)
	usualMs := float64(usualTime(usual, p).MedianMs)
	cf := counterfactual(t, job, usualDays, seed, false)
	cfIn := counterfactual(t, job, usualDays, seed, true)
	var out []simCase
	for _, cause := range sim.RegressionCauses {
		r, truth, ok := simRun(t, job, usualDays, cause, seed)
		if !ok {
			continue
		}
		cf := cf
		if cause == "input" {
			cf = cfIn
		}
		c := simCase{seed: seed, job: job, cause: cause, truth: truth, run: r, cf: cf, usual: usual, usualMs: usualMs,
			e: Explain(r, usual, p, nodes)}
		c.effect = float64(r.DurationMs - cf.DurationMs)
		c.frac = c.effect / usualMs
		if extra := float64(r.DurationMs) - usualMs; extra != 0 {
			c.truthShare = c.effect / extra
		}
		out = append(out, c)
	}
	for day := usualDays; day < usualDays+clean; day++ {
		r, truth, _ := simRun(t, job, day, "", seed)
		out = append(out, simCase{seed: seed, job: job, truth: truth, run: r, usual: usual, usualMs: usualMs, e: Explain(r, usual, p, nodes)})
	}
	return out
}

// top is the kind of the largest cause, "" for none.
func (c *simCase) top() string {
	if len(c.e.Causes) == 0 {
		return ""
	}
	return c.e.Causes[0].Kind
}

// share is the share the explanation gives the injected cause's kind.
func (c *simCase) share() float64 {
	for _, k := range c.e.Causes {
		if k.Kind == c.cause {
			return k.Share
		}
	}
	return 0
}

// slowed reports whether the injected cause slowed the run by at least
// minEffect of the usual time (its effect against the counterfactual).
func (c *simCase) slowed() bool { return c.cause != "" && c.frac >= minEffect }

// minEffect is the least effect (over the usual time) of a cause for its
// run to count as slowed by it.
const minEffect = 0.2
