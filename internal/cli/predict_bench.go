package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/clusterlens/clusterlens/internal/driver"
	"github.com/clusterlens/clusterlens/internal/predict"
	"github.com/clusterlens/clusterlens/internal/report"
	"github.com/clusterlens/clusterlens/internal/sim"
)

// predictBenchCmd is `predict bench`: ICPE'13's microbenchmarks as a shell
// script for a real Hadoop cluster, or run on the simulator.
func predictBenchCmd(e *env) *cobra.Command {
	var slots, nodes int
	var dir, simulate, grid string
	var seed uint64
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Write the MapReduce microbenchmarks as a Hadoop script, or run them on the simulator",
		Long: `bench lays out ICPE'13's microbenchmarks (input size per map, map and reduce
selectivity, map and reduce task counts) for a cluster of --slots containers and prints
them as a shell script: TeraGen input, then each benchmark as Hadoop's loadgen. Run it on
an idle cluster, then fit the platform model with "clusterlens predict platform".
--simulate DIR runs them instead on a simulated cluster of --nodes nodes of 8 cores and
writes their histories into DIR (speculative execution on, as Hadoop's default).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if grid != predict.GridClusterlens && grid != predict.GridICPE13 {
				return withCode(ExitUsage, fmt.Errorf("--grid %q: want %s or %s", grid, predict.GridClusterlens, predict.GridICPE13))
			}
			if simulate == "" {
				if slots <= 0 {
					return withCode(ExitUsage, errors.New("--slots must be positive"))
				}
				return predict.WriteHadoopScript(e.stdout, predict.Plan(predict.PlanOptions{Slots: slots, Grid: grid}), dir)
			}
			if nodes <= 0 {
				return withCode(ExitUsage, errors.New("--nodes must be positive"))
			}
			sc := driver.BenchScenario(nodes, grid)
			res, err := sim.Run(sc, seed, simulate, encoders())
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "clusterlens predict bench: %d microbenchmarks on %d simulated nodes (seed %d) written to %s\n", len(res.Truth.Apps), nodes, seed, simulate)
			return nil
		},
	}
	cmd.Flags().StringVar(&grid, "grid", predict.GridClusterlens, "the benchmarks: clusterlens (splits to 256 MB, reduce selectivities and counts varied) or icpe13 (the paper's §3 grid)")
	cmd.Flags().IntVar(&slots, "slots", 32, "the cluster's task containers (the script)")
	cmd.Flags().StringVar(&dir, "dir", "/tmp/clusterlens-bench", "HDFS folder for the benchmarks' input and output (the script)")
	cmd.Flags().StringVar(&simulate, "simulate", "", "run on the simulator and write its logs into this folder")
	cmd.Flags().IntVar(&nodes, "nodes", 4, "simulated nodes (8 cores each)")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "simulation seed")
	return cmd
}

// predictPlatformCmd is `predict platform`: the platform model fitted on
// benchmark histories.
func predictPlatformCmd(e *env) *cobra.Command {
	var out, metrics, format string
	var lf *logFlags
	cmd := &cobra.Command{
		Use:   "platform PATH...",
		Short: "Fit the MapReduce platform model on the microbenchmarks' job histories",
		Long: `platform reads the job histories the microbenchmarks left (clusterlens predict bench),
fits ICPE'13's platform model — per part of a task, robust linear regression of its
duration on the data it processes, with the two-segment test — prints its relative
errors per part (their Table 1) and writes the model as JSON to --out for
"clusterlens predict --platform".`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" {
				return withCode(ExitUsage, fmt.Errorf("--format %q: want text or json", format))
			}
			opts, err := lf.options()
			if err != nil {
				return err
			}
			res, err := readLogs(e, args, opts)
			if err != nil {
				partial(e, res)
				return err
			}
			loadErr := partial(e, res)
			threads, err := threadSamples(cmd.Context(), e, metrics, res.Apps)
			if err != nil {
				return err
			}
			var jobs [][]predict.Task
			for _, a := range res.Apps {
				jobs = append(jobs, predict.Tasks(a, threads))
			}
			pl, err := predict.FitPlatform(jobs, predict.PlatformOptions{})
			if err != nil {
				return err
			}
			if out != "" {
				b, err := json.MarshalIndent(pl, "", "  ")
				if err != nil {
					return err
				}
				if err := os.WriteFile(out, append(b, '\n'), 0o644); err != nil {
					return fmt.Errorf("--out: %w", err)
				}
			}
			errs := pl.Errors(jobs)
			if format == "json" {
				if err := report.JSON(e.stdout, struct {
					Platform *predict.Platform   `json:"platform"`
					Errors   []predict.PartError `json:"errors"`
				}{pl, errs}); err != nil {
					return err
				}
				return loadErr
			}
			fmt.Fprintf(e.stdout, "platform model from %d benchmark jobs, %d tasks\n", pl.Benchmarks, pl.Tasks)
			fmt.Fprintf(e.stdout, "%-13s %6s %9s %8s %6s %9s %9s  %s\n", "part", "tasks", "task med", "task p90", "jobs", "job med", "job worst", "segments")
			for i, pe := range errs {
				pm := pl.Parts[i]
				seg := "one line"
				if pm.Break > 0 {
					seg = fmt.Sprintf("two, break at %s (Chow p %.2g)", report.Measure(pm.Break, "B"), pm.ChowP)
				}
				fmt.Fprintf(e.stdout, "%-13s %6d %8.1f%% %7.1f%% %6d %8.1f%% %8.1f%%  %s\n", pe.Part, pe.Tasks, 100*pe.TaskMedian, 100*pe.TaskP90, pe.Jobs, 100*pe.JobMedian, 100*pe.JobWorst, seg)
			}
			fmt.Fprintf(e.stdout, "slots idle %.0f ms before a reused slot's next task\n", pl.LaunchGapMs)
			if out != "" {
				fmt.Fprintf(e.stdout, "wrote %s\n", out)
			}
			return loadErr
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "write the platform model (JSON) here")
	cmd.Flags().StringVar(&metrics, "metrics", "", "JVM thread samples (agent store or file) for tasks whose history has no phase ends")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	lf = addLogFlags(cmd.Flags())
	return cmd
}
