package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/clusterlens/clusterlens/internal/sim"
)

func init() {
	register(func(e *env) *cobra.Command {
		var dir string
		var seed uint64
		cmd := &cobra.Command{
			Use:   "demo",
			Short: "Generate a small Spark application's log and summarize it",
			Long: `demo writes the event log of a small simulated Spark application (4 executors on 4
hosts, one slow host, one skewed stage, one failed task) into a folder and runs the
summary on it, so you can see clusterlens work without a cluster.`,
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				if dir == "" {
					d, err := os.MkdirTemp("", "clusterlens-demo-")
					if err != nil {
						return err
					}
					dir = d
				}
				path := filepath.Join(dir, "app-20260101000000-0001")
				f, err := os.Create(path)
				if err != nil {
					return err
				}
				if _, err := sim.WriteDemoSparkLog(f, seed); err != nil {
					f.Close()
					return fmt.Errorf("write %s: %w", path, err)
				}
				if err := f.Close(); err != nil {
					return err
				}
				fmt.Fprintf(e.stdout, "clusterlens demo: wrote %s\n\n", path)
				return runSummary(e, []string{path}, "text", 30)
			},
		}
		cmd.Flags().StringVar(&dir, "dir", "", "folder to write the demo log into (default: a new temporary folder)")
		cmd.Flags().Uint64Var(&seed, "seed", 1, "random seed of the simulation")
		return cmd
	})
}
