package server

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/eventlog"
	"github.com/clusterlens/clusterlens/internal/live"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/shs"
	"github.com/clusterlens/clusterlens/internal/source"
)

// logSource is the server's shs.Source without a run history: the Spark event logs under a path. A
// scan lists every application from its log's first events (a few
// kilobytes each), then reads the logs in full on every core, publishing
// an index as they finish; a request about an application not read yet
// has its logs read first. Logs unchanged since the last scan
// (decodelogs.Signature) are not read again.
type logSource struct {
	paths  []string
	health *sourceHealth
	opts   decodelogs.Options // Spark event logs only
	log    *slog.Logger
	ix     atomic.Pointer[shs.Index]
	// readFull reads one log in full: decodelogs.Log (tests hold it back).
	readFull func(*source.Log) ([]*model.App, error)

	mu         sync.Mutex
	unreadable bool                    // the last scan skipped files or folders it could not read
	logs       []*servedLog            // the last scan's, in the order found
	byApp      map[string][]*servedLog // by the application their first events name
	heads      chan struct{}           // closed when the last scan read every log's first events

	publishMu sync.Mutex
	published time.Time
}

// servedLog is one log and what serve read of it.
type servedLog struct {
	l    *source.Log
	src  string     // the source (a path of Logs) it was found under
	head *model.App // the application its first events name, nil if none
	once sync.Once
	read chan struct{} // closed when apps and err are set
	apps []*model.App  // read in full
	err  error         // what reading lost, nil when nothing
}

// newLogSource reads the Spark event logs under paths with opts (its Kinds
// replaced), recording each path's state in health.
func newLogSource(paths []string, opts decodelogs.Options, health *sourceHealth, log *slog.Logger) *logSource {
	heads := make(chan struct{})
	close(heads)
	opts.Kinds = []source.Kind{source.SparkEventLog}
	ld := decodelogs.NewLoader(opts)
	return &logSource{paths: paths, health: health, opts: opts, log: log, byApp: map[string][]*servedLog{}, heads: heads, readFull: ld.Log}
}

// partial reports whether the logs of the last scan read so far lost
// something (read in part, or a file or folder that could not be read).
func (s *logSource) partial() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.unreadable {
		return true
	}
	for _, sl := range s.logs {
		select {
		case <-sl.read:
			if sl.err != nil {
				return true
			}
		default:
		}
	}
	return false
}

// Index implements shs.Source: nil until the first scan found the logs.
func (s *logSource) Index() *shs.Index { return s.ix.Load() }

