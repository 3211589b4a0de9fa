package driver

import (
	"encoding/json"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/collector/collectortest"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/peer"
	"github.com/clusterlens/clusterlens/internal/store"
)

// TestStoreIndictments: an online indictment is stored once as a
// peer_indictment sample carrying its JSON, and a repeat is a duplicate.
func TestStoreIndictments(t *testing.T) {
	st := collectortest.NewMemStore()
	hook := StoreIndictments(t.Context(), st, slog.New(slog.NewTextHandler(io.Discard, nil)))
	in := peer.Indictment{Host: "node004.sim.local", Time: 1767225700000, AlarmCount: 4.2, Differs: 0.9}
	hook(in)
	hook(in)
	var got []model.Sample
	deadline := time.Now().Add(5 * time.Second)
	for len(got) == 0 || st.Batches() < 1 {
		if time.Now().After(deadline) {
			t.Fatal("indictment not stored within 5 s")
		}
		time.Sleep(10 * time.Millisecond)
		got = got[:0]
		err := st.Query(t.Context(), store.Query{Types: []string{peer.IndictmentType}}, func(s *model.Sample) error {
			got = append(got, *s)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(50 * time.Millisecond) // let the repeat land
	if st.Batches() != 1 {
		t.Errorf("%d batches stored, want 1 (the repeat is a duplicate)", st.Batches())
	}
	s := got[0]
	var back peer.Indictment
	if err := json.Unmarshal([]byte(s.Text), &back); err != nil || back != in {
		t.Errorf("stored text %q: %v", s.Text, err)
	}
	if s.Host != in.Host || s.Time != in.Time || s.Value != in.AlarmCount {
		t.Errorf("stored sample %+v, want host %s time %d value %g", s, in.Host, in.Time, in.AlarmCount)
	}
}
