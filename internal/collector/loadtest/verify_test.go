package loadtest

import (
	"context"
	"testing"

	"github.com/clusterlens/clusterlens/internal/collector/collectortest"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/wire"
)

// TestVerifyCountsEachFault plants one fault of each kind in a store and
// checks that Verify counts exactly those.
func TestVerifyCountsEachFault(t *testing.T) {
	a, b := &node{host: "a"}, &node{host: "b"}
	var all []model.Sample
	for _, n := range []*node{a, b} {
		for _, ms := range []int64{1000, 2000, 3000} {
			var err error
			if all, err = n.Sample(timeMs(ms), all); err != nil {
				t.Fatal(err)
			}
		}
	}
	res := &Result{nodes: []*node{a, b}}
	store := func(samples []model.Sample) *collectortest.MemStore {
		st := collectortest.NewMemStore()
		st.Append(context.Background(), &wire.Batch{Agent: "x", Seq: 1, Samples: samples})
		return st
	}
	check := func(name string, samples []model.Sample, want Check) {
		t.Helper()
		want.Produced = int64(len(all))
		got, err := Verify(context.Background(), store(samples), res)
		if err != nil || got != want {
			t.Errorf("%s: %v (%v), want %v", name, got, err, want)
		}
		if got.OK() != (want.Missing+want.Extra+want.Wrong == 0 && want.Stored == want.Produced) {
			t.Errorf("%s: OK() = %v", name, got.OK())
		}
	}
	n := int64(len(all))
	check("exact", all, Check{Stored: n})

	missing := append(append([]model.Sample{}, all[:5]...), all[6:]...)
	check("one missing", missing, Check{Stored: n - 1, Missing: 1})

	dup := append(append([]model.Sample{}, all...), all[7])
	check("one duplicate", dup, Check{Stored: n + 1, Extra: 1})

	wrong := append([]model.Sample{}, all...)
	wrong[3].Value++
	check("one wrong value", wrong, Check{Stored: n, Wrong: 1})

	extra := append(append([]model.Sample{}, all...), model.Sample{Time: 2500, Host: "a", Type: "load1",
		Value: valueOf("a", "load1", "", 2500)})
	check("one unproduced time", extra, Check{Stored: n + 1, Extra: 1})

	check("empty store", nil, Check{Missing: n})
}
