package correlate

import (
	"math"
	"slices"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/stats"
)

// StageOptions choose which samples of a stage's window a StageView
// averages and how, so that hosts are compared on the stage's own work
// rather than on whatever else ran beside it (docs/ANOMALY.md measures
// each choice). The zero value is StageMatrices' rule: every sample in the
// window, raw.
type StageOptions struct {
	// MinRowShare keeps only the sample rows at which the stage's own
	// attempts on the host are at least this share of every known attempt
	// running there (the application's other stages, and Options.Others'
	// attempts when given). 0 keeps every row. A host left with no row
	// gets a NaN vector (and Rows 0).
	MinRowShare float64
	// PerAttempt divides the throughput metrics (PerAttemptMetric) at
	// each row by the known attempts running on the host then (at least
	// one), so that a host running more of the stage's tasks does not
	// look different for that alone.
	PerAttempt bool
	// DropSynonyms leaves out HybridTune's metrics that copy Ganesha's
	// (disk_read_bw, disk_write_bw, net_send_bw, net_recv_bw,
	// ioWaitRatio: Frames fills each from the other), so that disk and
	// network do not weigh twice in a cosine similarity.
	DropSynonyms bool
	// ScaleQuantile (0: none) sets StageView.Scale: each metric's
	// ScaleQuantile-quantile over every matched host's samples in the
	// application's run.
	ScaleQuantile float64
	// DropSends leaves out the network send metrics (net_tx_bytes_per_s,
	// net_send_bw; NaN on every host) of a stage that reads shuffle data
	// (some host holds its parents' shuffle output, HostWork.ServedBytes):
	// what a host sends then is the other hosts' fetches from it, so it
	// follows where the parents' tasks ran and when the fetchers ran, not
	// how the host itself did. The receive side and the tasks' own fetch
	// rates stay.
	DropSends bool
}

// HostWork is what ran on one host during a stage's window there, counted
// at its sample rows (attempts running × the sampling interval, by the
// membership rule of the stage's window).
type HostWork struct {
	// OwnMs is the stage's own attempt-time, AppMs the application's other
	// stages', ForeignMs other applications' (Options.Others).
	OwnMs     float64 `json:"ownMs"`
	AppMs     float64 `json:"appMs"`
	ForeignMs float64 `json:"foreignMs"`
	// Share is OwnMs over the three together (0 when nothing ran).
	Share float64 `json:"share"`
	// Rows is how many sample rows the vector averages; AllRows how many
	// the window holds.
	Rows    int `json:"rows"`
	AllRows int `json:"allRows"`
	// Tasks counts the stage's attempts on the host. FetchBytes and
	// FetchMs are their remote shuffle bytes and the time they waited on
	// them (Spark shuffleRemoteBytesRead and shuffleFetchWaitTime; a
	// MapReduce reduce's remote shuffle bytes and its shuffle phase,
	// launch to shuffleFinishTime); WriteBytes and WriteMs their shuffle
	// output and the time writing it (Spark shuffleBytesWritten and
	// shuffleWriteTime; MapReduce has no such time). Their ratios are
	// the throughputs the host gave the stage's own tasks, comparable
	// across the hosts whatever else ran there.
	Tasks      int     `json:"tasks"`
	FetchBytes float64 `json:"fetchBytes"`
	FetchMs    float64 `json:"fetchMs"`
	WriteBytes float64 `json:"writeBytes"`
	WriteMs    float64 `json:"writeMs"`
	// ServedBytes is the shuffle output the stage's parent stages left on
	// the host (Spark: ParentIDs' shuffleBytesWritten; a MapReduce reduce:
	// the map stages' map output bytes): what the host serves to the
	// stage's fetches.
	ServedBytes float64 `json:"servedBytes"`
}

// StageView is a StageMatrix built under StageOptions, with what ran on
// each host beside the stage. Work is indexed like Hosts.
type StageView struct {
	StageMatrix
	Work []HostWork `json:"work"`
	// Scale is each metric's reference magnitude over the run
	// (StageOptions.ScaleQuantile; nil without), shared by every view.
	Scale []float64 `json:"scale,omitempty"`
}

// synonyms are the canonical metrics Frames derives from others.
var synonyms = [...]string{"disk_read_bw", "disk_write_bw", "net_send_bw", "net_recv_bw", "ioWaitRatio"}

// perAttempt marks the canonical metrics StageOptions.PerAttempt divides:
// the throughputs (disk and network bytes, paging), which grow with the
// attempts a host runs whatever its hardware. CPU shares are left alone:
// a core of a 16-core node is a smaller share than one of an 8-core node,
// so CPU per attempt would tell the generations apart instead.
var perAttempt = func() (m [NumMetrics]bool) {
	for _, name := range []string{"net_rx_bytes_per_s", "net_tx_bytes_per_s", "pages_in_kb_per_s", "pages_out_kb_per_s",
		"disk_read_bytes_per_s", "disk_write_bytes_per_s", "disk_read_bw", "disk_write_bw", "net_send_bw", "net_recv_bw"} {
		m[model.NodeMetricIndex(name)] = true
	}
	return m
}()

