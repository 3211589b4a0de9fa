package explain

import (
	"fmt"
	"slices"
	"strings"

	"github.com/clusterlens/clusterlens/internal/history"
	"github.com/clusterlens/clusterlens/internal/query"
)

// setting is a configuration key whose value the usual runs agree on and
// the run does not.
type setting struct {
	key, from, to string
	// moves is the mechanism the setting drives (a cause kind), "" for a
	// setting that may change what a task costs.
	moves string
}

// mechanisms maps settings to the mechanism they drive, by prefix: a
// changed setting takes over the share of the cause it drives.
var mechanisms = []struct{ prefix, kind string }{
	{"spark.sql.shuffle.partitions", KindPartitioning},
	{"spark.default.parallelism", KindPartitioning},
	{"spark.sql.files.maxPartitionBytes", KindPartitioning},
	{"spark.sql.files.openCostInBytes", KindPartitioning},
	{"spark.sql.adaptive.coalescePartitions", KindPartitioning},
	{"spark.sql.adaptive.advisoryPartitionSizeInBytes", KindPartitioning},
	{"mapreduce.job.reduces", KindPartitioning},
	{"mapreduce.input.fileinputformat.split", KindPartitioning},
	{"spark.executor.instances", KindExecutors},
	{"spark.executor.cores", KindExecutors},
	{"spark.cores.max", KindExecutors},
	{"spark.task.cpus", KindExecutors},
	{"spark.dynamicAllocation", KindExecutors},
	{"spark.locality.wait", KindExecutors},
	{"spark.scheduler", KindExecutors},
	{"mapreduce.job.running", KindExecutors},
	{"mapreduce.job.reduce.slowstart", KindExecutors},
	{"spark.executor.memory", KindSpillGC},
	{"spark.memory.", KindSpillGC},
	{"spark.executor.extraJavaOptions", KindSpillGC},
	{"spark.shuffle.spill", KindSpillGC},
	{"mapreduce.map.memory", KindSpillGC},
	{"mapreduce.reduce.memory", KindSpillGC},
	{"mapreduce.map.java.opts", KindSpillGC},
	{"mapreduce.reduce.java.opts", KindSpillGC},
	{"mapreduce.task.io.sort", KindSpillGC},
	{"mapreduce.map.sort.spill", KindSpillGC},
	{"spark.sql.autoBroadcastJoinThreshold", KindPlan},
	{"spark.sql.adaptive", KindPlan},
	{"spark.sql.join", KindPlan},
	{"spark.sql.cbo", KindPlan},
	{"spark.speculation", KindFailures},
	{"spark.task.maxFailures", KindFailures},
	{"mapreduce.map.maxattempts", KindFailures},
	{"mapreduce.reduce.maxattempts", KindFailures},
}

// mechanismOf is the cause kind a setting drives, "" for one that may
// change what a task costs.
func mechanismOf(key string) string {
	for _, m := range mechanisms {
		if strings.HasPrefix(key, m.prefix) {
			return m.kind
		}
	}
	return ""
}

// changedSettings are the run's settings whose value differs from the one
// at least p.Stable of the usual runs share (a setting missing from a run
// has the value "").
func changedSettings(run *history.Run, usual []*history.Run, p Params) []setting {
	keys := map[string]bool{}
	val := func(conf [][2]string, k string) string {
		i, ok := slices.BinarySearchFunc(conf, k, func(kv [2]string, k string) int { return strings.Compare(kv[0], k) })
		if !ok {
			return ""
		}
		return conf[i][1]
	}
	for _, kv := range run.Config {
		keys[kv[0]] = true
	}
	for _, u := range usual {
		for _, kv := range u.Config {
			keys[kv[0]] = true
		}
	}
	var out []setting
	for k := range keys {
		counts := map[string]int{}
		for _, u := range usual {
			counts[val(u.Config, k)]++
		}
		mode, n := "", 0
		for v, c := range counts {
			if c > n || c == n && v < mode {
				mode, n = v, c
			}
		}
		if to := val(run.Config, k); float64(n) >= p.Stable*float64(len(usual)) && to != mode {
			out = append(out, setting{key: k, from: mode, to: to, moves: mechanismOf(k)})
		}
	}
	slices.SortFunc(out, func(a, b setting) int { return strings.Compare(a.key, b.key) })
	return out
}

// planChange is a query of the run whose plan differs from the one the
// usual runs ran for it.
type planChange struct {
	desc    string
	id      int64
	changes []string
}

// changedPlans maps each stage signature of the run to the plan change of
// the query that ran it (nil: none). A query is matched in the usual runs
// as query.Pairs matches queries (its description and its occurrence
// among those with that description, else its id); its plan changed when
// at least p.Stable of the usual runs that ran it agree on a plan and the
// run's is not that one.
func changedPlans(run *history.Run, usual []*history.Run, p Params) map[string]*planChange {
	if len(run.Queries) == 0 {
		return nil
	}
	sigOf := map[int32]string{}
	for i := range run.Stages {
		sigOf[run.Stages[i].ID] = run.Stages[i].Signature
	}
	asQueries := func(qs []history.Query) []query.Query {
		out := make([]query.Query, len(qs))
		for i, q := range qs {
			out[i] = query.Query{ID: q.ID, Description: q.Description}
		}
		return out
	}
	mine := asQueries(run.Queries)
	plans := make([]map[string]int, len(run.Queries)) // run's query -> usual plan -> count
	seen := make([]int, len(run.Queries))
	for _, u := range usual {
		for _, pair := range query.Pairs(mine, asQueries(u.Queries)) {
			if plans[pair[0]] == nil {
				plans[pair[0]] = map[string]int{}
			}
			plans[pair[0]][strings.Join(u.Queries[pair[1]].Plan, "\n")]++
			seen[pair[0]]++
		}
	}
	out := map[string]*planChange{}
	for i, q := range run.Queries {
		mode, n := "", 0
		for pl, c := range plans[i] {
			if c > n || c == n && pl < mode {
				mode, n = pl, c
			}
		}
		if seen[i] == 0 || float64(n) < p.Stable*float64(seen[i]) || mode == strings.Join(q.Plan, "\n") {
			continue
		}
		_, changes := query.ComparePlans(strings.Split(mode, "\n"), q.Plan)
		pc := &planChange{desc: q.Description, id: q.ID, changes: changes}
		for _, id := range q.Stages {
			if sig, ok := sigOf[id]; ok {
				out[sig] = pc
			}
		}
	}
	return out
}

// describe says what a plan change is.
func (pc *planChange) describe() string {
	what := "its plan changed"
	if len(pc.changes) > 0 {
		what = "its plan changed (" + strings.Join(pc.changes, ", ") + ")"
	}
	name := pc.desc
	if len(name) > 80 {
		name = name[:77] + "..."
	}
	if name == "" {
		name = fmt.Sprintf("query %d", pc.id)
	}
	return fmt.Sprintf("%s: %s", name, what)
}
