// Package live follows what is still happening: the node samples the
// collector keeps storing, with Ganesha's online peer diagnosis over them,
// and the event logs of running applications as they grow. It only reads
// and composes; the web UI (internal/web) presents it and pushes it to the
// browser.
package live

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/peer"
	"github.com/clusterlens/clusterlens/internal/store"
)

// NodesOptions configure a Nodes feed.
type NodesOptions struct {
	// Store is the sample store the collector writes (required).
	Store store.Store
	// Peer is a trained Ganesha profile; nil: no peer diagnosis.
	Peer *peer.Profile
	// Backfill is how far before the first poll it reads, so that the
	// detector starts with the nodes' recent past (default 10 minutes).
	Backfill time.Duration
	// Lag is how far behind the newest sample seen each poll reads again,
	// for batches stored a little late (default 5 s). A sample older than
	// that when it is stored is not shown live (the node pages read it).
	Lag time.Duration
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Default NodesOptions values.
const (
	DefaultBackfill = 10 * time.Minute
	DefaultLag      = 2 * time.Second
)

// Node is one node's newest samples.
type Node struct {
	Host string `json:"host"`
	// Time is its newest sample's time (Unix ms).
	Time int64 `json:"timeMs"`
	// CPU is user + system + iowait, %; Load the 1-minute load average;
	// Disk read + written bytes/s; Net received + sent bytes/s.
	CPU  float64 `json:"cpuPct"`
	Load float64 `json:"load1"`
	Disk float64 `json:"diskBytesPerS"`
	Net  float64 `json:"netBytesPerS"`
	// Peer is its peer-diagnosis state (nil without a profile).
	Peer *peer.NodeStatus `json:"peer,omitempty"`
}

// NodesView is what the feed knows at one poll.
type NodesView struct {
	// Polled is when the store was last read (Unix ms); Newest the newest
	// sample's time; Samples how many samples were read since Since, the
	// start of the first read's window (Backfill before the first poll).
	Polled  int64 `json:"polledMs"`
	Newest  int64 `json:"newestMs"`
	Samples int64 `json:"samples"`
	Since   int64 `json:"sinceMs"`
	// Nodes by host name.
	Nodes []Node `json:"nodes"`
	// Indictments are every indictment so far, in time order.
	Indictments []peer.Indictment `json:"indictments"`
	// Peer says a profile diagnoses the nodes.
	Peer bool `json:"peer"`
}

// liveTypes are the metrics read: Ganesha's (the shown ones are among them).
var liveTypes = peer.GaneshaMetrics

// Nodes follows the sample store. Poll reads the samples stored since the
// last poll and feeds them to the online detector; View is the state. It
// is safe for concurrent use.
type Nodes struct {
	o      NodesOptions
	online *peer.Online

	mu      sync.Mutex
	nodes   map[string]*Node
	seen    map[string]int64 // host + "\x00" + type: newest time taken in
	newest  int64
	samples int64
	polled  int64
	since   int64 // the first poll's window start
}

// NewNodes returns a feed over o.Store.
func NewNodes(o NodesOptions) (*Nodes, error) {
	if o.Backfill <= 0 {
		o.Backfill = DefaultBackfill
	}
	if o.Lag <= 0 {
		o.Lag = DefaultLag
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	n := &Nodes{o: o, nodes: map[string]*Node{}, seen: map[string]int64{}}
	if o.Peer != nil {
		var err error
		if n.online, err = peer.NewOnline(o.Peer, o.Peer.Params, slog.New(slog.DiscardHandler)); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// Poll takes in the samples stored since the last poll and reports
// whether any was new.
func (n *Nodes) Poll(ctx context.Context) (bool, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	now := n.o.Now().UnixMilli()
	from := now - n.o.Backfill.Milliseconds()
	if n.since == 0 {
		n.since = from
	}
	if n.newest > 0 {
		// Not past the clock: a node whose clock runs ahead must not hide
		// the others' samples.
		from = min(n.newest, now) - n.o.Lag.Milliseconds()
	}
	var tb *peer.Table
	if n.online != nil {
		tb = peer.NewTable(peer.GaneshaMetrics)
	}
	fresh := int64(0)
	err := n.o.Store.Query(ctx, store.Query{Types: liveTypes, From: from}, func(s *model.Sample) error {
		if s.Target != "" {
			return nil
		}
		key := s.Host + "\x00" + s.Type
		if s.Time <= n.seen[key] {
			return nil
		}
		n.seen[key] = s.Time
		fresh++
		n.newest = max(n.newest, s.Time)
		if tb != nil {
			tb.Add(s)
		}
		n.take(s)
		return nil
	})
	n.polled = now
	n.samples += fresh
	if tb != nil && fresh > 0 {
		tb.Each(n.online.ObserveVector)
		n.online.Advance(n.newest)
	}
	return fresh > 0, err
}

// take keeps s as its node's newest value of its metric.
func (n *Nodes) take(s *model.Sample) {
	nd := n.nodes[s.Host]
	if nd == nil {
		nd = &Node{Host: s.Host}
		n.nodes[s.Host] = nd
	}
	if s.Time > nd.Time {
		// A new instant: the sums start again.
		nd.Time, nd.CPU, nd.Disk, nd.Net = s.Time, 0, 0, 0
	} else if s.Time < nd.Time {
		return
	}
	switch s.Type {
	case "cpu_user_pct", "cpu_system_pct", "cpu_iowait_pct":
		nd.CPU += s.Value
	case "load1":
		nd.Load = s.Value
	case "disk_read_bytes_per_s", "disk_write_bytes_per_s":
		nd.Disk += s.Value
	case "net_rx_bytes_per_s", "net_tx_bytes_per_s":
		nd.Net += s.Value
	}
}

// View returns the feed's state.
func (n *Nodes) View() *NodesView {
	n.mu.Lock()
	v := &NodesView{Polled: n.polled, Newest: n.newest, Samples: n.samples, Since: n.since, Peer: n.online != nil}
	v.Nodes = make([]Node, 0, len(n.nodes))
	for _, nd := range n.nodes {
		v.Nodes = append(v.Nodes, *nd)
	}
	n.mu.Unlock()
	slices.SortFunc(v.Nodes, func(a, b Node) int { return strings.Compare(a.Host, b.Host) })
	if n.online != nil {
		v.Indictments = n.online.Indictments()
		st := n.online.Statuses()
		by := make(map[string]*peer.NodeStatus, len(st))
		for i := range st {
			by[st[i].Host] = &st[i]
		}
		for i := range v.Nodes {
			v.Nodes[i].Peer = by[v.Nodes[i].Host]
		}
	}
	return v
}
