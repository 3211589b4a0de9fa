package source

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/clusterlens/clusterlens/internal/codec"
	"github.com/clusterlens/clusterlens/internal/model"
)

// Options tune Find and Scan. The zero value works.
type Options struct {
	// PartHeader reads the first line of a Spark log part: its event's name
	// and, when it is Databricks' DBCEventLoggingListenerMetadata (ok), the
	// part's Rollover Number and SparkContext Id. load passes
	// eventlog.PartHeader (this package reads no events itself). Without
	// it, the parts of a Databricks log are ordered by their names.
	PartHeader func(line []byte) (event string, r model.Rollover, ok bool)
	// Formats are the kinds of logs the search finds (decodelogs' table);
	// any other file is not a log.
	Formats []Format
	// MaxWindow is the largest zstd window a decompressor may keep, when
	// sniffing files and when opening the parts of the logs found
	// (codec.Options.MaxWindow); 0: codec.DefaultMaxWindow.
	MaxWindow int64
}

// Scan finds the logs at root in fsys: a file, or a folder searched
// recursively (archives found inside are searched too). Names are fsys
// paths. root is explicit: when it holds no log, the error wraps ErrNotLog.
func Scan(fsys fs.FS, root string, opts Options) ([]*Log, []Skipped, error) {
	s := newScanner(fsys, func(p string) string { return p }, "", opts)
	err := s.explicit(root)
	return s.result(), s.skipped, err
}

// scanner collects logs and skipped files.
type scanner struct {
	list    fs.FS               // read while scanning
	open    fs.FS               // given to logs, to open their parts later
	display func(string) string // display name of a path in list
	key     string              // prefix of log identities (where list is rooted)
	depth   int                 // archives list is nested in
	opts    Options
	rolled  *[]rolledPart // Databricks parts found, shared with archives inside
	logs    []*Log
	skipped []Skipped
}

// newScanner returns a scanner of fsys.
func newScanner(fsys fs.FS, display func(string) string, key string, opts Options) *scanner {
	return &scanner{list: fsys, open: fsys, display: display, key: key, opts: opts, rolled: new([]rolledPart)}
}

// maxDepth bounds archives nested in archives.
const maxDepth = 3

func (s *scanner) skip(p, format string, args ...any) {
	s.skipped = append(s.skipped, Skipped{Name: s.display(p), Reason: fmt.Sprintf(format, args...)})
}

// unreadable records p as skipped because it could not be read: a log may
// have been lost there.
func (s *scanner) unreadable(p, what string, err error) {
	err = pathless(err)
	s.skipped = append(s.skipped, Skipped{Name: s.display(p), Reason: what + ": " + err.Error(), Err: err})
}

// result returns the logs sorted by name, and sorts skipped files too.
func (s *scanner) result() []*Log {
	slices.SortFunc(s.logs, func(a, b *Log) int { return strings.Compare(a.Name, b.Name) })
	slices.SortStableFunc(s.skipped, func(a, b Skipped) int { return strings.Compare(a.Name, b.Name) })
	return s.logs
}

// explicit scans a path the user named: it must hold at least one log.
func (s *scanner) explicit(p string) error {
	defer func(before int) { // after joinRolled below: its logs too
		for _, l := range s.logs[before:] {
			l.opts = s.opts
		}
	}(len(s.logs))
	info, err := fs.Stat(s.list, p)
	if err != nil {
		return fmt.Errorf("source: %q: %w", s.display(p), pathless(err))
	}
	before := len(s.logs)
	defer s.joinRolled()
	if info.IsDir() {
		s.dir(p)
		if len(s.logs) == before && len(*s.rolled) == 0 {
			return fmt.Errorf("source: %q: %w: no log in this folder (%d files skipped); want %s", s.display(p), ErrNotLog, len(s.skipped), wantLog)
		}
		return nil
	}
	f := s.classify(p, info)
	switch {
	case f.err != nil:
		return fmt.Errorf("source: %q: %s: %w", s.display(p), f.reason, f.err)
	case f.kind == SparkEventLog && isRolledName(path.Base(p)) && s.addRolled(p, info, f):
	case f.kind != Unknown:
		l := s.single(p, info, f)
		if s.isJob(f.kind) {
			s.attachConfFromDir(l, path.Dir(p))
		}
		s.logs = append(s.logs, l)
	case f.other == otherZip || f.other == otherTar:
		s.archive(p, info, f)
		if len(s.logs) == before && len(*s.rolled) == 0 {
			return fmt.Errorf("source: %q: %w: no log in this %s archive; want %s", s.display(p), ErrNotLog, archiveKind(f), wantLog)
		}
	default:
		return fmt.Errorf("source: %q: %w (%s); want %s", s.display(p), ErrNotLog, f.reason, wantLog)
	}
	return nil
}

