package correlate

import (
	"cmp"
	"math"
	"slices"

	"github.com/clusterlens/clusterlens/internal/model"
)

// NumMetrics is the number of canonical node metrics a frame row holds.
const NumMetrics = len(model.NodeMetricNames)

// DefaultIntervalMs is the sampling interval assumed for a host with fewer
// than two sample instants.
const DefaultIntervalMs = 1000

// Frame is one host's node samples: one row per sample instant, in time
// order, each row the canonical metrics (model.NodeMetricNames) with NaN
// where the source gave none.
type Frame struct {
	Host string
	// Times are the rows' timestamps (Unix ms, the end of each interval).
	Times []int64
	// Values holds row i's metrics at [i*NumMetrics, (i+1)*NumMetrics).
	Values []float32
	// IntervalMs is the sampling interval: the median spacing of the rows.
	IntervalMs int64
	sorted     bool
	index      map[int64]int32 // time → row while rows are unsorted
}

// Row returns row i's metrics.
func (f *Frame) Row(i int) []float32 { return f.Values[i*NumMetrics : (i+1)*NumMetrics] }

// Value returns metric m (an index into model.NodeMetricNames) at row i.
func (f *Frame) Value(i, m int) float32 { return f.Values[i*NumMetrics+m] }

// Frames collects node samples by host. Add samples in any order, then
// call Finish once before use.
type Frames struct {
	byHost  map[string]*Frame
	hosts   []*Frame
	threads []model.Sample // JVM thread samples, for the dataflow reconstruction
	ignored int64
	spans   [][2]int64 // sorted, disjoint; nil keeps all
}

// NewFrames returns an empty collection keeping samples stamped within
// [from, to] (Unix ms; 0, 0 keeps all).
func NewFrames(from, to int64) *Frames {
	if from == 0 && to == 0 {
		return NewFramesWithin(nil)
	}
	return NewFramesWithin([][2]int64{{from, to}})
}

// NewFramesWithin returns an empty collection keeping samples stamped
// within any of spans ([from, to], Unix ms; nil keeps all): the
// applications' runs, so that analyzing a few jobs of a long history keeps
// only their hours of samples.
func NewFramesWithin(spans [][2]int64) *Frames {
	fs := &Frames{byHost: map[string]*Frame{}}
	if spans == nil {
		return fs
	}
	sorted := slices.Clone(spans)
	slices.SortFunc(sorted, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
	fs.spans = [][2]int64{}
	for _, sp := range sorted {
		if n := len(fs.spans); n > 0 && sp[0] <= fs.spans[n-1][1] {
			fs.spans[n-1][1] = max(fs.spans[n-1][1], sp[1])
			continue
		}
		fs.spans = append(fs.spans, sp)
	}
	return fs
}

// keep says whether a sample stamped t falls in the spans.
func (fs *Frames) keep(t int64) bool {
	if fs.spans == nil {
		return true
	}
	i, _ := slices.BinarySearchFunc(fs.spans, t, func(sp [2]int64, t int64) int {
		if sp[1] < t {
			return -1
		}
		return 0
	})
	return i < len(fs.spans) && fs.spans[i][0] <= t
}

// Add keeps a sample when it is a canonical node metric about the whole
// node (Target "") with a finite value, or a JVM thread sample (Threads);
// other samples (devices, log lines, NaN) are counted in Ignored.
func (fs *Frames) Add(s *model.Sample) {
	if s.Type == model.ThreadSampleType && s.Host != "" && fs.keep(s.Time) {
		fs.threads = append(fs.threads, *s)
		return
	}
	m := model.NodeMetricIndex(s.Type)
	if m < 0 || s.Target != "" || s.Host == "" || !fs.keep(s.Time) || math.IsNaN(s.Value) || math.IsInf(s.Value, 0) {
		fs.ignored++
		return
	}
	f := fs.byHost[s.Host]
	if f == nil {
		f = &Frame{Host: s.Host, sorted: true}
		fs.byHost[s.Host] = f
		fs.hosts = append(fs.hosts, f)
	}
	f.Values[f.rowAt(s.Time)*NumMetrics+m] = float32(s.Value)
}

// rowAt returns the row of time t, appending one when there is none. Rows
// arriving in time order (one source's interval after another) append;
// a source that sends one metric's whole series after another (a store
// queried by host, type and time) finds its rows by binary search while
// the rows are sorted, and by a map once they are not.
func (f *Frame) rowAt(t int64) int {
	n := len(f.Times)
	switch {
	case n > 0 && f.Times[n-1] == t:
		return n - 1
	case n == 0 || t > f.Times[n-1]:
	case f.sorted:
		if i, ok := slices.BinarySearch(f.Times, t); ok {
			return i
		}
		f.sorted = false
		f.index = make(map[int64]int32, n+1)
		for i, ti := range f.Times {
			f.index[ti] = int32(i)
		}
	default:
		if i, ok := f.index[t]; ok {
			return int(i)
		}
	}
	if f.index != nil {
		f.index[t] = int32(n)
	}
	f.Times = append(f.Times, t)
	f.Values = append(f.Values, nanRow[:]...)
	return n
}

var nanRow = func() (r [NumMetrics]float32) {
	for i := range r {
		r[i] = float32(math.NaN())
	}
	return r
}()

// Threads returns the JVM thread samples Add kept (model.ThreadSampleType),
// in the order added: the dataflow reconstruction's input (HiTune §4.1).
func (fs *Frames) Threads() []model.Sample { return fs.threads }

// Ignored counts the samples Add did not keep.
func (fs *Frames) Ignored() int64 { return fs.ignored }

// Hosts returns the frames in the order their hosts were first seen.
func (fs *Frames) Hosts() []*Frame { return fs.hosts }

// Host returns the frame of a sample host, or nil.
func (fs *Frames) Host(name string) *Frame { return fs.byHost[name] }

// Rows counts the sample instants over all hosts.
func (fs *Frames) Rows() int {
	n := 0
	for _, f := range fs.hosts {
		n += len(f.Times)
	}
	return n
}

// Finish sorts each host's rows by time, merges rows of one instant,
// derives the metrics one name of a pair was given for (cpu_usage from
// user + system, HybridTune's bandwidth names from Ganesha's byte rates and
// back, ioWaitRatio from cpu_iowait_pct and back) and infers each host's
// sampling interval.
func (fs *Frames) Finish() {
	for _, f := range fs.hosts {
		if !f.sorted {
			f.sortRows()
		}
		for i := range f.Times {
			derive(f.Row(i))
		}
		f.IntervalMs = medianStep(f.Times)
	}
	slices.SortStableFunc(fs.hosts, func(a, b *Frame) int { return cmp.Compare(a.Host, b.Host) })
}

// sortRows orders rows by time and merges rows with the same time (later
// values win).
func (f *Frame) sortRows() {
	idx := make([]int, len(f.Times))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(f.Times[a], f.Times[b]) })
	times := make([]int64, 0, len(f.Times))
	vals := make([]float32, 0, len(f.Values))
	for _, i := range idx {
		row := f.Values[i*NumMetrics : (i+1)*NumMetrics]
		if n := len(times); n > 0 && times[n-1] == f.Times[i] {
			last := vals[(n-1)*NumMetrics:]
			for m, v := range row {
				if !isNaN(v) {
					last[m] = v
				}
			}
			continue
		}
		times = append(times, f.Times[i])
		vals = append(vals, row...)
	}
	f.Times, f.Values, f.sorted, f.index = times, vals, true, nil
}

