package sampler

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/clusterlens/clusterlens/internal/model"
)

func init() { Register("log", false, newLogSampler) }

// Log sampler bounds (defaults; see logSampler).
const (
	// LogReadBudget is how many bytes the log sampler reads per call over all files.
	LogReadBudget = 4 << 20
	// LogMaxLine is the longest line shipped whole; a longer one is cut to
	// this length and its rest skipped.
	LogMaxLine = 1 << 20
)

// logSampler follows the files under Config.LogDirs (Spark event logs,
// Hadoop daemon and container logs; subfolders included) and emits each
// new complete line as a model.LogLineType sample: Target the file's path,
// Value the line's byte offset, Text the line without its newline.
//
// Files are followed by identity (device and inode), not name, as
// tail -F and Filebeat do: a file renamed by rotation (syslog → syslog.1)
// keeps its offset, the new file under the old name is read from its
// start; a file that shrank was truncated and is read again from 0. Files
// present at the first call are followed from their end (lines written
// before the agent started are not shipped); files that appear later from
// their start. A last line without its newline is left until the newline
// arrives. Each call reads at most LogReadBudget bytes, starting each call
// with the file after the one the previous call stopped in, so one busy
// file cannot starve the rest. Compressed files (.gz, .zst, .lz4, .snappy,
// .bz2, .zip) are not followed: their lines cannot be read as written.
type logSampler struct {
	host    string
	dirs    []string
	budget  int
	maxLine int
	files   map[fileID]*logFile
	order   []fileID
	next    int // where the next call starts in order
	started bool
	buf     []byte
}

type fileID struct{ dev, ino uint64 }

// logFile is the state of one followed file.
type logFile struct {
	path     string
	off      int64 // where the next unread line starts
	mtime    int64 // modification time (ns) when off was last set
	skipping bool  // inside an over-long line: drop up to its newline
	seen     bool
}

func newLogSampler(cfg Config) (Sampler, error) {
	if len(cfg.LogDirs) == 0 {
		return nil, fmt.Errorf("log sampler: %w: no log folders configured", ErrUnsupported)
	}
	return &logSampler{host: hostOf(cfg), dirs: cfg.LogDirs, budget: LogReadBudget, maxLine: LogMaxLine, files: map[fileID]*logFile{}}, nil
}

// compressed reports names whose content cannot be followed line by line.
func compressed(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".gz", ".zst", ".zstd", ".lz4", ".snappy", ".bz2", ".zip", ".lzf":
		return true
	}
	return false
}

// fileStat is a followed file's size and modification time at a scan.
type fileStat struct{ size, mtime int64 }

// scan walks the folders and updates which files exist and their names;
// it returns each file's size and modification time.
func (s *logSampler) scan() map[fileID]fileStat {
	stats := map[fileID]fileStat{}
	for _, f := range s.files {
		f.seen = false
	}
	for _, dir := range s.dirs {
		_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() || compressed(path) {
				return nil // unreadable subtrees are skipped, not fatal
			}
			info, err := d.Info()
			if err != nil {
				return nil
			}
			id, ok := fileIDOf(info)
			if !ok {
				return nil
			}
			fst := fileStat{info.Size(), info.ModTime().UnixNano()}
			stats[id] = fst
			f := s.files[id]
			if f == nil {
				f = &logFile{}
				if !s.started {
					f.off, f.mtime = fst.size, fst.mtime
				}
				s.files[id] = f
				s.order = append(s.order, id)
			}
			f.path, f.seen = path, true
			return nil
		})
	}
	s.started = true
	s.order = slices.DeleteFunc(s.order, func(id fileID) bool {
		if !s.files[id].seen {
			delete(s.files, id)
			return true
		}
		return false
	})
	return stats
}

// lineLimit is where lines are cut: maxLine, or less when the read budget
// could not hold such a line with the byte before it and a CRLF (a file
// given the whole budget, at least 4 bytes, then always progresses).
func (s *logSampler) lineLimit() int { return max(1, min(s.maxLine, s.budget-3)) }

// Sample implements Sampler.
func (s *logSampler) Sample(now time.Time, dst []model.Sample) ([]model.Sample, error) {
	stats := s.scan()
	ms := now.UnixMilli()
	budget := s.budget
	n := len(s.order)
	for k := 0; k < n && budget > 0; k++ {
		i := (s.next + k) % n
		f := s.files[s.order[i]]
		st := stats[s.order[i]]
		if st.size < f.off || st.size == f.off && st.mtime != f.mtime && f.off > 0 {
			f.off, f.skipping = 0, false // truncated, or rewritten to the same size
		}
		if st.size == f.off {
			f.mtime = st.mtime
			continue
		}
		var err error
		var used int
		dst, used, err = s.follow(f, st.size, budget, ms, dst)
		f.mtime = st.mtime
		if err != nil {
			return dst, err
		}
		budget -= used
		if budget <= 0 {
			s.next = i + 1
		}
	}
	return dst, nil
}

// follow reads f from its offset up to size (at most budget bytes) and
// appends its complete lines; it returns the bytes it read.
func (s *logSampler) follow(f *logFile, size int64, budget int, ms int64, dst []model.Sample) ([]model.Sample, int, error) {
	fh, err := os.Open(f.path)
	if err != nil {
		return dst, 0, nil // rotated away or removed since the scan
	}
	defer fh.Close()
	// Read from the byte before the offset: unless inside an over-long
	// line it is the previous line's newline, or the file was rewritten
	// (truncated and refilled past the offset) and is read again from 0.
	from := max(f.off-1, 0)
	want := int(min(size-from, int64(budget)))
	if cap(s.buf) < want {
		s.buf = make([]byte, want)
	}
	b := s.buf[:want]
	got, err := fh.ReadAt(b, from)
	if err != nil && err != io.EOF {
		return dst, 0, fmt.Errorf("log sampler: read %s at %d: %w", f.path, from, err)
	}
	b = b[:got]
	limit := s.lineLimit()
	if f.off > 0 {
		if got == 0 || b[0] != '\n' && !f.skipping {
			f.off, f.skipping = 0, false
			return s.follow(f, size, budget, ms, dst)
		}
		b = b[1:]
	}
	for len(b) > 0 {
		line, rest, complete := bytes.Cut(b, []byte{'\n'})
		switch {
		case complete && f.skipping:
			f.skipping = false
		case complete:
			text := bytes.TrimSuffix(line, []byte{'\r'})
			if len(text) > limit {
				text = text[:limit]
			}
			dst = append(dst, model.Sample{Time: ms, Host: s.host, Type: model.LogLineType, Target: f.path, Value: float64(f.off), Text: string(text)})
		case !f.skipping && len(bytes.TrimSuffix(line, []byte{'\r'})) > limit:
			// An over-long line still without its newline (a last CR may be
			// its CRLF's): ship its head now, drop the rest as it arrives.
			dst = append(dst, model.Sample{Time: ms, Host: s.host, Type: model.LogLineType, Target: f.path, Value: float64(f.off), Text: string(line[:limit])})
			f.skipping = true
			f.off += int64(len(line))
			return dst, got, nil
		case f.skipping:
			f.off += int64(len(line))
			return dst, got, nil
		default:
			return dst, got, nil // partial last line: wait for its newline
		}
		f.off += int64(len(line)) + 1
		b = rest
	}
	return dst, got, nil
}
