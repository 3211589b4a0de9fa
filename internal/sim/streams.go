package sim

import "math/rand/v2"

// Common random numbers (Scenario.CommonRandomNumbers): the variance
// reduction of comparing two simulated systems on the same random inputs
// (Law, Simulation Modeling and Analysis, 5th ed., §11.2). Every draw
// site below takes its stream from the seed and the identity of what it
// draws for, so that a run with an injected cause and the same run
// without it give each task the same noise wherever the cause did not
// change the task itself.

// Draw sites, the first word of a stream's key.
const (
	siteAttempt  = 1 // an attempt's noise, layout and failure (app, stage, partition, attempt, speculative)
	siteJobStart = 2 // the driver's time before a job (app, job)
	siteStage    = 3 // a stage's submission delay (app, stage)
	siteAppEnd   = 4 // the application's end (app)
	sitePlan     = 5 // an application's plan: weights, placement, driver host (app)
)

// draws returns the stream of one draw site: e.rng, the run's shared
// sequence, unless the scenario asks for common random numbers; then the
// stream keyed by the seed, the site and ids, valid until the next call.
func (e *engine) draws(site uint64, ids ...int64) *rand.Rand {
	if !e.sc.CommonRandomNumbers {
		return e.rng
	}
	h := streamKey(e.seed, site, ids...)
	e.keyed.Seed(h, splitmix(h))
	return e.keyedRNG
}

// streamKey hashes a seed, a draw site and ids into a stream's seed.
func streamKey(seed, site uint64, ids ...int64) uint64 {
	h := splitmix(seed ^ splitmix(site))
	for _, id := range ids {
		h = splitmix(h ^ uint64(id))
	}
	return h
}

// splitmix is SplitMix64's finalizer (Steele, Lea and Flood, Fast
// splittable pseudorandom number generators, OOPSLA 2014): a bijection
// that spreads every input bit over the output.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// planRNG is the stream of application i's plan: shared is the run's
// plan sequence, used unless the scenario asks for common random numbers.
func planRNG(sc *Scenario, seed uint64, i int, shared *rand.Rand) *rand.Rand {
	if !sc.CommonRandomNumbers {
		return shared
	}
	h := streamKey(seed, sitePlan, int64(i))
	return rand.New(rand.NewPCG(h, splitmix(h)))
}
