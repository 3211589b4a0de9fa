package dataflow

import (
	"bufio"
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"testing"

	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// rawKey is a stage attempt as the raw events name it.
type rawKey struct{ stage, attempt int32 }

// rawStage is what a minimal scan of TaskEnd events says about a stage
// attempt: attempts (Resubmitted records left out), their launch-to-finish
// time, and the part of it whose work was wasted.
type rawStage struct {
	attempts       int
	taskMs, wasted int64
}

// rawExec is an executor's add and remove times and the span of its tasks.
type rawExec struct {
	added, removed, firstLaunch, lastFinish int64
	cores                                   int
	spans                                   [][2]int64 // its attempts' [launch, finish]
}

// concurrency is the most of the executor's attempts running at once,
// one ending when another starts not overlapping it.
func (e *rawExec) concurrency() int {
	type edge struct {
		t int64
		d int
	}
	var ev []edge
	for _, s := range e.spans {
		ev = append(ev, edge{s[0], 1}, edge{s[1], -1})
	}
	slices.SortFunc(ev, func(a, b edge) int {
		if a.t != b.t {
			return cmp.Compare(a.t, b.t)
		}
		return a.d - b.d // ends first
	})
	n, most := 0, 0
	for _, x := range ev {
		n += x.d
		most = max(most, n)
	}
	return most
}

// rawLog is the scan of one event log.
type rawLog struct {
	start, end  int64
	taskCPUs    int
	stages      map[rawKey]*rawStage
	execs       map[string]*rawExec
	resubmitted int
	unfinished  int // TaskStart without a TaskEnd
	early       int // TaskEnd launched over a minute before the application started
}

// rawEvent is the few fields of an event the scan reads.
type rawEvent struct {
	Event     string
	Timestamp int64
	Stage     int32                   `json:"Stage ID"`
	Attempt   int32                   `json:"Stage Attempt ID"`
	Reason    struct{ Reason string } `json:"Task End Reason"`
	Info      struct {
		ID       int64  `json:"Task ID"`
		Launch   int64  `json:"Launch Time"`
		Finish   int64  `json:"Finish Time"`
		Executor string `json:"Executor ID"`
		Failed   bool
		Killed   bool
	} `json:"Task Info"`
	Executor string `json:"Executor ID"`
	ExecInfo struct {
		Cores int `json:"Total Cores"`
	} `json:"Executor Info"`
	Props     map[string]string `json:"Spark Properties"`
	StageInfo struct {
		ID        int32 `json:"Stage ID"`
		Attempt   int32 `json:"Stage Attempt ID"`
		Submitted int64 `json:"Submission Time"`
	} `json:"Stage Info"`
}

// scanRaw reads a plain or zstd-compressed event log with encoding/json,
// line by line, independently of internal/eventlog.
func scanRaw(t *testing.T, path string) *rawLog {
	t.Helper()
	rd := sharedtest.RawLog(t, path)
	l := &rawLog{stages: map[rawKey]*rawStage{}, execs: map[string]*rawExec{}, taskCPUs: 1}
	type ended struct {
		key rawKey
		dur int64
	}
	success := map[int64]ended{}
	lost := map[int64]bool{}
	started := map[int64]bool{}
	exec := func(id string) *rawExec {
		if l.execs[id] == nil {
			l.execs[id] = &rawExec{}
		}
		return l.execs[id]
	}
	submitted := map[rawKey]int64{}
	var ends []rawEvent
	sc := bufio.NewScanner(rd)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var ev rawEvent
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		switch ev.Event {
		case "SparkListenerApplicationStart":
			l.start = ev.Timestamp
		case "SparkListenerApplicationEnd":
			l.end = ev.Timestamp
		case "SparkListenerEnvironmentUpdate":
			if n, err := strconv.Atoi(ev.Props["spark.task.cpus"]); err == nil && n > 0 {
				l.taskCPUs = n
			}
		case "SparkListenerExecutorAdded":
			e := exec(ev.Executor)
			e.added, e.cores = ev.Timestamp, ev.ExecInfo.Cores
		case "SparkListenerExecutorRemoved":
			exec(ev.Executor).removed = ev.Timestamp
		case "SparkListenerStageSubmitted":
			submitted[rawKey{ev.StageInfo.ID, ev.StageInfo.Attempt}] = ev.StageInfo.Submitted
		case "SparkListenerTaskStart":
			started[ev.Info.ID] = true
		case "SparkListenerTaskEnd":
			if ev.Reason.Reason == "Resubmitted" {
				l.resubmitted++
				lost[ev.Info.ID] = true
				continue
			}
			delete(started, ev.Info.ID)
			ends = append(ends, ev)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for _, ev := range ends {
		k := rawKey{ev.Stage, ev.Attempt}
		anchor := submitted[k]
		if anchor <= 0 {
			anchor = l.start
		}
		// The driver stamps launches, submissions, the start and the end
		// with one clock: a launch outside them is a spliced record.
		if anchor > 0 && ev.Info.Launch < anchor-60_000 || l.end > 0 && ev.Info.Launch > l.end+60_000 {
			l.early++
			continue
		}
		s := l.stages[k]
		if s == nil {
			s = &rawStage{}
			l.stages[k] = s
		}
		d := max(ev.Info.Finish-ev.Info.Launch, 0)
		s.attempts++
		s.taskMs += d
		if ev.Info.Failed || ev.Info.Killed {
			s.wasted += d
		} else {
			success[ev.Info.ID] = ended{k, d}
		}
		e := exec(ev.Info.Executor)
		if e.firstLaunch == 0 || ev.Info.Launch < e.firstLaunch {
			e.firstLaunch = ev.Info.Launch
		}
		e.lastFinish = max(e.lastFinish, ev.Info.Finish)
		e.spans = append(e.spans, [2]int64{ev.Info.Launch, max(ev.Info.Finish, ev.Info.Launch)})
	}
	for id := range lost {
		if x, ok := success[id]; ok {
			l.stages[x.key].wasted += x.dur
		}
	}
	l.unfinished = len(started)
	return l
}
