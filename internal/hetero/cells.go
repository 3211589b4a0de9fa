package hetero

import (
	"math"

	"github.com/clusterlens/clusterlens/internal/history"
)

// cell is one (run, stage attempt, host) of the history: its successful
// tasks' count and moments, in log space (the joint model) and linear
// space (the paper's Gaussian models).
type cell struct {
	rs   int32 // run-stage index into data.rs
	job  int32 // job class index into data.jobs
	node int32 // node index into data.nodes
	n    int32 // tasks (after trimming, log space)
	// y is the mean of ln d and ss Σ (ln d − y)² over the tasks kept.
	y, ss float64
	// nLin, sum and sumSq are the untrimmed count, Σd and Σd² (ms).
	nLin       int32
	sum, sumSq float64
}

// runStage is one stage attempt of one run.
type runStage struct {
	run int32 // index into data.runs
	job int32
	// stage is the stage attempt (ID, attempt).
	stage [2]int32
	// first and end bound its cells in data.cells.
	first, end int32
	// cpu is the share of the stage's task run time spent on the CPU.
	cpu float64
	// x is ln of the bytes per task the stage read and wrote (its input
	// size as the offset's covariate; NaN when the log counts none).
	x float64
}

// jobClass is a stage signature within a recurring job.
type jobClass struct {
	key, name, signature string
	class                history.Class
}

// data indexes history runs as cells, grouped by run-stage.
type data struct {
	nodes   []string
	nodeIdx map[string]int32
	jobs    []jobClass
	jobIdx  map[string]int32
	runs    []runRef
	rs      []runStage
	cells   []cell
}

// runRef names a run.
type runRef struct {
	key   string
	start int64
}

func newData() *data {
	return &data{nodeIdx: map[string]int32{}, jobIdx: map[string]int32{}}
}

// jobKey is a stage's job class: engine, the run's normalized name and the
// stage's signature.
func jobKey(r *history.Run, st *history.Stage) string {
	return r.Engine + "\x00" + r.NameKey + "\x00" + st.Signature
}

// node returns the index of host, adding it when new.
func (d *data) node(host string) int32 {
	i, ok := d.nodeIdx[host]
	if !ok {
		i = int32(len(d.nodes))
		d.nodes = append(d.nodes, host)
		d.nodeIdx[host] = i
	}
	return i
}

// add indexes runs' stages and host rows (runs need Detail). trim is the
// ratio over the geometric mean of a cell's other tasks from which its
// longest task is left out of the log-space moments (0: never).
func (d *data) add(runs []*history.Run, trim float64) {
	for _, r := range runs {
		ri := int32(len(d.runs))
		d.runs = append(d.runs, runRef{key: r.Key, start: r.Start})
		stages := map[[2]int32]*history.Stage{}
		for i := range r.Stages {
			st := &r.Stages[i]
			stages[[2]int32{st.ID, st.Attempt}] = st
		}
		cur := int32(-1)
		var curKey [2]int32
		for i := range r.Hosts {
			h := &r.Hosts[i]
			if h.Tasks <= 0 {
				continue
			}
			k := [2]int32{h.Stage, h.Attempt}
			st := stages[k]
			if st == nil || !nodeWork(r, st) {
				continue
			}
			if cur < 0 || k != curKey {
				key := jobKey(r, st)
				j, ok := d.jobIdx[key]
				if !ok {
					j = int32(len(d.jobs))
					d.jobs = append(d.jobs, jobClass{key: key, name: r.NameKey, signature: st.Signature, class: st.Class})
					d.jobIdx[key] = j
				}
				cur, curKey = int32(len(d.rs)), k
				d.rs = append(d.rs, runStage{run: ri, job: j, stage: k, first: int32(len(d.cells)), end: int32(len(d.cells)), cpu: cpuShare(st), x: bytesPerTask(st)})
			}
			c := cell{rs: cur, job: d.rs[cur].job, node: d.node(h.Host), nLin: int32(h.Tasks), sum: h.SumMs, sumSq: h.SumSqMs}
			logMoments(&c, h, trim)
			d.cells = append(d.cells, c)
			d.rs[cur].end = int32(len(d.cells))
		}
	}
}

// nodeWork reports whether a stage's task durations tell its nodes'
// speeds: not a MapReduce job's setup and cleanup tasks (bookkeeping whose
// time is the task trackers' heartbeats) nor its reduces, which start
// before the maps end (slow start) and wait for their output, so that
// their durations are mostly the maps' progress (seen on the GridMix and
// Rumen traces of shared/data, docs/NODES.md).
func nodeWork(r *history.Run, st *history.Stage) bool {
	if r.Engine != "mapreduce" {
		return true
	}
	return st.Name != "setup" && st.Name != "cleanup" && st.Name != "reduce"
}

// logMoments fills c's log-space moments from h, leaving out the longest
// task when it ran more than trim times the geometric mean of the others
// (at least 3 tasks): a straggler of the noise's heavy tail, which a mean
// over 2–3 tasks cannot absorb and which straggler-tasks reports anyway.
func logMoments(c *cell, h *history.HostStage, trim float64) {
	n, s, s2 := float64(h.Tasks), h.SumLog, h.SumSqLog
	if trim > 1 && h.Tasks >= 3 {
		lmax := math.Log(math.Max(float64(h.MaxMs), 1))
		if lmax-(s-lmax)/(n-1) > math.Log(trim) {
			n, s, s2 = n-1, s-lmax, s2-lmax*lmax
		}
	}
	c.n = int32(n)
	c.y = s / n
	c.ss = math.Max(0, s2-s*s/n)
}

// cpuShare is the share of a stage's task run time spent on the CPU, in
// [0, 1] (½ when the log does not say).
func cpuShare(st *history.Stage) float64 {
	if st.RunTimeMs <= 0 {
		return 0.5
	}
	return math.Min(1, math.Max(0, float64(st.CPUTimeMs)/float64(st.RunTimeMs)))
}

// bytesPerTask is ln of the bytes a stage's tasks read and wrote per task
// (NaN when the log counts none).
func bytesPerTask(st *history.Stage) float64 {
	b := st.InputBytes + st.OutputBytes + st.ShuffleReadBytes + st.ShuffleWriteBytes
	if b <= 0 || st.Tasks <= 0 {
		return math.NaN()
	}
	return math.Log(float64(b) / float64(st.Tasks))
}
