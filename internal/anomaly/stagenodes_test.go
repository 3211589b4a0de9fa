package anomaly

import (
	"math"
	"testing"
)

// TestStageScaleFloor: a metric every host barely uses (one host's few
// incidental network transfers) makes that host abnormal under ScaleMax,
// 0-against-1; with the run's scale as the floor it stays near 0 and no
// host is flagged, while a real difference on a used metric still is.
func TestStageScaleFloor(t *testing.T) {
	hosts := []string{"a", "b", "c", "d"}
	metrics := []string{"cpu_usage", "net_tx_bytes_per_s"}
	x := [][]float64{{50, 0}, {52, 0}, {48, 0}, {50, 1000}}
	p := DefaultStageNodeParams()
	raw, err := AbnormalNodes(hosts, metrics, x, p)
	if err != nil {
		t.Fatal(err)
	}
	// By hand: d's normalised vector is (50/52, 1), the others' (v/52, 0):
	// cosine 0.96/sqrt(0.96²+1) ≈ 0.69.
	if !raw[3].Abnormal || math.Abs(raw[3].Score-0.693) > 0.01 {
		t.Fatalf("without the floor d scores %.3f (abnormal %v), want ≈ 0.693 and abnormal", raw[3].Score, raw[3].Abnormal)
	}
	in := StageInput{Hosts: hosts, Metrics: metrics, X: x, Scale: []float64{100, 1e8}}
	got, err := StageNodes(in, p, StageParams{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range got {
		if n.Abnormal || n.Score < 0.999 {
			t.Fatalf("with the floor %s scores %.4f (abnormal %v), want ≥ 0.999 and normal", n.Host, n.Score, n.Abnormal)
		}
	}
	// A CPU hog on d (no time left to wait on I/O) still stands out on the
	// metrics every host uses: cosine (0.95, 0.01) against (0.3, 0.2) ≈ 0.84.
	in = StageInput{Hosts: hosts, Metrics: []string{"cpu_usage", "cpu_iowait_pct", "net_tx_bytes_per_s"},
		X: [][]float64{{30, 20, 0}, {32, 18, 0}, {28, 22, 0}, {95, 1, 1000}}, Scale: []float64{100, 100, 1e8}}
	if got, err = StageNodes(in, p, StageParams{}); err != nil {
		t.Fatal(err)
	}
	if !got[3].Abnormal || math.Abs(got[3].Score-0.84) > 0.02 || got[0].Abnormal {
		t.Fatalf("the hog scores %.3f (abnormal %v), a %.3f (%v); want ≈ 0.84 and abnormal, a normal", got[3].Score, got[3].Abnormal, got[0].Score, got[0].Abnormal)
	}
	in.Scale = []float64{100, 100}
	if _, err := StageNodes(in, p, StageParams{}); err == nil {
		t.Fatal("two scales for three metrics: no error")
	}
}

// TestStageSlowRates: a host whose tasks fetched at a fifth of the other
// hosts' rate is flagged with the rate and the peers' median, whatever its
// cosine score; a host whose tasks waited under MinRateMs is not judged.
func TestStageSlowRates(t *testing.T) {
	hosts := []string{"a", "b", "c", "d", "e"}
	x := [][]float64{{1, 1}, {1, 1}, {1, 1}, {1, 1}, {1, 1}}
	work := []HostWork{
		{Share: 1, Rows: 10, FetchBytes: 10e6, FetchMs: 1000},
		{Share: 1, Rows: 10, FetchBytes: 12e6, FetchMs: 1000},
		{Share: 1, Rows: 10, FetchBytes: 8e6, FetchMs: 1000},
		{Share: 1, Rows: 10, FetchBytes: 4e6, FetchMs: 2000}, // 2000 B/ms against a median of 10,000
		{Share: 1, Rows: 10, FetchBytes: 1e5, FetchMs: 500},  // too short a wait
	}
	in := StageInput{Hosts: hosts, Metrics: []string{"m1", "m2"}, X: x, Work: work}
	got, err := StageNodes(in, DefaultStageNodeParams(), DefaultStageParams())
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range got {
		want := i == 3
		if n.Abnormal != want || (len(n.Slow) > 0) != want {
			t.Fatalf("%s: abnormal %v slow %v, want %v", n.Host, n.Abnormal, n.Slow, want)
		}
	}
	s := got[3].Slow[0]
	if s.Rate != "shuffle-fetch" || s.Value != 2000 || s.PeerMedian != 10000 {
		t.Fatalf("slow rate %+v, want shuffle-fetch 2000 against 10000", s)
	}
	sp := DefaultStageParams()
	sp.RateRatio = 0
	if got, _ = StageNodes(in, DefaultStageNodeParams(), sp); got[3].Abnormal {
		t.Fatal("RateRatio 0 still flags the slow fetcher")
	}
}

// TestStageExclusion: hosts whose window is mostly other work, or whose
// vector averages too few rows, are left out (Excluded, NaN score, never
// abnormal); with fewer than three left there is no comparison.
func TestStageExclusion(t *testing.T) {
	hosts := []string{"a", "b", "c", "d"}
	x := [][]float64{{1, 0}, {1, 0.1}, {1, 0}, {0, 1}}
	work := []HostWork{{Share: 1, Rows: 10}, {Share: 0.8, Rows: 10}, {Share: 0.9, Rows: 10}, {Share: 0.1, Rows: 10}}
	in := StageInput{Hosts: hosts, Metrics: []string{"m1", "m2"}, X: x, Work: work}
	got, err := StageNodes(in, DefaultStageNodeParams(), StageParams{MinShare: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	if !got[3].Excluded || got[3].Abnormal || !math.IsNaN(got[3].Score) {
		t.Fatalf("d (share 0.1) not left out: %+v", got[3])
	}
	for _, n := range got[:3] {
		if n.Excluded || math.IsNaN(n.Score) {
			t.Fatalf("%s left out: %+v", n.Host, n)
		}
	}
	if all, _ := StageNodes(in, DefaultStageNodeParams(), StageParams{}); !all[3].Abnormal {
		t.Fatalf("kept, d (orthogonal to the others) is not abnormal: %+v", all[3])
	}
	if got, err = StageNodes(in, DefaultStageNodeParams(), StageParams{MinShare: 0.85}); err != nil || got != nil {
		t.Fatalf("two hosts left: %v, %v; want nil, nil", got, err)
	}
	if got, err = StageNodes(in, DefaultStageNodeParams(), StageParams{MinRows: 11}); err != nil || got != nil {
		t.Fatalf("no host with 11 rows: %v, %v; want nil, nil", got, err)
	}
	in.Work = work[:2]
	if _, err := StageNodes(in, DefaultStageNodeParams(), StageParams{}); err == nil {
		t.Fatal("two work entries for four hosts: no error")
	}
}
