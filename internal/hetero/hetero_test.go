package hetero

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/history"
)

// TestJointRecoversNodeSpeeds fits a synthetic history whose node speeds
// are known and compares the learned factors with them: a node's factor on
// a resource is how much slower than the median node it runs that resource
// class's stages (the CPU stage loads cpu 1 and io 0.1, the IO stage 0.2
// and 1), each within 5%; and the classes with the three generations.
func TestJointRecoversNodeSpeeds(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	s := newSynth(30, rng)
	m, err := Fit(s.runs(rng, 400, 10, 3, 0.3, 0), DefaultParams)
	if err != nil {
		t.Fatal(err)
	}
	missed := 0
	for _, sp := range m.Speeds() {
		u := s.slow[hostIndex(s, sp.Host)]
		want := [2]float64{u[0] + 0.1*u[1], 0.2*u[0] + u[1]}
		// Factors are against the median node (class 2: slowness 0).
		for r, f := range sp.Factors {
			if got := math.Log(f.Factor.Value); math.Abs(got-want[r]) > 0.05 {
				t.Errorf("%s %s: factor %.3f, want %.3f", sp.Host, f.Resource, f.Factor.Value, math.Exp(want[r]))
			}
			if f.Factor.Low > math.Exp(want[r]) || f.Factor.High < math.Exp(want[r]) {
				missed++
			}
		}
	}
	// 95% intervals: about 3 of 60 may miss.
	if missed > 8 {
		t.Errorf("%d of 60 intervals miss the true factor", missed)
	}
	cs := m.Classes()
	if len(cs) != 3 || len(cs[0].Nodes) != 10 || !cs[2].SlowByDesign || cs[1].SlowByDesign {
		t.Errorf("classes: %+v", cs)
	}
}

// TestJudgeUnknownAndDegraded: a node with no history is unknown, never a
// verdict; one with too little is unknown with what is missing; a node
// slowed 1.5x on IO is degraded in io; a slow-by-design node is not a
// culprit.
func TestJudgeUnknownAndDegraded(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	s := newSynth(12, rng)
	hist := s.runs(rng, 300, 6, 3, 0.3, 0)
	// host0011 appears in the history with only 2 tasks.
	hist = append(hist, &history.Run{Key: "spark/lone/", Engine: "spark", NameKey: "job 1",
		Stages: []history.Stage{{ID: 0, Signature: "stage 0|i---0", Class: history.ClassCPU}},
		Hosts:  []history.HostStage{{Stage: 0, Host: "newbie", Tasks: 2, SumLog: 15, SumSqLog: 113, SumMs: 3000, SumSqMs: 5e6, MaxMs: 2000}}})
	m, err := Fit(hist, DefaultParams)
	if err != nil {
		t.Fatal(err)
	}
	s.degrade["host0004"] = [2]float64{0, math.Log(1.5)}
	s.nodes = append(s.nodes, "stranger", "newbie")
	s.slow = append(s.slow, [2]float64{}, [2]float64{})
	judged := s.runs(rng, 60, 8, 3, 0.3, 1e9)
	for _, v := range m.Judge(judged) {
		switch v.Host {
		case "stranger":
			if v.Status != StatusUnknown || !strings.Contains(v.Why, "no history") {
				t.Errorf("stranger: %s (%s), want unknown for no history", v.Status, v.Why)
			}
		case "newbie":
			if v.Status != StatusUnknown || !strings.Contains(v.Why, "too little history: 2 tasks, 10 needed") {
				t.Errorf("newbie: %s (%s), want unknown for too little history", v.Status, v.Why)
			}
		case "host0004":
			if v.Status != StatusDegraded || v.Resource != ResourceIO {
				t.Errorf("host0004: %s %s (%s), want degraded io", v.Status, v.Resource, v.Why)
			}
		default:
			if v.Culprit() {
				t.Errorf("%s: innocent called a culprit: %s", v.Host, v.Why)
			}
			if s.slow[hostIndex(s, v.Host)] == synthClasses[2] && v.Status != StatusSlowClass {
				t.Errorf("%s: %s, want slow-class", v.Host, v.Status)
			}
		}
	}
	if _, err := Fit(nil, DefaultParams); !errors.Is(err, ErrNoHistory) {
		t.Errorf("Fit(no runs): %v, want ErrNoHistory", err)
	}
	if _, err := FitPaper([]*history.Run{{Key: "x"}}, DefaultParams); !errors.Is(err, ErrNoHistory) {
		t.Errorf("FitPaper(no host rows): %v, want ErrNoHistory", err)
	}
}

func hostIndex(s *synth, h string) int {
	for i, n := range s.nodes {
		if n == h {
			return i
		}
	}
	return -1
}

// BenchmarkFit10kRuns1kNodes fits the joint model on 10,000 runs of a
// 1,000-node cluster generated in memory (each run 2 stages on 100 hosts,
// 3 tasks each: 2 M host-stage rows), the scale target.
func BenchmarkFit10kRuns1kNodes(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	s := newSynth(1000, rng)
	runs := s.runs(rng, 10_000, 100, 3, 0.3, 0)
	rows := 0
	for _, r := range runs {
		rows += len(r.Hosts)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Fit(runs, DefaultParams); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rows), "rows")
}

