package driver

import (
	"context"
	"errors"
	"log/slog"
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
	err := m.Read(ctx, Query{From: from, To: to, Types: peer.GaneshaMetrics}, func(s *model.Sample) error { tb.Add(s); return nil })
	if err != nil && !errors.Is(err, metrics.ErrPartial) {
		return nil, metricsError(err)
	}
	return tb, metricsError(err)
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
	incomplete := tb.Each(o.ObserveVector)
	o.Flush()
	rep := &peer.Report{Params: in.Params, Indictments: o.Indictments(), Nodes: o.Statuses(), Dropped: int64(incomplete)}
	rep.Vectors, rep.Unknown, _ = o.Counts()
	if in.Attribute {
		rep.Verdicts = peer.Attribute(rep.Nodes, in.Workload, in.Params)
	}
	return rep, readErr
}
