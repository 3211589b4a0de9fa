package driver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/clusterlens/clusterlens/internal/metrics"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/peer"
)

// PeerTable reads the samples of m stamped within [from, to] (a zero
// time: open) into complete Ganesha vectors. A source read in part gives
// its table and a *MetricsError that is metrics.ErrPartial; one that
// fails gives nil and a *MetricsError.
func PeerTable(ctx context.Context, m *Metrics, from, to time.Time) (*peer.Table, error) {
	tb := peer.NewTable(peer.GaneshaMetrics)
	err := ReadPeerTable(ctx, m, from, to, tb)
	if err != nil && !errors.Is(err, metrics.ErrPartial) {
		return nil, err
	}
	return tb, err
}

// ReadPeerTable adds m's samples of Ganesha's metrics stamped within
// [from, to] to tb (several sources into one table: what they give twice
// is kept once and counted, peer.Table.Overlaps). A source read in part
// gives a *MetricsError that is metrics.ErrPartial.
func ReadPeerTable(ctx context.Context, m *Metrics, from, to time.Time, tb *peer.Table) error {
	err := m.Read(ctx, Query{From: from, To: to, Types: peer.GaneshaMetrics}, func(s *model.Sample) error { tb.Add(s); return nil })
	return metricsError(err)
}

// Peers are the inputs of a peer diagnosis besides the samples.
type Peers struct {
	// Profile is the trained Ganesha profile (required); Params its
	// deployment parameters (zero: the profile's).
	Profile *peer.Profile
	Params  peer.Params
	// Baseline is the nodes' own fault-free models (nil: none): a node is
	// then indicted only when it differs from its peers and from itself.
	Baseline *peer.Baseline
	// Workload is what the applications of the time ran on each node
	// (nil: none, every node compared with all its peers).
	Workload *peer.Workload
	// Attribute names each indicted node culprit or victim, with the
	// resource affected and the metrics that show it (peer.Attribute,
	// with Workload's slowdowns when given).
	Attribute bool
}

// DiagnosePeers replays the samples of m stamped within [from, to]
// through Ganesha's online detector (docs/PEER.md): every node compared
// with its peers at each step. A source read in part gives the report on
// what was read and a *MetricsError that is metrics.ErrPartial.
func DiagnosePeers(ctx context.Context, m *Metrics, from, to time.Time, in Peers) (*peer.Report, error) {
	if in.Params == (peer.Params{}) {
		in.Params = in.Profile.Params
	}
	o, err := peer.NewOnline(in.Profile, in.Params, slog.New(slog.DiscardHandler))
	if err != nil {
		return nil, err
	}
	if in.Baseline != nil {
		if err := o.SetBaseline(in.Baseline); err != nil {
			return nil, err
		}
	}
	if in.Workload != nil {
		o.SetWorkload(in.Workload)
	}
	tb, readErr := PeerTable(ctx, m, from, to)
	if tb == nil {
		return nil, readErr
	}
	want := in.Profile.Metrics()
	if got := tb.Present(want); len(got) < len(want) && len(got) > 0 {
		return nil, fmt.Errorf("the profile compares %d metrics and the source records %d: %s missing (train the profile and baseline on the same kind of source: peer train uses the metrics its sources record)",
			len(want), len(got), strings.Join(missingOf(want, got), ", "))
	}
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	incomplete := tb.EachOf(want, func(h string, t int64, x []float64) {
		lo, hi = min(lo, t), max(hi, t)
		o.ObserveVector(h, t, x)
	})
	o.Flush()
	rep := &peer.Report{Params: in.Params, Indictments: o.Indictments(), Nodes: o.Statuses(), Dropped: int64(incomplete),
		Wide: o.WidePeriods(), Overlaps: tb.Overlaps()}
	if in.Baseline != nil && lo <= hi {
		if ov := in.Baseline.Overlap(lo, hi); len(ov) > 0 {
			rep.BaselineOverlap = ov
		}
	}
	rep.Vectors, rep.Unknown, _ = o.Counts()
	if in.Attribute {
		rep.Verdicts = peer.Attribute(rep.Nodes, in.Workload, in.Params)
	}
	return rep, readErr
}

// missingOf returns the names of want not in got.
func missingOf(want, got []string) []string {
	var out []string
	for _, w := range want {
		if !slices.Contains(got, w) {
			out = append(out, w)
		}
	}
	return out
}
