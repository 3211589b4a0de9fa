package web

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/clusterlens/clusterlens/internal/driver"
	"github.com/clusterlens/clusterlens/internal/history"
	"github.com/clusterlens/clusterlens/internal/htmlw"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/peer"
)

// nodeWindow is how much node metrics the node pages read by default:
// the hour before the page's "to" time (default: now).
const nodeWindow = time.Hour

// nodeTTL is how long a PARC assessment is reused.
const nodeTTL = time.Minute

// nodeCache keeps the PARC assessment of the run history, which fits
// models over every run (seconds on a large history).
type nodeCache struct {
	mu sync.Mutex
	a  *driver.Assessment
	at time.Time
}

// assess returns the cached assessment, or fits it again when it is older
// than nodeTTL.
func (c *nodeCache) assess(ctx context.Context, st history.Store) (*driver.Assessment, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.a != nil && time.Since(c.at) < nodeTTL {
		return c.a, nil
	}
	a, err := driver.AssessNodes(ctx, st)
	if err != nil {
		return nil, err
	}
	c.a, c.at = a, time.Now()
	return a, nil
}

// nodeRow is one node on the nodes page.
type nodeRow struct {
	Host  string
	Speed *driver.NodeSpeed
	PARC  *driver.NodeVerdict
	Peer  *peer.NodeStatus
}

// nodesData is the nodes page's data.
type nodesData struct {
	Rows       []nodeRow
	Assessment *driver.Assessment
	NoPARC     string
	From, To   time.Time
	Peer       *peer.Report
	NoMetrics  bool
	NoHistory  bool
}

// window reads the page's "to" parameter (RFC 3339; default now) and
// returns the window ending there.
func (u *UI) window(r *http.Request) (from, to time.Time, err error) {
	to = u.o.Now()
	if v := r.URL.Query().Get("to"); v != "" {
		if to, err = time.Parse(time.RFC3339, v); err != nil {
			return from, to, fmtErr(errBadRequest, "to %q: want an RFC 3339 time", v)
		}
	}
	return to.Add(-nodeWindow), to, nil
}

// peerDiagnosis runs the trained profile over the window's samples of
// every host (Ganesha compares each node with its peers).
func (u *UI) peerDiagnosis(ctx context.Context, from, to time.Time) (*peer.Report, error) {
	return driver.DiagnosePeers(ctx, u.o.Metrics, from, to, driver.Peers{Profile: u.o.Peer, Attribute: true})
}

// nodesPage lists the nodes: PARC's classes, speeds and verdicts from the
// run history, and with node metrics and a peer profile, each node's
// peer-diagnosis state over the window.
func (u *UI) nodesPage(r *http.Request) (*page, error) {
	from, to, err := u.window(r)
	if err != nil {
		return nil, err
	}
	d := &nodesData{From: from, To: to, NoMetrics: u.o.Metrics == nil, NoHistory: u.o.History == nil}
	rows := map[string]*nodeRow{}
	row := func(h string) *nodeRow {
		if rows[h] == nil {
			rows[h] = &nodeRow{Host: h}
		}
		return rows[h]
	}
	if u.o.History != nil {
		a, err := u.nodes.assess(r.Context(), u.o.History)
		switch {
		case err == nil:
			d.Assessment = a
			for i := range a.Speeds {
				row(a.Speeds[i].Host).Speed = &a.Speeds[i]
			}
			for i := range a.Verdicts {
				row(a.Verdicts[i].Host).PARC = &a.Verdicts[i]
			}
		case errors.Is(err, driver.ErrNoHistory):
			d.NoPARC = err.Error()
		default:
			return nil, err
		}
	}
	if u.o.Metrics != nil && u.o.Peer != nil {
		if d.Peer, err = u.peerDiagnosis(r.Context(), from, to); err != nil {
			return nil, err
		}
		for i := range d.Peer.Nodes {
			row(d.Peer.Nodes[i].Host).Peer = &d.Peer.Nodes[i]
		}
	}
	for _, r := range rows {
		d.Rows = append(d.Rows, *r)
	}
	slices.SortFunc(d.Rows, func(a, b nodeRow) int { return strings.Compare(a.Host, b.Host) })
	p := &page{Title: "Nodes", View: "nodes", Content: func(w *htmlw.Writer) { writeNodes(w, d) }, Sub: fmt.Sprintf("%d nodes", len(d.Rows))}
	if d.Assessment != nil && len(d.Assessment.Speeds) > 0 {
		p.Charts = append(p.Charts, speedChart(d.Assessment))
	}
	return p, nil
}

// speedBars is the most nodes the speed chart draws a bar each for; with
// more (2,367 nodes made a strip of hair-thin bars) it draws how many
// nodes have each speed factor.
const speedBars = 60

