package correlate

import (
	"encoding/json"
	"testing"
)

func TestClassify(t *testing.T) {
	o := ProfileOptions{}.withDefaults()
	for _, c := range []struct {
		cpu, disk, net float64
		dom            string
		class          Class
	}{
		{0.8, 0.1, 0.05, "cpu", CPUBound},
		{0.2, 0.7, 0.05, "disk", DiskBound},
		{0.1, 0.2, 0.6, "network", NetworkBound},
		{0.4, 0.35, 0.1, "cpu", Mixed},  // not 1.5x the runner-up
		{0.25, 0.1, 0.05, "cpu", Mixed}, // under MinShare
		{0, 0, 0, "", Unknown},
	} {
		d, cl := classify(c.cpu, c.disk, c.net, o)
		if d != c.dom || cl != c.class {
			t.Errorf("%v %v %v: %s %s, want %s %s", c.cpu, c.disk, c.net, d, cl, c.dom, c.class)
		}
	}
}

// FuzzClassCounts: any JSON either fails to decode with an error or
// decodes into counts that encode and decode back to themselves.
func FuzzClassCounts(f *testing.F) {
	f.Add(`{"cpu-bound":3,"mixed":1}`)
	f.Add(`{"nope":1}`)
	f.Add(`[1,2]`)
	f.Fuzz(func(t *testing.T, s string) {
		var cc ClassCounts
		if err := json.Unmarshal([]byte(s), &cc); err != nil {
			return
		}
		b, err := json.Marshal(cc)
		if err != nil {
			t.Fatal(err)
		}
		var back ClassCounts
		if err := json.Unmarshal(b, &back); err != nil || back != cc {
			t.Fatalf("%s: %v -> %s -> %v (%v)", s, cc, b, back, err)
		}
	})
}
