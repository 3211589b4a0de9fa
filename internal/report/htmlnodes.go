package report

import (
	"cmp"
	"slices"

	"github.com/clusterlens/clusterlens/internal/dataflow"
)

// htmlNodeTime is the per-node heat map over time: for each node and time
// bin, the share of its allocated slot time that tasks held, in per mille
// (-1 where it had no executor).
type htmlNodeTime struct {
	Hosts []string  `json:"hosts"`
	BinMs int64     `json:"binMs"`
	Busy  [][]int32 `json:"busy"` // [host][bin]
	All   int       `json:"all"`  // nodes in the application
}

// buildNodeTime bins each node's slots of timeline tl over wall time; at
// most maxNodes nodes (those with the most allocated slot time), by name.
func buildNodeTime(tl *dataflow.Timeline, maxNodes, bins int) *htmlNodeTime {
	alloc := map[string]int64{}
	for i := range tl.Lines {
		alloc[tl.Lines[i].Host] += tl.Lines[i].End - tl.Lines[i].Start
	}
	hosts := make([]string, 0, len(alloc))
	for h := range alloc {
		hosts = append(hosts, h)
	}
	all := len(hosts)
	slices.SortFunc(hosts, func(x, y string) int { return cmp.Or(cmp.Compare(alloc[y], alloc[x]), cmp.Compare(x, y)) })
	hosts = hosts[:min(len(hosts), maxNodes)]
	slices.Sort(hosts)
	row := make(map[string]int, len(hosts))
	for i, h := range hosts {
		row[h] = i
	}
	g := newBinGrid(len(hosts), bins, len(tl.Activities), tl.Start, max(tl.End-tl.Start, 1))
	for i := range tl.Lines {
		if r, ok := row[tl.Lines[i].Host]; ok {
			g.addLine(r, &tl.Lines[i])
		}
	}
	nt := &htmlNodeTime{Hosts: hosts, BinMs: g.binMs, All: all, Busy: make([][]int32, len(hosts))}
	for r := range hosts {
		nt.Busy[r] = make([]int32, bins)
		for b := range bins {
			if _, pm, ok := g.cell(r, b); ok {
				nt.Busy[r][b] = pm
			} else {
				nt.Busy[r][b] = -1
			}
		}
	}
	for i, h := range nt.Hosts {
		if h == "" {
			nt.Hosts[i] = "(unknown host)"
		}
	}
	return nt
}
