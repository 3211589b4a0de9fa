package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/clusterlens/clusterlens/internal/analysis"
	"github.com/clusterlens/clusterlens/internal/correlate"
	"github.com/clusterlens/clusterlens/internal/nodediag"
	"github.com/clusterlens/clusterlens/internal/sim"
)

func init() {
	register(func(e *env) *cobra.Command {
		var dir string
		var seed uint64
		cmd := &cobra.Command{
			Use:   "demo",
			Short: "Simulate a small cluster with injected faults and analyze what it wrote",
			Long: `demo simulates the "demo" scenario (12 heterogeneous nodes running a Spark
application and a MapReduce job, a CPU hog on one node, a disk hog on another and a
skewed stage) into a folder, then analyzes the logs it wrote (as clusterlens analyze
DIR/spark DIR/mapreduce does) and writes the HTML report beside them, so you can see clusterlens work without
a cluster. The folder also holds the node metrics (metrics.csv.zst) and the ground
truth (truth.json); see docs/SIMULATOR.md. The analysis joins the node metrics with
the tasks (analyze --metrics) and diagnoses the nodes; demo ends with the culprit
nodes it found and the report's path.`,
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
				html := filepath.Join(dir, "report.html")
				// The log folders alone: the metrics, phases and truth beside
				// them are not logs, and a note skipping each tells a
				// newcomer nothing.
				var logs []string
				for _, sub := range []string{sim.SparkDir, sim.MapReduceDir} {
					if fi, err := os.Stat(filepath.Join(dir, sub)); err == nil && fi.IsDir() {
						logs = append(logs, filepath.Join(dir, sub))
					}
				}
				as, err := analyzeRun(e, logs, analyzeOptions{format: "text", rows: 15, minSeverity: "low", html: html,
					metrics: dir, nodes: true, clockSkew: correlate.DefaultSkewMs * time.Millisecond})
				if err != nil {
					return err
				}
				printCulprits(e.stdout, as)
				fmt.Fprintf(e.stdout, "clusterlens demo: logs, metrics and ground truth are in %s\n", dir)
				fmt.Fprintf(e.stdout, "clusterlens demo: open the report: %s\n", html)
				return nil
			},
		}
		cmd.Flags().StringVar(&dir, "dir", "", "folder to write the demo into (default: a new temporary folder)")
		cmd.Flags().Uint64Var(&seed, "seed", 1, "random seed of the simulation")
		return cmd
	})
}

// printCulprits lists the culprit-node findings of every application, one
// line each (a node found culprit in several applications is listed once
// per application), or says there was none.
func printCulprits(w io.Writer, as []*analysis.Analysis) {
	n := 0
	for _, a := range as {
		for _, f := range a.Findings {
			if f.ID != nodediag.IDCulprit {
				continue
			}
			n++
			fmt.Fprintf(w, "clusterlens demo: [%s] %s %v in %s\n", f.Severity, f.Title, f.Scope.IDs, a.Summary.App.ID)
		}
	}
	if n == 0 {
		fmt.Fprintln(w, "clusterlens demo: no culprit node found")
	}
}
