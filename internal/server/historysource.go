package server

import (
	"context"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/history"
	"github.com/clusterlens/clusterlens/internal/indexer"
	"github.com/clusterlens/clusterlens/internal/live"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/objstore"
	"github.com/clusterlens/clusterlens/internal/shs"
	"github.com/clusterlens/clusterlens/internal/source"
)

// historySource is the server's shs.Source over the run history: the
// listing comes from the store at once, whatever the number of logs (every
// Spark run is listed from its row, as the History Server lists an
// application it has not replayed), and an index pass over the logs every
// rescan keeps the store current. A request about one application reads
// its logs in full; the last few applications read are kept.
type historySource struct {
	st     history.Store
	paths  []string
	health *sourceHealth
	opts   indexer.Options
	log    *slog.Logger
	ld     *decodelogs.Loader
	ix     atomic.Pointer[shs.Index]

	mu       sync.Mutex
	heads    []*model.App // a stub per Spark run in the store
	read     []*readApp   // applications read in full, the most recent last
	lostSome bool         // the last pass read logs in part
}

// readApp is an application read in full from its logs.
type readApp struct {
	id          string
	apps        []*model.App
	lastUpdated int64
}

// keepRead is how many applications read in full are kept.
const keepRead = 16

func newHistorySource(st history.Store, paths []string, opts indexer.Options, health *sourceHealth, log *slog.Logger) *historySource {
	return &historySource{st: st, paths: paths, health: health, opts: opts, log: log, ld: decodelogs.NewLoader(opts.Load)}
}

// Index implements shs.Source.
func (s *historySource) Index() *shs.Index { return s.ix.Load() }

// refresh lists the store's runs as heads and publishes the index; copies
// of applications whose runs changed since they were read are dropped.
func (s *historySource) refresh(ctx context.Context) error {
	briefs, err := s.st.Briefs(ctx, history.Filter{})
	if err != nil {
		return err
	}
	heads := make([]*model.App, 0, len(briefs))
	updated := map[string]int64{}
	for _, b := range briefs {
		if b.Engine != model.Spark.String() {
			continue
		}
		heads = append(heads, &model.App{ID: b.ID, AttemptID: b.Attempt, Name: b.Name, User: b.User, Engine: model.Spark,
			Version: b.Version, Start: b.Start, End: b.End, LastUpdated: b.LastUpdated, Source: b.Log,
			Complete: b.Status == history.StatusSucceeded || b.Status == history.StatusFailed})
		updated[b.ID] = max(updated[b.ID], b.LastUpdated)
	}
	s.mu.Lock()
	s.heads = heads
	s.read = slices.DeleteFunc(s.read, func(r *readApp) bool { return updated[r.id] != r.lastUpdated })
	s.mu.Unlock()
	s.publish()
	return nil
}

// publish builds the index of the heads and the applications read.
func (s *historySource) publish() *shs.Index {
	s.mu.Lock()
	var apps []*model.App
	for _, r := range s.read {
		apps = append(apps, r.apps...)
	}
	heads := s.heads
	s.mu.Unlock()
	prev := s.ix.Load()
	if prev == nil {
		prev = shs.NewIndex(nil)
	}
	ix := prev.With(apps, heads, 0)
	s.ix.Store(ix)
	return ix
}

// Read implements shs.Source: it reads the logs of application appID's
// runs, keeps the application and returns the index with it.
func (s *historySource) Read(ctx context.Context, appID string) (*shs.Index, error) {
	logs, updated := s.logsOf(appID)
	var apps []*model.App
	for _, p := range logs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		found, _, err := decodelogs.Find([]string{p}, decodelogs.Options{Kinds: []source.Kind{source.SparkEventLog}, Memory: s.opts.Load.Memory})
		if err != nil {
			s.log.Warn("find log", "app", appID, "log", p, "err", err)
		}
		for _, l := range found {
			got, err := s.ld.Log(l)
			if err != nil {
				s.log.Warn("log read in part", "app", appID, "err", err)
			}
			for _, a := range got {
				if a.ID == appID {
					apps = append(apps, a)
				}
			}
		}
	}
	s.mu.Lock()
	s.read = slices.DeleteFunc(s.read, func(r *readApp) bool { return r.id == appID })
	s.read = append(s.read, &readApp{id: appID, apps: apps, lastUpdated: updated})
	if len(s.read) > keepRead {
		s.read = s.read[len(s.read)-keepRead:]
	}
	s.mu.Unlock()
	return s.publish(), nil
}

