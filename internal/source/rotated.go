package source

import (
	"cmp"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/clusterlens/clusterlens/internal/codec"
	"github.com/clusterlens/clusterlens/internal/model"
)

// Databricks delivers an application's event log as a folder holding the
// part being written, "eventlog", and the parts rolled before it,
// "eventlog-YYYY-MM-DD--HH-MM[.gz]". Every part starts with a
// DBCEventLoggingListenerMetadata line giving its Rollover Number (0, 1, ...)
// and the SparkContext Id of its application. Parts are joined per context in
// Rollover Number order wherever they lie under the path a user gave, or
// inside one archive (see archive); a part without the line is placed by the
// date in its name, the live "eventlog" last. What is missing, repeated or guessed is
// said in the log's notes; a Rollover Number gap is found by the decoder,
// which sees every marker, also those inside concatenated files.

// rolledName matches the names Databricks gives the parts of a log.
var rolledName = regexp.MustCompile(`^eventlog(?:$|[-.])`)

// rolledDate finds the date in a rolled part's name.
var rolledDate = regexp.MustCompile(`^eventlog-(\d{4}-\d{2}-\d{2}--\d{2}-\d{2})`)

// rolledLive is the name of the part being written.
const rolledLive = "eventlog"

// isRolledName reports whether a file's name is one Databricks gives the
// parts of a rolled log.
func isRolledName(name string) bool { return rolledName.MatchString(name) }

// rolledPart is a Spark log file with a Databricks part name.
type rolledPart struct {
	part     Part
	dir      string // identity of its folder
	dirName  string // display name of its folder
	name     string // base name
	date     string // YYYY-MM-DD--HH-MM from the name, "" when none
	live     bool   // named "eventlog" (compression extension aside)
	numbered bool   // it starts with a DBCEventLoggingListenerMetadata line
	header   model.Rollover
	fsys     fs.FS  // where the part opens
	key      string // identity of the file
}

// addRolled records a Spark log file with a Databricks part name, to be
// grouped when the whole path is scanned (joinRolled), and reports whether
// it is one: it must start with a DBCEventLoggingListenerMetadata line, or
// be named as Databricks names parts (eventlog, eventlog-<date>...). Other
// files named eventlog-* are logs of their own.
func (s *scanner) addRolled(p string, info fs.FileInfo, f found) bool {
	name := path.Base(p)
	r := rolledPart{
		part:    s.part(p, info, f.codec),
		dir:     s.key + path.Dir(p),
		dirName: s.display(path.Dir(p)),
		name:    name,
		live:    stripCodec(name) == rolledLive,
		fsys:    s.open,
		key:     s.key + p,
	}
	if m := rolledDate.FindStringSubmatch(name); m != nil {
		r.date = m[1]
	}
	if s.opts.PartHeader != nil && f.first != nil {
		_, r.header, r.numbered = s.opts.PartHeader(f.first)
	}
	if !r.numbered && !r.live && r.date == "" {
		return false
	}
	*s.rolled = append(*s.rolled, r)
	return true
}

// stripCodec drops a compression extension from a file name.
func stripCodec(name string) string {
	if c := codec.FromExtension(name); c != codec.None {
		if ext := path.Ext(name); ext != "" {
			return strings.TrimSuffix(name, ext)
		}
	}
	return name
}

// joinRolled makes the logs of the rolled parts found: one per Spark context
// (or, for parts without markers, per folder).
func (s *scanner) joinRolled() {
	parts := *s.rolled
	sets := groupRolled(parts)
	names := map[string]int{} // folders of multi-part sets
	for _, set := range sets {
		if len(set.parts) > 1 {
			names[parts[set.parts[len(set.parts)-1]].dirName]++
		}
	}
	for _, set := range sets {
		last := parts[set.parts[len(set.parts)-1]]
		l := &Log{
			Name:  last.dirName,
			ID:    archiveBase(path.Base(last.dirName)),
			Kind:  SparkEventLog,
			Notes: set.notes,
			fsys:  s.open,
			key:   last.dir + "\x00" + set.key,
		}
		if names[l.Name] > 1 { // two applications rolled in one folder
			l.Name += " [" + set.key + "]"
		}
		for _, i := range set.parts {
			p := parts[i].part
			p.fsys = parts[i].fsys
			l.Parts = append(l.Parts, p)
		}
		if len(l.Parts) == 1 {
			// One file: named as a file, like any single log.
			l.Name, l.ID, l.key = l.Parts[0].Name, s.idFromName(last.name, SparkEventLog), last.key
		} else {
			l.Layout = Rotated
		}
		for _, i := range set.dropped {
			s.skipped = append(s.skipped, Skipped{Name: parts[i].part.Name, Reason: "a copy of a part read from another file (see the log's notes)"})
		}
		l.ModTime = latest(l.Parts)
		s.logs = append(s.logs, l)
	}
	*s.rolled = nil
}

