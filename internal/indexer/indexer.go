// Package indexer keeps the run history current: a pass finds every log
// under the paths, skips those unchanged since the last pass (same size and
// modification time, or the same content fingerprint), reads growing Spark
// logs on from where the last pass stopped (decodelogs.Growing), reads the others
// whole, diagnoses each application and writes it to the history store.
// Logs are read on several cores at once; memory is bounded by the
// applications being read at a time.
package indexer

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/diagnose"
	"github.com/clusterlens/clusterlens/internal/history"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/source"
)

// Options tune a pass.
type Options struct {
	// Workers is how many logs are read at once (0: one per CPU).
	Workers int
	// Prune forgets logs indexed earlier under the paths that are no
	// longer there; by default their runs are kept.
	Prune bool
	// Diagnose tunes the detectors run on each application.
	Diagnose diagnose.Options
	// Load bounds the decoders (line limit, memory shared by the workers);
	// its Progress, when set, is called with the stored bytes read, from
	// several goroutines.
	Load decodelogs.Options
	// Now gives the time recorded as IndexedAt (default time.Now).
	Now func() time.Time
}

// Stats count what a pass did.
type Stats struct {
	Logs      int `json:"logs"`      // logs found under the paths
	Unchanged int `json:"unchanged"` // skipped: unchanged since the last pass
	Read      int `json:"read"`      // read from the start
	Resumed   int `json:"resumed"`   // read on from where the last pass stopped
	Failed    int `json:"failed"`    // read only in part, or not at all (recorded with the error)
	Pruned    int `json:"pruned"`    // forgotten: no longer under the paths
	Runs      int `json:"runs"`      // runs read and written
	// Kept counts the runs the pass leaves in the history: its runs less
	// Repeated, the runs of an application (engine, id and attempt) that
	// another log read in the same pass also holds (a copy of a log in
	// two folders, the same job in a history file and in Rumen traces
	// made from it). The history keeps one run per application, as the
	// History Server keeps one application per id: the log written last.
	Kept     int `json:"kept"`
	Repeated int `json:"repeated"`
	// Moved counts runs whose application was held, before the pass, from
	// a log the pass did not read: the log read now holds it (a log
	// renamed from .inprogress, or a copy of a log in two folders).
	Moved int   `json:"moved"`
	Bytes int64 `json:"bytes"` // stored bytes read
	// Skipped are files under the paths that are not logs; Problems the
	// logs read in part or not at all, one error each naming the log.
	Skipped  []source.Skipped `json:"-"`
	Problems []error          `json:"-"`
}

// Pass indexes every log under paths into st.
func Pass(ctx context.Context, st history.Store, paths []string, opt Options) (*Stats, error) {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	logs, skipped, ferr := decodelogs.Find(paths, opt.Load)
	stats := &Stats{Logs: len(logs), Skipped: skipped}
	if ferr != nil {
		stats.Problems = append(stats.Problems, ferr)
	}
	known, err := st.Logs(ctx)
	if err != nil {
		return stats, err
	}
	prev := make(map[string]history.LogState, len(known))
	for _, k := range known {
		prev[k.Path] = k
	}
	var todo []*source.Log
	seen := map[string]bool{}
	for _, l := range logs {
		seen[l.Name] = true
		if p, ok := prev[l.Name]; ok && p.Size == l.Size() && p.ModTime == l.ModTime.UnixMilli() {
			stats.Unchanged++
			continue
		}
		todo = append(todo, l)
	}
	var mu sync.Mutex
	reading := make(map[string]bool, len(todo))
	for _, l := range todo {
		reading[l.Name] = true
	}
	acct := keyAccount{owner: map[string]string{}, before: map[string]string{}}
	var bytesRead atomic.Int64
	lopt := opt.Load
	lopt.Progress = func(n int64) {
		bytesRead.Add(n)
		if opt.Load.Progress != nil {
			opt.Load.Progress(n)
		}
	}
	ld := decodelogs.NewLoader(lopt)
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	next := make(chan *source.Log)
	var wg sync.WaitGroup
	var fatal error
	w := newWriter(ctx, st)
	for range min(workers, len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for l := range next {
				out, err := indexLog(ctx, st, w, ld, l, prev[l.Name], opt)
				mu.Lock()
				stats.add(out, err)
				if out != nil {
					acct.add(l.Name, out.held, reading)
				}
				if err != nil && out == nil && fatal == nil {
					fatal = err
				}
				mu.Unlock()
			}
		}()
	}
	for _, l := range todo {
		if ctx.Err() != nil {
			break
		}
		next <- l
	}
	close(next)
	wg.Wait()
	if err := w.close(); err != nil && fatal == nil {
		fatal = err
	}
	stats.Bytes = bytesRead.Load()
	stats.Kept, stats.Repeated, stats.Moved = acct.counts(stats.Runs)
	// Pruned after reading, so that a run whose log was renamed (from
	// .inprogress) has moved to its new log and stays.
	if opt.Prune && fatal == nil && ctx.Err() == nil {
		for _, k := range known {
			if !seen[k.Path] && under(k.Path, paths) {
				if err := st.Forget(ctx, k.Path); err != nil {
					return stats, err
				}
				stats.Pruned++
			}
		}
	}
	if fatal == nil {
		fatal = ctx.Err()
	}
	return stats, fatal
}

