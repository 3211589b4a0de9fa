package nodediag

import (
	"fmt"
	"slices"

	"github.com/clusterlens/clusterlens/internal/anomaly"
	"github.com/clusterlens/clusterlens/internal/correlate"
	"github.com/clusterlens/clusterlens/internal/model"
)

// StageNodes is one stage attempt's HybridTune node comparison: the hosts
// that ran it compared by the abnormal-node test (§3.3.3), and the
// abnormal ones with their outlier metrics (§3.3.4).
type StageNodes struct {
	StageID int32  `json:"stageId"`
	Attempt int32  `json:"attempt"`
	Name    string `json:"name"`
	// Hosts is how many sampled hosts ran the stage, Compared how many of
	// them StageNodes compared (those with samples in the stage's window).
	Hosts    int `json:"hosts"`
	Compared int `json:"compared"`
	// Threshold is the similarity threshold σ (§3.3.3), MedianScore the
	// median of the hosts' scores (an abnormal node is also Gap under it).
	Threshold   float64 `json:"threshold"`
	Gap         float64 `json:"gap"`
	MedianScore float64 `json:"medianScore"`
	// Principal are the PCA's principal metrics for the stage (§3.3.4).
	Principal []string       `json:"principalMetrics"`
	Abnormal  []AbnormalNode `json:"abnormal"`
}

// AbnormalNode is one node the abnormal-node test found abnormal in a stage.
type AbnormalNode struct {
	Host string `json:"host"`
	// Score is its average cosine similarity to the other hosts.
	Score float64 `json:"score"`
	// Differing are the metrics farthest from the other hosts' median
	// (normalised across the hosts, in [0, 1]).
	Differing []MetricDelta `json:"differing"`
	// Outliers are the principal metrics Algorithm 5 flagged on it (§3.3.4).
	Outliers []OutlierMetric `json:"outliers"`
	// Slow are the stage's own tasks' shuffle throughputs on the node
	// under StageParams.RateRatio times the other hosts' median (each
	// makes the node abnormal whatever its score).
	Slow []SlowRate `json:"slow,omitempty"`
}

// SlowRate is anomaly.SlowRate with JSON names: Rate is shuffle-fetch or
// shuffle-write, Value and PeerMedian bytes per ms.
type SlowRate struct {
	Rate       string  `json:"rate"`
	Value      float64 `json:"value"`
	PeerMedian float64 `json:"peerMedian"`
}

// MetricDelta is anomaly.MetricDelta with JSON names.
type MetricDelta struct {
	Metric     string  `json:"metric"`
	Value      float64 `json:"value"`
	PeerMedian float64 `json:"peerMedian"`
	Delta      float64 `json:"delta"`
}

// OutlierMetric is anomaly.MetricOutlier with JSON names: the metric's
// value on the node and its peers' median (its units), which test flagged
// it (magnitude: decades ≥ Orders; distance: two-class distance > DMin).
type OutlierMetric struct {
	Metric     string  `json:"metric"`
	Value      float64 `json:"value"`
	PeerMedian float64 `json:"peerMedian"`
	Score      float64 `json:"score"`
	Decades    float64 `json:"decades"`
	Magnitude  bool    `json:"magnitude"`
	Distance   float64 `json:"distance"`
	Distant    bool    `json:"distant"`
}

// StageSeries returns, for each stage matrix (indexed like App.Stages, as
// c.StageMatrices() or c.StageViews(...) give them), each host's series of
// each of its metrics within the stage's window there:
// series[si][row of mats[si].Hosts][metric column]. It is the
// outlier-metric diagnosis' input, built in one pass over every matched host's frame (the wiring
// docs/ANOMALY.md describes).
func StageSeries(c *correlate.Correlation, mats []correlate.StageMatrix) [][][][]float64 {
	series := make([][][][]float64, len(mats))
	for si, sm := range mats {
		series[si] = make([][][]float64, len(sm.Hosts))
		for h := range sm.Hosts {
			series[si][h] = make([][]float64, len(sm.Metrics))
		}
	}
	for k := 0; k < c.Hosts(); k++ {
		match, frame, _ := c.Host(k)
		c.EachStage(k, func(row int, si int32) {
			sm := &mats[si]
			h, ok := slices.BinarySearch(sm.Hosts, match.Host) // Hosts are sorted log names
			if !ok {
				return
			}
			for j, name := range sm.Metrics {
				series[si][h][j] = append(series[si][h][j], float64(frame.Value(row, model.NodeMetricIndex(name))))
			}
		})
	}
	return series
}