func isNaN(v float32) bool { return v != v }

// Canonical metric positions the correlation reads.
var (
	mCPUUser   = model.NodeMetricIndex("cpu_user_pct")
	mCPUSys    = model.NodeMetricIndex("cpu_system_pct")
	mIowait    = model.NodeMetricIndex("cpu_iowait_pct")
	mNetRx     = model.NodeMetricIndex("net_rx_bytes_per_s")
	mNetTx     = model.NodeMetricIndex("net_tx_bytes_per_s")
	mDiskRead  = model.NodeMetricIndex("disk_read_bytes_per_s")
	mDiskWrite = model.NodeMetricIndex("disk_write_bytes_per_s")
	mCPUUsage  = model.NodeMetricIndex("cpu_usage")
	mIOWaitR   = model.NodeMetricIndex("ioWaitRatio")
	mReadBW    = model.NodeMetricIndex("disk_read_bw")
	mWriteBW   = model.NodeMetricIndex("disk_write_bw")
	mSendBW    = model.NodeMetricIndex("net_send_bw")
	mRecvBW    = model.NodeMetricIndex("net_recv_bw")
)

// derive fills the second name of each synonym pair from the first.
func derive(r []float32) {
	if isNaN(r[mCPUUsage]) && !isNaN(r[mCPUUser]) {
		r[mCPUUsage] = r[mCPUUser]
		if !isNaN(r[mCPUSys]) {
			r[mCPUUsage] += r[mCPUSys]
		}
	}
	for _, p := range [...][2]int{{mIowait, mIOWaitR}, {mDiskRead, mReadBW}, {mDiskWrite, mWriteBW}, {mNetTx, mSendBW}, {mNetRx, mRecvBW}} {
		if isNaN(r[p[1]]) {
			r[p[1]] = r[p[0]]
		} else if isNaN(r[p[0]]) {
			r[p[0]] = r[p[1]]
		}
	}
}

// medianStep is the median spacing of sorted times, DefaultIntervalMs when
// there are fewer than two.
func medianStep(ts []int64) int64 {
	if len(ts) < 2 {
		return DefaultIntervalMs
	}
	d := make([]int64, 0, min(len(ts)-1, 4096))
	step := max((len(ts)-1)/4096, 1)
	for i := 1; i < len(ts); i += step {
		d = append(d, ts[i]-ts[i-1])
	}
	slices.Sort(d)
	return max(d[len(d)/2], 1)
}

// diskBps and netBps are a row's disk and network throughput (read + write,
// received + sent), NaN when the source gave neither direction.
func diskBps(r []float32) float64 { return sum2(r[mReadBW], r[mWriteBW]) }
func netBps(r []float32) float64  { return sum2(r[mRecvBW], r[mSendBW]) }

func sum2(a, b float32) float64 {
	switch {
	case isNaN(a) && isNaN(b):
		return math.NaN()
	case isNaN(a):
		return float64(b)
	case isNaN(b):
		return float64(a)
	}
	return float64(a) + float64(b)
}
