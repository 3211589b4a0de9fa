package diagnose

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/clusterlens/clusterlens/internal/dataflow"
	"github.com/clusterlens/clusterlens/internal/model"
)

// ShuffleGapParams tune the shuffle-gap detector (HiTune, Dai et al.,
// USENIX ATC'11, §7.2).
type ShuffleGapParams struct {
	// Share grades the gap as a share of the job's wall time. HiTune shows
	// the gap on its timeline and breakdown without grading it; the limits
	// are clusterlens's.
	Share Limits
	// MinGapMs is the least gap worth a finding (clusterlens's gate).
	MinGapMs int64
}

// DefaultShuffleGapParams are the defaults.
var DefaultShuffleGapParams = ShuffleGapParams{Share: Limits{0.05, 0.1, 0.2, 0.4}, MinGapMs: 5_000}

func init() {
	mustRegister(Func[ShuffleGapParams]{
		ID:       "shuffle-gap",
		Heading:  "Shuffle gap after the map stage",
		Cite:     "HiTune (Dai et al., USENIX ATC'11), §7.2 (the gap between the end of the map stage and the end of the shuffle, with its dataflow breakdown)",
		Defaults: DefaultShuffleGapParams,
		Fn:       shuffleGap,
	})
}

// shuffleGap measures HiTune §7.2's shuffle gap. MapReduce, as in the
// paper: the time from the last map's end to the end of the shuffle of the
// first wave of reduces (those launched before the last map ended, or
// with the first reduce when none was: later waves shuffle late because
// they waited for a slot, which the paper does not count; clusterlens's
// reading), as a share of the job (a shuffle ending after the job did, as
// in folded Rumen traces, is inconsistent and skipped), with the reduce stage's HiTune breakdown
// (slot time waiting for maps, copying after them, merge/sort and reduce).
// Spark has no map/reduce overlap (a stage reads its parents' shuffle
// output after they end), so the gap of a shuffle-reading stage is its
// tasks' shuffle-wait (fetch wait) slot time divided by the task slots the
// stage occupied: the wall time the stage spent blocked on shuffle data,
// as a share of its job; this reading is clusterlens's.
func shuffleGap(in *Input, p ShuffleGapParams) []Finding {
	a, err := in.hiTune()
	if err != nil {
		return nil
	}
	if in.App.Engine == model.MapReduce {
		if f, ok := mapReduceShuffleGap(in, a, p); ok {
			return []Finding{f}
		}
		return nil
	}
	return sparkShuffleGaps(in, a, p)
}

// stageBreakdown finds the breakdown of a stage attempt.
func stageBreakdown(b *dataflow.Breakdown, st *model.Stage) *dataflow.StageBreakdown {
	for i := range b.Stages {
		s := &b.Stages[i]
		if s.ID == st.ID && s.Attempt == st.Attempt && s.Kind == st.Kind.String() {
			return s
		}
	}
	return nil
}

// phaseTime sums a stage's task time in the activities of phase ph.
func phaseTime(b *dataflow.Breakdown, s *dataflow.StageBreakdown, ph dataflow.Phase) int64 {
	var t int64
	for i, act := range b.Activities {
		if act.Phase == ph && i < len(s.Activity) {
			t += s.Activity[i]
		}
	}
	return t
}

