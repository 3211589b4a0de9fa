package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestScenarioJSONRoundTrip checks that every named scenario, resolved and
// written as JSON, parses back to itself.
func TestScenarioJSONRoundTrip(t *testing.T) {
	for _, name := range Names() {
		sc := mustNamed(t, name)
		if err := sc.Resolve(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, err := json.Marshal(sc)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseScenario(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(sc, back) {
			t.Errorf("%s: round trip differs", name)
		}
	}
}

// TestScenarioErrors checks that bad scenarios are rejected with ErrScenario or a parse error.
func TestScenarioErrors(t *testing.T) {
	for _, c := range []struct{ json, want string }{
		{`{"cluster":{"nodes":0},"apps":[{"engine":"spark","class":"sort","inputGB":1}]}`, "cluster.nodes"},
		{`{"cluster":{"nodes":3},"apps":[{"engine":"flink","class":"sort","inputGB":1}]}`, "engine"},
		{`{"cluster":{"nodes":3},"apps":[{"engine":"spark","class":"pagerank","inputGB":1}]}`, "class"},
		{`{"cluster":{"nodes":3},"apps":[{"engine":"spark","class":"sort","inputGB":1}],"faults":[{"kind":"cpu-hog","node":5,"startS":0,"endS":1}]}`, "fault 0"},
		{`{"cluster":{"nodes":3},"apps":[{"engine":"spark","class":"sort","inputGB":1}],"faults":[{"kind":"packet-loss","node":1,"startS":0,"endS":1}]}`, "loss"},
		{`{"cluster":{"nodes":3},"apps":[{"engine":"spark","class":"sort","inputGB":1}],"problems":[{"kind":"skew","app":3}]}`, "problem 0"},
		{`{"cluster":{"nodes":3}}`, "no apps"},
	} {
		_, err := ParseScenario([]byte(c.json))
		if err == nil || !errors.Is(err, ErrScenario) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want ErrScenario mentioning %q", c.json, err, c.want)
		}
	}
	if _, err := ParseScenario([]byte(`{"cluster":{"nodes":3},"bogus":1}`)); err == nil || !strings.Contains(err.Error(), "bogus") {
		t.Errorf("unknown field: %v", err)
	}
	if _, err := Named("nope"); !errors.Is(err, ErrScenario) {
		t.Errorf("unknown name: %v", err)
	}
}

// TestCustomScenario simulates a small scenario given as JSON.
func TestCustomScenario(t *testing.T) {
	sc, err := ParseScenario([]byte(`{"name":"tiny","cluster":{"nodes":3},
		"apps":[{"engine":"spark","class":"sort","inputGB":0.5,"executors":2,"cores":2},
		        {"engine":"mapreduce","class":"randomwriter","inputGB":0.5,"executors":3}]}`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Simulate(sc, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Apps) != 2 || res.Truth.Apps[0].Stages != 3 || res.Truth.Apps[1].Stages != 1 {
		t.Fatalf("truth %+v", res.Truth.Apps)
	}
}

// TestExecutorTooBig rejects executors no node can host (they would wait forever).
func TestExecutorTooBig(t *testing.T) {
	_, err := ParseScenario([]byte(`{"cluster":{"nodes":3},"apps":[{"engine":"spark","class":"sort","inputGB":1,"cores":64}]}`))
	if !errors.Is(err, ErrScenario) || !strings.Contains(err.Error(), "64 cores") {
		t.Errorf("error %v", err)
	}
}

// TestAppsQueueAndFinish runs two applications that each need the whole
// cluster: the second waits for the first to end, and both finish.
func TestAppsQueueAndFinish(t *testing.T) {
	sc, err := ParseScenario([]byte(`{"cluster":{"nodes":2,"classes":[{"name":"c","share":1,"cores":4,"cpuSpeed":1,"diskMBps":100,"netMBps":100,"memoryGB":8}]},
		"apps":[{"engine":"spark","class":"wordcount","inputGB":1,"executors":2,"cores":4},
		        {"engine":"spark","class":"wordcount","inputGB":1,"executors":2,"cores":4,"submitS":1}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	res, err := Simulate(sc, 1, &buf)
	if err != nil {
		t.Fatal(err)
	}
	first := int64(1 << 62)
	for _, st := range res.Apps[1].Stages {
		for i := range st.Tasks {
			first = min(first, st.Tasks[i].Launch)
		}
	}
	if end := res.Apps[0].End; first < end-1000 {
		t.Errorf("second application's first task at %d, before the first application ended at %d", first, end)
	}
}

// TestWaitForHungNode runs an application on a one-node cluster whose node
// hangs from the start: it waits for the hang to end, then runs.
func TestWaitForHungNode(t *testing.T) {
	sc, err := ParseScenario([]byte(`{"cluster":{"nodes":1},
		"apps":[{"engine":"mapreduce","class":"wordcount","inputGB":0.5,"executors":2}],
		"faults":[{"kind":"hang","node":0,"startS":0,"endS":50}]}`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Simulate(sc, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range res.Apps[0].Stages {
		for i := range st.Tasks {
			if st.Tasks[i].Launch < sc.StartMs+50_000 {
				t.Fatalf("task launched at %d, during the hang", st.Tasks[i].Launch-sc.StartMs)
			}
		}
	}
}

// TestClusterSeed: runs of other seeds with the same cluster.seed have the
// same nodes' classes (the history of one cluster), and cluster.seed equal
// to the run's seed draws what the run's seed alone draws.
func TestClusterSeed(t *testing.T) {
	classes := func(seed, cseed uint64) string {
		t.Helper()
		sc, err := Named("clean")
		if err != nil {
			t.Fatal(err)
		}
		sc.Cluster.Seed = cseed
		sc.Metrics.Off = true
		res, err := Simulate(sc, seed, nil)
		if err != nil {
			t.Fatal(err)
		}
		var s string
		for _, n := range res.Truth.Nodes {
			s += n.Class + " "
		}
		return s
	}
	if a, b := classes(1, 42), classes(2, 42); a != b {
		t.Errorf("cluster seed 42 with run seeds 1 and 2: %s and %s", a, b)
	}
	if a, b := classes(42, 0), classes(7, 42); a != b {
		t.Errorf("run seed 42 alone %s, cluster seed 42 %s", a, b)
	}
	if a, b := classes(1, 0), classes(2, 0); a == b {
		t.Errorf("run seeds 1 and 2 drew the same classes %s", a)
	}
}
