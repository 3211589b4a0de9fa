package diagnose

import (
	"fmt"
	"math"
	"strconv"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/perfmodel"
)

// PartitionsParams tune the too-few-partitions and spill detectors.
type PartitionsParams struct {
	// MinBytesPerTask is the data per task (input plus shuffle read) from
	// which a stage's partitions are too large; TargetBytes is the size
	// advised per partition. Spark's own defaults read files in 128 MiB
	// splits and advise 64 MiB shuffle partitions to adaptive execution;
	// these are clusterlens's, kept well above them.
	MinBytesPerTask, TargetBytes int64
	// PartitionsPerSlot is the most partitions per task slot advised.
	PartitionsPerSlot int
	// MinSpillBytes is the disk spill from which a stage's spilling is
	// reported.
	MinSpillBytes int64
	// SpillMBps is the disk throughput per task the spill's time is
	// estimated at: each spilled byte written once and read back once.
	// Spark does not time its spills; this is clusterlens's assumption.
	SpillMBps float64
}

// DefaultPartitionsParams are the defaults.
var DefaultPartitionsParams = PartitionsParams{MinBytesPerTask: 1 << 30, TargetBytes: 256 << 20, PartitionsPerSlot: 3, MinSpillBytes: 1 << 30, SpillMBps: 100}

func init() {
	mustRegister(Func[PartitionsParams]{
		ID:       "too-few-partitions",
		Heading:  "Too few partitions for the data",
		Cite:     "clusterlens, docs/FINDINGS.md §Partitions and spills: a stage's data per task against its slots, replayed split into more tasks",
		Defaults: DefaultPartitionsParams,
		Fn:       tooFewPartitions,
	})
	mustRegister(Func[PartitionsParams]{
		ID:       "spill",
		Heading:  "Stage spilling to disk",
		Cite:     "clusterlens, docs/FINDINGS.md §Partitions and spills: Spark's bytes spilled per task, the spill's time estimated at a stated disk throughput",
		Defaults: DefaultPartitionsParams,
		Fn:       spillFindings,
	})
}

// stageData sums a stage id's successful attempts over its attempts: data
// read, bytes spilled to disk and from memory, tasks.
type stageData struct {
	id                     int32
	tasks                  int
	bytes, input, shuffle  int64
	diskSpill, memorySpill int64
	spillByTask            map[int64]int64
	kind                   model.StageKind
}

func stagesData(app *model.App) []*stageData {
	byID := map[int32]*stageData{}
	var out []*stageData
	var m model.TaskMetrics
	for _, st := range app.Stages {
		d := byID[st.ID]
		if d == nil {
			d = &stageData{id: st.ID, kind: st.Kind, spillByTask: map[int64]int64{}}
			byID[st.ID] = d
			out = append(out, d)
		}
		for i := range st.Tasks {
			t := &st.Tasks[i]
			if !recorded(app, st, t) || !t.HasMetrics {
				continue
			}
			st.TaskMetrics(i, &m)
			d.tasks++
			in, sh := m[model.InputBytes], m.ShuffleReadBytes()
			if app.Engine == model.MapReduce {
				in, sh = max(0, m[model.HDFSBytesRead]), max(0, m[model.ReduceShuffleBytes])
			}
			d.input += in
			d.shuffle += sh
			d.bytes += in + sh
			d.diskSpill += m[model.DiskBytesSpilled]
			d.memorySpill += m[model.MemoryBytesSpilled]
			if s := m[model.DiskBytesSpilled]; s > 0 {
				d.spillByTask[t.ID] = s
			}
		}
	}
	return out
}