func mapReduceShuffleGap(in *Input, a *dataflow.Analysis, p ShuffleGapParams) (Finding, bool) {
	app := in.App
	jobMs := app.Duration()
	if jobMs <= 0 {
		return Finding{}, false
	}
	var lastMap, firstReduce int64 = 0, math.MaxInt64
	var reduce *model.Stage
	var reduces [][2]int64 // launch, shuffle end
	var shuffled int64     // bytes the reduces fetched, all told
	var most int64         // the most one reduce fetched
	var m model.TaskMetrics
	for _, st := range app.Stages {
		for i, t := range st.Tasks {
			if t.Status != model.TaskSuccess {
				continue
			}
			switch st.Kind {
			case model.StageMap:
				lastMap = max(lastMap, t.Finish)
			case model.StageReduce:
				reduce = st
				st.TaskMetrics(i, &m)
				shuffled += max(0, m[model.ReduceShuffleBytes])
				most = max(most, m[model.ReduceShuffleBytes])
				if m[model.ShufflePhaseFinish] > 0 {
					reduces = append(reduces, [2]int64{t.Launch, m[model.ShufflePhaseFinish]})
					firstReduce = min(firstReduce, t.Launch)
				}
			}
		}
	}
	// The first wave: reduces launched before the maps ended (or, when
	// none was, with the earliest one). Later waves shuffle late because
	// they waited for a slot, which is not the shuffle's gap.
	var shuffleEnd int64
	wave := 0
	for _, r := range reduces {
		if r[0] <= max(lastMap, firstReduce) {
			shuffleEnd = max(shuffleEnd, r[1])
			wave++
		}
	}
	if reduce == nil || lastMap <= 0 || shuffleEnd <= lastMap || app.End > 0 && shuffleEnd > app.End {
		return Finding{}, false
	}
	gap := shuffleEnd - lastMap
	share := float64(gap) / float64(jobMs)
	sev := p.Share.Ascending(share)
	if sev == None || gap < p.MinGapMs {
		return Finding{}, false
	}
	ev := []Evidence{
		graded("gapShare", share, "share", p.Share),
		gate("gapMs", float64(gap), "ms", ">=", float64(p.MinGapMs)),
		fact("jobMs", float64(jobMs), "ms"),
		fact("firstWaveReduces", float64(wave), "count"),
	}
	detail := ""
	if sb := stageBreakdown(a.Breakdown, reduce); sb != nil {
		wait := sb.Cause[dataflow.CauseShuffleWait]
		copying := max(phaseTime(a.Breakdown, sb, dataflow.Shuffle)-wait, 0)
		sortMs, reduceMs := phaseTime(a.Breakdown, sb, dataflow.Sort), phaseTime(a.Breakdown, sb, dataflow.Reduce)
		ev = append(ev,
			fact("shuffleWaitSlotMs", float64(wait), "slot-ms"),
			fact("copyAfterMapsSlotMs", float64(copying), "slot-ms"),
			fact("sortSlotMs", float64(sortMs), "slot-ms"),
			fact("reduceSlotMs", float64(reduceMs), "slot-ms"))
		detail = fmt.Sprintf(" Reduce slot time: %s waiting for maps, %s in the shuffle after them, %s merge/sort, %s reduce.",
			dur(wait), dur(copying), dur(sortMs), dur(reduceMs))
	}
	ev = append(ev, fact("shuffleBytes", float64(shuffled), "bytes"))
	b := &settingsBuilder{in: in}
	// Waiting is not copying: when what any one reduce fetched could have
	// crossed many times over in the gap, the gap is the reduces waiting
	// (to learn that the last map finished, completion events being polled
	// over heartbeats, or for fetches retried), not a slow copy.
	ev = append(ev, fact("mostBytesOneReduce", float64(most), "bytes"))
	if float64(most) < latencyBytesPerMs*float64(gap) {
		rec := "Nothing to tune in the shuffle: the gap is the framework's latency (the task trackers' heartbeats and the reduces' polling for map completion events), which only matters for small jobs: batch them, or run them as one."
		if gap > heartbeatLatencyMs {
			// Far beyond a few heartbeats: the reduces retried fetches.
			rec = fmt.Sprintf("The wait is far beyond a few heartbeats: the reduces retried their fetches (or waited for a map attempt that never served its output). Look at the hosts that served the maps' outputs (%s) and the reduces' logs for fetch failures.", strings.Join(mapHosts(app, 5), ", "))
		} else if in.hadoop2() {
			if b.want("mapreduce.job.ubertask.enable", "true") {
				rec = "Run small jobs like this one inside the MapReduce application master's JVM (uber mode: up to 9 maps, 1 reduce, input under a block): set mapreduce.job.ubertask.enable=true; the gap is the latency of the reduces learning that the maps ended, not a slow copy."
			}
		}
		return Finding{
			Severity: Low,
			Scope:    in.appScope(),
			Summary: fmt.Sprintf("The reduces' shuffle ended %s after the last map (%s of the job's %s), though none fetched more than %s: waiting, not copying (the reduces learning of the maps' completion over heartbeats, or fetches retried).%s",
				dur(gap), pct(share), dur(jobMs), bytesText(float64(most)), detail),
			Evidence:       ev,
			Recommendation: rec,
			Settings:       b.out,
		}, true
	}
	var advice []string
	if b.want("mapreduce.reduce.shuffle.parallelcopies", "20") {
		advice = append(advice, fmt.Sprintf("raise mapreduce.reduce.shuffle.parallelcopies to 20 (now %s)", in.setNow("mapreduce.reduce.shuffle.parallelcopies")))
	}
	if b.want("mapreduce.map.output.compress", "true") {
		advice = append(advice, "compress map output (mapreduce.map.output.compress=true)")
	}
	if wave == 1 {
		advice = append(advice, "run more than one reduce (mapreduce.job.reduces, now "+in.setNow("mapreduce.job.reduces")+") so the copy splits over several")
	}
	if firstReduce > lastMap && b.want("mapreduce.job.reduce.slowstart.completedmaps", "0.5") {
		advice = append(advice, "start the reduces while the maps run, so they copy as maps finish (mapreduce.job.reduce.slowstart.completedmaps=0.5)")
	}
	advice = append(advice, "check the network and the map nodes' disks")
	return Finding{
		Severity: sev,
		Scope:    in.appScope(),
		Summary: fmt.Sprintf("The shuffle ended %s after the last map (%s of the job's %s), fetching %s in all.%s",
			dur(gap), pct(share), dur(jobMs), bytesText(float64(shuffled)), detail),
		Evidence:       ev,
		Recommendation: "Shorten the copy after the maps: " + strings.Join(advice, ", ") + ".",
		Settings:       b.out,
	}, true
}

