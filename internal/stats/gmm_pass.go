package stats

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// emChunk is the number of samples whose statistics one task of an EM pass
// accumulates; chunk results are summed in chunk order, so the fit does
// not depend on the number of workers.
const emChunk = 16384

// emPass is one E-step plus the M-step statistics over all samples,
// chunked across workers, with its buffers kept between iterations.
type emPass struct {
	x       *Dense
	k       int
	workers int
	parts   []*suffStats
	lls     []float64
	scratch []*emScratch
	total   *suffStats
}

func newEMPass(x *Dense, k, workers int) *emPass {
	chunks := (x.N + emChunk - 1) / emChunk
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, chunks))
	p := &emPass{x: x, k: k, workers: workers, parts: make([]*suffStats, chunks), lls: make([]float64, chunks),
		scratch: make([]*emScratch, workers), total: newSuffStats(k, x.D)}
	for i := range p.parts {
		p.parts[i] = newSuffStats(k, x.D)
	}
	for i := range p.scratch {
		p.scratch[i] = newEMScratch(k, x.D)
	}
	return p
}

// run scores every sample under g (prepared), turns the scores into
// responsibilities and accumulates the statistics about g's means. It
// returns the statistics and the summed log-likelihood.
func (p *emPass) run(g *GMM) (*suffStats, float64) {
	var next atomic.Int64
	work := func(sc *emScratch) {
		for {
			c := int(next.Add(1) - 1)
			if c >= len(p.parts) {
				return
			}
			p.lls[c] = p.chunk(g, c, sc)
		}
	}
	if p.workers == 1 {
		work(p.scratch[0])
	} else {
		var wg sync.WaitGroup
		for _, sc := range p.scratch {
			wg.Go(func() { work(sc) })
		}
		wg.Wait()
	}
	p.total.reset()
	p.total.setShift(g.Means.X)
	var ll float64
	for c, part := range p.parts {
		p.total.merge(part)
		ll += p.lls[c]
	}
	return p.total, ll
}

// chunk processes chunk c and returns its summed log-likelihood.
func (p *emPass) chunk(g *GMM, c int, sc *emScratch) float64 {
	st, k, cache := p.parts[c], p.k, g.cache
	st.reset()
	st.setShift(g.Means.X)
	end := min((c+1)*emChunk, p.x.N)
	var ll float64
	for start := c * emChunk; start < end; start += emBlock {
		count := min(emBlock, end-start)
		for s := range count {
			r := sc.resp[s*k : (s+1)*k]
			cache.logProbs(p.x.Row(start+s), sc.xs, r)
			ll += toResponsibilities(r)
		}
		st.addBlock(p.x, start, count, sc.resp, sc)
	}
	return ll
}
