package eventlog

import (
	"github.com/clusterlens/clusterlens/internal/jsonscan"
)

// A task's accumulable list is most of the bytes of an event log (dozens of
// entries per task end, about 6 KB of a 7 KB line) and little of it is read:
// the ID and Update of each entry, for the SQL metrics the plans declare.
// Spark writes every entry in one layout,
//
//	{"ID":12,"Name":"...","Update":v,"Value":v,"Internal":true,"Count Failed Values":true[,"Metadata":"sql"]}
//
// so readAccumulables matches that text directly, checking each value as the
// validating scanner would (jsonscan.ScalarEnd), and reads any other entry
// key by key: a malformed list still makes a bad line.

// accumUpdate is one accumulable entry's ID and Update, the update as its
// raw JSON text at raw[off:end] of the list it came from.
type accumUpdate struct {
	id       int64
	off, end int
}

// readAccumulables reads the value of a task's "Accumulables", validating
// it. It returns the value's raw text and appends to ups the ID and Update
// of every entry that has both (a later key of the same name wins; an ID
// that is not a decimal long, quoted or not, counts as absent), in order.
// internal is set when every entry is an internal metric in Spark's layout
// (Internal true, scalar values): the History Server shows none of them, so
// keepAccumulables has nothing to keep.
func readAccumulables(s *jsonscan.Scanner, ups []accumUpdate) (raw []byte, _ []accumUpdate, internal bool) {
	if s.Kind() != '[' {
		return s.SkipRaw(), ups, false
	}
	start := s.Offset()
	internal = true
	s.Array()
	for s.Next() {
		rest := s.Rest()
		if e, ok := sparkAccumulable(rest); ok {
			base := s.Offset() - start
			ups = append(ups, accumUpdate{e.id, base + e.off, base + e.end})
			internal = internal && e.internal
			s.Advance(e.n)
			continue
		}
		internal = false
		ups = readAccumulable(s, start, ups)
	}
	if s.Err() != nil {
		return nil, ups, false
	}
	return s.Source()[start:s.Offset()], ups, internal
}

// readAccumulable reads one entry of a list that starts at offset start of
// the scanner's input, key by key, and appends its ID and Update when it
// has both.
func readAccumulable(s *jsonscan.Scanner, start int, ups []accumUpdate) []accumUpdate {
	if s.Kind() != '{' {
		s.Skip()
		return ups
	}
	s.Object()
	var u accumUpdate
	hasID, hasUpdate := false, false
	for k := s.Key(); k != nil; k = s.Key() {
		switch string(k) {
		case "ID":
			u.id, hasID = parseID(s.SkipRaw())
		case "Update":
			s.Kind() // to the value
			u.off = s.Offset() - start
			s.Skip()
			u.end, hasUpdate = s.Offset()-start, true
		default:
			s.Skip()
		}
	}
	if hasID && hasUpdate && s.Err() == nil {
		ups = append(ups, u)
	}
	return ups
}

// sparkEntry is an accumulable entry matched in Spark's layout: its ID,
// its Update at [off:end) and its length n, from the entry's brace.
type sparkEntry struct {
	id          int64
	off, end, n int
	internal    bool
}

// The fixed text of Spark's accumulable entries.
const (
	accumIDKey     = `{"ID":`
	accumNameKey   = `,"Name":`
	accumUpdateKey = `,"Update":`
	accumValueKey  = `,"Value":`
	accumInternal  = `,"Internal":true,"Count Failed Values":true`
	accumSQLTail   = `,"Metadata":"sql"}`
	accumShown     = `,"Internal":false,"Count Failed Values":false}`
)

// sparkAccumulable matches b's first entry in Spark's layout. Every byte it
// accepts is checked: the keys and tails are literal text, the name a
// string, the values scalars (jsonscan.ScalarEnd), the ID a JSON integer of
// at most 18 digits. ok is false for any other text; nothing is consumed.
func sparkAccumulable(b []byte) (e sparkEntry, ok bool) {
	if len(b) < len(accumIDKey)+len(accumNameKey)+len(accumUpdateKey)+len(accumValueKey)+8 ||
		string(b[:len(accumIDKey)]) != accumIDKey {
		return e, false
	}
	i := len(accumIDKey)
	digits := i
	var id int64
	for i < len(b) && b[i]-'0' < 10 && i-digits < 18 {
		id = id*10 + int64(b[i]-'0')
		i++
	}
	if i == digits || (b[digits] == '0' && i-digits > 1) || !hasPrefixAt(b, i, accumNameKey) {
		return e, false
	}
	i += len(accumNameKey)
	if i >= len(b) || b[i] != '"' {
		return e, false
	}
	if i = jsonscan.StringEnd(b, i); i < 0 || !hasPrefixAt(b, i, accumUpdateKey) {
		return e, false
	}
	e.off = i + len(accumUpdateKey)
	if e.end = jsonscan.ScalarEnd(b, e.off); e.end < 0 || !hasPrefixAt(b, e.end, accumValueKey) {
		return e, false
	}
	i = jsonscan.ScalarEnd(b, e.end+len(accumValueKey))
	switch {
	case i < 0:
		return e, false
	case hasPrefixAt(b, i, accumInternal):
		i += len(accumInternal)
		switch {
		case i < len(b) && b[i] == '}':
			i++
		case hasPrefixAt(b, i, accumSQLTail):
			i += len(accumSQLTail)
		default:
			return e, false
		}
		e.internal = true
	case hasPrefixAt(b, i, accumShown):
		i += len(accumShown)
	default:
		return e, false
	}
	e.id, e.n = id, i
	return e, true
}

func hasPrefixAt(b []byte, i int, p string) bool {
	return i >= 0 && i+len(p) <= len(b) && string(b[i:i+len(p)]) == p
}

// parseID reads an accumulator id, a number or a quoted number.
func parseID(b []byte) (int64, bool) {
	if len(b) >= 2 && b[0] == '"' {
		b = b[1 : len(b)-1]
	}
	return parseDecimal(b)
}

// parseDecimal parses an optionally signed decimal long as Java's
// Long.parseLong does, without allocating.
func parseDecimal(b []byte) (int64, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg, b = b[0] == '-', b[1:]
	}
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	switch {
	case neg && v <= 1<<63:
		return -int64(v), true
	case !neg && v < 1<<63:
		return int64(v), true
	}
	return 0, false
}