func sparkShuffleGaps(in *Input, a *dataflow.Analysis, p ShuffleGapParams) []Finding {
	app := in.App
	r := a.Reconstruction
	slots := make([]map[[2]int64]bool, len(app.Stages))
	for _, at := range r.Attempts {
		if slots[at.Stage] == nil {
			slots[at.Stage] = map[[2]int64]bool{}
		}
		slots[at.Stage][[2]int64{int64(at.Executor), int64(at.Slot)}] = true
	}
	jobMs := map[int32]int64{}
	for _, j := range app.Jobs {
		if j.Completed > j.Submitted && j.Submitted > 0 {
			jobMs[j.ID] = j.Completed - j.Submitted
		}
	}
	var out []Finding
	for si, st := range app.Stages {
		sb := stageBreakdown(a.Breakdown, st)
		if sb == nil || len(slots[si]) == 0 {
			continue
		}
		wait := sb.Cause[dataflow.CauseShuffleWait]
		gap := wait / int64(len(slots[si]))
		job, span := int32(-1), app.Duration()
		if len(st.JobIDs) > 0 {
			job = st.JobIDs[0]
			if ms, ok := jobMs[job]; ok {
				span = ms
			}
		}
		if span <= 0 || gap < p.MinGapMs {
			continue
		}
		share := float64(gap) / float64(span)
		sev := p.Share.Ascending(share)
		if sev == None {
			continue
		}
		where := "the application"
		if job >= 0 {
			where = "job " + strconv.Itoa(int(job))
		}
		out = append(out, Finding{
			Severity: sev,
			Scope:    Scope{Kind: ScopeStage, IDs: []string{stageName(st)}},
			Summary: fmt.Sprintf("Stage %s's tasks waited %s for shuffle data over %d slots, %s of wall time per slot: %s of %s's %s.",
				stageName(st), dur(wait), len(slots[si]), dur(gap), pct(share), where, dur(span)),
			Evidence: []Evidence{
				graded("gapShare", share, "share", p.Share),
				gate("gapMs", float64(gap), "ms", ">=", float64(p.MinGapMs)),
				fact("shuffleWaitSlotMs", float64(wait), "slot-ms"),
				fact("taskSlotMs", float64(sb.TaskTime()), "slot-ms"),
				fact("slots", float64(len(slots[si])), "slots"),
				fact("jobMs", float64(span), "ms"),
			},
			Recommendation: fmt.Sprintf("Stage %s waits on shuffle fetches: check the network and the disks of the nodes serving shuffle files, enable the external shuffle service, "+
				"raise spark.reducer.maxSizeInFlight and spark.shuffle.io.numConnectionsPerPeer, compress shuffle output (spark.shuffle.compress), or shrink the shuffle (filter and aggregate before it).", stageName(st)),
		})
	}
	return out
}

// heartbeatLatencyMs is how long reduces can take to learn of a map's end
// over heartbeats and completion-event polls: a few of Hadoop's 3 s
// heartbeats (clusterlens's).
const heartbeatLatencyMs = 30_000

// mapHosts lists the hosts of the job's successful map attempts, at most n.
func mapHosts(app *model.App, n int) []string {
	seen := map[uint32]bool{}
	var out []string
	for _, st := range app.Stages {
		if st.Kind != model.StageMap {
			continue
		}
		for i := range st.Tasks {
			t := &st.Tasks[i]
			if t.Status == model.TaskSuccess && !seen[t.Host] {
				seen[t.Host] = true
				if len(out) < n {
					out = append(out, app.Host(t.Host))
				}
			}
		}
	}
	if len(seen) > n {
		out = append(out, fmt.Sprintf("and %d more", len(seen)-n))
	}
	return out
}
