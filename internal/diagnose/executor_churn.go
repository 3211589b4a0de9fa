package diagnose

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/clusterlens/clusterlens/internal/model"
)

// ExecutorChurnParams tune the executor-churn detector.
type ExecutorChurnParams struct {
	// MinLost is the fewest executors lost while the application ran.
	MinLost int
	// LoopLifeMs: a host whose lost executors lived this long or less (their
	// median) and that lost at least LoopLost of them is a crash loop.
	LoopLifeMs int64
	LoopLost   int
	// EndMarginMs: an executor removed this close to the application's end
	// was shut down with it, not lost.
	EndMarginMs int64
}

// DefaultExecutorChurnParams are clusterlens's.
var DefaultExecutorChurnParams = ExecutorChurnParams{MinLost: 2, LoopLifeMs: 60_000, LoopLost: 3, EndMarginMs: 2_000}

func init() {
	mustRegister(Func[ExecutorChurnParams]{
		ID:       "executor-churn",
		Heading:  "Executors lost while the application ran",
		Cite:     "clusterlens, docs/FINDINGS.md §Executors lost: executor removals (SparkListenerExecutorRemoved reasons, Spark's ExecutorExitCode.scala, YARN's container exit statuses) replayed kept alive",
		Defaults: DefaultExecutorChurnParams,
		Fn:       executorChurn,
	})
}

// lossKind is why an executor was lost, as its removal reason tells.
type lossKind int

const (
	lossNone      lossKind = iota // not lost: scaled down, or shut down with the application
	lossMemLimit                  // killed by the resource manager for exceeding its memory
	lossOOM                       // the JVM ran out of heap (exit 52)
	lossHeartbeat                 // could not reach the driver (exit 56, heartbeat time-outs)
	lossContact                   // the driver lost contact (the JVM died or stalled)
	lossDisk                      // could not create its local directories (exit 53)
	lossOther                     // failed otherwise (a non-zero exit)
)

var lossText = [...]string{"", "killed for exceeding its container's memory", "out of heap (exit code 52)",
	"unable to heartbeat the driver (exit code 56)", "lost contact with the driver", "unable to create its local directories (exit code 53)", "failed"}

// lossOf classifies a removal reason.
func lossOf(reason string) lossKind {
	r := strings.ToLower(reason)
	switch {
	case r == "", strings.Contains(r, "dynamic allocation"), strings.Contains(r, "explicit termination request"),
		strings.Contains(r, "killed by driver"), strings.Contains(r, "decommission"), strings.Contains(r, "idle"):
		return lossNone
	case strings.Contains(r, "exceeding") && strings.Contains(r, "memory"), exitStatus(r) == -104, exitStatus(r) == -103, exitStatus(r) == 137:
		return lossMemLimit
	case exitStatus(r) == 52, strings.Contains(r, "outofmemoryerror"):
		return lossOOM
	case exitStatus(r) == 56, strings.Contains(r, "heartbeat"):
		return lossHeartbeat
	case strings.Contains(r, "disassociated"), strings.Contains(r, "lost"):
		return lossContact
	case exitStatus(r) == 53:
		return lossDisk
	}
	return lossOther
}

// exitStatus reads "exit status: N" or "exit code N" from a reason (0 when
// there is none).
func exitStatus(r string) int {
	for _, k := range []string{"exit status: ", "exit code: ", "exit code "} {
		if i := strings.Index(r, k); i >= 0 {
			f := strings.FieldsFunc(r[i+len(k):], func(c rune) bool { return !(c == '-' || c >= '0' && c <= '9') })
			if len(f) > 0 {
				if n, err := strconv.Atoi(f[0]); err == nil {
					return n
				}
			}
		}
	}
	return 0
}