// PerAttemptMetric reports whether StageOptions.PerAttempt divides the
// named canonical metric by the attempts running.
func PerAttemptMetric(name string) bool {
	m := model.NodeMetricIndex(name)
	return m >= 0 && perAttempt[m]
}

// StageViews returns every stage attempt's view under o, indexed like
// App.Stages: per host that ran the stage (sorted by name, as in
// StageMatrices), the mean of each metric over the kept rows of the
// stage's window there, and the work beside it. With the zero options the
// matrices equal StageMatrices'. Each host costs O(rows × metrics) for
// every stage window's rows, plus a difference array over its attempts.
func (c *Correlation) StageViews(o StageOptions) []StageView {
	cols := c.metricColumns()
	if o.DropSynonyms {
		cols = slices.DeleteFunc(cols, func(m int) bool { return slices.Contains(synonyms[:], model.NodeMetricNames[m]) })
	}
	names := make([]string, len(cols))
	for j, m := range cols {
		names[j] = model.NodeMetricNames[m]
	}
	var scale []float64
	if o.ScaleQuantile > 0 {
		scale = c.metricQuantiles(cols, o.ScaleQuantile)
	}
	out := make([]StageView, len(c.app.Stages))
	for si := range out {
		out[si] = StageView{StageMatrix: StageMatrix{Stage: c.app.Stages[si].Key(),
			Matrix: Matrix{Metrics: names, Hosts: []string{}, X: []Vector{}, Samples: []int{}}}, Work: []HostWork{}, Scale: scale}
	}
	for k := range c.hosts {
		c.hostViews(k, cols, o, out)
	}
	for si := range out {
		sortView(&out[si])
	}
	c.servedBytes(out)
	if o.DropSends {
		for si := range out {
			dropSends(&out[si])
		}
	}
	return out
}

// servedBytes sets each view's hosts' ServedBytes from the stage's parents'
// shuffle output per host.
func (c *Correlation) servedBytes(out []StageView) {
	held := map[int32]map[string]float64{} // stage id → host → bytes
	byID := map[int32][]int{}
	for si, st := range c.app.Stages {
		byID[st.ID] = append(byID[st.ID], si)
	}
	var m model.TaskMetrics
	heldBy := func(si int) map[string]float64 {
		st := c.app.Stages[si]
		if h, ok := held[int32(si)]; ok {
			return h
		}
		h := map[string]float64{}
		for ti := range st.Tasks {
			st.TaskMetrics(ti, &m)
			b := m[model.ShuffleWriteBytes]
			if b == 0 {
				b = m[model.MapOutputBytes]
			}
			if b > 0 && int(st.Tasks[ti].Host) < len(c.app.Hosts) {
				h[c.app.Hosts[st.Tasks[ti].Host]] += float64(b)
			}
		}
		held[int32(si)] = h
		return h
	}
	for si, st := range c.app.Stages {
		var parents []int
		for _, id := range st.ParentIDs {
			parents = append(parents, byID[id]...)
		}
		if st.Kind == model.StageReduce {
			for pi, p := range c.app.Stages {
				if p.Kind == model.StageMap {
					parents = append(parents, pi)
				}
			}
		}
		v := &out[si]
		for _, pi := range parents {
			h := heldBy(pi)
			for i, host := range v.Hosts {
				v.Work[i].ServedBytes += h[host]
			}
		}
	}
}

// dropSends sets the network send metrics of a view to NaN when some
// host served it shuffle data (StageOptions.DropSends).
func dropSends(v *StageView) {
	if !slices.ContainsFunc(v.Work, func(w HostWork) bool { return w.ServedBytes > 0 }) {
		return
	}
	for _, name := range []string{"net_tx_bytes_per_s", "net_send_bw"} {
		if j := v.Column(name); j >= 0 {
			for i := range v.X {
				v.X[i][j] = math.NaN()
			}
		}
	}
}

