package predict

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/clusterlens/clusterlens/internal/history"
)

// RunTable is a table of past runs: the points and the unit their runtimes
// are in ("ms" from the run history; from a CSV what its header says, or
// "" when it does not).
type RunTable struct {
	Points []Point
	Unit   string
	// UnitAssumed is set when no header or flag said the runtime's unit
	// and AssumeUnit guessed it from the values.
	UnitAssumed bool
	// MachinesColumn and DataColumn name where machines and data came
	// from ("" for no data column: every run processed the same data).
	MachinesColumn, DataColumn string
}

// Split returns the runs of one group (default: the latest run's) and
// the others by group: the target and the pool of a Pooled model (nil
// when the table has one group).
func (t *RunTable) Split(group string) (*RunTable, map[string][]Point, error) {
	if len(t.Points) == 0 {
		return t, nil, nil
	}
	if group == "" {
		group = t.Points[len(t.Points)-1].Group
	}
	target := *t
	target.Points = nil
	pool := map[string][]Point{}
	for _, p := range t.Points {
		if p.Group == group {
			target.Points = append(target.Points, p)
		} else {
			pool[p.Group] = append(pool[p.Group], p)
		}
	}
	if len(target.Points) == 0 {
		return nil, nil, fmt.Errorf("group %q: no run has it", group)
	}
	if len(pool) == 0 {
		pool = nil
	}
	return &target, pool, nil
}

// AssumeUnit sets the runtime unit of a table whose header named none:
// "ms" when the median runtime is at least 10,000 (ten seconds in ms; a
// job of 2.8 hours in s is rarer than one of ten seconds in ms), else
// "s"; UnitAssumed says it was a guess (published tables such as Bell's
// have a bare "Runtime" column in ms).
func (t *RunTable) AssumeUnit() {
	if t.Unit != "" || len(t.Points) == 0 {
		return
	}
	v := make([]float64, len(t.Points))
	for i, p := range t.Points {
		v[i] = p.Runtime
	}
	slices.Sort(v)
	t.Unit, t.UnitAssumed = "s", true
	if v[len(v)/2] >= 10000 {
		t.Unit = "ms"
	}
}

// Header names ReadRunsCSV recognizes, compared in lower case without '#'
// and spaces around: published runtime datasets' (Bell: Nodes, Runtime;
// Ernest: #Cores, Input Fraction, Time (s); C3O: instance_count,
// data_size_MB, gross_runtime) and plain ones.
var (
	machinesHeaders = []string{"machines", "nodes", "cores", "hosts", "executors", "instances", "instance_count", "scale-out", "scaleout", "workers"}
	dataHeaders     = []string{"input fraction", "input_fraction", "data", "data size", "data_size", "data_size_mb", "datasize", "input", "input size", "input_bytes", "input bytes", "size", "scale", "problem_size"}
	groupHeaders    = []string{"job", "app", "application", "algorithm", "machine_type", "machine type", "instance_type", "instance type", "node_type", "node type", "group"}
	runtimeHeaders  = []string{"time", "runtime", "duration", "gross_runtime", "elapsed", "wall_time", "walltime"}
)

// unitNames are the runtime units a header or --unit may name, by alias.
var unitNames = map[string]string{
	"ms": "ms", "msec": "ms", "millis": "ms", "milliseconds": "ms",
	"s": "s", "sec": "s", "secs": "s", "seconds": "s",
	"min": "min", "mins": "min", "minutes": "min",
	"h": "h", "hr": "h", "hrs": "h", "hours": "h",
}

// Unit is the runtime unit u names (ms, s, min or h, or an alias such as
// "sec" or "minutes"), in those four spellings; an error says what is
// wanted.
func Unit(u string) (string, error) {
	if c, ok := unitNames[strings.ToLower(strings.TrimSpace(u))]; ok {
		return c, nil
	}
	return "", fmt.Errorf("runtime unit %q: want ms, s, min or h", u)
}

// runtimeHeader reports whether a header's name (headerName's base) names
// the runtime, and the unit a suffix gives it ("runtime_s", "duration ms").
func runtimeHeader(base string) (bool, string) {
	if oneOf(base, runtimeHeaders) {
		return true, ""
	}
	if i := strings.LastIndexAny(base, "_ -"); i > 0 && oneOf(base[:i], runtimeHeaders) {
		if u, err := Unit(base[i+1:]); err == nil {
			return true, u
		}
	}
	return false, ""
}

