package peer

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// baselineVectors draws n vectors of 3 metrics per host: "a" and "b" alike,
// "odd" with its first metric 50 higher all the time.
func baselineVectors(rng *rand.Rand, n int) map[string][][]float64 {
	out := map[string][][]float64{}
	for _, h := range []string{"a", "b", "odd"} {
		for range n {
			x := []float64{10 + rng.NormFloat64(), 100 + 10*rng.NormFloat64(), 5 + rng.Float64()}
			if h == "odd" {
				x[0] += 50
			}
			out[h] = append(out[h], x)
		}
	}
	return out
}

// TestBaselineSelf: each node's own model knows its own usual vectors and
// not another's; a node with too few vectors has none; a saved baseline
// reads back with the same answers, and broken ones are refused with the
// file named.
func TestBaselineSelf(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	metrics := []string{"m1", "m2", "m3"}
	v := baselineVectors(rng, 700)
	v["new"] = v["a"][:20]
	b, short, err := TrainBaseline(v, nil, metrics, BaselineTrainOptions(), DefaultBaselineParams())
	if err != nil {
		t.Fatal(err)
	}
	if len(short) != 1 || short["new"] != 20 || b.Has("new") || !b.Has("odd") {
		t.Fatalf("short %v, has new %v, has odd %v: want new left out", short, b.Has("new"), b.Has("odd"))
	}
	z := make([]float64, 3)
	share := func(b *Baseline, host string, vs [][]float64) float64 {
		n := 0
		for _, x := range vs {
			if b.Unknown(host, x, z) {
				n++
			}
		}
		return float64(n) / float64(len(vs))
	}
	fresh := baselineVectors(rand.New(rand.NewPCG(3, 4)), 300)
	if s := share(b, "odd", fresh["odd"]); s > 0.1 {
		t.Errorf("odd's own vectors: %.2f unknown to its model, want its usual few", s)
	}
	if s := share(b, "a", fresh["odd"]); s < 0.9 {
		t.Errorf("odd's vectors: %.2f unknown to a's model, want nearly all", s)
	}
	var buf bytes.Buffer
	if err := b.Save(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := LoadBaseline(&buf, "b.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"a", "odd"} {
		if x, y := share(b, h, fresh["odd"]), share(back, h, fresh["odd"]); x != y {
			t.Errorf("%s: %.3f unknown before saving, %.3f after", h, x, y)
		}
	}
	if err := back.Check([]string{"m1", "m2"}); err == nil {
		t.Error("a baseline over other metrics passed Check")
	}
	for _, bad := range []string{
		`{"kind":"other","version":1}`,
		`{"kind":"clusterlens-peer-baseline","version":3,"params":{"selfShare":0.4,"minVectors":600}}`,
		`{"kind":"clusterlens-peer-baseline","version":1,"params":{"selfShare":1.5,"minVectors":600}}`,
		`{"kind":"clusterlens-peer-baseline","version":1,"params":{"selfShare":0.4,"minVectors":600},"hosts":{"a":null}}`,
		`{"kind":"clusterlens-peer-baseline","version":1,"params":{"selfShare":0.4,"minVectors":600},"hosts":{"a":{"kind":"clusterlens-peer-profile","version":1}}}`,
		`{"kind":"clusterlens-peer-baseline","version":1,"extra":1}`,
		`{"kind":"clusterlens-peer-baseline","version":2,"params":{"selfShare":0.4,"minVectors":600,"levelMargin":-1}}`,
		`{"kind":"clusterlens-peer-baseline","version":2,"params":{"selfShare":0.4,"minVectors":600,"levelMargin":0.75},"hosts":{},"levels":{"a":[1]}}`,
		strings.Replace(levelsJSON, `[1.5]`, `[1.5, 2]`, 1), // a level per metric
	} {
		if _, err := LoadBaseline(strings.NewReader(bad), "bad.json"); err == nil || !strings.Contains(err.Error(), "bad.json") {
			t.Errorf("%s: %v, want an error naming bad.json", bad, err)
		}
	}
}

// levelsJSON is a valid version-2 baseline of one host over one metric.
const levelsJSON = `{"kind":"clusterlens-peer-baseline","version":2,"params":{"selfShare":0.4,"minVectors":1,"levelMargin":0.75},"hosts":{"h":{"kind":"clusterlens-peer-profile","version":1,"metrics":["a"],"transform":"log1p-zscore","mean":[0],"std":[1],"k":1,"minLogLik":-10,"gmm":{"Weights":[1],"Means":{"N":1,"D":1,"X":[0]},"Covs":[{"N":1,"D":1,"X":[1]}]},"params":{"windowS":60,"decay":0.97,"stepS":10,"distThreshold":0.5,"peerFraction":0.5,"alarmDecay":0.8,"indictThreshold":3,"maxPairwise":256,"sampledPeers":64,"graceS":2,"minNodes":3}}},"levels":{"h":[1.5]}}`

// FuzzLoadBaseline: no input panics, and an accepted baseline answers for
// every host.
func FuzzLoadBaseline(f *testing.F) {
	f.Add([]byte(`{"kind":"clusterlens-peer-baseline","version":1,"params":{"selfShare":0.4,"minVectors":600},"hosts":{}}`))
	f.Add([]byte(`{"kind":"clusterlens-peer-baseline","version":1,"params":{"selfShare":0.4,"minVectors":1},"hosts":{"h":{"kind":"clusterlens-peer-profile","version":1,"metrics":["a"],"transform":"log1p-zscore","mean":[0],"std":[1],"k":1,"minLogLik":-10,"gmm":{"Weights":[1],"Means":{"N":1,"D":1,"X":[0]},"Covs":[{"N":1,"D":1,"X":[1]}]},"params":{"windowS":60,"decay":0.97,"stepS":10,"distThreshold":0.5,"peerFraction":0.5,"alarmDecay":0.8,"indictThreshold":3,"maxPairwise":256,"sampledPeers":64,"graceS":2,"minNodes":3}}}}`))
	f.Add([]byte(levelsJSON))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := LoadBaseline(bytes.NewReader(data), "fuzz")
		if err != nil {
			return
		}
		for h, p := range b.Hosts {
			x := make([]float64, len(p.MetricNames))
			z := make([]float64, len(x))
			b.Unknown(h, x, z)
			m := newMeanWindow(len(x), max(1, p.Params.WindowS), p.Params.Decay)
			m.add(z)
			if j, _ := b.beyond(h, &m); j >= len(x) {
				t.Fatalf("beyond %d of %d metrics", j, len(x))
			}
		}
	})
}

