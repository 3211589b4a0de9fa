package sim

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/eventlog"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
	"github.com/clusterlens/clusterlens/internal/source"
)

// spread summarizes task-duration spread within stages of at least 20
// successful tasks: per stage max/median and the coefficient of variation.
type spread struct {
	stages      int
	maxMed, cvs []float64
	// byLength, when set, is the same per stage length: stages whose median
	// task ran under 1 s, 1-5 s, and 5 s or more.
	byLength *[3]spread
}

// lengthEdgesMs are the median task durations that split byLength.
var lengthEdgesMs = [2]float64{1000, 5000}

func (s *spread) add(app *model.App) {
	for _, st := range app.Stages {
		var d []float64
		for i := range st.Tasks {
			if t := &st.Tasks[i]; t.Status == model.TaskSuccess && t.Duration() > 0 {
				d = append(d, float64(t.Duration()))
			}
		}
		if len(d) < 20 {
			continue
		}
		slices.Sort(d)
		med := d[len(d)/2]
		if len(d)%2 == 0 {
			med = (d[len(d)/2-1] + d[len(d)/2]) / 2
		}
		var mean, sq float64
		for _, v := range d {
			mean += v
		}
		mean /= float64(len(d))
		for _, v := range d {
			sq += (v - mean) * (v - mean)
		}
		maxMed, cv := d[len(d)-1]/med, math.Sqrt(sq/float64(len(d)))/mean
		s.record(maxMed, cv)
		if s.byLength != nil {
			k := 0
			for k < len(lengthEdgesMs) && med >= lengthEdgesMs[k] {
				k++
			}
			s.byLength[k].record(maxMed, cv)
		}
	}
}

// lengthRows are byLength's rows, each named after its lengths.
func (s *spread) lengthRows(source string) string {
	names := [3]string{"median task < 1 s", "median task 1-5 s", "median task ≥ 5 s"}
	var rows []string
	for k := range s.byLength {
		rows = append(rows, s.byLength[k].row(source+", "+names[k]))
	}
	return strings.Join(rows, "\n")
}

// record counts one stage's max/median and coefficient of variation.
func (s *spread) record(maxMed, cv float64) {
	s.stages++
	s.maxMed = append(s.maxMed, maxMed)
	s.cvs = append(s.cvs, cv)
}

func quantile(v []float64, q float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	slices.Sort(s)
	return s[int(math.Round(q*float64(len(s)-1)))]
}

func (s *spread) row(name string) string {
	return fmt.Sprintf("| %s | %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |", name, s.stages,
		quantile(s.maxMed, 0.25), quantile(s.maxMed, 0.5), quantile(s.maxMed, 0.9),
		quantile(s.cvs, 0.25), quantile(s.cvs, 0.5), quantile(s.cvs, 0.9))
}

