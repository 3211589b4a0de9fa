package nodediag

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/clusterlens/clusterlens/internal/correlate"
	"github.com/clusterlens/clusterlens/internal/peer"
)

// entries lists every frame row stamped within one of spans (each host's
// times shifted back by its offset, as Correlation applies them), in time
// order.
func entries(frames []*correlate.Frame, offsets map[string]int64, spans [][2]int64) []entry {
	var es []entry
	for h, f := range frames {
		off := offsets[f.Host]
		for i, t := range f.Times {
			t -= off
			for _, s := range spans {
				if t >= s[0] && t <= s[1] {
					es = append(es, entry{t, int32(h), int32(i)})
					break
				}
			}
		}
	}
	slices.SortStableFunc(es, func(a, b entry) int { return cmp.Compare(a.t, b.t) })
	return es
}

// vector writes row e's Ganesha metrics (model.NodeMetricNames[:14]) into
// x, false when one is missing.
func vector(frames []*correlate.Frame, e entry, x []float64) bool {
	r := frames[e.host].Row(int(e.row))
	for j := range x {
		v := float64(r[j])
		if math.IsNaN(v) {
			return false
		}
		x[j] = v
	}
	return true
}

// selfTrain trains a profile on the complete vectors of es, in order.
func selfTrain(frames []*correlate.Frame, es []entry, opt peer.TrainOptions, p peer.Params) (*peer.Profile, error) {
	var vs [][]float64
	for _, e := range es {
		x := make([]float64, len(peer.GaneshaMetrics))
		if vector(frames, e, x) {
			vs = append(vs, x)
		}
	}
	prof, err := peer.Train(vs, peer.GaneshaMetrics, opt, p)
	if err != nil {
		return nil, fmt.Errorf("self-train peer profile: %w", err)
	}
	return prof, nil
}
