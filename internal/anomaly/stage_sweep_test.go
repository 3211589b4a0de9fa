package anomaly_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/anomaly"
	"github.com/clusterlens/clusterlens/internal/correlate"
)

// stageVariants are the per-stage variants docs/ANOMALY.md compares: the
// defaults built up one step at a time, then each alternative to one
// default.
func stageVariants() []stageMethod {
	np, sp, vo := anomaly.DefaultStageNodeParams(), anomaly.DefaultStageParams(), correlate.DefaultStageOptions()
	with := func(name string, f func(o *correlate.StageOptions, n *anomaly.NodeParams, s *anomaly.StageParams)) stageMethod {
		m := stageMethod{name: name, views: vo, params: np, stage: sp}
		f(&m.views, &m.params, &m.stage)
		return m
	}
	alone := func(m stageMethod) stageMethod { m.alone = true; return m }
	return []stageMethod{
		{name: "before: AbnormalNodes defaults on StageMatrices", baseline: true, params: anomaly.DefaultNodeParams()},
		with("raw views, no rates", func(o *correlate.StageOptions, n *anomaly.NodeParams, s *anomaly.StageParams) {
			*o, *s, *n = correlate.StageOptions{}, anomaly.StageParams{}, anomaly.DefaultNodeParams()
		}),
		with("+ synonyms dropped", func(o *correlate.StageOptions, n *anomaly.NodeParams, s *anomaly.StageParams) {
			*o, *s, *n = correlate.StageOptions{DropSynonyms: true}, anomaly.StageParams{}, anomaly.DefaultNodeParams()
		}),
		with("+ scale q0.99, threshold 0.95, gap 0.05", func(o *correlate.StageOptions, n *anomaly.NodeParams, s *anomaly.StageParams) {
			*o, *s = correlate.StageOptions{DropSynonyms: true, ScaleQuantile: 0.99}, anomaly.StageParams{}
		}),
		with("+ sends dropped in shuffle stages", func(o *correlate.StageOptions, n *anomaly.NodeParams, s *anomaly.StageParams) {
			*s, o.PerAttempt = anomaly.StageParams{}, false
		}),
		with("+ slow task rates", func(o *correlate.StageOptions, n *anomaly.NodeParams, s *anomaly.StageParams) { o.PerAttempt = false }),
		with("+ throughputs per running attempt (the defaults)", func(*correlate.StageOptions, *anomaly.NodeParams, *anomaly.StageParams) {}),
		alone(with("defaults, other applications unknown (no Options.Others)", func(*correlate.StageOptions, *anomaly.NodeParams, *anomaly.StageParams) {})),
		with("defaults, gap 0.04", func(o *correlate.StageOptions, n *anomaly.NodeParams, s *anomaly.StageParams) { n.Gap = 0.04 }),
		with("defaults, gap 0.06", func(o *correlate.StageOptions, n *anomaly.NodeParams, s *anomaly.StageParams) { n.Gap = 0.06 }),
		with("defaults, gap 0.08", func(o *correlate.StageOptions, n *anomaly.NodeParams, s *anomaly.StageParams) { n.Gap = 0.08 }),
		with("defaults, scale q0.95", func(o *correlate.StageOptions, n *anomaly.NodeParams, s *anomaly.StageParams) { o.ScaleQuantile = 0.95 }),
		with("defaults, scale q1 (max)", func(o *correlate.StageOptions, n *anomaly.NodeParams, s *anomaly.StageParams) { o.ScaleQuantile = 1 }),
		with("defaults, rate ratio 0.4", func(o *correlate.StageOptions, n *anomaly.NodeParams, s *anomaly.StageParams) { s.RateRatio = 0.4 }),
		with("defaults, rate ratio 0.6", func(o *correlate.StageOptions, n *anomaly.NodeParams, s *anomaly.StageParams) { s.RateRatio = 0.6 }),
		with("defaults, min rate time 100 ms", func(o *correlate.StageOptions, n *anomaly.NodeParams, s *anomaly.StageParams) { s.MinRateMs = 100 }),
		with("defaults, rows where the stage is ≥ 50% of the work", func(o *correlate.StageOptions, n *anomaly.NodeParams, s *anomaly.StageParams) {
			o.MinRowShare = 0.5
		}),
		with("defaults, gap 0.03", func(o *correlate.StageOptions, n *anomaly.NodeParams, s *anomaly.StageParams) { n.Gap = 0.03 }),
		with("defaults, hosts with stage share < 0.3 left out", func(o *correlate.StageOptions, n *anomaly.NodeParams, s *anomaly.StageParams) {
			s.MinShare = 0.3
		}),
		with("defaults, hosts with < 15 rows left out", func(o *correlate.StageOptions, n *anomaly.NodeParams, s *anomaly.StageParams) { s.MinRows = 15 }),
	}
}

// TestStageSweep compares the per-stage variants on the tuning seeds (1-5
// on 12 and on 50 nodes), with ANOMALY_SWEEP=1: docs/ANOMALY.md's table
// behind the choice of defaults (the evaluation seeds, 101-120, are
// TestStageEvaluation's).
func TestStageSweep(t *testing.T) {
	if os.Getenv("ANOMALY_SWEEP") == "" {
		t.Skip("set ANOMALY_SWEEP=1 to sweep the per-stage variants")
	}
	methods := stageVariants()
	res := runEval(t, []int{12, 50}, seedRange(1, 5), methods)
	var b strings.Builder
	b.WriteString("\n| variant | 12 nodes P | R | 50 nodes P | R | all P | R | clean false alarms |\n")
	for i, m := range methods {
		var by [2]evalCount
		var all evalCount
		for k, n := range []string{"/12", "/50"} {
			for _, sc := range evalScenarios {
				by[k].add(res[sc+n][i])
				all.add(res[sc+n][i])
			}
		}
		fmt.Fprintf(&b, "| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %d |\n", m.name, by[0].precision(), by[0].recall(),
			by[1].precision(), by[1].recall(), all.precision(), all.recall(), res["clean/12"][i].fp+res["clean/50"][i].fp)
	}
	t.Log(b.String())
}
