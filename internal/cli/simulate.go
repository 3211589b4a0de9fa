package cli

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/clusterlens/clusterlens/internal/eventlog"
	"github.com/clusterlens/clusterlens/internal/mapreduce"
	"github.com/clusterlens/clusterlens/internal/sim"
)

func init() {
	register(func(e *env) *cobra.Command {
		var scenario, out string
		var seed uint64
		cmd := &cobra.Command{
			Use:   "simulate --scenario FILE|NAME --out DIR",
			Short: "Simulate a cluster with injected faults and write its logs, metrics and ground truth",
			Long: `simulate runs a discrete-event simulation of a cluster running Spark applications and
MapReduce jobs, deterministic by --seed, and writes into --out: Spark event logs
(spark/<appId>), MapReduce histories (mapreduce/<jobId>.jhist and _conf.xml), per-node
metrics at 1 s (metrics.csv.zst), the ground truth (truth.json) and the resolved
scenario (scenario.json). --scenario is a JSON file or one of the named scenarios:
` + strings.Join(sim.Names(), ", ") + `. docs/SIMULATOR.md describes the formats.`,
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				if scenario == "" || out == "" {
					return withCode(ExitUsage, fmt.Errorf("--scenario and --out are required"))
				}
				sc, err := scenarioByName(scenario)
				if err != nil {
					return withCode(ExitUsage, err)
				}
				res, err := sim.Run(sc, seed, out, encoders())
				if err != nil {
					return err
				}
				printRun(e, res, out)
				return nil
			},
		}
		cmd.Flags().StringVar(&scenario, "scenario", "", "scenario: a JSON file or a named scenario")
		cmd.Flags().Uint64Var(&seed, "seed", 1, "random seed of the simulation")
		cmd.Flags().StringVar(&out, "out", "", "folder to write into (created if needed)")
		return cmd
	})
}

// scenarioByName reads a scenario file, or else returns the named scenario.
func scenarioByName(s string) (*sim.Scenario, error) {
	if st, err := os.Stat(s); err == nil && !st.IsDir() {
		return sim.ReadScenario(s)
	}
	return sim.Named(s)
}

// printRun says what a simulation wrote.
func printRun(e *env, res *sim.Result, out string) {
	tr := res.Truth
	fmt.Fprintf(e.stdout, "clusterlens simulate: scenario %q, seed %d, %d nodes, %d applications, %d node samples\n",
		tr.Scenario, tr.Seed, len(tr.Nodes), len(tr.Apps), tr.Metrics.Samples)
	for _, f := range tr.Faults {
		fmt.Fprintf(e.stdout, "  fault   %-16s %s  %d..%d\n", f.Kind, f.Host, f.StartMs, f.EndMs)
	}
	for _, p := range tr.Problems {
		if p.Cause != "" {
			continue // made by the workload, not injected (truth.json lists it)
		}
		fmt.Fprintf(e.stdout, "  problem %-16s %s stage %d\n", p.Kind, p.App, p.Stage)
	}
	unwritten := 0
	for _, a := range tr.Apps {
		if a.Path == "" {
			unwritten++
		}
	}
	if unwritten > 0 {
		fmt.Fprintf(e.stderr, "clusterlens: warning: %d application logs not written (no encoder for their format)\n", unwritten)
	}
	fmt.Fprintf(e.stdout, "wrote %s\n", out)
}

// encoders are the log writers the simulator uses.
func encoders() sim.Encoders {
	return sim.Encoders{
		SparkFile: eventlog.WriteFile, SparkRolling: eventlog.WriteRolling, RollingDirName: eventlog.RollingDirName,
		Jhist: mapreduce.WriteJhist, Conf: mapreduce.WriteConf,
	}
}
