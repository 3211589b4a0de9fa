package predict

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/clusterlens/clusterlens/internal/hetero"
)

// Resource is what a phase mostly waits on.
type Resource string

// Resources.
const (
	CPU     Resource = "cpu"
	Disk    Resource = "disk"
	Network Resource = "network"
)

// NodeSpeeds is what predictions for another node type need of per-node-
// class speeds: how fast a node class runs work bound by each resource,
// against any fixed reference (only ratios between classes are used).
// HeteroSpeeds makes one from the node classes PARC's models learn from
// the run history (package hetero); ReadSpeedTable reads one from a file.
type NodeSpeeds interface {
	// Speed is the class's speed for work bound by res; ok is false when
	// the class or resource is unknown.
	Speed(class string, res Resource) (speed float64, ok bool)
}

// SpeedTable is node-class speeds as a table: class → resource → speed.
type SpeedTable map[string]map[Resource]float64

// Speed implements NodeSpeeds.
func (t SpeedTable) Speed(class string, res Resource) (float64, bool) {
	v, ok := t[class][res]
	return v, ok && v > 0
}

// ReadSpeedTable reads a SpeedTable from JSON: {"class": {"cpu": 1.3,
// "disk": 400, "network": 1250}, ...}; any unit per resource, the same for
// every class.
func ReadSpeedTable(r io.Reader, name string) (SpeedTable, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var t SpeedTable
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("%s: node speeds: %w (want {\"class\": {\"cpu\": n, \"disk\": n, \"network\": n}})", name, err)
	}
	for c, rs := range t {
		for res, v := range rs {
			if res != CPU && res != Disk && res != Network {
				return nil, fmt.Errorf("%s: class %q: resource %q, want cpu, disk or network", name, c, res)
			}
			if !(v > 0) {
				return nil, fmt.Errorf("%s: class %q: %s speed %g, want a positive number", name, c, res, v)
			}
		}
	}
	return t, nil
}

// ClassChange is what moving from one node class to another does to phase
// durations: per resource, the factor durations are multiplied by (the
// old class's speed over the new one's). Assumed lists the resources
// neither class's speeds gave, kept at factor 1.
type ClassChange struct {
	From, To string
	Factor   map[Resource]float64
	Assumed  []Resource
}

// NewClassChange looks up both classes' speeds. A resource known for only
// one class, or neither, keeps its durations (Assumed); at least one must
// be known for both.
func NewClassChange(s NodeSpeeds, from, to string) (*ClassChange, error) {
	c := &ClassChange{From: from, To: to, Factor: map[Resource]float64{}}
	for _, r := range []Resource{CPU, Disk, Network} {
		a, okA := s.Speed(from, r)
		b, okB := s.Speed(to, r)
		if !okA || !okB {
			c.Factor[r] = 1
			c.Assumed = append(c.Assumed, r)
			continue
		}
		c.Factor[r] = a / b
	}
	if len(c.Assumed) == 3 {
		return nil, fmt.Errorf("node classes %q → %q: no cpu, disk or network speed known for both", from, to)
	}
	return c, nil
}

// HeteroSpeeds turns PARC's node classes (hetero.Joint.Classes: per class
// its slowdown factor per resource against the cluster's median node)
// into speeds: CPU from the cpu factor, Disk from the io factor, each the
// factor's inverse; the joint model has no network factor, so a change of
// class keeps network time (ClassChange.Assumed). A class is known by its
// name ("class-2 m5.xlarge") and by each of its words ("class-2",
// "m5.xlarge").
func HeteroSpeeds(classes []hetero.Class) SpeedTable {
	t := SpeedTable{}
	for _, c := range classes {
		sp := map[Resource]float64{}
		for _, f := range c.Factors {
			if f.Factor.Value <= 0 {
				continue
			}
			switch f.Resource {
			case hetero.ResourceCPU:
				sp[CPU] = 1 / f.Factor.Value
			case hetero.ResourceIO:
				sp[Disk] = 1 / f.Factor.Value
			}
		}
		t[c.Name] = sp
		for _, w := range strings.Fields(c.Name) {
			if _, taken := t[w]; !taken {
				t[w] = sp
			}
		}
	}
	return t
}

// phaseResources are the resources of each part's two phases (Phases):
// read is disk, collect CPU; spill and merge disk; shuffle network; write
// disk.
var phaseResources = [numParts][2]Resource{
	{Disk, CPU},
	{Disk, Disk},
	{Network, Network},
	{Disk, CPU},
}

// part scales a part's predicted phases (first, second) to the new class,
// its fixed time (JVM start, setup) unchanged; a nil change keeps them.
func (c *ClassChange) part(p Part, fixed, first, second float64) float64 {
	r := phaseResources[p]
	return max(0, fixed+first*c.factor(r[0])+second*c.factor(r[1]))
}

// factor is the duration factor for work bound by res (1 for no change).
func (c *ClassChange) factor(res Resource) float64 {
	if c == nil {
		return 1
	}
	return c.Factor[res]
}

// cpu scales CPU-bound time (the custom functions).
func (c *ClassChange) cpu(ms float64) float64 { return ms * c.factor(CPU) }

// Classes lists a table's classes, sorted.
func (t SpeedTable) Classes() []string {
	var out []string
	for c := range t {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}