// Read implements shs.Source: it reads the logs naming appID (waiting for
// the scan to read every log's first events when none does yet) and
// returns the index with them.
func (s *logSource) Read(ctx context.Context, appID string) (*shs.Index, error) {
	s.mu.Lock()
	logs, heads := s.byApp[appID], s.heads
	s.mu.Unlock()
	if len(logs) == 0 {
		select {
		case <-heads:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		s.mu.Lock()
		logs = s.byApp[appID]
		s.mu.Unlock()
	}
	for _, sl := range logs {
		go s.readLog(sl)
		select {
		case <-sl.read:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return s.publish(true), nil
}

// FollowApp implements web.AppFollower: the log AppLog finds, followed.
func (s *logSource) FollowApp(appID string) (*live.App, bool) {
	l, ok := s.AppLog(appID)
	if !ok {
		return nil, false
	}
	return live.FollowApp(l, s.opts), true
}

// AppLog is the log the scan found naming appID (the last one found when
// several do).
func (s *logSource) AppLog(appID string) (*source.Log, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	logs := s.byApp[appID]
	if len(logs) == 0 {
		return nil, false
	}
	return logs[len(logs)-1].l, true
}

// find lists the logs under each source. A source that cannot be read
// keeps the logs found under it before (shown as last read) and is
// recorded in s.health; one that holds no log yet is not a failure.
func (s *logSource) find() (found []*source.Log, from []string, skipped []source.Skipped) {
	s.mu.Lock()
	before := map[string][]*source.Log{}
	for _, sl := range s.logs {
		before[sl.src] = append(before[sl.src], sl.l)
	}
	s.mu.Unlock()
	for _, p := range s.paths {
		logs, sk, err := decodelogs.Find([]string{p}, s.opts)
		if errors.Is(err, source.ErrNotLog) {
			s.log.Info("no log found yet", "source", p, "err", err)
			err = nil
		}
		s.health.set(p, err)
		if err != nil {
			logs = before[p]
		}
		found = append(found, logs...)
		for range logs {
			from = append(from, p)
		}
		skipped = append(skipped, sk...)
	}
	return found, from, skipped
}

// scan finds the logs, reads the first events of the new ones, then reads
// them in full, until ctx ends.
func (s *logSource) scan(ctx context.Context) {
	start := time.Now()
	found, from, skipped := s.find()
	unreadable := false
	for _, sk := range skipped {
		if sk.Err != nil {
			unreadable = true
			s.log.Warn("skipped: unreadable", "path", sk.Name, "reason", sk.Reason, "err", sk.Err)
		} else {
			s.log.Info("skipped: not a log", "path", sk.Name, "reason", sk.Reason)
		}
	}
	s.mu.Lock()
	s.unreadable = unreadable
	old := map[string]*servedLog{}
	for _, sl := range s.logs {
		old[sl.l.Name] = sl
	}
	var fresh []*servedLog
	s.logs = s.logs[:0:0]
	seen := map[string]bool{}
	for i, l := range found {
		if seen[l.Name] { // under two sources
			continue
		}
		seen[l.Name] = true
		sl := old[l.Name]
		if sl == nil || decodelogs.Signature(sl.l) != decodelogs.Signature(l) {
			sl = &servedLog{l: l, src: from[i], read: make(chan struct{})}
			fresh = append(fresh, sl)
		}
		s.logs = append(s.logs, sl)
	}
	heads := make(chan struct{})
	s.heads = heads
	s.byApp = map[string][]*servedLog{}
	s.indexHeads(s.logs)
	s.mu.Unlock()
	s.publish(true)

	workers := runtime.GOMAXPROCS(0)
	each(ctx, fresh, workers, func(sl *servedLog) {
		h := readHead(sl.l)
		s.mu.Lock()
		sl.head = h
		s.indexHeads([]*servedLog{sl})
		s.mu.Unlock()
		s.publish(false)
	})
	close(heads)
	s.publish(true)
	s.log.Info("logs listed", "paths", s.paths, "logs", len(found), "new", len(fresh), "took", time.Since(start).Round(time.Millisecond))
	each(ctx, fresh, workers, s.readLog)
	s.publish(true)
	if ctx.Err() == nil {
		s.log.Info("logs read", "paths", s.paths, "logs", len(fresh), "took", time.Since(start).Round(time.Millisecond))
	}
}

// indexHeads adds logs to byApp by the application their first events
// name; s.mu is held.
func (s *logSource) indexHeads(logs []*servedLog) {
	for _, sl := range logs {
		if sl.head != nil {
			s.byApp[sl.head.ID] = append(s.byApp[sl.head.ID], sl)
		}
	}
}

// readLog reads a log in full, once, and publishes the index with it.
func (s *logSource) readLog(sl *servedLog) {
	sl.once.Do(func() {
		apps, err := s.readFull(sl.l)
		if err != nil {
			s.log.Warn("log read in part", "err", err)
		}
		s.mu.Lock()
		sl.apps, sl.err = apps, err
		s.mu.Unlock()
		close(sl.read)
		s.publish(false)
	})
}

// publish builds the index of the logs read in full and the first events
// of the others. Unless now, it does so at most every publishEvery: an
// index over many applications takes a while to build, and the last log
// read publishes with now.
func (s *logSource) publish(now bool) *shs.Index {
	const publishEvery = 200 * time.Millisecond
	s.publishMu.Lock()
	defer s.publishMu.Unlock()
	if !now && time.Since(s.published) < publishEvery {
		return s.ix.Load()
	}
	s.mu.Lock()
	var apps, heads []*model.App
	unread := 0
	for _, sl := range s.logs {
		select {
		case <-sl.read:
			apps = append(apps, sl.apps...)
			continue
		default:
		}
		unread++
		if sl.head != nil {
			heads = append(heads, sl.head)
		}
	}
	s.mu.Unlock()
	prev := s.ix.Load()
	if prev == nil {
		prev = shs.NewIndex(nil)
	}
	ix := prev.With(apps, heads, unread)
	s.ix.Store(ix)
	s.published = time.Now()
	return ix
}

// each calls fn for every log on workers goroutines, in order, until ctx ends.
func each(ctx context.Context, logs []*servedLog, workers int, fn func(*servedLog)) {
	next := make(chan *servedLog)
	var wg sync.WaitGroup
	for range min(workers, len(logs)) {
		wg.Go(func() {
			for sl := range next {
				fn(sl)
			}
		})
	}
	for _, sl := range logs {
		select {
		case next <- sl:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(next)
	wg.Wait()
}

// headBytes bounds the first events read to name a log's application.
const headBytes = 8 << 20

// readHead decodes a log's first events up to its application start (see
// headLines): the application's id, attempt, name, user, start and Spark
// version, as the listing shows them. A log without an application start
// is named after its file, as load names it once read; nil when neither
// names the application (or the start lies beyond headBytes).
func readHead(l *source.Log) *model.App {
	if len(l.Parts) == 0 {
		return nil
	}
	r, err := l.Open(0)
	if err != nil {
		return nil
	}
	defer r.Close()
	d := eventlog.NewDecoder()
	h := &headLines{br: bufio.NewReaderSize(r, 16<<10)}
	_ = d.Feed(l.Parts[0].Name, h)
	a := d.Apps()[0] // the first Spark context of a Databricks log
	if a.ID == "" && h.n < headBytes && len(l.Parts) == 1 {
		a.ID = l.ID
	}
	if a.ID == "" {
		return nil
	}
	a.Source, a.LastUpdated = l.Name, l.ModTime.UnixMilli()
	if a.Version == "" {
		a.Version = l.SparkVersion
	}
	return a
}

// headLines passes on the events of a log that name its application and
// Spark version (log start, Databricks' part marker, application start),
// skipping the others (the environment, often most of a small log), up to
// the application start or headBytes.
type headLines struct {
	br   *bufio.Reader
	line []byte
	n    int
	done bool
}

func (h *headLines) Read(p []byte) (int, error) {
	for len(h.line) == 0 {
		if h.done || h.n >= headBytes {
			return 0, io.EOF
		}
		line, err := h.br.ReadBytes('\n')
		h.n += len(line)
		h.done = err != nil
		event := line[:min(len(line), 128)] // Spark writes "Event" first
		switch {
		case bytes.Contains(event, []byte(`SparkListenerApplicationStart"`)):
			h.done = true
		case !bytes.Contains(event, []byte(`SparkListenerLogStart"`)) && !bytes.Contains(event, []byte(`DBCEventLoggingListenerMetadata"`)):
			continue
		}
		h.line = line
	}
	n := copy(p, h.line)
	h.line = h.line[n:]
	return n, nil
}
