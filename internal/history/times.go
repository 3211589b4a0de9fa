package history

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/query"
)

// What a run's time is explained by (schema version 3): how each stage
// used its slots, the driver's own time, the configuration and the SQL
// plans. Package explain reads them.

// slotLine is the executor cores alive over time: a step function.
type slotLine struct {
	at    []int64 // change times, ascending
	cores []int   // cores alive from at[i] on
	// fixed, when positive, replaces the line: logs without executor
	// cores (MapReduce) count the most attempts seen running at once.
	fixed int
}

// slotsOf builds the application's slot line: Spark executors' cores from
// their add to their removal (the driver's only in local mode), else the
// most attempts of the application running at once.
func slotsOf(app *model.App) *slotLine {
	type ev struct {
		t int64
		d int
	}
	var evs []ev
	for _, e := range app.Executors {
		if e.Cores <= 0 || e.ID == "driver" && len(app.Executors) > 1 {
			continue
		}
		evs = append(evs, ev{e.Added, int(e.Cores)})
		if e.Removed > 0 {
			evs = append(evs, ev{e.Removed, -int(e.Cores)})
		}
	}
	if len(evs) == 0 {
		for _, st := range app.Stages {
			for i := range st.Tasks {
				t := &st.Tasks[i]
				if t.Finish > t.Launch {
					evs = append(evs, ev{t.Launch, 1}, ev{t.Finish, -1})
				}
			}
		}
		slices.SortFunc(evs, func(a, b ev) int { return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(a.d, b.d)) })
		cur, peak := 0, 0
		for _, e := range evs {
			cur += e.d
			peak = max(peak, cur)
		}
		return &slotLine{fixed: max(peak, 1)}
	}
	slices.SortFunc(evs, func(a, b ev) int { return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(a.d, b.d)) })
	l := &slotLine{}
	cur := 0
	for _, e := range evs {
		cur += e.d
		if n := len(l.at); n > 0 && l.at[n-1] == e.t {
			l.cores[n-1] = cur
			continue
		}
		l.at = append(l.at, e.t)
		l.cores = append(l.cores, cur)
	}
	return l
}

// at returns the cores alive at time t.
func (l *slotLine) coresAt(t int64) int {
	if l.fixed > 0 {
		return l.fixed
	}
	i, found := slices.BinarySearch(l.at, t)
	if !found {
		i--
	}
	if i < 0 {
		return 0
	}
	return l.cores[i]
}

// area is ∫ cores dt over [a, b).
func (l *slotLine) area(a, b int64) int64 {
	if b <= a {
		return 0
	}
	if l.fixed > 0 {
		return int64(l.fixed) * (b - a)
	}
	var sum int64
	t, c := a, l.coresAt(a)
	i, _ := slices.BinarySearch(l.at, a+1)
	for ; i < len(l.at) && l.at[i] < b; i++ {
		sum += int64(c) * (l.at[i] - t)
		t, c = l.at[i], l.cores[i]
	}
	return sum + int64(c)*(b-t)
}

// zeroTime is how long, within [a, b), no core was alive (0 for a fixed
// line).
func (l *slotLine) zeroTime(a, b int64) int64 {
	if b <= a || l.fixed > 0 {
		return 0
	}
	var sum int64
	t, c := a, l.coresAt(a)
	i, _ := slices.BinarySearch(l.at, a+1)
	for ; ; i++ {
		end := b
		if i < len(l.at) && l.at[i] < b {
			end = l.at[i]
		}
		if c == 0 {
			sum += end - t
		}
		if end == b {
			return sum
		}
		t, c = end, l.cores[i]
	}
}

// taskBytes is what an attempt read and wrote: HostStage.Bytes' measure.
func taskBytes(m *model.TaskMetrics) int64 {
	return m[model.InputBytes] + m.ShuffleReadBytes() + m[model.OutputBytes] + m[model.ShuffleWriteBytes] +
		m[model.HDFSBytesRead] + m[model.HDFSBytesWritten]
}

