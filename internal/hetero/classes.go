package hetero

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/clusterlens/clusterlens/internal/history"
)

// ResourceFactor is a node's (or class's) slowdown on one resource
// against the cluster's median node: 1.4 runs that resource's work 1.4x as
// long.
type ResourceFactor struct {
	Resource string `json:"resource"`
	Factor   Factor `json:"factor"`
	// Measured is false for a factor the node's tasks do not constrain:
	// its interval is the prior's (NodePrior), not a measurement.
	Measured bool `json:"measured"`
}

// measured reports whether a log factor's standard error se is the data's
// rather than the prior's: at most half the prior's (1/√NodePrior).
func (m *Joint) measured(se float64) bool {
	return se <= 0.5/math.Sqrt(math.Max(m.p.NodePrior, 1e-9))
}

// NodeSpeed is a node's learned speed.
type NodeSpeed struct {
	Host string `json:"host"`
	// Tasks in the history; nodes with fewer than MinHistoryTasks have no
	// class and their factors' intervals are wide.
	Tasks   int              `json:"tasks"`
	Class   string           `json:"class,omitempty"`
	Factors []ResourceFactor `json:"factors"`
	// Facts are what the logs say of the node.
	Facts NodeFacts `json:"facts"`
}

// Class is a group of nodes of one hardware kind, found from their learned
// speeds (and, where the logs tell, their facts).
type Class struct {
	Name  string   `json:"name"`
	Nodes []string `json:"nodes"`
	// Factors are the median of its nodes' factors per resource.
	Factors []ResourceFactor `json:"factors"`
	// SlowByDesign: its nodes run some resource's work at least SlowClass
	// times the median node's: slow, but not a fault.
	SlowByDesign bool `json:"slowByDesign"`
	// Facts summarize what the logs say of its nodes (instance types,
	// executor cores, racks), to check the class against.
	Facts []string `json:"facts,omitempty"`
}

// resourceLoadings are the directions in the latent space of the resource
// classes the factors are reported for: the mean loading of the job
// classes of that resource class (cpu, io), else the prior's.
func (m *Joint) resourceLoadings() [][]float64 {
	k := m.p.Rank
	out := make([][]float64, 0, 2)
	for _, c := range []history.Class{history.ClassCPU, history.ClassIO} {
		if k == 1 && c == history.ClassIO {
			break
		}
		mean := make([]float64, k)
		n := 0
		for j := range m.jobs {
			if m.jobs[j].class == c {
				for q := 0; q < k; q++ {
					mean[q] += m.v[j*k+q]
				}
				n++
			}
		}
		if n == 0 {
			mean = priorLoading(c, k)
		} else {
			for q := range mean {
				mean[q] /= float64(n)
			}
		}
		out = append(out, mean)
	}
	return out
}

// logSpeeds returns per node and resource the log factor and its standard
// error, relative to the median over the nodes with enough history.
func (m *Joint) logSpeeds() (f, se [][]float64) {
	k := m.p.Rank
	dirs := m.resourceLoadings()
	f = make([][]float64, len(m.nodes))
	se = make([][]float64, len(m.nodes))
	for n := range m.nodes {
		for _, d := range dirs {
			f[n] = append(f[n], dot(m.u[n*k:n*k+k], d))
			se[n] = append(se[n], math.Sqrt(math.Max(quad(d, m.cov[n*k*k:n*k*k+k*k], d), 0)))
		}
	}
	for r := range dirs {
		var v []float64
		for n := range m.nodes {
			if m.tasks[n] >= m.p.MinHistoryTasks {
				v = append(v, f[n][r])
			}
		}
		if len(v) == 0 {
			continue
		}
		slices.Sort(v)
		med := v[len(v)/2]
		for n := range m.nodes {
			f[n][r] -= med
		}
	}
	return f, se
}

// Speeds returns every node's learned speed, by host.
func (m *Joint) Speeds() []NodeSpeed {
	f, se := m.logSpeeds()
	classOf := m.classIndex()
	out := make([]NodeSpeed, len(m.nodes))
	for n, host := range m.nodes {
		s := NodeSpeed{Host: host, Tasks: m.tasks[n], Facts: m.facts[host]}
		if c := classOf[host]; c != nil {
			s.Class = c.Name
		}
		for r := range f[n] {
			s.Factors = append(s.Factors, ResourceFactor{Resource: resourceName(r), Factor: factor(f[n][r], se[n][r]), Measured: m.measured(se[n][r])})
		}
		out[n] = s
	}
	slices.SortFunc(out, func(a, b NodeSpeed) int { return cmp.Compare(a.Host, b.Host) })
	return out
}