// dir scans a folder: one multi-part log, or files and sub-folders.
func (s *scanner) dir(p string) {
	entries, err := fs.ReadDir(s.list, p)
	if err != nil {
		s.unreadable(p, "unreadable folder", err)
		return
	}
	name := path.Base(p)
	switch {
	case isRollingDir(name, entries):
		s.rolling(p, entries)
		return
	case isSpark1Dir(entries):
		s.spark1(p, entries)
		return
	}
	var mr []*Log
	var confs []conf
	for _, e := range entries {
		child := path.Join(p, e.Name())
		if strings.HasPrefix(e.Name(), ".") {
			s.skip(child, "hidden")
			continue
		}
		if e.Name() == macOSMeta && e.IsDir() {
			s.skip(child, "macOS archive metadata (resource forks of the files beside it)")
			continue
		}
		// The entry's own attributes, as listed (one request less per
		// object in a store); a symbolic link's are its target's.
		info, err := e.Info()
		if err == nil && e.Type()&fs.ModeSymlink != 0 {
			info, err = fs.Stat(s.list, child)
		}
		if err != nil {
			s.unreadable(child, "unreadable", err)
			continue
		}
		if info.IsDir() {
			if e.Type()&fs.ModeSymlink != 0 {
				s.skip(child, "symbolic link to a folder (not followed)")
				continue
			}
			s.dir(child)
			continue
		}
		if !info.Mode().IsRegular() {
			s.skip(child, "not a regular file")
			continue
		}
		f := s.classify(child, info)
		switch {
		case f.err != nil:
			s.unreadable(child, f.reason, f.err)
		case f.kind == SparkEventLog && isRolledName(e.Name()) && s.addRolled(child, info, f):
		case f.kind != Unknown:
			l := s.single(child, info, f)
			s.logs = append(s.logs, l)
			if s.isJob(f.kind) {
				mr = append(mr, l)
			}
		case f.other == otherConf:
			confs = append(confs, conf{path: child, info: info, codec: f.codec})
		case (f.other == otherZip || f.other == otherTar) && s.depth < maxDepth:
			s.archive(child, info, f)
		case f.other == otherZip || f.other == otherTar:
			s.unreadable(child, fmt.Sprintf("%s archive nested %d deep in archives", archiveKind(f), s.depth), errTooDeep)
		default:
			s.skip(child, "not a log: %s", f.reason)
		}
	}
	for _, c := range s.attachConfs(mr, confs) {
		s.skip(c.path, "Hadoop job configuration XML with no job history beside it")
	}
}

// macOSMeta is the folder macOS adds to the zip archives it makes.
const macOSMeta = "__MACOSX"

// errTooDeep is why an archive nested deeper than maxDepth is not read.
var errTooDeep = errors.New("not read")

// found is what classify learned about a file.
type found struct {
	kind   Kind
	other  other
	reason string      // why it is not a log, or what could not be read
	err    error       // set when the file could not be read
	codec  codec.Codec // codec of its bytes
	first  []byte      // a Spark log's first line, when it fits the sniffed bytes
}

