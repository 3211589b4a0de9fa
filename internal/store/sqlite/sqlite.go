// Package sqlite is the embedded sample store: one SQLite file in WAL mode,
// written through modernc.org/sqlite (pure Go, no cgo).
//
// Schema (docs/STORE.md): series interns (host, type, target) to an
// integer; samples holds (series, time, value, text) keyed by (series,
// time) in a WITHOUT ROWID table, so a sample key is stored once (the last
// write wins) and a scan by series is already in time order; batches
// records each stored (agent, seq). A batch's samples and its batch row are
// written in one transaction, so a batch is stored exactly once even when
// the process dies between the two: the transaction is then rolled back
// and the re-sent batch is new.
//
// All writes go through one connection owned by one goroutine, which
// commits the batches waiting for it together (group commit): one fsync
// for many agents' batches. Queries use a separate pool of read-only
// connections and run beside writes.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"github.com/clusterlens/clusterlens/internal/wire"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// ErrClosed is returned by Append and Query after Close.
var ErrClosed = errors.New("sqlite store: closed")

// Options tune a Store. The zero value is the default.
type Options struct {
	// NoSync commits without waiting for the disk (synchronous=NORMAL):
	// a committed batch survives a crash of the process but may be lost
	// with the machine. By default every commit is synced
	// (synchronous=FULL), as store.Store's durability promise requires.
	NoSync bool
	// Readers bounds the read connections (default 4).
	Readers int
}

// Store is a store.Store in one SQLite file. It is safe for concurrent use.
type Store struct {
	path string
	wdb  *sql.DB // one connection, used only by the writer goroutine
	rdb  *sql.DB // read-only pool for Query
	// seriesSamples is seriesSamplesSQL prepared on rdb.
	seriesSamples *sql.Stmt
	reqs          chan *request
	quit          chan struct{}
	done          chan struct{}
	closed        sync.Once
	w             *writer
}

// Open opens (creating if needed) the store in the file at path.
func Open(path string) (*Store, error) { return OpenOptions(path, Options{}) }

// OpenOptions is Open with options.
func OpenOptions(path string, opt Options) (*Store, error) {
	if path == "" || strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("open sqlite store %q: want a file path without '?' or '#'", path)
	}
	sync := "FULL"
	if opt.NoSync {
		sync = "NORMAL"
	}
	pragmas := url.Values{"_pragma": {"busy_timeout(10000)", "journal_mode(WAL)", "synchronous(" + sync + ")", "foreign_keys(off)"}}
	wdb, err := sql.Open("sqlite", "file:"+path+"?"+pragmas.Encode()+"&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("open sqlite store %q: %w", path, err)
	}
	wdb.SetMaxOpenConns(1)
	wdb.SetMaxIdleConns(1)
	wdb.SetConnMaxLifetime(0)
	wdb.SetConnMaxIdleTime(0)
	ctx := context.Background()
	if err := createSchema(ctx, wdb); err != nil {
		wdb.Close()
		return nil, fmt.Errorf("open sqlite store %q: %w", path, err)
	}
	w, err := newWriter(ctx, wdb)
	if err != nil {
		wdb.Close()
		return nil, fmt.Errorf("open sqlite store %q: %w", path, err)
	}
	readers := opt.Readers
	if readers <= 0 {
		readers = 4
	}
	rpragmas := url.Values{"_pragma": {"busy_timeout(10000)", "query_only(1)"}}
	rdb, err := sql.Open("sqlite", "file:"+path+"?"+rpragmas.Encode())
	if err != nil {
		w.close()
		wdb.Close()
		return nil, fmt.Errorf("open sqlite store %q: %w", path, err)
	}
	rdb.SetMaxOpenConns(readers)
	rdb.SetMaxIdleConns(readers)
	st, err := rdb.PrepareContext(ctx, seriesSamplesSQL)
	if err != nil {
		w.close()
		wdb.Close()
		rdb.Close()
		return nil, fmt.Errorf("open sqlite store %q: %w", path, err)
	}
	s := &Store{path: path, wdb: wdb, rdb: rdb, seriesSamples: st, reqs: make(chan *request), quit: make(chan struct{}), done: make(chan struct{}), w: w}
	go s.run()
	return s, nil
}

// Append stores b's samples and records (b.Agent, b.Seq) in one
// transaction; dup is true when that batch was already stored. Concurrent
// calls are committed together.
func (s *Store) Append(ctx context.Context, b *wire.Batch) (dup bool, err error) {
	return s.append(ctx, b, false)
}

func (s *Store) append(ctx context.Context, b *wire.Batch, rollback bool) (bool, error) {
	if b == nil {
		return false, errors.New("sqlite store: append: nil batch")
	}
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("sqlite store: append %s/%d: %w", b.Agent, b.Seq, err)
	}
	r := &request{ctx: ctx, b: b, rollback: rollback, done: make(chan struct{})}
	select {
	case s.reqs <- r:
	case <-s.quit:
		return false, ErrClosed
	case <-ctx.Done():
		return false, fmt.Errorf("sqlite store: append %s/%d: %w", b.Agent, b.Seq, ctx.Err())
	}
	// The writer has the request: wait for its outcome even if ctx ends,
	// so that the answer says what was stored.
	<-r.done
	if r.err != nil {
		return false, fmt.Errorf("sqlite store: append %s/%d: %w", b.Agent, b.Seq, r.err)
	}
	return r.dup, nil
}

// Close stops the writer (after the batch it is writing) and closes the
// file. Append and Query fail with ErrClosed afterwards.
func (s *Store) Close() error {
	err := ErrClosed
	s.closed.Do(func() {
		close(s.quit)
		<-s.done
		err = errors.Join(s.w.close(), s.seriesSamples.Close(), s.wdb.Close(), s.rdb.Close())
		if err != nil {
			err = fmt.Errorf("close sqlite store %q: %w", s.path, err)
		}
	})
	return err
}

// run is the writer goroutine: it takes a request, adds every request
// already waiting (up to maxGroupSamples samples) and writes them in one
// transaction.
func (s *Store) run() {
	defer close(s.done)
	var group []*request
	for {
		select {
		case <-s.quit:
			return
		case r := <-s.reqs:
			group = append(group[:0], r)
		}
		n := len(group[0].b.Samples)
	drain:
		for n < maxGroupSamples {
			select {
			case r := <-s.reqs:
				group = append(group, r)
				n += len(r.b.Samples)
			default:
				break drain
			}
		}
		s.w.writeGroup(group)
		clear(group)
	}
}
