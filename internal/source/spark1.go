package source

import (
	"cmp"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/clusterlens/clusterlens/internal/codec"
)

// The Spark 1.0–1.2 log folder (FileLogger):
//
//	<app>/
//	    EVENT_LOG_<n>                 parts, compressed without an extension
//	    SPARK_VERSION_<version>       empty marker
//	    COMPRESSION_CODEC_<codec>     empty marker, when compressed
//	    APPLICATION_COMPLETE          empty marker, once finished
const (
	spark1VersionPrefix = "SPARK_VERSION_"
	spark1CodecPrefix   = "COMPRESSION_CODEC_"
	spark1Complete      = "APPLICATION_COMPLETE"
)

var spark1Part = regexp.MustCompile(`^EVENT_LOG_(\d+)$`)

// isSpark1Dir reports whether a folder holds an EVENT_LOG_<n> file.
func isSpark1Dir(entries []fs.DirEntry) bool {
	for _, e := range entries {
		if !e.IsDir() && spark1Part.MatchString(e.Name()) {
			return true
		}
	}
	return false
}

// spark1 makes the log of a Spark 1.x folder.
func (s *scanner) spark1(dir string, entries []fs.DirEntry) {
	l := &Log{
		Name:   s.display(dir),
		ID:     path.Base(dir),
		Kind:   SparkEventLog,
		Layout: Spark1Dir,
		fsys:   s.open,
		key:    s.key + dir,
	}
	c := codec.None
	for _, e := range entries {
		p := path.Join(dir, e.Name())
		name := e.Name()
		m := spark1Part.FindStringSubmatch(name)
		switch {
		case e.IsDir():
			s.skip(p, "folder inside a Spark 1.x log folder")
		case m != nil:
			if part, ok := s.numberedPart(p, e, m[1], "event log index"); ok {
				l.Parts = append(l.Parts, part)
			}
		case strings.HasPrefix(name, spark1VersionPrefix):
			l.SparkVersion = strings.TrimPrefix(name, spark1VersionPrefix)
		case strings.HasPrefix(name, spark1CodecPrefix):
			v := strings.TrimPrefix(name, spark1CodecPrefix)
			if pc, ok := codec.ParseName(v); ok {
				c = pc
			} else {
				l.note(false, "unknown compression codec %q: parts are sniffed", v)
			}
		case name == spark1Complete:
			l.Complete = true
		default:
			s.skip(p, "unexpected file in a Spark 1.x log folder")
		}
	}
	slices.SortFunc(l.Parts, func(a, b Part) int { return cmp.Compare(a.Index, b.Index) })
	for i := range l.Parts {
		l.Parts[i].Codec = c
	}
	for i := 1; i < len(l.Parts); i++ {
		if l.Parts[i].Index != l.Parts[i-1].Index+1 {
			l.note(true, "missing EVENT_LOG file(s) between %d and %d", l.Parts[i-1].Index, l.Parts[i].Index)
		}
	}
	l.InProgress = !l.Complete
	l.ModTime = latest(l.Parts)
	s.logs = append(s.logs, l)
}