// ReadRunsCSV reads a table of past runs: a header line naming a machines
// column, a runtime column, optionally a data-size column and group
// columns (the job, the machine type: C3O's tables hold several; names above;
// a unit in parentheses, "Time (s)", is kept as the unit), then one run a
// line. name is the file's name for errors, which give its line and column.
func ReadRunsCSV(r io.Reader, name string) (*RunTable, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	cr.Comment = 0
	head, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: empty, want a header line naming machines and runtime columns", name)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	mi, di, ti := -1, -1, -1
	var gi []int
	t := &RunTable{}
	for i, h := range head {
		base, unit := headerName(h)
		switch {
		case oneOf(base, groupHeaders):
			gi = append(gi, i)
		case mi < 0 && oneOf(base, machinesHeaders):
			mi, t.MachinesColumn = i, strings.TrimSpace(h)
		case di < 0 && oneOf(base, dataHeaders):
			di, t.DataColumn = i, strings.TrimSpace(h)
		case ti < 0:
			ok, suffix := runtimeHeader(base)
			if !ok {
				continue
			}
			ti, t.Unit = i, suffix
			if unit != "" {
				if t.Unit, err = Unit(unit); err != nil {
					return nil, fmt.Errorf("%s:1: column %d (%s): %w", name, i+1, strings.TrimSpace(h), err)
				}
			}
		}
	}
	if mi < 0 || ti < 0 {
		return nil, fmt.Errorf("%s:1: header %q: want a machines column (%s) and a runtime column (%s; a unit after it as runtime_s or in parentheses)",
			name, strings.Join(head, ","), strings.Join(machinesHeaders, ", "), strings.Join(runtimeHeaders, ", "))
	}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		num := func(col int) (float64, error) {
			if col >= len(rec) {
				return 0, fmt.Errorf("%s:%d: %d fields, want a value in column %d (%s)", name, line, len(rec), col+1, head[col])
			}
			v, err := strconv.ParseFloat(strings.TrimSpace(rec[col]), 64)
			if err != nil || !(v > 0) {
				return 0, fmt.Errorf("%s:%d: column %d (%s) is %q, want a positive number", name, line, col+1, strings.TrimSpace(head[col]), rec[col])
			}
			return v, nil
		}
		p := Point{Data: 1}
		if p.Machines, err = num(mi); err != nil {
			return nil, err
		}
		if p.Runtime, err = num(ti); err != nil {
			return nil, err
		}
		if di >= 0 {
			if p.Data, err = num(di); err != nil {
				return nil, err
			}
		}
		var g []string
		for _, i := range gi {
			if i < len(rec) {
				g = append(g, strings.TrimSpace(rec[i]))
			}
		}
		p.Group = strings.Join(g, "/")
		t.Points = append(t.Points, p)
	}
	if len(t.Points) == 0 {
		return nil, fmt.Errorf("%s: a header and no runs", name)
	}
	return t, nil
}

// headerName is a header in lower case without '#', spaces and a unit in
// parentheses or brackets, and that unit.
func headerName(h string) (string, string) {
	h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(h), "#")))
	unit := ""
	if i := strings.IndexAny(h, "(["); i >= 0 {
		if j := strings.IndexAny(h[i:], ")]"); j > 0 {
			unit = strings.TrimSpace(h[i+1 : i+j])
		}
		h = strings.TrimSpace(h[:i])
	}
	return h, unit
}

func oneOf(s string, set []string) bool {
	for _, x := range set {
		if s == x {
			return true
		}
	}
	return false
}

// Machines says what counts as a run's machines in the run history.
type Machines string

// Machine measures of a history.Run's cluster.
const (
	MachinesHosts     Machines = "hosts"     // hosts that ran tasks (Ernest's and Bell's machines)
	MachinesExecutors Machines = "executors" // executors (MapReduce: task hosts)
	MachinesCores     Machines = "cores"     // peak executor cores (Ernest's example counts cores)
)

// HistoryRuns turns runs of one recurring job into points: the succeeded
// runs with a duration, their machines as m says, their input bytes as the
// data size (1 for every run when none read input) and their duration in
// ms.
func HistoryRuns(runs []*history.Run, m Machines) (*RunTable, error) {
	t := &RunTable{Unit: "ms", MachinesColumn: string(m), DataColumn: "input bytes"}
	anyInput := false
	for _, r := range runs {
		if r.Status == history.StatusSucceeded && r.Totals.InputBytes > 0 {
			anyInput = true
		}
	}
	if !anyInput {
		t.DataColumn = ""
	}
	for _, r := range runs {
		if r.Status != history.StatusSucceeded || r.DurationMs <= 0 {
			continue
		}
		var n int
		switch m {
		case MachinesExecutors:
			n = r.Cluster.Executors
		case MachinesCores:
			n = r.Cluster.Cores
		case MachinesHosts, "":
			n = r.Cluster.Hosts
		default:
			return nil, fmt.Errorf("machines %q: want hosts, executors or cores", m)
		}
		p := Point{Machines: float64(n), Data: 1, Runtime: float64(r.DurationMs)}
		if anyInput {
			p.Data = float64(r.Totals.InputBytes)
		}
		if n > 0 && p.Data > 0 {
			t.Points = append(t.Points, p)
		}
	}
	return t, nil
}