// tooFewPartitions reports stages whose partitions are too large for the
// data: fewer tasks than a few per slot, each reading a gigabyte or more.
// The impact is the replay with the stage split into more tasks, as many
// as the data asks (TargetBytes each), at most PartitionsPerSlot per slot.
func tooFewPartitions(in *Input, p PartitionsParams) []Finding {
	e, err := in.Efficiency()
	if err != nil {
		return nil
	}
	slots := max(1, e.Cores.Slots)
	var out []Finding
	for _, d := range stagesData(in.App) {
		if d.tasks == 0 || d.kind == model.StageSetup || d.kind == model.StageCleanup {
			continue
		}
		per := d.bytes / int64(d.tasks)
		if per < p.MinBytesPerTask || d.tasks >= p.PartitionsPerSlot*slots {
			continue
		}
		want := min(int(math.Ceil(float64(d.bytes)/float64(p.TargetBytes))), p.PartitionsPerSlot*slots)
		if want < 2*d.tasks {
			continue
		}
		si := in.wlStage(d.id)
		if si < 0 {
			continue
		}
		k := float64(want) / float64(d.tasks)
		// n tasks on S slots take ceil(n/S) waves; split k-fold, ceil(nk/S)
		// waves of tasks k times shorter.
		f := math.Ceil(float64(want)/float64(slots)) / (k * math.Ceil(float64(d.tasks)/float64(slots)))
		im := in.replayedStage(si, perfmodel.Edit{Duration: func(stage, _ int, dd int64) int64 {
			if stage != si {
				return dd
			}
			return int64(math.Ceil(float64(dd) * f))
		}}, fmt.Sprintf("the stage split into %d tasks instead of %d on its %d slots", want, d.tasks, slots), in.limits())
		b := &settingsBuilder{in: in}
		label := "stage " + strconv.Itoa(int(d.id))
		if d.kind != model.StageSpark {
			label = "the " + d.kind.String() + " stage"
		}
		spill := ""
		if d.diskSpill > 0 {
			spill = fmt.Sprintf(", spilling %s to disk", bytesText(float64(d.diskSpill)))
		}
		out = append(out, Finding{
			Severity: Moderate,
			Scope:    Scope{Kind: ScopeStage, IDs: []string{strconv.Itoa(int(d.id))}},
			Summary: fmt.Sprintf("In %s each of %d tasks processed %s on average (%s in all) on %d slots%s: too few partitions for the data.",
				label, d.tasks, bytesText(float64(per)), bytesText(float64(d.bytes)), slots, spill),
			Impact: im,
			Evidence: []Evidence{
				gate("bytesPerTask", float64(per), "bytes", ">=", float64(p.MinBytesPerTask)),
				fact("stage", float64(d.id), "id"),
				fact("tasks", float64(d.tasks), "count"),
				fact("slots", float64(slots), "slots"),
				fact("bytes", float64(d.bytes), "bytes"),
				fact("diskBytesSpilled", float64(d.diskSpill), "bytes"),
				fact("partitionsAdvised", float64(want), "count"),
			},
			Recommendation: partitionAdvice(in, b, d, want),
			Settings:       b.out,
		})
	}
	return out
}

