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
		cmd := &cobra.Command{
			Use:   "nodes",
			Short: "Judge each node against its own performance model learned from the run history (PARC)",
			Long: `nodes fits per-node performance models on the run history (every run but the --recent
newest) and judges the newest runs' nodes against what their own models expect: a node
slow by design (an older generation) is of a slow class, not a culprit; a node slower
than its own model is degraded, with the resource (cpu, io, or the node) that slowed.
--model joint (the default) learns node speeds and job resource mixes together; --model
paper is PARC's base-class Gaussian models. docs/NODES.md describes both.`,
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
		cmd.Flags().StringVar(&opt.Model, "model", hetero.ModelJoint, "model: joint (node speed × job mix, learned together) or paper (PARC's base classes)")
		cmd.Flags().IntVar(&opt.Recent, "recent", 20, "judge the newest this many runs; the older ones are the history")
		cmd.Flags().StringVar(&since, "since", "", "history from this time on (2006-01-02, RFC 3339, or a duration ago: 720h)")
		cmd.Flags().Float64Var(&opt.Params.Z, "z", opt.Params.Z, "z-score from which a node slower than its model is degraded")
		cmd.Flags().Float64Var(&opt.Params.MinSlowdown, "min-slowdown", opt.Params.MinSlowdown, "least slowdown against its own model for a degraded node")
		cmd.Flags().IntVar(&opt.Params.MinHistoryTasks, "min-history-tasks", opt.Params.MinHistoryTasks, "fewest history tasks a node needs to be judged (fewer: unknown)")
		return cmd
	})
}
