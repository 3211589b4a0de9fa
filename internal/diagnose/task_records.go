package diagnose

import (
	"slices"
	"strconv"

	"github.com/clusterlens/clusterlens/internal/model"
)

// taskRec is one successful task attempt with the numbers the HybridTune
// and BDTune detectors compare: duration, data size, locality and the
// metrics that explain slow tasks.
type taskRec struct {
	stage, task int // indices into App.Stages and the stage's Tasks
	id          int64
	index       int32
	host        uint32
	launch      int64
	finish      int64
	dur         int64 // ms
	bytes       int64 // input plus shuffle read (MapReduce: HDFS read, reduce shuffle bytes)
	input       int64 // input bytes alone
	loc         model.Locality
	gcMs        int64
	fetchWaitMs int64
	spill       int64 // bytes spilled to disk (MapReduce: records spilled beyond one write of the output)
}

// stageRecords returns the successful, finished attempts of App.Stages[si].
func stageRecords(app *model.App, si int) []taskRec {
	st := app.Stages[si]
	var out []taskRec
	var m model.TaskMetrics
	for i := range st.Tasks {
		t := &st.Tasks[i]
		if t.Status != model.TaskSuccess || t.Launch <= 0 || t.Finish < t.Launch {
			continue
		}
		st.TaskMetrics(i, &m)
		spill := m[model.DiskBytesSpilled]
		if app.Engine == model.MapReduce {
			written := m[model.MapOutputRecords]
			if st.Kind == model.StageReduce {
				written = 0
			}
			spill = max(0, m[model.SpilledRecords]-written)
		}
		out = append(out, taskRec{
			stage: si, task: i, id: t.ID, index: t.Index, host: t.Host,
			launch: t.Launch, finish: t.Finish, dur: t.Finish - t.Launch,
			bytes: m[model.InputBytes] + m.ShuffleReadBytes(), input: m[model.InputBytes], loc: t.Locality,
			gcMs: m[model.JVMGCTime], fetchWaitMs: m[model.ShuffleFetchWaitTime], spill: spill,
		})
	}
	return out
}

// median is the middle value of vs, the mean of the two middle ones for an
// even count, 0 for none; vs is not modified.
func median(vs []float64) float64 {
	n := len(vs)
	if n == 0 {
		return 0
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// medianOf is the median of f over recs.
func medianOf(recs []taskRec, f func(*taskRec) float64) float64 {
	vs := make([]float64, len(recs))
	for i := range recs {
		vs[i] = f(&recs[i])
	}
	return median(vs)
}

// stageName names a stage attempt for scopes and summaries: "3", or "3.1"
// for a retried attempt.
func stageName(st *model.Stage) string {
	if st.Attempt == 0 {
		return strconv.Itoa(int(st.ID))
	}
	return strconv.Itoa(int(st.ID)) + "." + strconv.Itoa(int(st.Attempt))
}

// stageLabel is how summaries name a stage: "stage 3", or "the map stage"
// of a MapReduce job.
func stageLabel(st *model.Stage) string {
	if st.Kind != model.StageSpark {
		return "the " + st.Kind.String() + " stage"
	}
	return "stage " + stageName(st)
}

// taskIDs lists the ids of recs as strings, at most limit of them (all when
// limit <= 0).
func taskIDs(recs []taskRec, limit int) []string {
	out := make([]string, 0, len(recs))
	for _, r := range recs {
		if limit > 0 && len(out) == limit {
			break
		}
		out = append(out, strconv.FormatInt(r.id, 10))
	}
	return out
}

// workStage reports whether a stage holds the application's work: Spark
// stages and MapReduce map and reduce stages, not job setup or cleanup.
func workStage(st *model.Stage) bool {
	return st.Kind == model.StageSpark || st.Kind == model.StageMap || st.Kind == model.StageReduce
}
