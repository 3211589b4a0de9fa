package explain

import (
	"cmp"
	"math"
	"slices"

	"github.com/clusterlens/clusterlens/internal/history"
)

// NodeModel judges a run's nodes against what their own history makes
// expected of them: the seam through which package hetero's per-node
// models plug in (OwnHistory is the default).
type NodeModel interface {
	// Slowdowns returns, for each host that ran tasks in run, how many
	// times longer its tasks ran than expected of that host with that
	// data, given the recurring job's usual runs.
	Slowdowns(run *history.Run, usual []*history.Run) []NodeSlowdown
}

// NodeSlowdown is one node of a run against its own expectation.
type NodeSlowdown struct {
	Host string `json:"host"`
	// Factor is its tasks' time over the expected (1: as usual), pooled
	// over the run's stages; Z its significance.
	Factor float64 `json:"factor"`
	Z      float64 `json:"z"`
	Tasks  int     `json:"tasks"`
	// Stages are its slowdowns per stage signature, when the model tells
	// them apart (a missing signature takes Factor and Z): a node whose
	// disk fails is slower in the stages that read and write, not in the
	// others.
	Stages map[string]StageSlowdown `json:"stages,omitempty"`
}

// StageSlowdown is a node's slowdown in one stage group of a run.
type StageSlowdown struct {
	Factor float64 `json:"factor"`
	Z      float64 `json:"z"`
	Tasks  int     `json:"tasks"`
}

// OwnHistory is the default NodeModel: each (stage signature, host) cell
// of the run against the same host's cells of that signature in the usual
// runs (log-normal task durations, their log-mean and variance from the
// history's per-host moments, PARC's eq. 1–2 in log space), the expected
// log-mean moved by the change in bytes per task at the stage's per-byte
// elasticity. A host the usual runs did not see in a stage is expected at
// the stage's usual mean moved by its offset in the other stages. A cell's
// longest task is left out of its mean when it ran over 3 times the
// geometric mean of the others (a straggler of the noise's tail, as
// hetero's joint model trims). Cells are pooled per host by inverse
// variance; the variance adds the cell's own (σ²/n) and the spread of the
// usual runs' means of the cell.
type OwnHistory struct {
	Params Params
}

// cell is one (signature, host) of one run: its tasks' log durations'
// count, mean and variance (the longest trimmed when it straggled), and
// bytes per task.
type cell struct {
	n          int
	mean, vari float64
	perTask    float64
	sumMs      float64
}

// cellsOf returns run's cells by signature and host.
func cellsOf(run *history.Run) map[string]map[string]*cell {
	sigOf := map[[2]int32]string{}
	for i := range run.Stages {
		st := &run.Stages[i]
		sigOf[[2]int32{st.ID, st.Attempt}] = st.Signature
	}
	type acc struct {
		n                     int
		sl, ssl, bytes, sumMs float64
		maxMs                 int64
	}
	accs := map[string]map[string]*acc{}
	for i := range run.Hosts {
		h := &run.Hosts[i]
		if h.Tasks == 0 {
			continue
		}
		sig := sigOf[[2]int32{h.Stage, h.Attempt}]
		if accs[sig] == nil {
			accs[sig] = map[string]*acc{}
		}
		a := accs[sig][h.Host]
		if a == nil {
			a = &acc{}
			accs[sig][h.Host] = a
		}
		a.n += h.Tasks
		a.sl += h.SumLog
		a.ssl += h.SumSqLog
		a.bytes += float64(h.Bytes)
		a.sumMs += h.SumMs
		a.maxMs = max(a.maxMs, h.MaxMs)
	}
	out := map[string]map[string]*cell{}
	for sig, hosts := range accs {
		out[sig] = map[string]*cell{}
		for host, a := range hosts {
			n, sl, ssl := float64(a.n), a.sl, a.ssl
			if a.n >= 3 && a.maxMs > 0 {
				lm := math.Log(math.Max(float64(a.maxMs), 1))
				if others := (sl - lm) / (n - 1); lm-others > math.Log(3) {
					n, sl, ssl = n-1, sl-lm, ssl-lm*lm
				}
			}
			mean := sl / n
			out[sig][host] = &cell{n: int(n), mean: mean, vari: math.Max(ssl/n-mean*mean, 0),
				perTask: a.bytes / float64(a.n), sumMs: a.sumMs}
		}
	}
	return out
}