// executorChurn reports executors lost while the application ran, and
// crash loops (a host whose executors each died soon after starting), with
// the time and core time the losses cost: the replay keeping the lost
// executors alive, without the attempts that died with them.
func executorChurn(in *Input, p ExecutorChurnParams) []Finding {
	app := in.App
	if !in.spark() || in.deployment().onOneMachine() {
		return nil
	}
	end := app.End
	if w, err := in.Workload(); err == nil {
		end = max(end, w.End)
	}
	type hostLoss struct {
		lives []int64
		kinds map[lossKind]int
	}
	lost := map[string]bool{}
	byHost := map[string]*hostLoss{}
	kinds := map[lossKind]int{}
	var hosts []string
	for _, e := range app.Executors {
		if e.ID == "driver" || e.Removed <= 0 || e.Removed >= end-p.EndMarginMs {
			continue
		}
		k := lossOf(e.RemoveReason)
		if k == lossNone {
			continue
		}
		lost[e.ID] = true
		kinds[k]++
		h := byHost[e.Host]
		if h == nil {
			h = &hostLoss{kinds: map[lossKind]int{}}
			byHost[e.Host] = h
			hosts = append(hosts, e.Host)
		}
		h.lives = append(h.lives, e.Removed-max(e.Added, app.Start))
		h.kinds[k]++
	}
	if len(lost) < p.MinLost {
		return nil
	}
	// Attempts that died with their executor.
	died := map[int64]bool{}
	execIndex := map[string]uint32{}
	for i, e := range app.Executors {
		execIndex[e.ID] = uint32(i)
	}
	for _, st := range app.Stages {
		for i := range st.Tasks {
			t := &st.Tasks[i]
			if t.Status == model.TaskSuccess || int(t.Executor) >= len(app.Executors) {
				continue
			}
			if lost[app.Executors[t.Executor].ID] || int(t.Reason) < len(app.Reasons) && app.Reasons[t.Reason].Kind == "ExecutorLostFailure" {
				died[t.ID] = true
			}
		}
	}
	slices.Sort(hosts)
	var loops []string
	for _, h := range hosts {
		l := byHost[h]
		slices.Sort(l.lives)
		if len(l.lives) >= p.LoopLost && l.lives[len(l.lives)/2] <= p.LoopLifeMs {
			loops = append(loops, fmt.Sprintf("%s (%d executors, median life %s)", h, len(l.lives), dur(l.lives[len(l.lives)/2])))
		}
	}
	worst := lossOther
	for k, n := range kinds {
		if n > kinds[worst] || n == kinds[worst] && k < worst {
			worst = k
		}
	}
	w, err := in.Workload()
	var im *Impact
	if err == nil {
		im = in.replayedKeep(w, lost, died, fmt.Sprintf("the %d lost executors living on, without the %d attempts that died with them", len(lost), len(died)))
	}
	var why []string
	for k := lossMemLimit; k <= lossOther; k++ {
		if kinds[k] > 0 {
			why = append(why, fmt.Sprintf("%d %s", kinds[k], lossText[k]))
		}
	}
	summary := fmt.Sprintf("%d executors were lost while the application ran (%s), taking %d task attempts with them.", len(lost), strings.Join(why, ", "), len(died))
	if len(loops) > 0 {
		summary += " Crash loop: " + strings.Join(loops, "; ") + ": each executor died soon after it started and a new one took its place."
	}
	b := &settingsBuilder{in: in}
	rec := churnAdvice(in, b, worst, loops)
	scope := in.appScope()
	if len(loops) > 0 {
		scope = Scope{Kind: ScopeNode, IDs: hosts}
	}
	return []Finding{{
		Severity: Moderate,
		Scope:    scope,
		Summary:  summary,
		Impact:   im,
		Evidence: []Evidence{
			gate("lostExecutors", float64(len(lost)), "executors", ">=", float64(p.MinLost)),
			fact("executors", float64(len(app.Executors)), "executors"),
			fact("attemptsLost", float64(len(died)), "count"),
			fact("crashLoopHosts", float64(len(loops)), "count"),
			fact("lostForMemoryLimit", float64(kinds[lossMemLimit]), "count"),
			fact("lostOutOfHeap", float64(kinds[lossOOM]), "count"),
			fact("lostHeartbeat", float64(kinds[lossHeartbeat]), "count"),
			fact("lostContact", float64(kinds[lossContact]), "count"),
			fact("lostOther", float64(kinds[lossOther]+kinds[lossDisk]), "count"),
		},
		Recommendation: rec,
		Settings:       b.out,
	}}
}

// churnAdvice is the remedy for the commonest loss, in the run's
// deployment and Spark version.
func churnAdvice(in *Input, b *settingsBuilder, k lossKind, loops []string) string {
	var parts []string
	if len(loops) > 0 {
		key := "spark.excludeOnFailure.enabled"
		if !sparkAtLeast(in.App.Version, 3, 1) {
			key = "spark.blacklist.enabled"
		}
		b.want(key, "true")
		parts = append(parts, fmt.Sprintf("Look at the host's NodeManager and disks: executors there die as they start. Meanwhile keep the scheduler off it: %s=true (now %s)", key, in.setNow(key)))
	}
	mem := executorMemoryMiB(in)
	switch k {
	case lossMemLimit:
		key := "spark.executor.memoryOverhead"
		if !sparkAtLeast(in.App.Version, 2, 3) && in.deployment().onYARN() {
			key = "spark.yarn.executor.memoryOverhead"
		}
		cur := max(384, mem/10)
		if v, ok := in.conf(key); ok {
			if n, err := drStringToBytes(v + "MB"); err == nil && !strings.ContainsAny(v, "kKmMgGtT") {
				cur = n >> 20
			} else if n, err := drStringToBytes(v); err == nil {
				cur = n >> 20
			}
		}
		v := fmt.Sprintf("%dm", 2*cur)
		b.want(key, v)
		parts = append(parts, fmt.Sprintf("The container was killed for using more memory than it asked for (off-heap: Python workers, native buffers, netty): raise %s to %s (now %s)", key, v, in.setNow(key)))
	case lossOOM:
		v := fmt.Sprintf("%dm", mem*3/2)
		b.want("spark.executor.memory", v)
		parts = append(parts, fmt.Sprintf("The executors ran out of heap: use more, smaller partitions, or raise spark.executor.memory to %s (now %s)", v, in.setNow("spark.executor.memory")))
	case lossHeartbeat, lossContact:
		parts = append(parts, "The executors stopped answering the driver: usually a JVM in long GC pauses or killed for memory; check the executor logs for OutOfMemoryError or the NodeManager's kill, give the executors more memory or smaller partitions, and only then consider a longer spark.network.timeout")
	case lossDisk:
		parts = append(parts, "The executors could not create their local directories: check the disks named in spark.local.dir / yarn.nodemanager.local-dirs on the hosts that lost them")
	default:
		parts = append(parts, "Read the lost executors' logs for the exit cause")
	}
	return strings.Join(parts, ". ") + "."
}

// executorMemoryMiB is spark.executor.memory in MiB (Spark's 1g default).
func executorMemoryMiB(in *Input) int64 {
	if v, ok := in.conf("spark.executor.memory"); ok {
		if n, err := drStringToBytes(v); err == nil && n > 0 {
			return n >> 20
		}
	}
	return 1024
}

// sparkAtLeast reports whether a Spark version string is at least
// major.minor (an unreadable version counts as recent).
func sparkAtLeast(v string, major, minor int) bool {
	f := strings.FieldsFunc(v, func(c rune) bool { return c == '.' || c == '-' })
	if len(f) < 2 {
		return true
	}
	ma, err1 := strconv.Atoi(f[0])
	mi, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil {
		return true
	}
	return ma > major || ma == major && mi >= minor
}
