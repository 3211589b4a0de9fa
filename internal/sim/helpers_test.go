package sim

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// seeds are the seeds every scenario test runs with.
var seeds = []uint64{1, 2, 3}

// testScenarios are the named scenarios small enough for unit tests.
func testScenarios() []string {
	var out []string
	for _, n := range Names() {
		if n != "large" {
			out = append(out, n)
		}
	}
	return out
}

func mustNamed(t testing.TB, name string) *Scenario {
	t.Helper()
	sc, err := Named(name)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// sample is one metric value of one host at one time.
type sample struct {
	ts    int64
	host  string
	value float64
}

// simulateMetrics runs a scenario and returns its samples by metric name.
func simulateMetrics(t testing.TB, sc *Scenario, seed uint64) (*Result, map[string][]sample) {
	t.Helper()
	var buf bytes.Buffer
	res, err := Simulate(sc, seed, &buf)
	if err != nil {
		t.Fatal(err)
	}
	by := map[string][]sample{}
	sc2 := bufio.NewScanner(&buf)
	sc2.Buffer(make([]byte, 1<<16), 1<<20)
	first := true
	for sc2.Scan() {
		if first {
			first = false
			if sc2.Text() != "timestamp_ms,host,metric,value" {
				t.Fatalf("header %q", sc2.Text())
			}
			continue
		}
		f := strings.Split(sc2.Text(), ",")
		if len(f) != 4 {
			t.Fatalf("bad row %q", sc2.Text())
		}
		ts, err1 := strconv.ParseInt(f[0], 10, 64)
		v, err2 := strconv.ParseFloat(f[3], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("bad row %q", sc2.Text())
		}
		by[f[2]] = append(by[f[2]], sample{ts, f[1], v})
	}
	return res, by
}

// meanOf averages a metric of host over [from, to) (all hosts but host when others).
func meanOf(s []sample, host string, others bool, from, to int64) float64 {
	var sum float64
	var n int
	for _, x := range s {
		if x.ts < from || x.ts >= to || (x.host == host) == others {
			continue
		}
		sum += x.value
		n++
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}