// TestClassesFromFacts: nodes whose instance type the logs name are of
// that type's class, whatever their learned speed (the m5 nodes here are of
// two speeds: the slower ones are the verdicts' business), and each class
// describes its nodes' facts (types, executor cores seen at once, racks)
// for a person to check it against; the slowest type is slow by design.
func TestClassesFromFacts(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	s := newSynth(12, rng)
	hist := s.runs(rng, 300, 6, 3, 0.3, 0)
	typeOf := func(i int) string { return map[int]string{0: "m5.2xlarge", 1: "m5.2xlarge", 2: "m4.2xlarge"}[i%3] }
	for _, r := range hist {
		seen := map[string]bool{}
		for _, h := range r.Hosts {
			if seen[h.Host] {
				continue
			}
			seen[h.Host] = true
			i := hostIndex(s, h.Host)
			r.HostFacts = append(r.HostFacts, history.HostFact{Host: h.Host, Rack: []string{"/r1", "/r2"}[i%2], Cores: 8 * (1 + i%3), InstanceType: typeOf(i)})
		}
	}
	m, err := Fit(hist, DefaultParams)
	if err != nil {
		t.Fatal(err)
	}
	cs := m.Classes()
	if len(cs) != 2 || !strings.HasSuffix(cs[0].Name, " m5.2xlarge") || len(cs[0].Nodes) != 8 || cs[0].SlowByDesign ||
		!strings.HasSuffix(cs[1].Name, " m4.2xlarge") || !cs[1].SlowByDesign {
		t.Fatalf("classes %+v: want m5.2xlarge (8 nodes) and the slow m4.2xlarge", cs)
	}
	for _, c := range cs {
		typ := m.facts[c.Nodes[0]].InstanceType
		if len(c.Facts) != 3 || !strings.Contains(c.Facts[0], typ+" (") || !strings.Contains(c.Facts[2], "/r1") {
			t.Errorf("class %s: facts %q, want described by %s, cores and racks", c.Name, c.Facts, typ)
		}
	}
	for _, sp := range m.Speeds() {
		i := hostIndex(s, sp.Host)
		if sp.Facts.MaxCores != 8*(1+i%3) || sp.Facts.Rack == "" || sp.Facts.InstanceType != typeOf(i) {
			t.Errorf("%s: facts %+v", sp.Host, sp.Facts)
		}
	}
}

// TestClassesNeedEvidence: nodes of one hardware whose learned speeds
// differ by chance (few tasks each) stay one class: a split needs a gap
// beyond the factors' uncertainty as well as ClassGap.
func TestClassesNeedEvidence(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	s := newSynth(8, rng)
	for i := range s.slow {
		s.slow[i] = [2]float64{}
	}
	m, err := Fit(s.runs(rng, 8, 8, 2, 0.4, 0), DefaultParams)
	if err != nil {
		t.Fatal(err)
	}
	if cs := m.Classes(); len(cs) != 1 {
		t.Errorf("%d classes of one hardware from 8 short runs, want 1: %+v", len(cs), cs)
	}
}

// TestMapReduceReducesLeftOut: a MapReduce job's reduces start before its
// maps end and wait for them, so their durations differ by node for no
// fault of the node's (seen in the GridMix trace of shared/data); setup and
// cleanup tasks are the trackers' heartbeats. Nodes whose maps run alike
// are one class however long their reduces, setups and cleanups took.
func TestMapReduceReducesLeftOut(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	var runs []*history.Run
	for i := range 60 {
		r := &history.Run{Key: fmt.Sprintf("mapreduce/job_%d/", i), Engine: "mapreduce", NameKey: "gridmix"}
		for s, name := range []string{"setup", "map", "reduce", "cleanup"} {
			r.Stages = append(r.Stages, history.Stage{ID: int32(s), Name: name, Signature: name, Class: history.ClassIO, RunTimeMs: 1})
			for h := range 6 {
				wait := 1.0
				if name != "map" {
					wait = math.Exp(float64(h%3) - 1 + 0.3*rng.NormFloat64()) // 0.37x to 2.7x by node
				}
				hs := history.HostStage{Stage: int32(s), Host: fmt.Sprintf("tt%d", h), MinMs: math.MaxInt64}
				for range 3 {
					d := 20_000 * wait * math.Exp(0.1*rng.NormFloat64())
					hs.Tasks++
					hs.SumMs += d
					hs.SumSqMs += d * d
					hs.SumLog += math.Log(d)
					hs.SumSqLog += math.Log(d) * math.Log(d)
					hs.MinMs, hs.MaxMs = min(hs.MinMs, int64(d)), max(hs.MaxMs, int64(d))
				}
				r.Hosts = append(r.Hosts, hs)
			}
		}
		runs = append(runs, r)
	}
	m, err := Fit(runs, DefaultParams)
	if err != nil {
		t.Fatal(err)
	}
	if cs := m.Classes(); len(cs) != 1 {
		t.Errorf("%d classes, want 1 (the maps run alike): %+v", len(cs), cs)
	}
}