// hostViews adds host k's row to every view of a stage that ran there.
func (c *Correlation) hostViews(k int, cols []int, o StageOptions, out []StageView) {
	h := &c.hosts[k]
	rows := len(h.times)
	if rows == 0 || len(h.stages) == 0 {
		return
	}
	// Attempts running at each row: the application's and others'.
	appRun, forRun := make([]int32, rows+1), make([]int32, rows+1)
	byStage := map[int32][][2]int{}
	for _, w := range h.tasks {
		lo, hi := rowRange(h.times, h.iv, c.skew, w)
		if hi <= lo {
			continue
		}
		appRun[lo]++
		appRun[hi]--
		si := c.taskRef[w.id][0]
		byStage[si] = append(byStage[si], [2]int{lo, hi})
	}
	for _, w := range h.foreign {
		lo, hi := rowRange(h.times, h.iv, c.skew, w)
		if hi > lo {
			forRun[lo]++
			forRun[hi]--
		}
	}
	for i := 1; i <= rows; i++ {
		appRun[i] += appRun[i-1]
		forRun[i] += forRun[i-1]
	}
	sums := c.taskSums(h)
	iv := float64(h.iv)
	var own []int32
	for _, w := range h.stages {
		lo, hi := rowRange(h.times, h.iv, c.skew, w)
		if hi <= lo {
			continue
		}
		own = slices.Grow(own[:0], hi-lo+1)[:hi-lo+1]
		clear(own)
		for _, r := range byStage[w.id] {
			own[max(r[0], lo)-lo]++
			own[min(r[1], hi)-lo]--
		}
		sum := make([]float64, len(cols))
		cnt := make([]int, len(cols))
		wk := sums[w.id]
		var running int32
		for i := lo; i < hi; i++ {
			running += own[i-lo]
			a, f := appRun[i], forRun[i]
			wk.OwnMs += float64(running) * iv
			wk.AppMs += float64(a-running) * iv
			wk.ForeignMs += float64(f) * iv
			all := float64(a + f)
			if o.MinRowShare > 0 && (all == 0 || float64(running) < o.MinRowShare*all) {
				continue
			}
			wk.Rows++
			r := h.frame.Row(i)
			for j, m := range cols {
				v := float64(r[m])
				if math.IsNaN(v) {
					continue
				}
				if o.PerAttempt && perAttempt[m] {
					v /= max(all, 1)
				}
				sum[j] += v
				cnt[j]++
			}
		}
		wk.AllRows = hi - lo
		if t := wk.OwnMs + wk.AppMs + wk.ForeignMs; t > 0 {
			wk.Share = wk.OwnMs / t
		}
		x := make(Vector, len(cols))
		for j := range x {
			x[j] = math.NaN()
			if cnt[j] > 0 {
				x[j] = sum[j] / float64(cnt[j])
			}
		}
		v := &out[w.id]
		v.Hosts = append(v.Hosts, h.match.Host)
		v.X = append(v.X, x)
		v.Samples = append(v.Samples, wk.Rows)
		v.Work = append(v.Work, wk)
	}
}

// taskSums adds up, per stage, host h's attempts' shuffle fetch and
// write bytes and times (HostWork's task fields).
func (c *Correlation) taskSums(h *hostIndex) map[int32]HostWork {
	out := map[int32]HostWork{}
	var m model.TaskMetrics
	for _, w := range h.tasks {
		ref := c.taskRef[w.id]
		st := c.app.Stages[ref[0]]
		t := &st.Tasks[ref[1]]
		st.TaskMetrics(int(ref[1]), &m)
		wk := out[ref[0]]
		wk.Tasks++
		wk.FetchBytes += float64(m[model.ShuffleRemoteBytesRead])
		if c.app.Engine == model.MapReduce {
			if f := m[model.ShufflePhaseFinish]; f > t.Launch {
				wk.FetchMs += float64(f - t.Launch)
			}
		} else {
			wk.FetchMs += float64(m[model.ShuffleFetchWaitTime])
			wk.WriteBytes += float64(m[model.ShuffleWriteBytes])
			wk.WriteMs += float64(m[model.ShuffleWriteNanos]) / 1e6
		}
		out[ref[0]] = wk
	}
	return out
}

// sortView orders a view's rows by host, keeping Work aligned.
func sortView(v *StageView) {
	work := map[string]HostWork{}
	for i, h := range v.Hosts {
		work[h] = v.Work[i]
	}
	sortRows(&v.Matrix)
	for i, h := range v.Hosts {
		v.Work[i] = work[h]
	}
}

// metricQuantiles returns the q-quantile of each column in cols over
// every matched host's sample rows within the application's run (all
// rows when the run's bounds are unknown), NaN skipped; 0 for a column
// with no value.
func (c *Correlation) metricQuantiles(cols []int, q float64) []float64 {
	total := 0
	for k := range c.hosts {
		total += len(c.hosts[k].times)
	}
	vals := make([][]float64, len(cols))
	for j := range vals {
		vals[j] = make([]float64, 0, total)
	}
	for k := range c.hosts {
		h := &c.hosts[k]
		lo, hi := 0, len(h.times)
		if c.app.Start > 0 && c.app.End > 0 {
			lo, _ = slices.BinarySearch(h.times, c.app.Start-c.skew+1)
			hi, _ = slices.BinarySearch(h.times, c.app.End+h.iv+c.skew)
		}
		for i := lo; i < hi; i++ {
			r := h.frame.Row(i)
			for j, m := range cols {
				if v := r[m]; !isNaN(v) {
					vals[j] = append(vals[j], math.Abs(float64(v)))
				}
			}
		}
	}
	out := make([]float64, len(cols))
	for j, v := range vals {
		if len(v) == 0 {
			continue
		}
		out[j] = stats.Select(v, min(len(v)-1, int(q*float64(len(v)-1)+0.5)))
	}
	return out
}

// DefaultStageOptions are the StageOptions measured best for comparing a
// stage's hosts by cosine similarity (docs/ANOMALY.md, per-stage
// evaluation): synonyms dropped, throughputs per running attempt, each
// metric's 0.99-quantile over the run as its scale, and network sends left
// out of stages that read shuffle data. Selecting rows by the stage's share
// was measured worse on the simulator.
func DefaultStageOptions() StageOptions {
	return StageOptions{DropSynonyms: true, PerAttempt: true, ScaleQuantile: 0.99, DropSends: true}
}