// speedChart is every node's speed factors (PARC's joint model: 1 is the
// typical node; above is slower), or their histogram for many nodes.
func speedChart(a *driver.Assessment) chart {
	if len(a.Speeds) > speedBars {
		return speedHistogram(a)
	}
	c := chart{ID: "nodes-speed", Title: "Node speed factors (PARC joint model; above 1: slower than the typical node)", Kind: "bar", YUnit: "ratio", Height: 280}
	bySeries := map[string]*series{}
	var order []string
	speeds := slices.Clone(a.Speeds)
	slices.SortFunc(speeds, func(x, y driver.NodeSpeed) int { return strings.Compare(x.Host, y.Host) })
	for i, s := range speeds {
		c.XCats = append(c.XCats, s.Host)
		for _, f := range s.Factors {
			se := bySeries[f.Resource]
			if se == nil {
				se = &series{Name: f.Resource}
				bySeries[f.Resource] = se
				order = append(order, f.Resource)
			}
			se.Data = append(se.Data, [2]float64{float64(i), f.Factor.Value})
		}
	}
	for _, n := range order {
		c.Series = append(c.Series, *bySeries[n])
	}
	return c
}

// speedBin is the histogram's bin width of speed factors.
const speedBin = 0.05

// speedHistogram is how many nodes have each speed factor, per resource,
// in bins of speedBin: the typical nodes a peak at 1, slow nodes a tail to
// the right (the table lists them by name).
func speedHistogram(a *driver.Assessment) chart {
	c := chart{ID: "nodes-speed", Title: fmt.Sprintf("How many of the %s nodes have each speed factor (PARC joint model; above 1: slower than the typical node)", count(int64(len(a.Speeds)))),
		Kind: "bar", YUnit: "count", Height: 280, XName: "speed factor"}
	counts := map[string]map[int]int{}
	var order []string
	lo, hi := math.MaxInt, math.MinInt
	for _, s := range a.Speeds {
		for _, f := range s.Factors {
			if counts[f.Resource] == nil {
				counts[f.Resource] = map[int]int{}
				order = append(order, f.Resource)
			}
			k := int(math.Floor(f.Factor.Value / speedBin))
			counts[f.Resource][k]++
			lo, hi = min(lo, k), max(hi, k)
		}
	}
	if lo > hi {
		return c
	}
	for k := lo; k <= hi; k++ {
		c.XCats = append(c.XCats, strconv.FormatFloat(float64(k)*speedBin, 'f', 2, 64)+"–"+strconv.FormatFloat(float64(k+1)*speedBin, 'f', 2, 64))
	}
	for _, r := range order {
		se := series{Name: r}
		for k := lo; k <= hi; k++ {
			se.Data = append(se.Data, [2]float64{float64(k - lo), float64(counts[r][k])})
		}
		c.Series = append(c.Series, se)
	}
	return c
}

// nodeData is one node's page data.
type nodeData struct {
	Host        string
	From, To    time.Time
	Samples     int
	History     *history.Node
	NoHistory   string
	Speed       *driver.NodeSpeed
	PARC        *driver.NodeVerdict
	Class       *driver.NodeClass
	Peer        *peer.NodeStatus
	Verdict     *peer.Verdict
	Indictments []peer.Indictment
	NoMetrics   bool
	NoPeer      bool
}

// nodeMetricCharts are the charts of the node page: the metrics drawn and
// their unit.
var nodeMetricCharts = []struct {
	id, title, unit string
	types           []string
}{
	{"node-cpu", "CPU", "%", []string{"cpu_user_pct", "cpu_system_pct", "cpu_iowait_pct"}},
	{"node-disk", "Disk", "bytes/s", []string{"disk_read_bytes_per_s", "disk_write_bytes_per_s"}},
	{"node-net", "Network", "bytes/s", []string{"net_rx_bytes_per_s", "net_tx_bytes_per_s"}},
	{"node-load", "Load and memory", "", []string{"load1", "mem_usage"}},
}

// maxPoints is how many points a node metric chart draws per series; the
// samples are averaged into as many bins.
const maxPoints = 600

