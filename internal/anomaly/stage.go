package anomaly

import (
	"fmt"
	"math"
)

// HostWork is what ran on a host during a stage's window there, as
// correlate.StageViews measures it: Share is the stage's own attempts'
// share of every known attempt running on the host in the window, Rows
// how many sample rows its vector averages.
type HostWork struct {
	Share float64
	Rows  int
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

// StageParams choose which hosts of a stage Algorithm 4 compares
// (docs/ANOMALY.md measures each). The zero value keeps every host.
type StageParams struct {
	// MinShare leaves out hosts where the stage's own attempts were less
	// than this share of the work running there in its window: their
	// metrics describe other work.
	MinShare float64
	// MinRows leaves out hosts whose vector averages fewer sample rows.
	MinRows int
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
	return out, nil
}

// DefaultStageParams returns StageNodes' defaults.
func DefaultStageParams() StageParams { return StageParams{} }
