package predict

import (
	"strings"

	"github.com/clusterlens/clusterlens/internal/dataflow"
	"github.com/clusterlens/clusterlens/internal/model"
)

// PhaseSource says where a task's phase boundary came from.
type PhaseSource uint8

// Phase sources, best first.
const (
	// SourceHistory: the history's own phase ends (mapFinishTime,
	// sortFinishTime).
	SourceHistory PhaseSource = iota + 1
	// SourceThreads: the agent's JVM thread samples (HiTune's
	// reconstruction, dataflow.ReconstructThreads).
	SourceThreads
	// SourceCounters: no boundary; only the attempt's length and its
	// counters are known.
	SourceCounters
)

func (s PhaseSource) String() string {
	switch s {
	case SourceHistory:
		return "history"
	case SourceThreads:
		return "threads"
	case SourceCounters:
		return "counters"
	}
	return "unknown"
}

// Task is one successful MapReduce task attempt as ICPE'13's models see
// it: the data of its phases, from counters, and its length split at the
// boundary the history (or thread samples) gives.
//
// A map's first part (launch to the map-phase end) is ICPE'13's read, map
// and collect phases (§2: the split is read, the map function run and its
// output serialized and partitioned into the buffer), its second part the
// spill and merge phases. A reduce's first part (launch to the sort end) is
// the shuffle phase with its merge, the second the reduce function and the
// write phase. Hadoop's job history records exactly these boundaries.
type Task struct {
	Reduce bool   `json:"reduce,omitempty"`
	Host   string `json:"host"`
	// Map: In and InRecords are the split's bytes and records read, Out and
	// OutRecords the map output, Merge the spill bytes the merge read back
	// (FILE_BYTES_READ; 0 when one spill sufficed). Reduce: In and
	// InRecords the shuffled bytes and records, Out the bytes written,
	// Merge the bytes merged on disk (FILE_BYTES_READ).
	In, InRecords   int64
	Out, OutRecords int64
	Merge           int64
	Launch, Finish  int64
	// FirstMs is the first part's length; Source where its end came from
	// (SourceCounters: unknown, FirstMs 0).
	FirstMs int64       `json:"firstMs"`
	Source  PhaseSource `json:"source"`
	// Killed marks an attempt killed because another attempt of its task
	// finished first (speculative execution): it has only its host and
	// times, and counts only as a lower bound of its task's length (Spread)
	// and as time its slot was held.
	Killed bool `json:"killed,omitempty"`
}

// TotalMs is the attempt's length.
func (t *Task) TotalMs() int64 { return t.Finish - t.Launch }

// SecondMs is the length after the phase boundary.
func (t *Task) SecondMs() int64 { return t.Finish - t.Launch - t.FirstMs }

// Tasks returns the successful map and reduce attempts of a MapReduce job,
// and its killed ones (Killed). Phase boundaries come from the history;
// where it has none, from threads (per attempt id, the last sampled
// instant of the map thread's map phase or the reduce's shuffle and sort;
// nil: none) and otherwise the task has only its length (SourceCounters).
func Tasks(app *model.App, threads *dataflow.ThreadReconstruction) []Task {
	sampled := threadPhaseEnds(threads)
	job := strings.TrimPrefix(app.ID, "job_")
	var out []Task
	var m model.TaskMetrics
	for _, st := range app.Stages {
		if st.Kind != model.StageMap && st.Kind != model.StageReduce {
			continue
		}
		reduce := st.Kind == model.StageReduce
		for i := range st.Tasks {
			tk := &st.Tasks[i]
			killed := tk.Status == model.TaskKilled
			if tk.Status != model.TaskSuccess && !killed || tk.Finish <= tk.Launch || tk.Launch <= 0 {
				continue
			}
			t := Task{Reduce: reduce, Host: app.Hosts[tk.Host], Launch: tk.Launch, Finish: tk.Finish, Source: SourceCounters, Killed: killed}
			if killed {
				out = append(out, t)
				continue
			}
			st.TaskMetrics(i, &m)
			var end int64
			if reduce {
				t.In, t.InRecords = m[model.ReduceShuffleBytes], m[model.ReduceInputRecords]
				t.Out, t.OutRecords = m[model.HDFSBytesWritten], m[model.ReduceOutputRecords]
				t.Merge = m[model.FileBytesRead]
				end = m[model.SortPhaseFinish]
				if end <= 0 {
					end = m[model.ShufflePhaseFinish]
				}
			} else {
				t.In, t.InRecords = m[model.HDFSBytesRead], m[model.MapInputRecords]
				t.Out, t.OutRecords = m[model.MapOutputBytes], m[model.MapOutputRecords]
				t.Merge = m[model.FileBytesRead]
				end = m[model.MapPhaseFinish]
			}
			if end > t.Launch && end <= t.Finish {
				t.FirstMs, t.Source = end-t.Launch, SourceHistory
			} else if e, ok := sampled[dataflow.MapReduceAttemptID(job, reduce, tk)]; ok && e > t.Launch {
				t.FirstMs, t.Source = min(e, t.Finish)-t.Launch, SourceThreads
			}
			out = append(out, t)
		}
	}
	return out
}

// threadPhaseEnds is, per MapReduce attempt id, the end of the last
// main-thread instance of its first part's phases (map; shuffle or sort).
func threadPhaseEnds(tr *dataflow.ThreadReconstruction) map[string]int64 {
	ends := map[string]int64{}
	if tr == nil {
		return ends
	}
	for _, in := range tr.Instances {
		if !in.Main {
			continue
		}
		switch {
		case in.Pool == dataflow.PoolMap && in.Phase == dataflow.Map,
			in.Pool == dataflow.PoolReduce && (in.Phase == dataflow.Shuffle || in.Phase == dataflow.Sort):
			ends[in.Attempt] = max(ends[in.Attempt], in.End)
		}
	}
	return ends
}
