package peer

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
)

// TestProfileRoundTrip checks that a saved profile reads back and labels
// every training vector as the original does.
func TestProfileRoundTrip(t *testing.T) {
	prof := trainedProfile(t)
	var buf bytes.Buffer
	if err := prof.Save(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := LoadProfile(bytes.NewReader(buf.Bytes()), "profile.json")
	if err != nil {
		t.Fatal(err)
	}
	r := simulate(t, "clean", 10, 77)
	z1, z2 := make([]float64, len(GaneshaMetrics)), make([]float64, len(GaneshaMetrics))
	n, unknown := 0, 0
	for _, x := range trainingVectors(t, []simRun{r}) {
		a, b := prof.Label(x, z1), back.Label(x, z2)
		if a != b {
			t.Fatalf("vector %d: label %d, after reading back %d", n, a, b)
		}
		if a == prof.K {
			unknown++
		}
		n++
	}
	// An unseen clean run: "unknown" should stay near the training quantile.
	if frac := float64(unknown) / float64(n); frac > 0.05 {
		t.Errorf("%.3f of an unseen clean run's vectors are unknown, want ≤ 0.05", frac)
	}
}

func TestLoadProfileErrors(t *testing.T) {
	prof := trainedProfile(t)
	var buf bytes.Buffer
	if err := prof.Save(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.String()
	for name, text := range map[string]string{
		"not json":     "{",
		"kind":         strings.Replace(good, ProfileKind, "other", 1),
		"version":      strings.Replace(good, `"version": 1`, `"version": 99`, 1),
		"unknown key":  strings.Replace(good, `"kind"`, `"extra": 1, "kind"`, 1),
		"no gmm":       strings.Replace(good, `"gmm"`, `"gmmx"`, 1),
		"bad params":   strings.Replace(good, `"windowS": 60`, `"windowS": 0`, 1),
		"transform":    strings.Replace(good, transformLog1pZ, "none", 1),
		"empty object": "{}",
	} {
		if _, err := LoadProfile(strings.NewReader(text), "p.json"); err == nil || !strings.Contains(err.Error(), "p.json") {
			t.Errorf("%s: error %v, want one naming p.json", name, err)
		} else if name != "not json" && name != "unknown key" && name != "no gmm" && !errors.Is(err, ErrProfile) && !errors.Is(err, ErrParams) {
			t.Errorf("%s: %v does not wrap ErrProfile or ErrParams", name, err)
		}
	}
}

// FuzzLoadProfile: no input panics, and an accepted profile labels a vector.
func FuzzLoadProfile(f *testing.F) {
	f.Add([]byte(`{"kind":"clusterlens-peer-profile","version":1}`))
	f.Add([]byte(`{"kind":"clusterlens-peer-profile","version":1,"metrics":["a"],"transform":"log1p-zscore","mean":[0],"std":[1],"k":1,"minLogLik":-10,"gmm":{"Weights":[1],"Means":{"N":1,"D":1,"X":[0]},"Covs":[{"N":1,"D":1,"X":[1]}]},"params":{"windowS":60,"decay":0.97,"stepS":10,"distThreshold":0.5,"peerFraction":0.5,"alarmDecay":0.8,"indictThreshold":3,"maxPairwise":256,"sampledPeers":64,"graceS":2,"minNodes":3}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := LoadProfile(bytes.NewReader(data), "fuzz")
		if err != nil {
			return
		}
		x := make([]float64, len(p.MetricNames))
		z := make([]float64, len(x))
		if l := p.Label(x, z); l < 0 || l > p.K {
			t.Fatalf("label %d outside 0..%d", l, p.K)
		}
		for _, v := range z {
			if math.IsNaN(v) {
				t.Fatalf("normalised vector has NaN: %v", z)
			}
		}
	})
}
