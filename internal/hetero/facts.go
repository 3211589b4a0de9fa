package hetero

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/clusterlens/clusterlens/internal/history"
)

// NodeFacts are what the history's logs say of a node (history.HostFact
// over the runs it ran tasks in): its rack and instance type (the latest
// run's that names them), the most executor cores seen on it at once (a
// lower bound of its cores: Spark logs give executors, not machines) and
// the largest executor or container memory.
type NodeFacts struct {
	Rack         string `json:"rack,omitempty"`
	MaxCores     int    `json:"maxCores,omitempty"`
	MemoryMB     int64  `json:"memoryMB,omitempty"`
	InstanceType string `json:"instanceType,omitempty"`
}

// nodeFacts gathers each host's facts over runs (oldest first).
func nodeFacts(runs []*history.Run) map[string]NodeFacts {
	out := map[string]NodeFacts{}
	for _, r := range runs {
		for _, f := range r.HostFacts {
			n := out[f.Host]
			n.Rack = cmp.Or(f.Rack, n.Rack)
			n.InstanceType = cmp.Or(f.InstanceType, n.InstanceType)
			n.MaxCores = max(n.MaxCores, f.Cores)
			n.MemoryMB = max(n.MemoryMB, f.MemoryMB)
			out[f.Host] = n
		}
	}
	return out
}

// describe summarizes the facts of a class's nodes for a person to check
// the class against: the instance types, the range of the most executor
// cores seen and the racks, each with how many nodes say so.
func describe(nodes []string, facts map[string]NodeFacts) []string {
	types, racks := map[string]int{}, map[string]int{}
	var cores []int
	for _, h := range nodes {
		f := facts[h]
		if f.InstanceType != "" {
			types[f.InstanceType]++
		}
		if f.Rack != "" {
			racks[f.Rack]++
		}
		if f.MaxCores > 0 {
			cores = append(cores, f.MaxCores)
		}
	}
	var out []string
	if len(types) > 0 {
		out = append(out, "instance types "+counts(types))
	}
	if len(cores) > 0 {
		slices.Sort(cores)
		r := fmt.Sprint(cores[0])
		if cores[len(cores)-1] != cores[0] {
			r += fmt.Sprintf("–%d", cores[len(cores)-1])
		}
		out = append(out, fmt.Sprintf("executor cores seen at once %s (%d of %d nodes)", r, len(cores), len(nodes)))
	}
	if len(racks) > 0 {
		out = append(out, "racks "+counts(racks))
	}
	return out
}

// counts renders "a (3), b (1)", most first.
func counts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return cmp.Or(cmp.Compare(m[b], m[a]), cmp.Compare(a, b)) })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s (%d)", k, m[k])
	}
	return strings.Join(parts, ", ")
}