// classify sniffs the first decompressed bytes of the file at p.
func (s *scanner) classify(p string, info fs.FileInfo) found {
	name := path.Base(p)
	if info.Size() == 0 {
		if strings.HasSuffix(name, ".inprogress") {
			// A Spark log that has not written its first event yet.
			return found{kind: SparkEventLog}
		}
		return found{other: otherEmpty, reason: "empty file"}
	}
	file, err := s.list.Open(p)
	if err != nil {
		return found{reason: "unreadable", err: pathless(err)}
	}
	defer file.Close()
	br := bufio.NewReaderSize(file, 64<<10)
	if raw, _ := br.Peek(len(zipMagic)); bytes.Equal(raw, zipMagic) {
		return found{other: otherZip, reason: "zip archive"}
	}
	if raw, _ := br.Peek(tarMagicEnd); isTar(raw) {
		return found{other: otherTar, reason: "tar archive"}
	}
	r, c, err := codec.OpenWith(s.display(p), br, codec.Options{MaxWindow: s.opts.MaxWindow})
	if err != nil {
		return found{reason: "cannot decompress", err: err, codec: c}
	}
	defer r.Close()
	head := make([]byte, SniffSize)
	n, err := io.ReadFull(r, head)
	head = head[:n]
	if n == 0 && err != nil && err != io.EOF {
		return found{reason: fmt.Sprintf("unreadable %v data", c), err: err, codec: c}
	}
	k, o := sniff(head, s.opts.Formats)
	f := found{kind: k, other: o, codec: c}
	if k == SparkEventLog {
		if line, _, ok := bytes.Cut(head, []byte("\n")); ok || n < SniffSize {
			f.first = bytes.Clone(line)
		}
	}
	if k == Unknown {
		f.reason = describe(o, head)
		if c != codec.None {
			f.reason = c.String() + "-compressed " + f.reason
		}
	}
	return f
}

// single makes the log of one file.
func (s *scanner) single(p string, info fs.FileInfo, f found) *Log {
	name := path.Base(p)
	l := &Log{
		Name:    s.display(p),
		ID:      s.idFromName(name, f.kind),
		Kind:    f.kind,
		Layout:  Single,
		Parts:   []Part{s.part(p, info, f.codec)},
		ModTime: info.ModTime(),
		fsys:    s.open,
		key:     s.key + p,
	}
	l.InProgress = strings.HasSuffix(name, ".inprogress")
	l.Complete = f.kind == SparkEventLog && !l.InProgress
	return l
}

// part describes the file at p.
// numberedPart makes the part for p, a file of a multi-part folder whose
// name carries its index as text; unreadable files and bad indexes are
// skipped with a reason naming what (e.g. "events file index").
func (s *scanner) numberedPart(p string, e fs.DirEntry, index, what string) (Part, bool) {
	info, err := e.Info()
	if err != nil {
		s.unreadable(p, "unreadable", err)
		return Part{}, false
	}
	idx, err := strconv.ParseInt(index, 10, 64)
	if err != nil {
		s.skip(p, "%s %s: %v", what, index, err)
		return Part{}, false
	}
	part := s.part(p, info, 0)
	part.Index = idx
	return part, true
}

func (s *scanner) part(p string, info fs.FileInfo, c codec.Codec) Part {
	return Part{Name: s.display(p), Path: p, Size: info.Size(), ModTime: info.ModTime(), Codec: c}
}

// idFromName guesses the id a file name carries.
func (s *scanner) idFromName(name string, k Kind) string {
	base := strings.TrimSuffix(name, ".inprogress")
	if c := codec.FromExtension(base); c != codec.None {
		for _, ext := range []string{c.Extension(), ".zst", ".gzip"} {
			if strings.HasSuffix(strings.ToLower(base), ext) {
				base = base[:len(base)-len(ext)]
				break
			}
		}
	}
	f, _ := format(s.opts.Formats, k)
	if f.Job {
		if id := jobIDPattern.FindString(base); id != "" {
			return id
		}
	}
	return strings.TrimSuffix(base, f.Ext)
}