// TestBaselineLevels: a node whose history writes hard in short bursts
// knows each second of a hog that writes that hard without pause, but no
// window of its history held it that long: the window's mean is beyond its
// levels, while a window like its history's is not.
func TestBaselineLevels(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	metrics := []string{"m1", "m2", "m3"}
	draw := func(n int, busy func(i int) bool) [][]float64 {
		var out [][]float64
		for i := range n {
			x := []float64{10 + rng.NormFloat64(), 100 + 10*rng.NormFloat64(), 5 + rng.Float64()}
			if busy(i) {
				x[0] = 60 + 3*rng.NormFloat64()
			}
			out = append(out, x)
		}
		return out
	}
	bursts := func(i int) bool { return i%100 < 5 }
	b, _, err := TrainBaseline(map[string][][]float64{"h": draw(3000, bursts)}, nil, metrics, BaselineTrainOptions(), DefaultBaselineParams())
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Levels["h"]) != len(metrics) {
		t.Fatalf("levels %v, want one per metric", b.Levels["h"])
	}
	judge := func(vs [][]float64) (unknown float64, beyond []int) {
		p := b.Hosts["h"]
		m := newMeanWindow(len(metrics), p.Params.WindowS, p.Params.Decay)
		z := make([]float64, len(metrics))
		for _, x := range vs {
			if b.Unknown("h", x, z) {
				unknown++
			}
			m.add(z)
			if m.n >= halfWindow(p.Params.WindowS) {
				j, _ := b.beyond("h", &m)
				beyond = append(beyond, j)
			}
		}
		return unknown / float64(len(vs)), beyond
	}
	u, beyond := judge(draw(120, func(int) bool { return true }))
	if u > b.Params.SelfShare {
		t.Fatalf("the hog's vectors %.2f unknown to the node's own model: want them known (its bursts)", u)
	}
	if got := beyond[len(beyond)-1]; got != 0 {
		t.Errorf("a whole window of bursting: beyond %d, want metric 0", got)
	}
	if _, beyond := judge(draw(1000, bursts)); slices.ContainsFunc(beyond, func(j int) bool { return j >= 0 }) {
		t.Errorf("windows like its history's: beyond %v, want -1 throughout", beyond)
	}
	b.Params.LevelMargin = 100
	if _, beyond := judge(draw(120, func(int) bool { return true })); beyond[len(beyond)-1] != -1 {
		t.Errorf("margin 100: beyond %d, want -1", beyond[len(beyond)-1])
	}
}

// TestLoadBaselineLevels: a version-2 file's levels read back.
func TestLoadBaselineLevels(t *testing.T) {
	b, err := LoadBaseline(strings.NewReader(levelsJSON), "b.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Levels["h"]; len(got) != 1 || got[0] != 1.5 || b.Params.LevelMargin != 0.75 {
		t.Errorf("levels %v, margin %g: want [1.5] and 0.75", got, b.Params.LevelMargin)
	}
}