// partitionAdvice asks for want partitions in the setting that makes
// them: the shuffle partitions of a SQL stage reading shuffle data, the
// file split size of one reading files, the reduces of a MapReduce job.
func partitionAdvice(in *Input, b *settingsBuilder, d *stageData, want int) string {
	switch {
	case in.App.Engine == model.MapReduce && d.kind == model.StageReduce:
		b.want("mapreduce.job.reduces", strconv.Itoa(want))
		return fmt.Sprintf("Run %d reduces instead of %d: set mapreduce.job.reduces=%d (now %s).", want, d.tasks, want, in.setNow("mapreduce.job.reduces"))
	case in.App.Engine == model.MapReduce:
		split := max(1, d.input/int64(want))
		b.want("mapreduce.input.fileinputformat.split.maxsize", strconv.FormatInt(split, 10))
		return fmt.Sprintf("Split the input into about %d maps: set mapreduce.input.fileinputformat.split.maxsize=%d.", want, split)
	case len(in.App.SQL) > 0 && d.shuffle >= d.input:
		cur := 200
		if v, ok := in.conf("spark.sql.shuffle.partitions"); ok {
			if n, err := strconv.Atoi(v); err == nil {
				cur = n
			}
		}
		if want <= cur {
			return fmt.Sprintf("Give the shuffle about %d partitions: repartition(%d) before this stage (spark.sql.shuffle.partitions is already %d; adaptive execution may have coalesced them).", want, want, cur)
		}
		b.want("spark.sql.shuffle.partitions", strconv.Itoa(want))
		return fmt.Sprintf("Give the shuffle about %d partitions: set spark.sql.shuffle.partitions=%d (now %s).", want, want, in.setNow("spark.sql.shuffle.partitions"))
	case len(in.App.SQL) > 0:
		split := max(1<<20, d.input/int64(want))
		b.want("spark.sql.files.maxPartitionBytes", strconv.FormatInt(split, 10))
		return fmt.Sprintf("Read the input in about %d partitions: set spark.sql.files.maxPartitionBytes=%d (now %s); a compressed file that cannot be split needs repartition(%d) after reading.", want, split, in.setNow("spark.sql.files.maxPartitionBytes"), want)
	}
	return fmt.Sprintf("Give the stage about %d partitions: repartition(%d) (or pass numPartitions to the shuffle operation; spark.default.parallelism sets the RDD default).", want, want)
}

// spillFindings reports stages that spilled much to disk, with the spill's
// time estimated at SpillMBps per task.
func spillFindings(in *Input, p PartitionsParams) []Finding {
	if !in.spark() {
		return nil
	}
	w, err := in.Workload()
	if err != nil {
		return nil
	}
	var out []Finding
	for _, d := range stagesData(in.App) {
		if d.diskSpill < p.MinSpillBytes {
			continue
		}
		si := in.wlStage(d.id)
		if si < 0 {
			continue
		}
		s := &w.Stages[si]
		bytesPerMs := p.SpillMBps * (1 << 20) / 1000
		im := in.replayedStage(si, perfmodel.Edit{Duration: func(stage, k int, dd int64) int64 {
			if stage != si || k >= len(s.TaskIDs) {
				return dd
			}
			sp := d.spillByTask[s.TaskIDs[k]]
			t := min(dd/2, int64(2*float64(sp)/bytesPerMs))
			return dd - t
		}}, fmt.Sprintf("the time to write the spilled bytes and read them back at %.0f MB/s per task", p.SpillMBps), in.limits())
		if im != nil {
			im.Method = MethodEstimate
		}
		b := &settingsBuilder{in: in}
		mem := executorMemoryMiB(in)
		v := fmt.Sprintf("%dm", mem*3/2)
		rec := "Give each task more memory or less data: more partitions (see too-few-partitions when it is the cause), "
		if in.deployment().onOneMachine() {
			rec += "or a larger driver heap in local mode (spark.driver.memory, the executor's heap there)."
		} else if b.want("spark.executor.memory", v) {
			rec += fmt.Sprintf("or raise spark.executor.memory to %s (now %s), or run fewer cores per executor so each task gets more of it.", v, in.setNow("spark.executor.memory"))
		}
		out = append(out, Finding{
			Severity: Moderate,
			Scope:    Scope{Kind: ScopeStage, IDs: []string{strconv.Itoa(int(d.id))}},
			Summary: fmt.Sprintf("Stage %d spilled %s to disk (%s from memory) over %d tasks: its data did not fit in the tasks' execution memory.",
				d.id, bytesText(float64(d.diskSpill)), bytesText(float64(d.memorySpill)), d.tasks),
			Impact: im,
			Evidence: []Evidence{
				gate("diskBytesSpilled", float64(d.diskSpill), "bytes", ">=", float64(p.MinSpillBytes)),
				fact("memoryBytesSpilled", float64(d.memorySpill), "bytes"),
				fact("stage", float64(d.id), "id"),
				fact("tasks", float64(d.tasks), "count"),
				fact("spillMBpsAssumed", p.SpillMBps, "MB/s"),
			},
			Recommendation: rec,
			Settings:       b.out,
		})
	}
	return out
}
