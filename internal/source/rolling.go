package source

import (
	"cmp"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Spark's rolling event log folder (Spark 3.0+, spark.eventLog.rolling.enabled):
//
//	eventlog_v2_<app>[_<attempt>]/
//	    events_<n>_<app>[_<attempt>][.<codec>][.compact]
//	    appstatus_<app>[_<attempt>][.inprogress]
//
// Parts are read in numeric index order from the last compacted file on, as
// Spark's RollingEventLogFilesFileReader does.
const (
	rollingDirPrefix = "eventlog_v2_"
	appStatusPrefix  = "appstatus_"
	compactSuffix    = ".compact"
)

var eventsFile = regexp.MustCompile(`^events_(\d+)_`)

// isRollingDir reports whether a folder named name with these entries is a
// rolling event log folder: Spark's name, or an appstatus marker beside
// events files.
func isRollingDir(name string, entries []fs.DirEntry) bool {
	if strings.HasPrefix(name, rollingDirPrefix) {
		return true
	}
	var status, events bool
	for _, e := range entries {
		status = status || strings.HasPrefix(e.Name(), appStatusPrefix) && !e.IsDir()
		events = events || eventsFile.MatchString(e.Name()) && !e.IsDir()
	}
	return status && events
}

// rolling makes the log of a rolling folder.
func (s *scanner) rolling(dir string, entries []fs.DirEntry) {
	l := &Log{
		Name:   s.display(dir),
		ID:     strings.TrimPrefix(path.Base(dir), rollingDirPrefix),
		Kind:   SparkEventLog,
		Layout: Rolling,
		fsys:   s.open,
		key:    s.key + dir,
	}
	var parts []Part
	status := ""
	for _, e := range entries {
		p := path.Join(dir, e.Name())
		m := eventsFile.FindStringSubmatch(e.Name())
		switch {
		case e.IsDir():
			s.skip(p, "folder inside a rolling event log folder")
		case m != nil:
			part, ok := s.numberedPart(p, e, m[1], "events file index")
			if !ok {
				continue
			}
			part.Compact = strings.HasSuffix(e.Name(), compactSuffix)
			parts = append(parts, part)
		case strings.HasPrefix(e.Name(), appStatusPrefix):
			if status != "" {
				l.note(false, "several appstatus files; using %s", status)
				continue
			}
			status = e.Name()
		default:
			s.skip(p, "unexpected file in a rolling event log folder")
		}
	}
	if len(parts) == 0 {
		s.skip(dir, "rolling event log folder without events_<n>_* files")
		return
	}
	// Index order; a compacted file sorts after the plain file of its index.
	slices.SortFunc(parts, func(a, b Part) int {
		if a.Index != b.Index {
			return cmp.Compare(a.Index, b.Index)
		}
		return cmpBool(a.Compact, b.Compact)
	})
	// Reading starts at the last compacted file.
	for i := len(parts) - 1; i > 0; i-- {
		if parts[i].Compact {
			for _, old := range parts[:i] {
				s.skipped = append(s.skipped, Skipped{Name: old.Name, Reason: fmt.Sprintf("superseded by the compacted file %s", path.Base(parts[i].Path))})
			}
			parts = parts[i:]
			break
		}
	}
	for i := 1; i < len(parts); i++ {
		if parts[i].Index != parts[i-1].Index+1 {
			l.note(true, "missing events file(s) between index %d and %d", parts[i-1].Index, parts[i].Index)
		}
	}
	switch {
	case status == "":
		l.note(false, "no appstatus file: completeness unknown")
	case strings.HasSuffix(status, ".inprogress"):
		l.InProgress = true
	default:
		l.Complete = true
	}
	l.Parts = parts
	l.ModTime = latest(parts)
	s.logs = append(s.logs, l)
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// latest returns the latest modification time of parts.
func latest(parts []Part) time.Time {
	var t time.Time
	for _, p := range parts {
		if p.ModTime.After(t) {
			t = p.ModTime
		}
	}
	return t
}