// stageTimes measures how stage ms used the application's slots (idle
// its idle cores).
func stageTimes(app *model.App, ms *model.Stage, slots *slotLine, idle *idleLine) StageTimes {
	st := StageTimes{SubmitMs: ms.Submitted, CompleteMs: ms.Completed}
	var m model.TaskMetrics
	var bytes []int64
	firstLaunch := map[int32]int64{}
	last := -1
	for i := range ms.Tasks {
		t := &ms.Tasks[i]
		if l, ok := firstLaunch[t.Index]; !ok || t.Launch < l {
			firstLaunch[t.Index] = t.Launch
		}
		if !t.Done() {
			continue
		}
		if t.Status != model.TaskSuccess {
			st.FailedMs += t.Duration()
			continue
		}
		if app.Resubmitted(t) {
			continue
		}
		ms.TaskMetrics(i, &m)
		bytes = append(bytes, taskBytes(&m))
		if last < 0 || t.Finish > ms.Tasks[last].Finish {
			last = i
		}
	}
	if len(bytes) > 0 {
		slices.Sort(bytes)
		st.TaskBytesMedian = bytes[len(bytes)/2]
	}
	if last >= 0 {
		t := &ms.Tasks[last]
		ms.TaskMetrics(last, &m)
		st.Last = LastTask{Host: app.Host(t.Host), Ms: t.Duration(), Bytes: taskBytes(&m), GCMs: m[model.JVMGCTime]}
		for i := range ms.Tasks {
			o := &ms.Tasks[i]
			if o.Index == t.Index && o.Done() && o.Status != model.TaskSuccess && o.Launch <= t.Launch {
				st.Last.RetryMs += o.Duration()
			}
		}
	}
	start, end := ms.Submitted, ms.Completed
	if start <= 0 || end < start {
		return st
	}
	st.SlotMs = slots.area(start, end)
	// Cores idle (no attempt of any stage on them) while some of the
	// stage's tasks had not been launched: up to its last task's first
	// launch.
	var pendingUntil int64
	for _, l := range firstLaunch {
		pendingUntil = max(pendingUntil, l)
	}
	pendingUntil = min(pendingUntil, end)
	if pendingUntil > start {
		st.WaitMs = idle.area(start, pendingUntil)
	}
	return st
}

// idleLine is the application's idle cores over time, max(0, cores alive
// − attempts running), as a step function with prefix sums for its
// integral.
type idleLine struct {
	at     []int64 // segment starts, ascending
	idle   []int64 // idle cores on [at[i], at[i+1])
	prefix []int64 // ∫ idle over [at[0], at[i])
}

// idleOf builds the application's idle line from its slot line and every
// attempt of every stage.
func idleOf(app *model.App, slots *slotLine) *idleLine {
	type ev struct {
		t           int64
		cores, runs int
	}
	var evs []ev
	if slots.fixed == 0 {
		for i, t := range slots.at {
			prev := 0
			if i > 0 {
				prev = slots.cores[i-1]
			}
			evs = append(evs, ev{t: t, cores: slots.cores[i] - prev})
		}
	} else {
		evs = append(evs, ev{t: math.MinInt64, cores: slots.fixed})
	}
	for _, st := range app.Stages {
		for i := range st.Tasks {
			t := &st.Tasks[i]
			if t.Finish > t.Launch {
				evs = append(evs, ev{t: t.Launch, runs: 1}, ev{t: t.Finish, runs: -1})
			}
		}
	}
	slices.SortFunc(evs, func(a, b ev) int { return cmp.Compare(a.t, b.t) })
	l := &idleLine{}
	cores, runs := 0, 0
	for i := 0; i < len(evs); {
		t := evs[i].t
		for ; i < len(evs) && evs[i].t == t; i++ {
			cores += evs[i].cores
			runs += evs[i].runs
		}
		var p int64
		if n := len(l.at); n > 0 {
			p = l.prefix[n-1] + l.idle[n-1]*(t-l.at[n-1])
		}
		l.at, l.idle, l.prefix = append(l.at, t), append(l.idle, int64(max(0, cores-runs))), append(l.prefix, p)
	}
	return l
}

// integral is ∫ idle over [at[0], t).
func (l *idleLine) integral(t int64) int64 {
	i, found := slices.BinarySearch(l.at, t)
	if found {
		return l.prefix[i]
	}
	if i == 0 {
		return 0
	}
	return l.prefix[i-1] + l.idle[i-1]*(t-l.at[i-1])
}

// area is ∫ idle over [a, b).
func (l *idleLine) area(a, b int64) int64 {
	if b <= a || len(l.at) == 0 {
		return 0
	}
	return l.integral(b) - l.integral(max(a, l.at[0]))
}