// logsOf returns the logs of application appID's runs under the served
// paths, and when the newest was last updated.
func (s *historySource) logsOf(appID string) (logs []string, updated int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, h := range s.heads {
		if h.ID == appID && !slices.Contains(logs, h.Source) {
			if !underRoots(h.Source, s.paths) {
				// The store may hold runs indexed from other roots (another
				// server's, or a moved folder): never read outside ours.
				s.log.Warn("log outside the served paths not read", "app", appID, "log", h.Source, "paths", s.paths)
				continue
			}
			logs = append(logs, h.Source)
			updated = max(updated, h.LastUpdated)
		}
	}
	return logs, updated
}

// FollowApp implements web.AppFollower: the log AppLog finds, followed.
func (s *historySource) FollowApp(appID string) (*live.App, bool) {
	l, ok := s.AppLog(appID)
	if !ok {
		return nil, false
	}
	return live.FollowApp(l, s.opts.Load), true
}

// AppLog is the last of application appID's logs under the served paths.
func (s *historySource) AppLog(appID string) (*source.Log, bool) {
	logs, _ := s.logsOf(appID)
	if len(logs) == 0 {
		return nil, false
	}
	found, _, err := decodelogs.Find(logs[len(logs)-1:], decodelogs.Options{Kinds: []source.Kind{source.SparkEventLog}, Memory: s.opts.Load.Memory})
	if err != nil || len(found) != 1 {
		return nil, false
	}
	return found[0], true
}

// scan indexes the logs into the store and, when something changed,
// refreshes the index.
func (s *historySource) scan(ctx context.Context) {
	// A source that cannot be read is left out of the pass (its runs stay
	// in the history) and named on the pages until it can be read again.
	var paths []string
	for _, p := range s.paths {
		err := source.Check(p)
		s.health.set(p, err)
		if err == nil {
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 {
		return
	}
	stats, err := indexer.Pass(ctx, s.st, paths, s.opts)
	if err != nil {
		s.log.Warn("index pass", "paths", paths, "err", err)
		return
	}
	for _, p := range stats.Problems {
		s.log.Warn("log read in part", "err", p)
	}
	s.mu.Lock()
	s.lostSome = len(stats.Problems) > 0
	s.mu.Unlock()
	s.log.Info("logs indexed", "logs", stats.Logs, "read", stats.Read, "read on", stats.Resumed, "unchanged", stats.Unchanged, "failed", stats.Failed)
	if stats.Read+stats.Resumed+stats.Pruned+stats.Failed > 0 || s.ix.Load() == nil {
		if err := s.refresh(ctx); err != nil {
			s.log.Warn("list runs", "err", err)
		}
	}
}

// partial reports whether the last pass read logs in part.
func (s *historySource) partial() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lostSome
}

// underRoots reports whether log lies under one of roots: a URL under a
// root URL's prefix (at a "/" boundary), a local path under a root folder
// (or the root itself, a file), both made absolute and cleaned, so that
// "../" cannot climb out.
func underRoots(log string, roots []string) bool {
	for _, root := range roots {
		if objstore.IsURL(root) || objstore.IsURL(log) {
			r := strings.TrimSuffix(root, "/")
			if objstore.IsURL(root) && objstore.IsURL(log) && !slices.Contains(strings.Split(log, "/"), "..") &&
				(log == r || strings.HasPrefix(log, r+"/")) {
				return true
			}
			continue
		}
		r, err1 := filepath.Abs(root)
		l, err2 := filepath.Abs(log)
		if err1 != nil || err2 != nil {
			continue
		}
		if rel, err := filepath.Rel(r, l); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
