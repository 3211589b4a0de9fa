package peer

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/common/expfmt"
	pmodel "github.com/prometheus/common/model"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/promtext"
	"github.com/clusterlens/clusterlens/internal/wire"
)

// TestOnlineBatches feeds a CPU-hog run as the collector would: one agent
// per node shipping 10-second batches, agents concurrently; the culprit
// must be indicted and exported as indicted on the Prometheus registry.
func TestOnlineBatches(t *testing.T) {
	prof := trainedProfile(t)
	r := simulate(t, "cpu-hog", 10, 21)
	culprit := r.res.Truth.Faults[0].Host
	perHost := map[string][]model.Sample{}
	r.replay(t, func(s *model.Sample) { perHost[s.Host] = append(perHost[s.Host], *s) })
	o, err := NewOnline(prof, prof.Params, discardLogger)
	if err != nil {
		t.Fatal(err)
	}
	var hooked []Indictment
	o.OnIndict(func(in Indictment) { hooked = append(hooked, in) })
	reg := promtext.NewRegistry(o)
	// Agents advance together, 10 s per round, each round in parallel.
	const batch = 10 * 22
	var wg sync.WaitGroup
	for round := 0; ; round++ {
		more := false
		for host, ss := range perHost {
			lo := round * batch
			if lo >= len(ss) {
				continue
			}
			more = true
			wg.Add(1)
			go func(b *wire.Batch) {
				defer wg.Done()
				o.ObserveBatch(b)
			}(&wire.Batch{Agent: host, Seq: uint64(round + 1), Samples: ss[lo:min(len(ss), lo+batch)]})
		}
		wg.Wait()
		if !more {
			break
		}
	}
	o.Flush()
	found := false
	for _, in := range o.Indictments() {
		found = found || in.Host == culprit
	}
	if !found {
		t.Fatalf("culprit %s not indicted; indictments %v", culprit, o.Indictments())
	}
	if !slices.Equal(hooked, o.Indictments()) {
		t.Errorf("OnIndict saw %v, Indictments says %v", hooked, o.Indictments())
	}
	// Read back with Prometheus's own parser.
	rec := httptest.NewRecorder()
	reg.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	parser := expfmt.NewTextParser(pmodel.UTF8Validation)
	mfs, err := parser.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	var maxCount float64
	for name, mf := range mfs {
		if name != "clusterlens_peer_alarm_count" {
			continue
		}
		for _, m := range mf.GetMetric() {
			if strings.Contains(m.String(), culprit) {
				maxCount = m.GetGauge().GetValue()
			}
		}
	}
	st := o.Statuses()
	for _, s := range st {
		if s.Host == culprit && s.AlarmCount != maxCount {
			t.Errorf("exported alarm count %g, status says %g", maxCount, s.AlarmCount)
		}
	}
	if v, _, _ := o.Counts(); v != int64(len(r.res.Truth.Nodes))*int64(len(perHost[culprit]))/22 {
		t.Errorf("%d vectors labelled, want one per node and second", v)
	}
}