// outcome is what indexing one log did.
type outcome struct {
	unchanged, resumed, failed bool
	runs                       int
	// held maps the key of each run written to the log that held it
	// before the write ("" for none).
	held    map[string]string
	problem error
}

// keyAccount counts, over a pass, which log ends up holding each run key.
type keyAccount struct {
	owner  map[string]string // key -> the log that wrote it last in the pass
	before map[string]string // key -> its holder before the pass, a log the pass did not read
}

// add records the keys log wrote, with their holders when it wrote them.
// A holder the pass is reading may have written the key earlier in the
// pass; any other holder held it before the pass.
func (a *keyAccount) add(log string, held map[string]string, reading map[string]bool) {
	for k, h := range held {
		a.owner[k] = log
		if h != "" && !reading[h] {
			a.before[k] = h
		}
	}
}

// counts returns the runs kept of runs written, the repeats, and the keys
// taken over from a log not read in the pass.
func (a *keyAccount) counts(runs int) (kept, repeated, moved int) {
	for k, log := range a.owner {
		if h, ok := a.before[k]; ok && h != log {
			moved++
		}
	}
	return len(a.owner), runs - len(a.owner), moved
}

func (s *Stats) add(o *outcome, err error) {
	switch {
	case o == nil:
		s.Failed++
		s.Problems = append(s.Problems, err)
		return
	case o.unchanged:
		s.Unchanged++
	case o.resumed:
		s.Resumed++
	default:
		s.Read++
	}
	if o.failed {
		s.Failed++
	}
	if o.problem != nil {
		s.Problems = append(s.Problems, o.problem)
	}
	s.Runs += o.runs
}

// indexLog reads one log and hands its runs to w. It returns a nil outcome
// only when the store failed (the pass stops); a log that cannot be read is
// recorded with its error.
func indexLog(ctx context.Context, st history.Store, w *writer, ld *decodelogs.Loader, l *source.Log, prev history.LogState, opt Options) (*outcome, error) {
	state := history.LogState{Path: l.Name, Size: l.Size(), ModTime: l.ModTime.UnixMilli(),
		InProgress: l.InProgress, IndexedAt: opt.Now().UnixMilli()}
	fp, err := l.Fingerprint()
	if err != nil {
		state.Error = err.Error()
		return &outcome{failed: true, problem: err}, w.put(history.Entry{State: state})
	}
	state.Fingerprint = fp
	if prev.Path != "" && prev.Fingerprint == fp && prev.Size == state.Size && prev.Error == "" {
		// Touched, not changed (a copy, a restore): nothing to read. Its
		// state keeps the old time, so the next pass checks it again, as
		// cheaply.
		return &outcome{unchanged: true}, nil
	}
	var apps []*model.App
	var readErr error
	o := &outcome{}
	if l.Kind == source.SparkEventLog {
		var resume []byte
		if prev.Fingerprint == fp {
			if resume, err = st.Resume(ctx, l.Name); err != nil {
				return nil, err
			}
		}
		res, err := ld.Growing(l, resume)
		readErr = err
		apps = res.Apps
		o.resumed = res.Resumed
		if err := st.PutResume(ctx, l.Name, res.State); err != nil {
			return nil, err
		}
	} else {
		apps, readErr = ld.Log(l)
	}
	if readErr != nil {
		state.Error = readErr.Error()
		o.failed, o.problem = true, readErr
	}
	runs := make([]*history.Run, 0, len(apps))
	keys := map[string]int{}
	for _, a := range apps {
		if a.ID == "" {
			// A Spark log without its application start (crashed before
			// it, or cut short): nothing identifies the run.
			err := fmt.Errorf("%s: no application id (no SparkListenerApplicationStart in %d lines): not indexed", l.Name, a.Quality.Lines)
			state.Error = errors.Join(readErr, err).Error()
			o.failed, o.problem = true, err
			continue
		}
		r := history.FromApp(a, l.Name, l.InProgress, diagnose.Run(a, opt.Diagnose))
		// A log can hold one job twice (a folded Rumen trace): the later
		// ones are told apart by their position.
		if n := keys[r.Key]; n > 0 {
			r.Key = fmt.Sprintf("%s#%d", r.Key, n+1)
		}
		keys[r.Key]++
		runs = append(runs, r)
	}
	o.runs = len(runs)
	o.held = make(map[string]string, len(runs))
	for _, r := range runs {
		o.held[r.Key] = ""
	}
	if len(keys) > 0 {
		held, err := st.Runs(ctx, history.Filter{Keys: slices.Collect(maps.Keys(o.held))})
		if err != nil {
			return nil, err
		}
		for _, h := range held {
			if h.Log != l.Name {
				o.held[h.Key] = h.Log
			}
		}
	}
	if err := w.put(history.Entry{State: state, Runs: runs}); err != nil {
		return nil, err
	}
	return o, nil
}

// under reports whether path was found under one of paths (the path itself
// or a folder holding it), so that pruning a pass over one folder leaves
// logs indexed from other folders alone.
func under(path string, paths []string) bool {
	for _, p := range paths {
		if path == p || len(path) > len(p) && path[:len(p)] == p && (path[len(p)] == '/' || p[len(p)-1] == '/') {
			return true
		}
	}
	return false
}
