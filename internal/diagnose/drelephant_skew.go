package diagnose

import (
	"fmt"

	"github.com/clusterlens/clusterlens/internal/model"
)

// DrElephantSkewParams tune Dr. Elephant's Mapper Skew and Reducer Skew
// heuristics (mapreduce/heuristics/GenericSkewHeuristic.java); the defaults
// are the class's, which app-conf/HeuristicConf.xml repeats.
type DrElephantSkewParams struct {
	// NumTasks grades the number of tasks in the smaller-valued group
	// (num_tasks_severity); the skew severity is lowered to it.
	NumTasks Limits
	// Deviation grades (larger group average − smaller group average) /
	// smaller group average, in whole numbers (deviation_severity); the same
	// limits grade the task-time skew in seconds.
	Deviation Limits
	// Files grades the larger group's average input as fractions of the
	// HDFS block size (files_severity); the data skew is lowered to it.
	Files Limits
	// HDFSBlockSize in bytes; 0 takes the job's dfs.blocksize, else 64 MiB
	// (HDFSContext.HDFS_BLOCK_SIZE, which Dr. Elephant reads from HDFS).
	HDFSBlockSize int64
}

// drDefaultSkewParams are GenericSkewHeuristic's defaults.
var drDefaultSkewParams = DrElephantSkewParams{
	NumTasks:  Limits{10, 50, 100, 200},
	Deviation: Limits{2, 4, 8, 16},
	Files:     Limits{1.0 / 8, 1.0 / 4, 1.0 / 2, 1},
}

// drSkewMeasure is what a skew heuristic groups: mapper input bytes
// (HDFS_BYTES_READ; clusterlens's model has no S3 byte counters) or reducer
// shuffle bytes (REDUCE_SHUFFLE_BYTES).
type drSkewMeasure struct {
	kind  model.StageKind
	bytes func(*mrTask) int64
	what  string
}

// drSkew is GenericSkewHeuristic.apply (app/com/linkedin/drelephant/mapreduce/heuristics/GenericSkewHeuristic.java): tasks are split into two groups by
// their input bytes and, separately, by their run time in seconds
// (Statistics.findTwoGroups); each split is graded by the deviation between
// the groups' averages and lowered to the grade of the smaller group's task
// count, the data split also to the grade of the larger group's average
// against the block size. The severity is the worse of the two.
func drSkew(in *Input, p DrElephantSkewParams, m drSkewMeasure) []Finding {
	app := in.App
	if !mrSucceeded(app) {
		return nil
	}
	tasks := mrTasks(app, m.kind)
	var times, data []int64
	for i := range tasks {
		if tasks[i].hasTime {
			times = append(times, tasks[i].totalMs)
		}
		if tasks[i].hasCounters {
			data = append(data, m.bytes(&tasks[i]))
		}
	}
	tSmall, tLarge := drTwoGroups(times)
	tAvg1, tAvg2 := drAverage(tSmall), drAverage(tLarge)
	tSec1, tSec2 := tAvg1/1000, tAvg2/1000
	tDev := drDeviation(min(tSec1, tSec2), drAbs(tSec1-tSec2))
	sevTime := drMin(p.Deviation.Ascending(float64(tDev)), p.NumTasks.Ascending(float64(len(tSmall))))

	dSmall, dLarge := drTwoGroups(data)
	avg1, avg2 := drAverage(dSmall), drAverage(dLarge)
	dDev := drDeviation(min(avg1, avg2), drAbs(avg2-avg1))
	files := drScaled(p.Files, float64(drBlockSize(app, p.HDFSBlockSize)))
	sevData := drMin(p.Deviation.Ascending(float64(dDev)), files.Ascending(float64(avg2)))
	sevData = drMin(sevData, p.NumTasks.Ascending(float64(len(dSmall))))

	sev := max(sevData, sevTime)
	if sev == None {
		return nil
	}
	word := mrWord(m.kind)
	bySize := fmt.Sprintf("split into %d averaging %s and %d averaging %s of %s (deviation %d, %s)",
		len(dSmall), drBytes(avg1), len(dLarge), drBytes(avg2), m.what, dDev, sevData)
	if avg2 == 0 {
		bySize = fmt.Sprintf("read no %s that the log records", m.what)
	}
	return []Finding{{
		Severity: sev,
		Scope:    mrStageScope(m.kind),
		Summary: fmt.Sprintf("The %d %s tasks %s, and by time split into %d averaging %s and %d averaging %s (deviation %d, %s).",
			len(tasks), word, bySize, len(tSmall), dur(tAvg1), len(tLarge), dur(tAvg2), tDev, sevTime),
		Evidence: []Evidence{
			graded("dataDeviation", float64(dDev), "ratio", p.Deviation),
			graded("dataGroupBAvgBytes", float64(avg2), "bytes", files),
			graded("dataGroupATasks", float64(len(dSmall)), "count", p.NumTasks),
			graded("timeDeviation", float64(tDev), "ratio", p.Deviation),
			graded("timeGroupATasks", float64(len(tSmall)), "count", p.NumTasks),
			fact("dataGroupAAvgBytes", float64(avg1), "bytes"),
			fact("dataGroupBTasks", float64(len(dLarge)), "count"),
			fact("timeGroupAAvgMs", float64(tAvg1), "ms"),
			fact("timeGroupBAvgMs", float64(tAvg2), "ms"),
			fact("timeGroupBTasks", float64(len(tLarge)), "count"),
			fact("tasks", float64(len(tasks)), "count"),
		},
		Recommendation: drSkewAdvice(m.kind),
	}}
}

// drDeviation is GenericSkewHeuristic.getDeviationSeverity's value: the
// difference over the smaller average (at least 1), in whole numbers.
func drDeviation(averageMin, averageDiff int64) int64 {
	if averageMin <= 0 {
		averageMin = 1
	}
	return averageDiff / averageMin
}

func drAbs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// drBytes formats a byte count in binary units.
func drBytes(b int64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%d B", b)
}

// drSkewAdvice is Dr. Elephant's help text for skew (helpMapperSkew,
// helpReducerSkew), in short.
func drSkewAdvice(kind model.StageKind) string {
	if kind == model.StageReduce {
		return "Even out the reducers' input: choose a partitioner (or key) that spreads the hot keys, salt skewed keys, or combine values map-side (a combiner) so fewer records reach the hot reducers."
	}
	return "Even out the mappers' input: combine small files (CombineFileInputFormat, mapreduce.input.fileinputformat.split.minsize) or split large unsplittable files so each mapper reads a similar amount."
}