// TestCalibration compares the simulator's task-duration spread within
// stages and its executor counts with the real logs in ../shared/data/logs,
// and prints the table docs/SIMULATOR.md shows (go test -run Calibration -v).
func TestCalibration(t *testing.T) {
	dir := sharedtest.Dir(t, "logs")
	res, err := decodelogs.Paths([]string{dir}, decodelogs.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	var real, realSpark, realMR spread
	realSpark.byLength = &[3]spread{}
	var realExec []float64
	for _, app := range res.Apps {
		real.add(app)
		if app.Engine == model.Spark {
			realSpark.add(app)
			n := 0
			for _, e := range app.Executors {
				if e.ID != "driver" {
					n++
				}
			}
			if n > 0 {
				realExec = append(realExec, float64(n))
			}
		} else {
			realMR.add(app)
		}
	}
	var sim, simSpark, simMR, homMR spread
	simSpark.byLength = &[3]spread{}
	var simExec []float64
	for _, name := range []string{"clean", "heterogeneous", "homogeneous"} {
		for _, seed := range []uint64{1, 2, 3, 4, 5} {
			sc := mustNamed(t, strings.Replace(name, "homogeneous", "clean", 1))
			if name == "homogeneous" {
				sc.Cluster.Classes = classesHetero()[1:2]
			}
			r, err := Simulate(sc, seed, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, app := range r.Apps {
				if name == "homogeneous" {
					if app.Engine == model.MapReduce {
						homMR.add(app)
					}
					continue
				}
				sim.add(app)
				if app.Engine == model.Spark {
					simSpark.add(app)
					simExec = append(simExec, float64(len(app.Executors)-1))
				} else {
					simMR.add(app)
				}
			}
		}
	}
	t.Logf("\n| source | stages (>= 20 tasks) | max/median p25 | p50 | p90 | CV p25 | p50 | p90 |\n|---|---|---|---|---|---|---|---|\n%s\n%s\n%s\n%s\n%s\n%s\n%s\n%s\n%s",
		real.row("real, all"), realSpark.row("real, Spark"), realSpark.lengthRows("real, Spark"), realMR.row("real, MapReduce"),
		sim.row("simulated, all (heterogeneous)"), simSpark.row("simulated, Spark (heterogeneous)"), simSpark.lengthRows("simulated, Spark"),
		simMR.row("simulated, MapReduce (heterogeneous)"), homMR.row("simulated, MapReduce (homogeneous)"))
	t.Logf("executors per Spark application: real median %.0f, p90 %.0f, max %.0f (%d apps); simulated median %.0f, max %.0f",
		quantile(realExec, 0.5), quantile(realExec, 0.9), quantile(realExec, 1), len(realExec), quantile(simExec, 0.5), quantile(simExec, 1))
	// The simulator's medians must lie within a factor 1.5 of the real
	// ones: Spark on the default heterogeneous clusters, per stage length
	// (1-5 s and 5 s or more: the real stages of shorter tasks are mostly
	// small test applications whose first task loads classes for 20x the
	// others' time, which the simulator's workloads do not have, so they
	// and all Spark stages together are reported, not required);
	// MapReduce on a homogeneous one like the production clusters behind
	// the real MapReduce traces. p90 is reported, not required.
	mid, long := &realSpark.byLength[1], &realSpark.byLength[2]
	simMid, simLong := &simSpark.byLength[1], &simSpark.byLength[2]
	for _, c := range []struct {
		what      string
		real, sim float64
	}{
		{"Spark 1-5 s median max/median", quantile(mid.maxMed, 0.5), quantile(simMid.maxMed, 0.5)},
		{"Spark 1-5 s median CV", quantile(mid.cvs, 0.5), quantile(simMid.cvs, 0.5)},
		{"Spark ≥ 5 s median max/median", quantile(long.maxMed, 0.5), quantile(simLong.maxMed, 0.5)},
		{"Spark ≥ 5 s median CV", quantile(long.cvs, 0.5), quantile(simLong.cvs, 0.5)},
		{"MapReduce median max/median", quantile(realMR.maxMed, 0.5), quantile(homMR.maxMed, 0.5)},
		{"MapReduce median CV", quantile(realMR.cvs, 0.5), quantile(homMR.cvs, 0.5)},
	} {
		if r := c.sim / c.real; r < 1/1.5 || r > 1.5 {
			t.Errorf("%s: simulated %.2f, real %.2f", c.what, c.sim, c.real)
		}
	}
}

// TestTaskEndFieldsByVersion lists the "Task Metrics" fields of
// SparkListenerTaskEnd per Spark version in the real logs, and checks that
// the 3.x logs share one field set (the one the simulator's logs carry).
func TestTaskEndFieldsByVersion(t *testing.T) {
	dir := sharedtest.Dir(t, "logs")
	logs, _, err := source.Find([]string{dir}, source.Options{PartHeader: eventlog.PartHeader, Formats: decodelogs.Formats()})
	if err != nil {
		t.Fatal(err)
	}
	sets := map[string]map[string]bool{}
	for _, l := range logs {
		if l.Kind != source.SparkEventLog {
			continue
		}
		version := l.SparkVersion
		for i := range l.Parts {
			rc, err := l.Open(i)
			if err != nil {
				continue
			}
			sc := bufio.NewScanner(rc)
			sc.Buffer(make([]byte, 1<<20), 64<<20)
			for sc.Scan() {
				line := sc.Bytes()
				switch {
				case strings.Contains(string(line[:min(len(line), 60)]), "SparkListenerLogStart"):
					var ev struct {
						V string `json:"Spark Version"`
					}
					if json.Unmarshal(line, &ev) == nil {
						version = ev.V
					}
				case strings.Contains(string(line[:min(len(line), 60)]), "SparkListenerTaskEnd"):
					var ev struct {
						M map[string]json.RawMessage `json:"Task Metrics"`
					}
					if json.Unmarshal(line, &ev) != nil || ev.M == nil {
						continue
					}
					v := version
					if v == "" {
						v = "1.x (no LogStart)"
					}
					if k := strings.SplitN(v, ".", 3); len(k) >= 2 {
						v = k[0] + "." + k[1]
					}
					if sets[v] == nil {
						sets[v] = map[string]bool{}
					}
					for f := range ev.M {
						sets[v][f] = true
					}
				}
			}
			rc.Close()
		}
	}
	var versions []string
	for v := range sets {
		versions = append(versions, v)
	}
	sort.Strings(versions)
	var b strings.Builder
	b.WriteString("\n| Spark version | Task Metrics fields |\n|---|---|\n")
	for _, v := range versions {
		fmt.Fprintf(&b, "| %s | %d |\n", v, len(sets[v]))
	}
	// The simulator's logs (Spark 3.5) carry the real 3.5 logs' field set.
	res, err := Simulate(mustNamed(t, "demo"), 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := eventlog.Write(&buf, res.Apps[0]); err != nil {
		t.Fatal(err)
	}
	simSet := map[string]bool{}
	for _, line := range bytes.Split(buf.Bytes(), []byte("\n")) {
		if !bytes.Contains(line, []byte(`"SparkListenerTaskEnd"`)) {
			continue
		}
		var ev struct {
			M map[string]json.RawMessage `json:"Task Metrics"`
		}
		if json.Unmarshal(line, &ev) == nil {
			for f := range ev.M {
				simSet[f] = true
			}
		}
	}
	fmt.Fprintf(&b, "| simulated (3.5.1) | %d |\n", len(simSet))
	t.Log(b.String())
	real35 := sets["3.5"]
	if len(real35) == 0 {
		t.Fatal("no Spark 3.5 TaskEnd events found in the real logs")
	}
	for f := range real35 {
		if !simSet[f] {
			t.Errorf("simulated TaskEnd lacks %q", f)
		}
	}
	for f := range simSet {
		if !real35[f] {
			t.Errorf("simulated TaskEnd has %q, which real 3.5 logs lack", f)
		}
	}
}

var _ = source.Unknown
