package history

import (
	"context"
	"errors"
	"fmt"

	"github.com/clusterlens/clusterlens/internal/finding"
)

// ErrNewerSchema is wrapped by Open's error when the store was written by a
// newer clusterlens than this one (its schema version is higher than
// SchemaVersion).
var ErrNewerSchema = errors.New("run history written by a newer clusterlens")

// NewerSchemaError is the error for a store of schema version have, opened
// by a build that knows version SchemaVersion.
func NewerSchemaError(where string, have int) error {
	return fmt.Errorf("%s: %w (schema version %d; this build reads up to %d): upgrade clusterlens or use another store",
		where, ErrNewerSchema, have, SchemaVersion)
}

// ErrNotFound is returned for a run key or log the store does not hold.
var ErrNotFound = errors.New("not in the run history")

// LogState is what the index remembers of one log between passes, to skip
// it when unchanged and to resume it when it only grew.
type LogState struct {
	// Path is the log's path or URL as given to the indexer: its key.
	Path string `json:"path"`
	// Size is the stored bytes of all its parts; ModTime the latest part's
	// modification time (epoch ms).
	Size    int64 `json:"size"`
	ModTime int64 `json:"modTime"`
	// Fingerprint hashes the parts' names and sizes and the first bytes of
	// each (the indexer's content check when the size or time changed).
	Fingerprint string `json:"fingerprint"`
	// InProgress is set when the log's names say it is still written.
	InProgress bool `json:"inProgress"`
	// Runs are the keys of the runs read from it.
	Runs []string `json:"runs"`
	// Error is why the last read failed or was partial ("" when it read
	// whole); the indexer retries a failed log when it changes.
	Error string `json:"error,omitempty"`
	// IndexedAt is when it was last read (epoch ms).
	IndexedAt int64 `json:"indexedAt"`
}

// Entry is a log's state and the runs read from it, for Put.
type Entry struct {
	State LogState
	Runs  []*Run
}

// Filter selects runs. Zero fields (and empty lists) match everything.
type Filter struct {
	User string
	// Name matches runs whose name contains it, case-insensitively.
	Name   string
	Status Status
	// MinSeverity keeps runs whose worst finding is at least this grave.
	MinSeverity finding.Severity
	// From and To bound the start time (epoch ms; From inclusive, To
	// exclusive).
	From, To int64
	// JobKeys keeps the runs of these variants (a recurring job's).
	JobKeys []string
	// Host keeps runs that ran task attempts on this host; with Detail,
	// only that host's HostStage rows are returned.
	Host string
	// Keys keeps the runs with these keys.
	Keys []string
	// Detail returns each run's stages, HostStage rows and DAG too.
	Detail bool
	// Limit caps the runs returned (0: no cap); Offset skips the first.
	Limit, Offset int
	// Oldest first instead of newest first.
	Oldest bool
}

// Brief is a run as listings see it: which application and job, whose,
// where, when, how long, read from which log, and its worst finding.
type Brief struct {
	Key         string `json:"key"`
	ID          string `json:"id"`
	Attempt     string `json:"attempt,omitempty"`
	Name        string `json:"name"`
	User        string `json:"user"`
	Engine      string `json:"engine"`
	Version     string `json:"version,omitempty"`
	Platform    string `json:"platform,omitempty"`
	Status      Status `json:"status"`
	JobKey      string `json:"jobKey"`
	Start       int64  `json:"start"`
	End         int64  `json:"end,omitempty"`
	DurationMs  int64  `json:"durationMs"`
	LastUpdated int64  `json:"lastUpdated"`
	Log         string `json:"log"`
	// Worst is the highest severity among the run's findings.
	Worst finding.Severity `json:"worstSeverity"`
}

// Store keeps the run history. Implementations are safe for concurrent use,
// also by several processes (two indexers on one store).
type Store interface {
	// Logs returns the state of every log indexed.
	Logs(ctx context.Context) ([]LogState, error)
	// Put replaces, for each entry, what the store holds of its log: its
	// state, and its runs by the runs given (a run key held from another
	// log moves to this one); runs of the log's previous state that are not
	// given are removed. Entries are written together (one transaction in
	// SQLite, one insert per table in ClickHouse, which wants few large
	// inserts), so callers writing many logs should pass them in groups.
	Put(ctx context.Context, entries ...Entry) error
	// Forget removes a log's state, resume state and the runs still
	// attributed to it.
	Forget(ctx context.Context, path string) error
	// Runs returns the runs matching f, newest first (by start time, then
	// key), with f.Limit and f.Offset applied.
	Runs(ctx context.Context, f Filter) ([]*Run, error)
	// Count returns how many runs match f (Limit and Offset ignored).
	Count(ctx context.Context, f Filter) (int, error)
	// Briefs returns the few columns of every run matching f that listings
	// and fleet summaries need, oldest first (Limit, Offset, Oldest and Detail are
	// ignored).
	Briefs(ctx context.Context, f Filter) ([]Brief, error)
	// Variants returns every distinct JobKey with its engine, normalized
	// name, DAG and number of runs.
	Variants(ctx context.Context) ([]Variant, error)
	// PutResume keeps the decoder state from which an in-progress log is
	// read further; nil removes it. Resume returns it (nil when none).
	PutResume(ctx context.Context, path string, state []byte) error
	Resume(ctx context.Context, path string) ([]byte, error)
	// Close releases the store.
	Close() error
}
