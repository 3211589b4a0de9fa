package predict

import (
	"fmt"
	"io"
	"strings"
)

// Benchmark is one microbenchmark job of Zhang, Cherkasova and Loo (ICPE'13,
// §3): a synthetic job whose map and reduce functions only pass records
// on, parameterised by the input size per map task, the map selectivity
// (map output over input bytes), the reduce selectivity (reduce output over
// shuffled bytes) and the numbers of map and reduce tasks.
type Benchmark struct {
	Name              string  `json:"name"`
	SplitMB           int     `json:"splitMB"`
	MapSelectivity    float64 `json:"mapSelectivity"`
	ReduceSelectivity float64 `json:"reduceSelectivity"`
	Maps              int     `json:"maps"`
	Reduces           int     `json:"reduces"`
}

// InputMB is the benchmark's input: one split per map.
func (b Benchmark) InputMB() int { return b.SplitMB * b.Maps }

// PlanOptions tune Plan. Zero fields take the defaults.
type PlanOptions struct {
	// Grid is the plan: GridClusterlens (default) or GridICPE13, the
	// paper's own (§3).
	Grid string
	// Slots are the cluster's task containers (default 32).
	Slots int
	// SplitsMB, MapSelectivities, ReduceSelectivities are the parameter
	// values (defaults 32, 64, 128, 256 MB; 0.2, 0.6, 1.0, 1.4, 1.8; 0.2,
	// 1.0, 1.8).
	SplitsMB            []int
	MapSelectivities    []float64
	ReduceSelectivities []float64
}

// Microbenchmark grids.
const (
	// GridICPE13 is Zhang, Cherkasova and Loo's grid (§3): input per map
	// M^inp ∈ {2, 4, 8, 16, 32, 64} MB with map selectivity M^sel ∈
	// {0.2, 0.6, 1.0, 1.4, 1.8}, each with a fixed number of maps and
	// reduces (40 each on their 5 workers of 2 map and 2 reduce slots:
	// four waves; here four times the slots) and the identity reduce
	// (reduce selectivity 1); then the shuffle benchmarks N^map ∈ {20, 30,
	// …, 160} with M^inp = 64 MB, M^sel = 5.0 and N^red = 5, 1–12 GB per
	// reduce: 45 jobs.
	GridICPE13 = "icpe13"
	// GridClusterlens is clusterlens's (Plan): splits up to 256 MB and
	// reduce selectivities and counts varied, 40 jobs.
	GridClusterlens = "clusterlens"
)

// Plan lays out the microbenchmarks: every input size per map with every
// map selectivity, each twice — its maps in one wave of the slots, then in
// three (the time slots stay idle between tasks is the platform's too) —
// with reduce selectivities and reduce counts
// (a quarter, half or all of the slots) taken in turn, so that the shuffled
// bytes per reduce span from a few MB to a few GB (past the reduce's
// in-memory merge, where the shuffle's line bends) and the write covers
// small and large outputs. A full factorial design would multiply the runs
// by nine for little more information: the map side depends on the split
// and map selectivity only, the reduce side on the bytes per reduce and the
// reduce selectivity.
func Plan(opt PlanOptions) []Benchmark {
	if opt.Slots <= 0 {
		opt.Slots = 32
	}
	if opt.Grid == GridICPE13 {
		return planICPE13(opt.Slots)
	}
	if opt.SplitsMB == nil {
		opt.SplitsMB = []int{32, 64, 128, 256}
	}
	if opt.MapSelectivities == nil {
		opt.MapSelectivities = []float64{0.2, 0.6, 1.0, 1.4, 1.8}
	}
	if opt.ReduceSelectivities == nil {
		opt.ReduceSelectivities = []float64{0.2, 1.0, 1.8}
	}
	reduces := []int{max(1, opt.Slots/4), max(1, opt.Slots/2), opt.Slots}
	var out []Benchmark
	k := 0
	for _, s := range opt.SplitsMB {
		for _, ms := range opt.MapSelectivities {
			for wave := range 2 {
				b := Benchmark{SplitMB: s, MapSelectivity: ms,
					ReduceSelectivity: opt.ReduceSelectivities[k%len(opt.ReduceSelectivities)],
					Maps:              opt.Slots * (1 + 2*wave), Reduces: reduces[(k/len(opt.ReduceSelectivities))%len(reduces)]}
				b.Name = fmt.Sprintf("clusterlens-bench-%03d-split%dm-msel%g-rsel%g-r%d", k+1, s, ms, b.ReduceSelectivity, b.Reduces)
				out = append(out, b)
				k++
			}
		}
	}
	return out
}