// Stages runs the abnormal-node test (§3.3.3; anomaly.StageNodes on
// correlate's stage views under vo: the hosts compared on the stage's own
// work, with the slow shuffle-rate test of sp) and the outlier-metric
// diagnosis (§3.3.4) on every stage attempt that ran
// on at least three sampled hosts, and returns how many were compared and
// those with an abnormal node.
func Stages(c *correlate.Correlation, vo correlate.StageOptions, np anomaly.NodeParams, sp anomaly.StageParams,
	op anomaly.OutlierParams) (compared int, out []StageNodes, err error) {
	views := c.StageViews(vo)
	mats := make([]correlate.StageMatrix, len(views))
	for i := range views {
		mats[i] = views[i].StageMatrix
	}
	series := StageSeries(c, mats)
	app := c.App()
	for si := range views {
		v := &views[si]
		in := anomaly.StageInput{Hosts: v.Hosts, Metrics: v.Metrics, X: v.Rows(), Scale: v.Scale}
		for _, w := range v.Work {
			in.Work = append(in.Work, anomaly.HostWork{Share: w.Share, Rows: w.Rows, FetchBytes: w.FetchBytes,
				FetchMs: w.FetchMs, WriteBytes: w.WriteBytes, WriteMs: w.WriteMs})
		}
		scores, err := anomaly.StageNodes(in, np, sp)
		if err != nil {
			return compared, out, fmt.Errorf("stage %d.%d abnormal nodes: %w", v.Stage.ID, v.Stage.Attempt, err)
		}
		if scores == nil {
			continue // fewer than three hosts to compare
		}
		compared++
		var abn []int
		var med []float64
		for i, s := range scores {
			if !s.Excluded {
				med = append(med, s.Score)
			}
			if s.Abnormal {
				abn = append(abn, i)
			}
		}
		if len(abn) == 0 {
			continue
		}
		sn := StageNodes{StageID: v.Stage.ID, Attempt: v.Stage.Attempt, Hosts: len(v.Hosts), Compared: len(med),
			Threshold: np.Threshold, Gap: np.Gap, MedianScore: median(med)}
		var outliers []anomaly.NodeOutliers
		if rep, err := anomaly.OutlierMetrics(v.Hosts, v.Metrics, series[si], op); err == nil {
			sn.Principal, outliers = rep.Principal, rep.Nodes
		}
		if si < len(app.Stages) {
			sn.Name = app.Stages[si].Name
		}
		for _, i := range abn {
			s := scores[i]
			an := AbnormalNode{Host: s.Host, Score: s.Score, Differing: []MetricDelta{}, Outliers: []OutlierMetric{}}
			for _, d := range s.Differing {
				an.Differing = append(an.Differing, MetricDelta(d))
			}
			if i < len(outliers) {
				for _, o := range outliers[i].Outliers() {
					an.Outliers = append(an.Outliers, OutlierMetric{Metric: o.Metric, Value: o.Value, PeerMedian: o.PeerMedian,
						Score: o.Score, Decades: o.Decades, Magnitude: o.Magnitude, Distance: o.Distance, Distant: o.Distant})
				}
			}
			for _, r := range s.Slow {
				an.Slow = append(an.Slow, SlowRate(r))
			}
			sn.Abnormal = append(sn.Abnormal, an)
		}
		out = append(out, sn)
	}
	return compared, out, nil
}

// median returns the median of v, reordering it.
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}