// driverTimes returns the application's wall time with no stage running,
// and the part of it with no executor alive.
func driverTimes(app *model.App, slots *slotLine) (driver, noExecutor int64) {
	start, end := app.Start, app.End
	if start <= 0 || end <= start {
		return 0, 0
	}
	type iv struct{ a, b int64 }
	var ivs []iv
	for _, st := range app.Stages {
		a, b := st.Submitted, st.Completed
		if b == 0 {
			b = end
		}
		if a = max(a, start); b > a && a > 0 {
			ivs = append(ivs, iv{a, min(b, end)})
		}
	}
	slices.SortFunc(ivs, func(x, y iv) int { return cmp.Compare(x.a, y.a) })
	gap := func(a, b int64) {
		if b > a {
			driver += b - a
			noExecutor += slots.zeroTime(a, b)
		}
	}
	cur := start
	for _, v := range ivs {
		gap(cur, v.a)
		cur = max(cur, v.b)
	}
	gap(cur, end)
	return driver, noExecutor
}

// identityKeys are settings that name the run rather than configure it.
var identityKeys = map[string]bool{
	"spark.app.id": true, "spark.app.name": true, "spark.app.startTime": true, "spark.app.submitTime": true,
	"spark.app.attempt.id": true, "spark.driver.host": true, "spark.driver.port": true, "spark.driver.appUIAddress": true,
	"spark.ui.proxyBase": true, "spark.yarn.app.id": true, "spark.yarn.app.container.log.dir": true,
	"mapreduce.job.name": true, "mapreduce.job.id": true, "mapreduce.workflow.id": true,
}

// ConfigOf is an application's configuration as the history keeps it:
// its spark.* properties and its mapreduce.* job settings, sorted by key,
// without the settings that name the run (its id, name, driver address,
// start time) or whose value holds its id.
func ConfigOf(app *model.App) [][2]string {
	id := app.ID
	if n, ok := strings.CutPrefix(id, "job_"); ok {
		id = n // a MapReduce job's directories name application_<n>
	}
	var out [][2]string
	add := func(kv [2]string, prefix string) {
		if strings.HasPrefix(kv[0], prefix) && !identityKeys[kv[0]] && (id == "" || !strings.Contains(kv[1], id)) {
			out = append(out, kv)
		}
	}
	for _, kv := range app.Env.Spark {
		add(kv, "spark.")
	}
	for _, kv := range app.Conf {
		add(kv, "mapreduce.")
	}
	slices.SortStableFunc(out, func(a, b [2]string) int { return cmp.Compare(a[0], b[0]) })
	return slices.CompactFunc(out, func(a, b [2]string) bool { return a[0] == b[0] })
}

// maxDescription bounds a query's description as the history keeps it.
const maxDescription = 1000

// queriesOf lists the application's SQL executions with their plans'
// operator names (query.Analyze's, WholeStageCodegen left out).
func queriesOf(app *model.App) []Query {
	if len(app.SQL) == 0 {
		return nil
	}
	var out []Query
	for _, q := range query.Analyze(app) {
		hq := Query{ID: q.ID, Description: q.Description, WallMs: q.WallMs, Stages: q.Stages}
		if len(hq.Description) > maxDescription {
			hq.Description = strings.ToValidUTF8(hq.Description[:maxDescription], "")
		}
		if hq.Stages == nil {
			hq.Stages = []int32{}
		}
		hq.Plan = query.Names(q.Operators)
		out = append(out, hq)
	}
	return out
}

// ConfigID returns the key a configuration is stored under (16
// hexadecimal digits of its hash; "" for none) and its text: runs of a
// recurring job mostly share one, so the stores keep each once.
func ConfigID(conf [][2]string) (id, text string) {
	if len(conf) == 0 {
		return "", ""
	}
	b, err := json.Marshal(conf)
	if err != nil {
		panic(err) // pairs of strings always marshal
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8]), string(b)
}

// ParseConfig reads a configuration's text (ConfigID's).
func ParseConfig(text string) ([][2]string, error) {
	if text == "" {
		return nil, nil
	}
	var conf [][2]string
	if err := json.Unmarshal([]byte(text), &conf); err != nil {
		return nil, fmt.Errorf("configuration: %w", err)
	}
	return conf, nil
}
