package agent

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
)

// spool keeps undelivered batches on disk, one file per batch named by its
// sequence number, bounded in total size. It is used by one goroutine;
// its counters may be read from any.
type spool struct {
	dir     string
	max     int64
	log     *slog.Logger
	entries []spoolEntry // ascending seq
	size    int64

	count   atomic.Int64 // batches spooled now
	dropped atomic.Int64 // batches deleted because the spool was full
}

type spoolEntry struct {
	seq  uint64
	size int64
}

// openSpool opens (creating) dir and indexes the batches already in it;
// leftover temporary files from a crash are removed.
func openSpool(dir string, max int64, log *slog.Logger) (*spool, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("spool: %w", err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("spool: %w", err)
	}
	s := &spool{dir: dir, max: max, log: log}
	for _, e := range ents {
		name := e.Name()
		if strings.HasSuffix(name, ".tmp") {
			os.Remove(filepath.Join(dir, name))
			continue
		}
		seq, err := strconv.ParseUint(strings.TrimSuffix(name, ".clb"), 10, 64)
		if err != nil || !strings.HasSuffix(name, ".clb") {
			continue // not ours
		}
		info, err := e.Info()
		if err != nil {
			return nil, fmt.Errorf("spool: %w", err)
		}
		s.entries = append(s.entries, spoolEntry{seq, info.Size()})
		s.size += info.Size()
	}
	sort.Slice(s.entries, func(i, j int) bool { return s.entries[i].seq < s.entries[j].seq })
	s.count.Store(int64(len(s.entries)))
	return s, nil
}

func (s *spool) path(seq uint64) string {
	return filepath.Join(s.dir, fmt.Sprintf("%020d.clb", seq))
}

// len returns how many batches are spooled.
func (s *spool) len() int { return len(s.entries) }

// add writes a batch, first deleting the oldest batches while the spool
// would exceed its bound. A batch larger than the whole bound is dropped.
// Batches are added in increasing seq order.
func (s *spool) add(seq uint64, data []byte) error {
	n := int64(len(data))
	if n > s.max {
		s.dropped.Add(1)
		s.log.Error("spool: batch larger than the whole spool dropped", "seq", seq, "bytes", n, "spool_max_bytes", s.max)
		return nil
	}
	for s.size+n > s.max && len(s.entries) > 0 {
		old := s.entries[0]
		s.removeOldest()
		s.dropped.Add(1)
		s.log.Warn("spool full: oldest batch dropped", "seq", old.seq, "spool_max_bytes", s.max, "dropped_total", s.dropped.Load())
	}
	tmp := s.path(seq) + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("spool batch %d: %w", seq, err)
	}
	if err := os.Rename(tmp, s.path(seq)); err != nil {
		return fmt.Errorf("spool batch %d: %w", seq, err)
	}
	s.entries = append(s.entries, spoolEntry{seq, n})
	s.size += n
	s.count.Store(int64(len(s.entries)))
	return nil
}

// oldest returns the oldest spooled batch.
func (s *spool) oldest() (uint64, []byte, error) {
	seq := s.entries[0].seq
	data, err := os.ReadFile(s.path(seq))
	if err != nil {
		return seq, nil, fmt.Errorf("spool: read batch %d: %w", seq, err)
	}
	return seq, data, nil
}

// removeOldest deletes the oldest spooled batch. It leaves the index even
// when its file cannot be deleted (logged), so a broken disk cannot make
// the agent send one batch forever; a restart would replay it once more.
func (s *spool) removeOldest() {
	e := s.entries[0]
	if err := os.Remove(s.path(e.seq)); err != nil && !os.IsNotExist(err) {
		s.log.Error("spool: cannot delete a delivered batch", "seq", e.seq, "err", err)
	}
	s.entries = s.entries[1:]
	s.size -= e.size
	s.count.Store(int64(len(s.entries)))
}
