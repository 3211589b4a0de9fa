package driver

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/clusterlens/clusterlens/internal/anomaly"
	"github.com/clusterlens/clusterlens/internal/metrics"
	"github.com/clusterlens/clusterlens/internal/model"
)

// WindowSpans are AbnormalWindows' counts as durations, turned into
// samples at each node's own interval.
type WindowSpans struct {
	Window, History, Lookback, MinHistory, Step, LongHistory time.Duration
}

// DefaultWindowSpans are anomaly.DefaultWindowParams at one sample a
// minute.
func DefaultWindowSpans() WindowSpans {
	p := anomaly.DefaultWindowParams()
	m := func(n int) time.Duration { return time.Duration(n) * time.Minute }
	return WindowSpans{Window: m(p.Window), History: m(p.History), Lookback: m(p.Lookback), MinHistory: m(p.MinHistory), Step: m(p.Step),
		LongHistory: m(p.LongHistory)}
}

// WindowsQuery is what Windows judges and how.
type WindowsQuery struct {
	// From and To bound the samples read (zero: open); Hosts selects
	// nodes (nil: all).
	From, To time.Time
	Hosts    []string
	// Spans are the counts of Params as durations; Params' own counts are
	// replaced by them at each node's interval.
	Spans  WindowSpans
	Params anomaly.WindowParams
}

// WindowsReport is Windows' answer.
type WindowsReport struct {
	Params anomaly.WindowParams  `json:"-"`
	Spans  WindowSpans           `json:"-"`
	Nodes  []anomaly.NodeWindows `json:"nodes"`
}

// Windows finds each node's abnormal time windows in the samples of m
// (anomaly.AbnormalWindows: HybridTune's Algorithms 4 and 5 applied to
// time windows against the node's own recent past). A node's instants
// are its distinct sample times; its metrics every per-node sample type
// (samples with a Target, per device or thread, are left out). A source
// read in part gives the report on what was read and a *MetricsError
// that is metrics.ErrPartial.
func Windows(ctx context.Context, m *Metrics, q WindowsQuery) (*WindowsReport, error) {
	type node struct {
		rows    map[int64][]float64
		metrics map[string]int
	}
	nodes := map[string]*node{}
	err := m.Read(ctx, Query{From: q.From, To: q.To, Hosts: q.Hosts}, func(s *model.Sample) error {
		if s.Target != "" || math.IsInf(s.Value, 0) || s.Value != s.Value {
			return nil
		}
		n := nodes[s.Host]
		if n == nil {
			n = &node{rows: map[int64][]float64{}, metrics: map[string]int{}}
			nodes[s.Host] = n
		}
		j, ok := n.metrics[s.Type]
		if !ok {
			j = len(n.metrics)
			n.metrics[s.Type] = j
		}
		r := n.rows[s.Time]
		for len(r) <= j {
			r = append(r, math.NaN())
		}
		r[j] = s.Value
		n.rows[s.Time] = r
		return nil
	})
	if err != nil && !errors.Is(err, metrics.ErrPartial) {
		return nil, metricsError(err)
	}
	readErr := metricsError(err)
	if len(nodes) == 0 {
		return nil, errors.Join(fmt.Errorf("windows: the source holds no per-node samples in the range asked"), readErr)
	}
	rep := &WindowsReport{Params: q.Params, Spans: q.Spans}
	hosts := make([]string, 0, len(nodes))
	for h := range nodes {
		hosts = append(hosts, h)
	}
	slices.Sort(hosts)
	for _, h := range hosts {
		n := nodes[h]
		names := make([]string, len(n.metrics))
		for name, j := range n.metrics {
			names[j] = name
		}
		order := make([]int, len(names)) // columns by metric name
		for j := range order {
			order[j] = j
		}
		sort.Slice(order, func(a, b int) bool { return names[order[a]] < names[order[b]] })
		times := make([]int64, 0, len(n.rows))
		for t := range n.rows {
			times = append(times, t)
		}
		slices.Sort(times)
		x := make([][]float64, len(times))
		flat := make([]float64, len(times)*len(names))
		for i, t := range times {
			x[i] = flat[i*len(names) : (i+1)*len(names)]
			r := n.rows[t]
			for k, j := range order {
				x[i][k] = math.NaN()
				if j < len(r) {
					x[i][k] = r[j]
				}
			}
		}
		sorted := make([]string, len(names))
		for k, j := range order {
			sorted[k] = names[j]
		}
		nw, err := nodeWindows(h, times, sorted, x, q)
		if err != nil {
			return nil, err
		}
		rep.Nodes = append(rep.Nodes, nw)
	}
	return rep, readErr
}

// nodeWindows judges one node: its instants times, its metrics' values x
// (one column per name).
func nodeWindows(host string, times []int64, names []string, x [][]float64, q WindowsQuery) (anomaly.NodeWindows, error) {
	nw := anomaly.NodeWindows{Host: host, Samples: len(times), FromMs: times[0], ToMs: times[len(times)-1], Windows: []anomaly.TimeWindow{}}
	if len(times) < 2 {
		nw.Note = "one instant: no interval, nothing to judge"
		return nw, nil
	}
	gaps := make([]int64, len(times)-1)
	for i := range gaps {
		gaps[i] = times[i+1] - times[i]
	}
	slices.Sort(gaps)
	nw.IntervalMs = gaps[len(gaps)/2]
	p := q.Params
	count := func(d time.Duration) int {
		return max(1, int(math.Round(float64(d.Milliseconds())/float64(nw.IntervalMs))))
	}
	p.Window, p.History, p.Lookback, p.MinHistory, p.Step = count(q.Spans.Window), max(count(q.Spans.History), 2),
		count(q.Spans.Lookback), max(count(q.Spans.MinHistory), 2), count(q.Spans.Step)
	if p.LongHistory = 0; q.Spans.LongHistory > 0 {
		p.LongHistory = count(q.Spans.LongHistory)
	}
	if len(times) <= p.MinHistory {
		nw.Note = fmt.Sprintf("%d instants, not more than the %d (%s) of history a window needs", len(times), p.MinHistory, q.Spans.MinHistory)
		return nw, nil
	}
	res, err := anomaly.AbnormalWindows(x, p)
	if err != nil {
		return nw, fmt.Errorf("windows: node %s: %w", host, err)
	}
	return res.InTime(host, times, nw.IntervalMs, names), nil
}
