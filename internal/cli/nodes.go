package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/clusterlens/clusterlens/internal/hetero"
	"github.com/clusterlens/clusterlens/internal/report"
)

func init() {
	register(func(e *env) *cobra.Command {
		var h historyFlags
		opt := hetero.Options{Params: hetero.DefaultParams}
		var since string
		var baseJobs map[string]string
		cmd := &cobra.Command{
			Use:   "nodes",
			Short: "Judge each node against its own performance model learned from the run history (PARC)",
			Long: `nodes fits per-node performance models on the run history (every run but the --recent
newest) and judges the newest runs' nodes against what their own models expect: a node
slow by design (an older generation) is of a slow class, not a culprit; a node slower
than its own model is degraded, with the resource (cpu, io, or the node) that slowed.
--model joint (the default) learns node speeds and job resource mixes together and
expects each recurring stage's size from its own history runs and the run's other nodes
(--expect peers: the other nodes alone, PARC's eq. 5); --model paper is PARC's
base-class Gaussian models and likelihood test; --model baseline the plain rule (a
node's median task time over its stages' usual, flagged at 1.3x). The runs judged are
judged together and each on its own (--format json: "runs"); --run ID judges one run
against the runs before it. docs/NODES.md describes them and their measured accuracy.`,
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				if err := h.check(); err != nil {
					return err
				}
				var err error
				if opt.Since, err = parseTime("--since", since); err != nil {
					return withCode(ExitUsage, err)
				}
				if opt.Recent <= 0 {
					return withCode(ExitUsage, fmt.Errorf("--recent %d: want at least 1", opt.Recent))
				}
				for k := range baseJobs {
					if k != "cpu" && k != "io" {
						return withCode(ExitUsage, fmt.Errorf("--base-jobs %s=…: want cpu= and io= (PARC's base classes)", k))
					}
				}
				opt.Params.BaseJobs = baseJobs
				if opt.Params.Expect != hetero.ExpectHistory && opt.Params.Expect != hetero.ExpectPeers {
					return withCode(ExitUsage, fmt.Errorf("--expect %q: want %s or %s", opt.Params.Expect, hetero.ExpectHistory, hetero.ExpectPeers))
				}
				st, err := readHistory(cmd.Context(), h.dsn)
				if err != nil {
					return err
				}
				defer st.Close()
				a, err := hetero.Assess(cmd.Context(), st, opt)
				if err != nil {
					return err
				}
				if h.format == "json" {
					return report.JSON(e.stdout, a)
				}
				report.NodesText(e.stdout, a)
				return nil
			},
		}
		historyStoreFlag(cmd, &h.dsn)
		cmd.Flags().StringVar(&h.format, "format", "text", "output format: text or json")
		cmd.Flags().StringVar(&opt.Model, "model", hetero.ModelJoint, "model: joint (node speed × job mix, learned together), paper (PARC's base classes) or baseline (median ratio ≥ 1.3x)")
		cmd.Flags().IntVar(&opt.Recent, "recent", 20, "judge the newest this many runs; the older ones are the history")
		cmd.Flags().StringVar(&opt.Run, "run", "", "judge this run (key or application id) against the runs before it")
		cmd.Flags().StringVar(&opt.Params.Expect, "expect", opt.Params.Expect, "a stage's expected size: history (its own past runs and the run's other nodes) or peers (the run's other nodes alone)")
		cmd.Flags().StringVar(&since, "since", "", "history from this time on (2006-01-02, RFC 3339, or a duration ago: 720h)")
		cmd.Flags().Float64Var(&opt.Params.Z, "z", opt.Params.Z, "z-score from which a node slower than its model is degraded")
		cmd.Flags().Float64Var(&opt.Params.MinSlowdown, "min-slowdown", opt.Params.MinSlowdown, "least slowdown against its own model for a degraded node")
		cmd.Flags().Float64Var(&opt.Params.LikelihoodRatio, "likelihood-ratio", opt.Params.LikelihoodRatio, "paper model: relative likelihood (against the other nodes' average, PARC §4.5) below which a node is degraded")
		cmd.Flags().StringToStringVar(&baseJobs, "base-jobs", nil, "paper model: the base job of each class, cpu=NAME,io=NAME (a part of a job's name or stage signature; default: the job of that class run on the most nodes)")
		cmd.Flags().IntVar(&opt.Params.MinHistoryTasks, "min-history-tasks", opt.Params.MinHistoryTasks, "fewest history tasks a node needs to be judged (fewer: unknown)")
		return cmd
	})
}
