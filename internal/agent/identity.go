package agent

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// seqLease is how many sequence numbers are reserved per write of the seq
// file.
const seqLease = 1024

// loadID returns the agent id stored in dir/agent-id, creating it from
// host and random bits on first use: a node keeps its id across restarts,
// and a wiped spool (a reinstalled node) gets a new one, so its restarted
// numbering cannot collide with batches the collector already has.
func loadID(dir, host, override string) (string, error) {
	path := filepath.Join(dir, "agent-id")
	if override != "" {
		return override, nil
	}
	b, err := os.ReadFile(path)
	if err == nil {
		id := strings.TrimSpace(string(b))
		if id == "" {
			return "", fmt.Errorf("agent id file %s is empty", path)
		}
		return id, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("read agent id: %w", err)
	}
	var r [4]byte
	if _, err := rand.Read(r[:]); err != nil {
		return "", fmt.Errorf("agent id: %w", err)
	}
	id := host + "-" + hex.EncodeToString(r[:])
	if err := writeFileSync(path, []byte(id+"\n")); err != nil {
		return "", fmt.Errorf("write agent id: %w", err)
	}
	return id, nil
}

// sequencer hands out increasing batch numbers, persisting a reservation
// before using any number in it.
type sequencer struct {
	path        string
	next, limit uint64
}

// openSequencer continues after the highest number ever reserved in path.
func openSequencer(path string) (*sequencer, error) {
	q := &sequencer{path: path}
	b, err := os.ReadFile(path)
	switch {
	case err == nil:
		v, perr := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
		if perr != nil {
			return nil, fmt.Errorf("sequence file %s: want a number, got %q", path, strings.TrimSpace(string(b)))
		}
		q.limit = v
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("read sequence file: %w", err)
	}
	q.next = q.limit + 1
	return q, nil
}

// take returns the next number.
func (q *sequencer) take() (uint64, error) {
	if q.next > q.limit {
		limit := q.next + seqLease - 1
		if err := writeFileSync(q.path, []byte(strconv.FormatUint(limit, 10)+"\n")); err != nil {
			return 0, fmt.Errorf("reserve sequence numbers: %w", err)
		}
		q.limit = limit
	}
	v := q.next
	q.next++
	return v, nil
}

// writeFileSync replaces path with data durably: a temporary file, fsync,
// rename.
func writeFileSync(path string, data []byte) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