// nodePage shows one node: its metrics over the window, its
// peer-diagnosis state and indictments, its PARC class, speed and verdict,
// and how it fared across runs against its own usual speed.
func (u *UI) nodePage(r *http.Request) (*page, error) {
	host := r.PathValue("host")
	from, to, err := u.window(r)
	if err != nil {
		return nil, err
	}
	d := &nodeData{Host: host, From: from, To: to, NoMetrics: u.o.Metrics == nil, NoPeer: u.o.Peer == nil}
	p := &page{Title: host, View: "node", Content: func(w *htmlw.Writer) { writeNode(w, d) }, Sub: "node"}
	if u.o.History != nil {
		d.History, err = history.NodeHistory(r.Context(), u.o.History, host, 200)
		if err != nil && !errors.Is(err, history.ErrNotFound) {
			return nil, err
		}
		if err != nil {
			d.NoHistory = err.Error()
		}
		if a, err := u.nodes.assess(r.Context(), u.o.History); err == nil {
			d.Speed, d.PARC, d.Class = findSpeed(a, host)
		}
		if d.History != nil {
			p.Charts = append(p.Charts, nodeHistoryChart(d.History))
		}
	} else {
		d.NoHistory = "no run history (serve --store)"
	}
	if u.o.Metrics != nil {
		charts, n, err := u.nodeMetrics(r.Context(), host, from, to)
		if err != nil {
			return nil, err
		}
		d.Samples = n
		p.Charts = append(p.Charts, charts...)
		if u.o.Peer != nil {
			ps, err := u.peerDiagnosis(r.Context(), from, to)
			if err != nil {
				return nil, err
			}
			for i := range ps.Nodes {
				if ps.Nodes[i].Host == host {
					d.Peer = &ps.Nodes[i]
				}
			}
			for i := range ps.Verdicts {
				if ps.Verdicts[i].Host == host {
					d.Verdict = &ps.Verdicts[i]
				}
			}
			for _, in := range ps.Indictments {
				if in.Host == host {
					d.Indictments = append(d.Indictments, in)
				}
			}
		}
	}
	if d.History == nil && d.Samples == 0 && d.Speed == nil {
		return nil, fmtErr(errNotFound, "node %s: no run in the history and no metrics in the window", host)
	}
	return p, nil
}

func findSpeed(a *driver.Assessment, host string) (*driver.NodeSpeed, *driver.NodeVerdict, *driver.NodeClass) {
	var s *driver.NodeSpeed
	var v *driver.NodeVerdict
	var c *driver.NodeClass
	for i := range a.Speeds {
		if a.Speeds[i].Host == host {
			s = &a.Speeds[i]
		}
	}
	for i := range a.Verdicts {
		if a.Verdicts[i].Host == host {
			v = &a.Verdicts[i]
		}
	}
	for i := range a.Classes {
		if slices.Contains(a.Classes[i].Nodes, host) {
			c = &a.Classes[i]
		}
	}
	return s, v, c
}

// nodeMetrics reads the host's samples in the window and bins each chart's
// metrics into at most maxPoints means.
func (u *UI) nodeMetrics(ctx context.Context, host string, from, to time.Time) ([]chart, int, error) {
	var types []string
	for _, c := range nodeMetricCharts {
		types = append(types, c.types...)
	}
	lo, hi := from.UnixMilli(), to.UnixMilli()
	bin := max((hi-lo)/maxPoints, 1000)
	type acc struct{ sum, n float64 }
	bins := map[string][]acc{}
	nbins := int((hi-lo)/bin) + 1
	samples := 0
	err := u.o.Metrics.Read(ctx, driver.Query{Hosts: []string{host}, Types: types, From: from, To: to}, func(s *model.Sample) error {
		if s.Target != "" || s.Value != s.Value {
			return nil
		}
		b := bins[s.Type]
		if b == nil {
			b = make([]acc, nbins)
			bins[s.Type] = b
		}
		k := (s.Time - lo) / bin
		b[k].sum += s.Value
		b[k].n++
		samples++
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	var out []chart
	for _, c := range nodeMetricCharts {
		ch := chart{ID: c.id, Title: c.title + " (" + strings.Join(c.types, ", ") + ")", Kind: "line", XTime: true, YUnit: c.unit, Height: 220}
		for _, t := range c.types {
			se := series{Name: t}
			for k, a := range bins[t] {
				if a.n > 0 {
					se.Data = append(se.Data, [2]float64{float64(lo + int64(k)*bin), a.sum / a.n})
				}
			}
			if len(se.Data) > 0 {
				ch.Series = append(ch.Series, se)
			}
		}
		if len(ch.Series) > 0 {
			out = append(out, ch)
		}
	}
	return out, samples, nil
}

// nodeHistoryChart is the node's time per run against its stages'
// medians, with its usual ratio.
func nodeHistoryChart(n *history.Node) chart {
	c := chart{ID: "node-runs", Title: "Its tasks' time against their stages' medians, per run (1: typical)", Kind: "scatter", XTime: true, YUnit: "ratio", Height: 240}
	se := series{Name: "run"}
	for _, r := range n.Runs {
		if r.Ratio > 0 {
			se.Data = append(se.Data, [2]float64{float64(r.Start), r.Ratio})
		}
	}
	c.Series = []series{se}
	if len(se.Data) > 1 && n.Baseline > 0 {
		first, last := se.Data[0][0], se.Data[len(se.Data)-1][0]
		c.Series = append(c.Series, series{Name: "its usual ratio", Kind: "line", Dashed: true, Color: "#6b7280",
			Data: [][2]float64{{first, n.Baseline}, {last, n.Baseline}}})
	}
	return c
}
