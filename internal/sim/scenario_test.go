package sim

import (
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
