// Package clickhouse is the sample store for when one machine is not
// enough: ClickHouse through its HTTP interface (net/http only), which
// Debian's clickhouse-server 18.16 and current releases both speak.
//
// ClickHouse has no transactions, so exactly-once storage is built from
// idempotence (docs/STORE.md): samples live in a ReplacingMergeTree keyed
// by (host, type, target, time) and are read with FINAL, so a sample
// written twice is read once; a batch's id is recorded in the batches
// table only after its samples are written, so a batch re-sent after a
// crash between the two is written again (harmlessly) and a batch re-sent
// after it was recorded is reported as a duplicate.
//
// Appends waiting together are written as one INSERT (ClickHouse wants few
// large inserts, not many small ones: each INSERT makes a part on disk).
package clickhouse

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/clusterlens/clusterlens/internal/clickhttp"
	"github.com/clusterlens/clusterlens/internal/wire"
)

// ErrClosed is returned by Append and Query after Close.
var ErrClosed = errors.New("clickhouse store: closed")

// Options tune a Store. The zero value is the default.
type Options struct {
	// MaxDelay is how long the writer waits for more batches once it sees
	// several arriving together (default 200 ms), trading a little latency
	// for fewer, larger inserts. A lone Append is written at once.
	MaxDelay time.Duration
	// HTTPClient replaces the default client (keep-alive, no timeout
	// beyond the contexts).
	HTTPClient *http.Client
}

// Store is a store.Store in a ClickHouse database. It is safe for
// concurrent use.
type Store struct {
	c    *clickhttp.Client
	opt  Options
	reqs chan *request
	quit chan struct{}
	done chan struct{}
	once sync.Once
}

// Open connects to the server at rawURL, "http://host:port/database" (the
// database defaults to "clusterlens"; user and password may be given as
// http://user:password@host:port/db), creates the database and the tables
// when missing, and returns the store.
func Open(ctx context.Context, rawURL string, opt Options) (*Store, error) {
	if opt.MaxDelay <= 0 {
		opt.MaxDelay = 200 * time.Millisecond
	}
	c, err := clickhttp.Dial(ctx, rawURL, opt.HTTPClient)
	if err != nil {
		return nil, fmt.Errorf("open clickhouse store %w", err)
	}
	for _, stmt := range schema {
		if err := c.Exec(ctx, stmt, nil); err != nil {
			return nil, fmt.Errorf("open clickhouse store %s: create table: %w", c.Where(), err)
		}
	}
	s := &Store{c: c, opt: opt, reqs: make(chan *request), quit: make(chan struct{}), done: make(chan struct{})}
	go s.run()
	return s, nil
}

// schema is docs/STORE.md's ClickHouse schema. Time is Int64 milliseconds
// (18.16 has no DateTime64); the partition is the UTC day.
var schema = []string{
	`CREATE TABLE IF NOT EXISTS samples (
		time Int64,
		host String,
		type String,
		target String,
		value Float64,
		text String
	) ENGINE = ReplacingMergeTree()
	PARTITION BY toYYYYMMDD(toDateTime(intDiv(time, 1000), 'UTC'))
	ORDER BY (host, type, target, time)`,
	`CREATE TABLE IF NOT EXISTS batches (
		agent String,
		seq UInt64,
		samples UInt64,
		stored Int64
	) ENGINE = ReplacingMergeTree()
	ORDER BY (agent, seq)`,
}

// Append stores b: its samples, then its id. dup is true when the id was
// already recorded. Concurrent calls are written together.
func (s *Store) Append(ctx context.Context, b *wire.Batch) (dup bool, err error) {
	return s.append(ctx, b, false)
}

func (s *Store) append(ctx context.Context, b *wire.Batch, crash bool) (bool, error) {
	if b == nil {
		return false, errors.New("clickhouse store: append: nil batch")
	}
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("clickhouse store: append %s/%d: %w", b.Agent, b.Seq, err)
	}
	r := &request{ctx: ctx, b: b, crash: crash, done: make(chan struct{})}
	select {
	case s.reqs <- r:
	case <-s.quit:
		return false, ErrClosed
	case <-ctx.Done():
		return false, fmt.Errorf("clickhouse store: append %s/%d: %w", b.Agent, b.Seq, ctx.Err())
	}
	<-r.done
	if r.err != nil {
		return false, fmt.Errorf("clickhouse store: append %s/%d: %w", b.Agent, b.Seq, r.err)
	}
	return r.dup, nil
}

// Close stops the writer after the group it is writing. The server and
// its data are left as they are.
func (s *Store) Close() error {
	err := ErrClosed
	s.once.Do(func() {
		close(s.quit)
		<-s.done
		s.c.CloseIdleConnections()
		err = nil
	})
	return err
}

// DropDatabase drops the store's database and closes the store (tests and
// benchmarks clean up with it).
func (s *Store) DropDatabase(ctx context.Context) error {
	s.Close() //nolint:errcheck // dropping is what matters
	if err := s.c.DropDatabase(ctx); err != nil {
		return fmt.Errorf("clickhouse store: drop database %s: %w", s.c.Where(), err)
	}
	return nil
}
