package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/clusterlens/clusterlens/internal/sim"
)

func init() {
	register(func(e *env) *cobra.Command {
		var dir string
		var seed uint64
		cmd := &cobra.Command{
			Use:   "demo",
			Short: "Simulate a small cluster with injected faults and summarize what it wrote",
			Long: `demo simulates the "demo" scenario (12 heterogeneous nodes running a Spark
application and a MapReduce job, a CPU hog on one node, a disk hog on another and a
skewed stage) into a folder, then summarizes the logs it wrote, so you can see
clusterlens work without a cluster. The folder also holds the node metrics
(metrics.csv.zst) and the ground truth (truth.json); see docs/SIMULATOR.md.`,
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				if dir == "" {
					d, err := os.MkdirTemp("", "clusterlens-demo-")
					if err != nil {
						return fmt.Errorf("create demo folder: %w", err)
					}
					dir = d
				}
				sc, err := sim.Named("demo")
				if err != nil {
					return err
				}
				res, err := sim.Run(sc, seed, dir, encoders())
				if err != nil {
					return err
				}
				printRun(e, res, dir)
				fmt.Fprintln(e.stdout)
				if err := runSummary(e, []string{dir}, "text", 30); err != nil {
					return err
				}
				fmt.Fprintf(e.stdout, "\nclusterlens demo: logs, metrics and ground truth are in %s\n", dir)
				return nil
			},
		}
		cmd.Flags().StringVar(&dir, "dir", "", "folder to write the demo into (default: a new temporary folder)")
		cmd.Flags().Uint64Var(&seed, "seed", 1, "random seed of the simulation")
		return cmd
	})
}