// archiveBase names a log after its folder, or after the archive when the
// parts lie at an archive's root ("x.zip!/" gives "x").
func archiveBase(name string) string {
	name = strings.TrimSuffix(strings.TrimSuffix(name, "!"), "!/")
	for _, ext := range []string{".tar.gz", ".tgz", ".tar", ".zip"} {
		if strings.HasSuffix(strings.ToLower(name), ext) {
			return name[:len(name)-len(ext)]
		}
	}
	return name
}

// rolledSet is one application's parts, in reading order.
type rolledSet struct {
	key     string // what the parts share: "context <id>" or "folder <folder>"
	parts   []int  // indexes into the parts grouped, in reading order
	dropped []int  // parts not read: copies of a part read
	notes   []model.Note
}

// groupRolled groups rolled parts into applications and orders each one:
// parts with a marker by SparkContext Id, in Rollover Number order, a part
// read twice kept once; parts without a marker with the one context of
// their folder, placed by the dates in their names, or, when their folder
// has no single context, as a log of their own folder in name-date order,
// the live part last. It is a pure function of its input (fuzzed).
func groupRolled(parts []rolledPart) []rolledSet {
	contexts := map[string][]string{} // folder -> contexts of its numbered parts
	for _, p := range parts {
		if p.numbered && !slices.Contains(contexts[p.dir], p.header.ContextID) {
			contexts[p.dir] = append(contexts[p.dir], p.header.ContextID)
		}
	}
	var keys []string
	members := map[string][]int{}
	for i, p := range parts {
		key := "folder " + p.dir
		switch {
		case p.numbered:
			key = "context " + p.header.ContextID
		case len(contexts[p.dir]) == 1:
			key = "context " + contexts[p.dir][0]
		}
		if members[key] == nil {
			keys = append(keys, key)
		}
		members[key] = append(members[key], i)
	}
	var sets []rolledSet
	for _, key := range keys {
		set := orderRolled(parts, members[key])
		set.key = key
		set.notes = append(set.notes, folderNotes(parts, set.parts, contexts)...)
		sets = append(sets, set)
	}
	return sets
}

// orderRolled orders the parts of one application (indexes into parts).
func orderRolled(parts []rolledPart, idx []int) rolledSet {
	var numbered, unnumbered []int
	for _, i := range idx {
		if parts[i].numbered {
			numbered = append(numbered, i)
		} else {
			unnumbered = append(unnumbered, i)
		}
	}
	var set rolledSet
	slices.SortStableFunc(numbered, func(a, b int) int {
		return cmp.Or(cmp.Compare(parts[a].header.Number, parts[b].header.Number), cmp.Compare(parts[a].key, parts[b].key))
	})
	numbered = set.dropCopies(parts, numbered)
	slices.SortStableFunc(unnumbered, func(a, b int) int { return compareByName(&parts[a], &parts[b]) })
	switch {
	case len(numbered) == 0:
		set.parts = unnumbered
		if len(unnumbered) > 1 {
			set.note(false, "no part starts with a DBCEventLoggingListenerMetadata line: the %d parts are read in the order of the dates in their names, %s last (ordering uncertain)", len(unnumbered), rolledLive)
		}
		return set
	case len(unnumbered) == 0:
		set.parts = numbered
		return set
	}
	// Each unnumbered part goes after the numbered parts its name's date
	// follows.
	at := make([]int, len(unnumbered)) // numbered parts before each
	for j, u := range unnumbered {
		for i, n := range numbered {
			if before(&parts[n], &parts[u]) {
				at[j] = i + 1
			}
		}
	}
	for i := 0; i <= len(numbered); i++ {
		for j, u := range unnumbered {
			if at[j] == i {
				set.parts = append(set.parts, u)
				set.note(false, "%s has no DBCEventLoggingListenerMetadata line: %s (ordering uncertain)", parts[u].part.Name, placement(parts, numbered, i, &parts[u]))
			}
		}
		if i < len(numbered) {
			set.parts = append(set.parts, numbered[i])
		}
	}
	return set
}

