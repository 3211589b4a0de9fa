package cli

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/clusterlens/clusterlens/internal/analysis"
	"github.com/clusterlens/clusterlens/internal/correlate"
	"github.com/clusterlens/clusterlens/internal/finding"
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
nodes it found, then, for each fault it injected, the findings that name the
fault's node (or that none did), and the report's path.`,
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
				printAgainstTruth(e.stdout, as, res.Truth)
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

// printAgainstTruth holds the findings against what the simulation
// injected: for each fault, the findings that name its node (each
// detector once, at its highest severity, highest first), or that none
// did; then each culprit finding on a node where nothing was injected.
// The demo knows its truth, so it shows what was missed as plainly as what
// was found.
func printAgainstTruth(w io.Writer, as []*analysis.Analysis, tr *sim.Truth) {
	named := map[string]map[string]finding.Severity{} // host → detector → severity
	for _, a := range as {
		for _, f := range a.Findings {
			if f.Scope.Kind != finding.ScopeNode {
				continue
			}
			for _, h := range f.Scope.IDs {
				if named[h] == nil {
					named[h] = map[string]finding.Severity{}
				}
				named[h][f.ID] = max(named[h][f.ID], f.Severity)
			}
		}
	}
	injected := map[string]bool{}
	for _, f := range tr.Faults {
		injected[f.Host] = true
		ids := slices.Collect(maps.Keys(named[f.Host]))
		if len(ids) == 0 {
			fmt.Fprintf(w, "clusterlens demo: injected %s on %s (truth.json): no finding names the node\n", f.Kind, f.Host)
			continue
		}
		sev := named[f.Host]
		slices.SortFunc(ids, func(a, b string) int { return cmp.Or(cmp.Compare(sev[b], sev[a]), cmp.Compare(a, b)) })
		parts := make([]string, len(ids))
		for i, id := range ids {
			parts[i] = fmt.Sprintf("%s [%s]", id, sev[id])
		}
		fmt.Fprintf(w, "clusterlens demo: injected %s on %s (truth.json): named by %s\n", f.Kind, f.Host, strings.Join(parts, ", "))
	}
	for _, h := range slices.Sorted(maps.Keys(named)) {
		if _, ok := named[h][nodediag.IDCulprit]; ok && !injected[h] {
			fmt.Fprintf(w, "clusterlens demo: %s named culprit, where nothing was injected\n", h)
		}
	}
}
