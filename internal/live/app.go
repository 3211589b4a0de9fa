package live

import (
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"sync"

	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/source"
)

// App follows one Spark application's event log as it grows: each Poll
// finds the log again and reads only what was appended since the last
// one (decodelogs.Growing's saved decoder state). It is safe for concurrent
// use.
type App struct {
	name string
	ld   *decodelogs.Loader

	mu    sync.Mutex
	state []byte
	sig   string // decodelogs.Signature of the log as last read
	app   *model.App
	ended bool
	err   error
}

// FollowApp follows log l (found under the served paths) with opts.
func FollowApp(l *source.Log, opts decodelogs.Options) *App {
	opts.Kinds = []source.Kind{source.SparkEventLog}
	return &App{name: l.Name, ld: decodelogs.NewLoader(opts)}
}

// inProgress is the suffix Spark gives a log while it is written; the
// driver renames the log without it when the application ends.
const inProgress = ".inprogress"

// find finds the log again by its name, or by the name Spark renames it
// to at the end; only those two paths are read.
func (a *App) find() (*source.Log, error) {
	var errs []error
	for _, name := range []string{a.name, strings.TrimSuffix(a.name, inProgress)} {
		logs, _, err := decodelogs.Find([]string{name}, decodelogs.Options{Kinds: []source.Kind{source.SparkEventLog}})
		if err == nil && len(logs) == 1 {
			return logs[0], nil
		}
		errs = append(errs, err)
		if name == strings.TrimSuffix(a.name, inProgress) {
			break
		}
	}
	return nil, fmt.Errorf("%s: the log is gone: %w", a.name, errors.Join(errs...))
}

// Poll reads what was appended to the log since the last poll and
// reports whether the application changed. Once it ended (its end event
// read, or its log gone) Poll reads nothing more, and Ended says so, until
// the log is there again and not as it was read: replaced (a shorter log
// of a run started again, one that came back) it is followed from its
// start.
func (a *App) Poll() (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	l, err := a.find()
	switch {
	case err != nil && a.ended:
		return false, nil
	case err != nil:
		a.ended, a.err = true, err
		return true, err
	}
	sig := decodelogs.Signature(l)
	if a.app != nil && sig == a.sig {
		return false, nil
	}
	if a.ended {
		a.state, a.ended = nil, false
	}
	// A log renamed at the end, or replaced, is read from the start: the
	// saved state names the parts it read, and their sizes.
	res, err := a.ld.Growing(l, a.state)
	a.sig, a.err = sig, err
	if res == nil || len(res.Apps) == 0 {
		return false, err
	}
	a.app, a.state = res.Apps[len(res.Apps)-1], res.State
	a.ended = a.app.Complete
	return true, err
}

// App returns the application as last read (nil before the first
// read), whether it ended, and what went wrong in the last read. The
// application is not changed after it is returned.
func (a *App) App() (*model.App, bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.app, a.ended, a.err
}

// Token names what App returns as last read: the log as read (its parts'
// names, sizes and times), whether it ended, and what went wrong. Two
// followers of the same log that read it to the same state give the same
// token; it names no path.
func (a *App) Token() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%v\x00%v", a.sig, a.ended, a.err)
	return strconv.FormatUint(h.Sum64(), 36)
}