// Classes groups the nodes with enough history into hardware classes. A
// node whose instance type the logs name is of that type's class: the
// logs say what hardware it is, and a node slower than its type's others
// is the verdicts' business (its factors are pooled with its type's others
// only as far as their spread allows: poolClasses). The others are
// grouped by their learned speeds: per resource, the nodes sorted by their
// log factor split where two neighbours are more than ClassGap apart and
// farther apart than their factors' uncertainty allows (intervalZ standard
// errors of the difference: one run's few tasks do not make a class); a
// class is a combination of those groups. Executor cores and racks are not
// hardware facts a log pins down (a run's executors may leave cores
// free), so they only describe the classes. Classes are named by speed,
// fastest first.
func (m *Joint) Classes() []Class {
	types := map[string]string{}
	for h, f := range m.facts {
		if f.InstanceType != "" {
			types[h] = f.InstanceType
		}
	}
	if len(types) == 0 {
		types = nil
	}
	return m.classes(types)
}

func (m *Joint) classes(facts map[string]string) []Class {
	f, se := m.logSpeeds()
	var idx []int
	for n := range m.nodes {
		if m.tasks[n] >= m.p.MinHistoryTasks {
			idx = append(idx, n)
		}
	}
	if len(idx) == 0 {
		return nil
	}
	group := make(map[int][]int, len(idx)) // node → group per resource
	for r := range f[idx[0]] {
		sorted := slices.Clone(idx)
		slices.SortFunc(sorted, func(a, b int) int { return cmp.Compare(f[a][r], f[b][r]) })
		g := 0
		for i, n := range sorted {
			if i > 0 {
				p := sorted[i-1]
				gap := f[n][r] - f[p][r]
				if gap > m.p.ClassGap && gap > intervalZ*math.Hypot(se[n][r], se[p][r]) {
					g++
				}
			}
			group[n] = append(group[n], g)
		}
	}
	byKey := map[string][]int{}
	for _, n := range idx {
		key := fmt.Sprint(group[n])
		if t := facts[m.nodes[n]]; t != "" {
			key = t + "\x00" // the logs name its hardware: one class per type
		}
		byKey[key] = append(byKey[key], n)
	}
	type ranked struct {
		c     Class
		speed float64 // Σ of the median log factors: lower is faster
	}
	var out []ranked
	for key, nodes := range byKey {
		x := ranked{}
		for r := range f[nodes[0]] {
			v := make([]float64, len(nodes))
			measured := true
			for i, n := range nodes {
				v[i] = f[n][r]
				measured = measured && m.measured(se[n][r])
			}
			slices.Sort(v)
			med := v[len(v)/2]
			x.speed += med
			x.c.Factors = append(x.c.Factors, ResourceFactor{Resource: resourceName(r),
				Factor: Factor{Value: round3(math.Exp(med)), Low: round3(math.Exp(v[0])), High: round3(math.Exp(v[len(v)-1]))}, Measured: measured})
			if measured && math.Exp(med) >= m.p.SlowClass {
				x.c.SlowByDesign = true
			}
		}
		for _, n := range nodes {
			x.c.Nodes = append(x.c.Nodes, m.nodes[n])
		}
		slices.Sort(x.c.Nodes)
		x.c.Facts = describe(x.c.Nodes, m.facts)
		if fact, _, ok := strings.Cut(key, "\x00"); ok && fact != "" {
			x.c.Name = fact
		}
		out = append(out, x)
	}
	slices.SortFunc(out, func(a, b ranked) int {
		return cmp.Or(cmp.Compare(a.speed, b.speed), cmp.Compare(a.c.Nodes[0], b.c.Nodes[0]))
	})
	cs := make([]Class, len(out))
	for i := range out {
		cs[i] = out[i].c
		name := fmt.Sprintf("class-%d", i+1)
		if cs[i].Name != "" {
			name += " " + cs[i].Name
		}
		cs[i].Name = name
	}
	return cs
}

// classIndex maps each classed host to its class.
func (m *Joint) classIndex() map[string]*Class {
	if m.classOf != nil {
		return m.classOf
	}
	cs := m.Classes()
	m.classOf = map[string]*Class{}
	for i := range cs {
		for _, h := range cs[i].Nodes {
			m.classOf[h] = &cs[i]
		}
	}
	return m.classOf
}