// dropCopies keeps one of the parts (sorted by number) that claim the same
// Rollover Number: a copy (same size and marker) is dropped quietly but
// said; of two different files the larger is read and the answer is
// partial.
func (set *rolledSet) dropCopies(parts []rolledPart, numbered []int) []int {
	var kept []int
	for _, i := range numbered {
		if len(kept) == 0 || parts[kept[len(kept)-1]].header.Number != parts[i].header.Number {
			kept = append(kept, i)
			continue
		}
		k := &kept[len(kept)-1]
		a, b := &parts[*k], &parts[i]
		if a.part.Size == b.part.Size && a.header.Timestamp == b.header.Timestamp {
			set.dropped = append(set.dropped, i)
			set.note(false, "part %d is in two files: %s is a copy of %s (same size and marker): read once", a.header.Number, b.part.Name, a.part.Name)
			continue
		}
		if b.part.Size > a.part.Size {
			*k, i = i, *k
			a, b = b, a
		}
		set.dropped = append(set.dropped, i)
		set.note(true, "two different files claim part %d: %s (%d bytes) is read, %s (%d bytes) is not", a.header.Number, a.part.Name, a.part.Size, b.part.Name, b.part.Size)
	}
	return kept
}

func (set *rolledSet) note(partial bool, format string, args ...any) {
	set.notes = append(set.notes, model.Note{Text: fmt.Sprintf(format, args...), Partial: partial})
}

// compareByName orders parts without markers: by the dates in their names,
// undated ones after, the live part last, then by file.
func compareByName(a, b *rolledPart) int {
	return cmp.Or(cmpBool(a.live, b.live), cmpBool(a.date == "", b.date == ""), strings.Compare(a.date, b.date), strings.Compare(a.key, b.key))
}

// before reports whether numbered part n was written before unnumbered part
// u, as their names tell: the live part is the last written; a dated part
// precedes a later or undated one.
func before(n, u *rolledPart) bool {
	switch {
	case n.live:
		return false
	case u.live:
		return true
	case n.date == "":
		return u.date == ""
	case u.date == "":
		return true
	}
	return n.date <= u.date
}

// placement says where an unnumbered part went: after the first i numbered parts.
func placement(parts []rolledPart, numbered []int, i int, u *rolledPart) string {
	how := "by the date in its name"
	if u.live {
		how = "as the live part"
	} else if u.date == "" {
		how = "having no date in its name"
	}
	switch {
	case i == 0:
		return fmt.Sprintf("placed %s before part %d", how, parts[numbered[0]].header.Number)
	case i == len(numbered):
		return fmt.Sprintf("placed %s after part %d", how, parts[numbered[i-1]].header.Number)
	}
	return fmt.Sprintf("placed %s between parts %d and %d", how, parts[numbered[i-1]].header.Number, parts[numbered[i]].header.Number)
}

// folderNotes says when the folders of a set's parts also hold parts of other
// Spark contexts, which are kept apart.
func folderNotes(parts []rolledPart, set []int, contexts map[string][]string) []model.Note {
	var notes []model.Note
	seen := map[string]bool{}
	for _, i := range set {
		p := &parts[i]
		if seen[p.dir] {
			continue
		}
		seen[p.dir] = true
		var others []string
		switch {
		case p.numbered:
			others = slices.DeleteFunc(slices.Clone(contexts[p.dir]), func(c string) bool { return c == p.header.ContextID })
		case len(contexts[p.dir]) > 1:
			notes = append(notes, model.Note{Text: fmt.Sprintf("%s holds parts of %d Spark contexts (%s); its parts without a DBCEventLoggingListenerMetadata line cannot be told apart and are read as an application of their own", p.dirName, len(contexts[p.dir]), strings.Join(contexts[p.dir], ", "))})
		}
		if len(others) > 0 {
			notes = append(notes, model.Note{Text: fmt.Sprintf("%s also holds parts of Spark context %s: kept apart as another application", p.dirName, strings.Join(others, ", "))})
		}
	}
	return notes
}
