package anomaly

import (
	"fmt"
	"math"
	"slices"
)

// HostWork is what ran on a host during a stage's window there, as
// correlate.StageViews measures it: Share is the stage's own attempts'
// share of every known attempt running on the host in the window, Rows
// how many sample rows its vector averages.
type HostWork struct {
	Share float64
	Rows  int
	// FetchBytes and FetchMs are the stage's attempts' remote shuffle
	// bytes on the host and the time they waited for them; WriteBytes
	// and WriteMs their shuffle output and the time writing it (0 when
	// unknown). StageParams.RateRatio compares their ratios across hosts.
	FetchBytes, FetchMs float64
	WriteBytes, WriteMs float64
}

// StageInput is one stage attempt's hosts and their metric vectors
// (x[i][j], NaN missing, as for AbnormalNodes), with each host's work
// beside the stage (Work, indexed like Hosts; nil: unknown, every host
// kept).
type StageInput struct {
	Hosts, Metrics []string
	X              [][]float64
	Work           []HostWork
	// Scale (nil: none) is each metric's reference magnitude, for example
	// its high quantile over every host's samples of the run
	// (correlate.StageView.Scale): with ScaleMax a metric is divided by
	// the larger of it and the stage's largest value, so a metric every
	// host barely uses in the stage (a few incidental network transfers)
	// stays near 0 instead of being stretched to 0-against-1.
	Scale []float64
}

// StageParams choose which hosts of a stage the abnormal-node test
// (§3.3.3) compares (docs/ANOMALY.md measures each). The zero value keeps every host.
type StageParams struct {
	// MinShare leaves out hosts where the stage's own attempts were less
	// than this share of the work running there in its window: their
	// metrics describe other work.
	MinShare float64
	// MinRows leaves out hosts whose vector averages fewer sample rows.
	MinRows int
	// RateRatio (0: off) also flags a host whose stage tasks' shuffle
	// fetch throughput (FetchBytes/FetchMs) or shuffle write throughput
	// (WriteBytes/WriteMs) is under RateRatio times the other hosts'
	// median: the stage's own work ran slow there, whatever the node
	// metrics say. A lossy link slows every transfer to or from its
	// node, so the peers fetching from it wait too, but they still fetch
	// from the healthy nodes at full speed: the culprit's rate stands
	// out, its peers' do not.
	RateRatio float64
	// MinRateMs is the least waiting or writing time (ms) a host's tasks
	// need for their rate to count (short waits are noise).
	MinRateMs float64
}

// SlowRate is a throughput of a stage's own tasks on a host that
// StageParams.RateRatio found low: Rate names it ("shuffle-fetch",
// "shuffle-write"), Value and PeerMedian are bytes/ms.
type SlowRate struct {
	Rate              string
	Value, PeerMedian float64
}

// StageNodes is AbnormalNodes on one stage's comparable hosts: the hosts
// p leaves out (Excluded) are neither compared nor flagged. It returns
// every host's score in input order (NaN for excluded hosts), or nil when
// fewer than three hosts remain to compare.
func StageNodes(in StageInput, np NodeParams, sp StageParams) ([]NodeScore, error) {
	n := len(in.Hosts)
	if in.Work != nil && len(in.Work) != n {
		return nil, fmt.Errorf("stage nodes: %d hosts but %d work entries", n, len(in.Work))
	}
	if len(in.X) != n {
		return nil, fmt.Errorf("stage nodes: %d hosts but %d rows of values", n, len(in.X))
	}
	var keep []int
	for i := range in.Hosts {
		if in.Work != nil && (in.Work[i].Share < sp.MinShare || in.Work[i].Rows < max(sp.MinRows, 1)) {
			continue
		}
		keep = append(keep, i)
	}
	if len(keep) < 3 {
		return nil, nil
	}
	hosts := make([]string, len(keep))
	x := make([][]float64, len(keep))
	for k, i := range keep {
		hosts[k], x[k] = in.Hosts[i], in.X[i]
	}
	scores, err := abnormalNodes(hosts, in.Metrics, x, in.Scale, np)
	if err != nil {
		return nil, fmt.Errorf("stage nodes: %w", err)
	}
	out := make([]NodeScore, n)
	for i, h := range in.Hosts {
		out[i] = NodeScore{Host: h, Score: math.NaN(), Excluded: true}
	}
	for k, i := range keep {
		out[i] = scores[k]
	}
	if sp.RateRatio > 0 && in.Work != nil {
		slowRates(out, keep, in.Work, sp)
	}
	return out, nil
}

// slowRates flags the kept hosts whose tasks' fetch or write throughput
// is under sp.RateRatio times the other kept hosts' median.
func slowRates(out []NodeScore, keep []int, work []HostWork, sp StageParams) {
	for _, r := range []struct {
		name string
		rate func(w HostWork) (float64, bool)
	}{
		{"shuffle-fetch", func(w HostWork) (float64, bool) {
			return w.FetchBytes / w.FetchMs, w.FetchBytes > 0 && w.FetchMs >= max(sp.MinRateMs, 1)
		}},
		{"shuffle-write", func(w HostWork) (float64, bool) {
			return w.WriteBytes / w.WriteMs, w.WriteBytes > 0 && w.WriteMs >= max(sp.MinRateMs, 1)
		}},
	} {
		var idx []int
		var vals []float64
		for _, i := range keep {
			if v, ok := r.rate(work[i]); ok {
				idx = append(idx, i)
				vals = append(vals, v)
			}
		}
		if len(idx) < 3 {
			continue
		}
		sorted := slices.Clone(vals)
		slices.Sort(sorted)
		for k, i := range idx {
			med := medianExcluding(sorted, vals[k])
			if vals[k] < sp.RateRatio*med {
				out[i].Abnormal = true
				out[i].Slow = append(out[i].Slow, SlowRate{Rate: r.name, Value: vals[k], PeerMedian: med})
			}
		}
	}
}

// DefaultStageParams returns StageNodes' defaults, chosen on the
// simulator's tuning seeds (docs/ANOMALY.md): every host compared, and a
// host whose tasks fetched or wrote shuffle data at under half the other
// hosts' median rate, over at least a second, flagged.
func DefaultStageParams() StageParams { return StageParams{RateRatio: 0.5, MinRateMs: 1000} }

// DefaultStageNodeParams are the abnormal-node test's parameters for StageNodes on
// correlate.DefaultStageOptions' views: with the run-wide scale the
// healthy hosts' scores sit near 1, so the threshold (0.95) only rules out
// the obviously similar and the gap under the median (0.05) decides. 0.05
// is the largest gap better than AbnormalNodes' defaults on raw stage
// matrices in both precision and recall on 12 and 50 nodes (tuning
// seeds); 0.08 trades recall for precision (docs/ANOMALY.md).
func DefaultStageNodeParams() NodeParams {
	return NodeParams{Threshold: 0.95, Gap: 0.05, Evidence: 3, Scale: ScaleMax}
}