// planICPE13 is GridICPE13's plan for slots task containers.
func planICPE13(slots int) []Benchmark {
	var out []Benchmark
	for _, s := range []int{2, 4, 8, 16, 32, 64} {
		for _, ms := range []float64{0.2, 0.6, 1.0, 1.4, 1.8} {
			out = append(out, Benchmark{SplitMB: s, MapSelectivity: ms, ReduceSelectivity: 1, Maps: 4 * slots, Reduces: 4 * slots})
		}
	}
	for n := 20; n <= 160; n += 10 {
		out = append(out, Benchmark{SplitMB: 64, MapSelectivity: 5, ReduceSelectivity: 1, Maps: n, Reduces: 5})
	}
	for i := range out {
		b := &out[i]
		b.Name = fmt.Sprintf("icpe13-bench-%03d-split%dm-msel%g-m%d-r%d", i+1, b.SplitMB, b.MapSelectivity, b.Maps, b.Reduces)
	}
	return out
}

// WriteHadoopScript writes the plan as a shell script for a real Hadoop
// cluster: TeraGen input of each split size (block size = split size, so
// each block is one map's split), then each benchmark as Hadoop's
// GenericMRLoadGenerator ("loadgen" of the jobclient tests jar), whose
// SampleMapper and SampleReducer keep keepmap% and keepred% of the records
// — repeating records when the percentage is over 100 — which is ICPE'13's
// selectivity. The job histories it leaves are what `clusterlens predict
// platform` fits.
func WriteHadoopScript(w io.Writer, plan []Benchmark, dir string) error {
	if dir == "" {
		dir = "/tmp/clusterlens-bench"
	}
	var b strings.Builder
	fmt.Fprintf(&b, `#!/bin/sh
# ICPE'13 microbenchmarks (Zhang, Cherkasova, Loo, §3) written by clusterlens predict bench.
# Run on an otherwise idle cluster; then: clusterlens predict platform <job history folder> --out platform.json
set -eu
EXAMPLES=${EXAMPLES:-$(ls $HADOOP_HOME/share/hadoop/mapreduce/hadoop-mapreduce-examples-*.jar | head -1)}
TESTS=${TESTS:-$(ls $HADOOP_HOME/share/hadoop/mapreduce/hadoop-mapreduce-client-jobclient-*-tests.jar | head -1)}
DIR=%s
`, dir)
	// One input per split size, as large as its largest benchmark reads.
	var sizes []int
	inputMB := map[int]int{}
	for _, bm := range plan {
		if _, ok := inputMB[bm.SplitMB]; !ok {
			sizes = append(sizes, bm.SplitMB)
		}
		inputMB[bm.SplitMB] = max(inputMB[bm.SplitMB], bm.InputMB())
	}
	for _, s := range sizes {
		// TeraGen writes 100-byte rows.
		fmt.Fprintf(&b, "hadoop jar \"$EXAMPLES\" teragen -D dfs.blocksize=%d %d \"$DIR/in-%dm\"\n",
			int64(s)<<20, int64(inputMB[s])<<20/100, s)
	}
	for _, bm := range plan {
		fmt.Fprintf(&b, "hadoop jar \"$TESTS\" loadgen -D mapreduce.job.name=%s -D mapreduce.job.reduce.slowstart.completedmaps=1.0 -m %d -r %d -keepmap %g -keepred %g -indir \"$DIR/in-%dm\" -outdir \"$DIR/out-%s\"\n",
			bm.Name, bm.Maps, bm.Reduces, 100*bm.MapSelectivity, 100*bm.ReduceSelectivity, bm.SplitMB, bm.Name)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
