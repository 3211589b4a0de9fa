package source

import (
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
)

// Databricks writes an application's event log as a folder holding the live
// file "eventlog" and rotated files "eventlog-YYYY-MM-DD--HH-MM[.gz]". The
// rotated files come first, oldest first, then eventlog.
const rotatedLive = "eventlog"

var rotatedPart = regexp.MustCompile(`^eventlog-(\d{4}-\d{2}-\d{2}--\d{2}-\d{2})(\..+)?$`)

// rotated takes a rotated log out of a folder's entries, when there is one
// (a dated file whose content is a Spark log), and returns the other entries.
func (s *scanner) rotated(dir string, entries []fs.DirEntry) []fs.DirEntry {
	var dated []fs.DirEntry
	var live fs.DirEntry
	for _, e := range entries {
		switch {
		case e.IsDir():
		case rotatedPart.MatchString(e.Name()):
			dated = append(dated, e)
		case e.Name() == rotatedLive:
			live = e
		}
	}
	if len(dated) == 0 {
		return entries
	}
	// Names sort by their time stamp.
	slices.SortFunc(dated, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	if live != nil {
		dated = append(dated, live)
	}
	var parts []Part
	names := map[string]bool{}
	checked := false
	for _, e := range dated {
		p := path.Join(dir, e.Name())
		info, err := e.Info()
		if err != nil {
			return entries
		}
		if !checked && info.Size() > 0 {
			// The content decides: this must be a Spark log.
			checked = true
			if s.classify(p, info).kind != SparkEventLog {
				return entries
			}
		}
		parts = append(parts, s.part(p, info, 0))
		names[e.Name()] = true
	}
	s.logs = append(s.logs, &Log{
		Name:    s.display(dir),
		ID:      path.Base(dir),
		Kind:    SparkEventLog,
		Layout:  Rotated,
		Parts:   parts,
		ModTime: latest(parts),
		fsys:    s.open,
		key:     s.key + dir,
	})
	return slices.DeleteFunc(slices.Clone(entries), func(e fs.DirEntry) bool { return names[e.Name()] })
}