// Slowdowns judges each host of run against its own cells in usual.
func (m OwnHistory) Slowdowns(run *history.Run, usual []*history.Run) []NodeSlowdown {
	cells := cellsOf(run)
	hist := make([]map[string]map[string]*cell, len(usual))
	for i, u := range usual {
		hist[i] = cellsOf(u)
	}
	beta := elasticities(usual, m.Params)
	// A host's usual offset from each stage's usual mean, over all
	// stages and runs, for cells it has no history of.
	offset := map[string][2]float64{} // host -> (Σ offset, count)
	stageMean := map[string]float64{}
	for sig := range cells {
		var s, w float64
		for _, hc := range hist {
			for _, c := range hc[sig] {
				s += c.mean * float64(c.n)
				w += float64(c.n)
			}
		}
		if w > 0 {
			stageMean[sig] = s / w
		}
	}
	for _, hc := range hist {
		for sig, hosts := range hc {
			mu, ok := stageMean[sig]
			if !ok {
				continue
			}
			for host, c := range hosts {
				o := offset[host]
				offset[host] = [2]float64{o[0] + c.mean - mu, o[1] + 1}
			}
		}
	}
	type pool struct {
		sw, swr float64
		tasks   int
		stages  map[string]StageSlowdown
	}
	pools := map[string]*pool{}
	for sig, hosts := range cells {
		b := beta[sig]
		for host, c := range hosts {
			// The host's own usual cells, each moved to this run's bytes
			// per task.
			var ms []float64
			for _, hc := range hist {
				if uc := hc[sig][host]; uc != nil {
					ms = append(ms, uc.mean+b*math.Log(ratio(c.perTask, uc.perTask)))
				}
			}
			var expect, spread float64
			switch {
			case len(ms) > 0:
				expect = mean(ms)
				spread = variance(ms)
				if len(ms) < 3 {
					spread = math.Max(spread, c.vari)
				}
			default:
				mu, ok := stageMean[sig]
				if !ok {
					continue
				}
				if o := offset[host]; o[1] > 0 {
					mu += o[0] / o[1]
				}
				var pts []float64
				for _, hc := range hist {
					var s, w float64
					for _, uc := range hc[sig] {
						s += uc.perTask * float64(uc.n)
						w += float64(uc.n)
					}
					if w > 0 {
						pts = append(pts, s/w)
					}
				}
				expect = mu + b*math.Log(ratio(c.perTask, mean(pts)))
				spread = c.vari
			}
			v := c.vari/float64(c.n) + spread + 1e-4
			r := c.mean - expect
			p := pools[host]
			if p == nil {
				p = &pool{stages: map[string]StageSlowdown{}}
				pools[host] = p
			}
			p.sw += 1 / v
			p.swr += r / v
			p.tasks += c.n
			p.stages[sig] = StageSlowdown{Factor: math.Exp(r), Z: r / math.Sqrt(v), Tasks: c.n}
		}
	}
	out := make([]NodeSlowdown, 0, len(pools))
	for host, p := range pools {
		r := p.swr / p.sw
		out = append(out, NodeSlowdown{Host: host, Factor: math.Exp(r), Z: r * math.Sqrt(p.sw), Tasks: p.tasks, Stages: p.stages})
	}
	slices.SortFunc(out, func(a, b NodeSlowdown) int { return cmp.Compare(a.Host, b.Host) })
	return out
}

// elasticities fits, per stage signature, the elasticity β of the
// stage's successful task time to its bytes over the usual runs (log
// task time on log bytes, centered), shrunk toward 1 (time proportional to
// data) with weight p.ElasticityPrior, and kept within [0, 1.5].
func elasticities(usual []*history.Run, p Params) map[string]float64 {
	xs, ys := map[string][]float64{}, map[string][]float64{}
	for _, u := range usual {
		pr := profileOf(u)
		for sig, g := range pr.groups {
			if g.bytes > 0 && g.ok > 0 {
				xs[sig] = append(xs[sig], math.Log(g.bytes))
				ys[sig] = append(ys[sig], math.Log(g.ok))
			}
		}
	}
	out := map[string]float64{}
	for sig, x := range xs {
		sxy, sxx := centeredMoments(x, ys[sig])
		out[sig] = math.Max(0, math.Min(1.5, (sxy+p.ElasticityPrior)/(sxx+p.ElasticityPrior)))
	}
	return out
}

// centeredMoments is Σ(x−x̄)(y−ȳ) and Σ(x−x̄)², a least-squares slope's
// numerator and denominator.
func centeredMoments(x, y []float64) (sxy, sxx float64) {
	mx, my := mean(x), mean(y)
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
	}
	return sxy, sxx
}

// taskElasticities is, per stage signature, the elasticity of the
// stage's task count to its bytes over the usual runs (log tasks per
// stage attempt on log bytes, centered), kept within [0, 1]: about 1 for
// a stage that splits its input by size, 0 for one with a fixed number of
// partitions (and for a stage whose bytes never vary).
func taskElasticities(usual []*history.Run) map[string]float64 {
	xs, ys := map[string][]float64{}, map[string][]float64{}
	for _, u := range usual {
		for sig, g := range profileOf(u).groups {
			if g.bytes > 0 && g.tasks > 0 {
				xs[sig] = append(xs[sig], math.Log(g.bytes))
				ys[sig] = append(ys[sig], math.Log(g.perStage()))
			}
		}
	}
	out := map[string]float64{}
	for sig, x := range xs {
		sxy, sxx := centeredMoments(x, ys[sig])
		if sxx > 1e-6 {
			out[sig] = math.Max(0, math.Min(1, sxy/sxx))
		}
	}
	return out
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// variance is the sample variance of xs (0 for fewer than two).
func variance(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	m := mean(xs)
	var s float64
	for _, x := range xs {
		s += (x - m) * (x - m)
	}
	return s / float64(len(xs)-1)
}
