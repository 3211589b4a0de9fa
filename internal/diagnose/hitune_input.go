package diagnose

import (
	"runtime"
	"sync"
	"weak"

	"github.com/clusterlens/clusterlens/internal/dataflow"
)

// hituneCache keeps each Input's HiTune dataflow analysis while the Input
// lives, so the detectors that need it (imbalance, scheduling gap, shuffle
// gap) reconstruct an application once. Entries are keyed by a weak pointer
// and dropped by a cleanup when their Input is collected.
var hituneCache = struct {
	sync.Mutex
	m map[weak.Pointer[Input]]*hituneEntry
}{m: map[weak.Pointer[Input]]*hituneEntry{}}

type hituneEntry struct {
	a   *dataflow.Analysis
	err error
}

// hiTune is the application's HiTune dataflow analysis with the engine's
// built-in specification (dataflow.Analyze), computed on first use.
func (in *Input) hiTune() (*dataflow.Analysis, error) {
	k := weak.Make(in)
	hituneCache.Lock()
	e, ok := hituneCache.m[k]
	hituneCache.Unlock()
	if ok {
		return e.a, e.err
	}
	a, err := dataflow.Analyze(in.App, dataflow.Options{})
	in.storeHiTune(k, &hituneEntry{a: a, err: err})
	return a, err
}

// UseDataflow hands the Input the HiTune analysis of its application that
// the caller already has, computed by dataflow.Analyze(in.App,
// dataflow.Options{}) (the built-in specification and default options), so
// that the detectors needing it do not reconstruct the application again.
// An analysis computed with other options must not be passed. The Input
// keeps the first analysis it gets.
func (in *Input) UseDataflow(a *dataflow.Analysis, err error) {
	k := weak.Make(in)
	hituneCache.Lock()
	_, ok := hituneCache.m[k]
	hituneCache.Unlock()
	if !ok {
		in.storeHiTune(k, &hituneEntry{a: a, err: err})
	}
}

// storeHiTune caches e for the Input of k until the Input is collected.
func (in *Input) storeHiTune(k weak.Pointer[Input], e *hituneEntry) {
	hituneCache.Lock()
	hituneCache.m[k] = e
	hituneCache.Unlock()
	runtime.AddCleanup(in, func(k weak.Pointer[Input]) {
		hituneCache.Lock()
		delete(hituneCache.m, k)
		hituneCache.Unlock()
	}, k)
}
