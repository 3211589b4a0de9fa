// Package jsonscan is a validating, zero-allocation pull scanner for one JSON
// document held in memory (one line of an event log). It is the project's
// seam for JSON decoding on hot paths: a decoder walks objects key by key,
// reads the values it wants and skips the rest, without reflection and
// without building intermediate values.
//
// Every value is validated as it is read or skipped, so a malformed line is
// reported as such, not half-accepted. Raw control characters inside strings
// are tolerated.
package jsonscan

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// ErrSyntax is wrapped by every error the scanner reports.
var ErrSyntax = errors.New("invalid JSON")

// maxDepth bounds nesting so hostile input cannot exhaust the stack.
const maxDepth = 512

// Scanner reads one JSON document. The zero value is ready after Reset.
type Scanner struct {
	buf     []byte
	pos     int
	err     error
	first   bool // the next Next call is the first of an object or array
	depth   int
	scratch []byte
}

// Reset starts scanning b. b must not change while it is scanned.
func (s *Scanner) Reset(b []byte) {
	s.buf, s.pos, s.err, s.first, s.depth = b, 0, nil, false, 0
}

// Err returns the first error met, or nil.
func (s *Scanner) Err() error { return s.err }

// Offset is the byte offset the scanner has reached.
func (s *Scanner) Offset() int { return s.pos }

func (s *Scanner) fail(want string) {
	if s.err != nil {
		return
	}
	if s.pos >= len(s.buf) {
		s.err = fmt.Errorf("%w: unexpected end at offset %d, want %s", ErrSyntax, s.pos, want)
		return
	}
	s.err = fmt.Errorf("%w: offset %d: unexpected %q, want %s", ErrSyntax, s.pos, s.buf[s.pos], want)
	s.pos = len(s.buf)
}

func (s *Scanner) ws() {
	for s.pos < len(s.buf) && s.buf[s.pos] <= ' ' {
		switch s.buf[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, or 0 at the end.
func (s *Scanner) peek() byte {
	s.ws()
	if s.pos < len(s.buf) {
		return s.buf[s.pos]
	}
	return 0
}

// Kind of the next value: '{', '[', '"', 'n' (null), 't'/'f' (bool), '0' (number), or 0 at end or error.
func (s *Scanner) Kind() byte {
	if s.err != nil {
		return 0
	}
	c := s.peek()
	switch {
	case c == '-' || (c >= '0' && c <= '9'):
		return '0'
	case c == '{', c == '[', c == '"', c == 'n', c == 't', c == 'f':
		return c
	}
	return 0
}

// Object enters an object. It returns false (consuming the null) when the
// value is null, and false with an error for anything else.
func (s *Scanner) Object() bool {
	return s.enter('{', "object")
}

// Array enters an array; like Object.
func (s *Scanner) Array() bool {
	return s.enter('[', "array")
}

func (s *Scanner) enter(open byte, what string) bool {
	if s.err != nil {
		return false
	}
	c := s.peek()
	if c == open {
		s.depth++
		if s.depth > maxDepth {
			s.fail("shallower nesting")
			return false
		}
		s.pos++
		s.first = true
		return true
	}
	if c == 'n' && s.literal("null") {
		return false
	}
	s.fail(what)
	return false
}

// Key returns the next key of the current object, with the colon consumed,
// or nil when the object ended (its closing brace consumed) or on error.
// The returned bytes are the raw key between its quotes and alias the input.
func (s *Scanner) Key() []byte {
	if s.err != nil {
		return nil
	}
	if !s.more('}') {
		return nil
	}
	if s.peek() != '"' {
		s.fail("object key")
		return nil
	}
	k := s.rawString()
	if s.err != nil {
		return nil
	}
	if s.peek() != ':' {
		s.fail("':'")
		return nil
	}
	s.pos++
	return k
}

// KeyIs consumes the next key of the current object, with its colon, when
// it is key (raw, as Key returns it), and reports whether it did; it
// consumes nothing otherwise. key must hold no quote or backslash (the
// keys a decoder looks for). A decoder that knows the order its input's
// keys usually come in tries the expected one first: a comparison instead
// of a scan and a lookup.
func (s *Scanner) KeyIs(key string) bool {
	if s.err != nil {
		return false
	}
	b, p := s.buf, s.pos
	if !s.first {
		for p < len(b) && isSpace(b[p]) {
			p++
		}
		if p >= len(b) || b[p] != ',' {
			return false
		}
		p++
	}
	for p < len(b) && isSpace(b[p]) {
		p++
	}
	end := p + len(key) + 2
	if end > len(b) || b[p] != '"' || b[end-1] != '"' || string(b[p+1:end-1]) != key {
		return false
	}
	for end < len(b) && isSpace(b[end]) {
		end++
	}
	if end >= len(b) || b[end] != ':' {
		return false
	}
	s.pos, s.first = end+1, false
	return true
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// Next reports whether the current array has another element to read.
func (s *Scanner) Next() bool {
	if s.err != nil {
		return false
	}
	return s.more(']')
}

// more handles the separator before an element, or the closing bracket.
func (s *Scanner) more(close byte) bool {
	c := s.peek()
	if c == close {
		s.pos++
		s.depth--
		s.first = false
		return false
	}
	if s.first {
		s.first = false
		return true
	}
	if c != ',' {
		s.fail(fmt.Sprintf("',' or %q", close))
		return false
	}
	s.pos++
	return true
}

// rawString consumes a string and returns its raw bytes between the quotes.
func (s *Scanner) rawString() []byte {
	start := s.pos + 1
	end := skipString(s.buf, s.pos)
	if end < 0 {
		s.pos = len(s.buf)
		s.fail("closing '\"'")
		return nil
	}
	s.pos = end
	s.first = false
	return s.buf[start : end-1]
}

// Bytes reads a string value and returns it unescaped. The result aliases the
// input when the string has no escapes, or an internal buffer that the next
// Bytes or String call overwrites. A null reads as nil.
func (s *Scanner) Bytes() []byte {
	if s.err != nil {
		return nil
	}
	switch s.peek() {
	case '"':
		raw := s.rawString()
		if bytes.IndexByte(raw, '\\') < 0 {
			return raw
		}
		s.scratch = s.unescape(s.scratch[:0], raw)
		return s.scratch
	case 'n':
		if s.literal("null") {
			return nil
		}
	}
	s.fail("string")
	return nil
}

// String reads a string value (null reads as ""). Numbers and booleans are
// accepted and returned as their literal text, since event logs mix them.
func (s *Scanner) String() string {
	switch s.Kind() {
	case '0', 't', 'f':
		return string(s.scalar())
	}
	return string(s.Bytes())
}

func (s *Scanner) unescape(dst, raw []byte) []byte {
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			dst = append(dst, c)
			continue
		}
		i++
		if i >= len(raw) {
			s.fail("escape")
			return dst
		}
		switch raw[i] {
		case '"', '\\', '/':
			dst = append(dst, raw[i])
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, n := hex4(raw[i+1:])
			if n < 0 {
				s.fail("\\u escape")
				return dst
			}
			i += 4
			if utf16.IsSurrogate(r) {
				if r2, n2 := hex4(raw[min(i+3, len(raw)):]); i+2 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' && n2 >= 0 {
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						r = dec
						i += 6
					}
				}
			}
			dst = utf8.AppendRune(dst, r)
		default:
			s.fail("escape")
			return dst
		}
	}
	return dst
}

func hex4(b []byte) (rune, int) {
	if len(b) < 4 {
		return 0, -1
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, -1
		}
	}
	return r, 4
}

// scalar consumes a number or literal and returns its text.
func (s *Scanner) scalar() []byte {
	start := s.pos
	for s.pos < len(s.buf) {
		switch c := s.buf[s.pos]; {
		case c >= '0' && c <= '9', c == '-', c == '+', c == '.', c == 'e', c == 'E',
			c >= 'a' && c <= 'z':
			s.pos++
			continue
		}
		break
	}
	s.first = false
	return s.buf[start:s.pos]
}

// Int reads an integer. Floats are truncated, numeric strings are parsed,
// null reads as 0. Anything else is an error.
func (s *Scanner) Int() int64 {
	if s.err != nil {
		return 0
	}
	c := s.peek()
	if c == '-' || (c >= '0' && c <= '9') {
		// fast path: plain integer
		neg := c == '-'
		i := s.pos
		if neg {
			i++
		}
		var v uint64
		j := i
		for j < len(s.buf) && s.buf[j] >= '0' && s.buf[j] <= '9' && j-i < 19 {
			v = v*10 + uint64(s.buf[j]-'0')
			j++
		}
		if j > i && (j >= len(s.buf) || !isNumTail(s.buf[j])) {
			s.pos = j
			s.first = false
			if neg {
				return -int64(v)
			}
			return int64(v)
		}
		return s.slowNumber(s.scalar())
	}
	switch c {
	case '"':
		raw := s.rawString()
		if len(raw) == 0 {
			return 0
		}
		return s.slowNumber(raw)
	case 'n':
		if s.literal("null") {
			return 0
		}
	}
	s.fail("number")
	return 0
}

func isNumTail(c byte) bool {
	return c == '.' || c == 'e' || c == 'E' || (c >= '0' && c <= '9')
}

func (s *Scanner) slowNumber(b []byte) int64 {
	if v, err := strconv.ParseInt(string(b), 10, 64); err == nil {
		return v
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		s.fail("number")
		return 0
	}
	if f >= math.MaxInt64 {
		return math.MaxInt64
	}
	if f <= math.MinInt64 {
		return math.MinInt64
	}
	return int64(f)
}

// Float reads a number (or numeric string; null reads as 0).
func (s *Scanner) Float() float64 {
	if s.err != nil {
		return 0
	}
	var b []byte
	switch c := s.peek(); {
	case c == '-' || (c >= '0' && c <= '9'):
		b = s.scalar()
	case c == '"':
		b = s.rawString()
	case c == 'n' && s.literal("null"):
		return 0
	default:
		s.fail("number")
		return 0
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		s.fail("number")
	}
	return f
}

// Bool reads true or false ("true"/"false" strings too; null reads as false).
func (s *Scanner) Bool() bool {
	if s.err != nil {
		return false
	}
	switch s.peek() {
	case 't':
		if s.literal("true") {
			return true
		}
	case 'f':
		if s.literal("false") {
			return false
		}
	case 'n':
		if s.literal("null") {
			return false
		}
	case '"':
		return string(s.rawString()) == "true"
	}
	s.fail("boolean")
	return false
}

func (s *Scanner) literal(lit string) bool {
	if len(s.buf)-s.pos >= len(lit) && string(s.buf[s.pos:s.pos+len(lit)]) == lit {
		s.pos += len(lit)
		s.first = false
		return true
	}
	s.fail(lit)
	return false
}

// Skip consumes the next value of any kind, validating it. Containers are
// walked by an iterative state machine, which is several times faster than
// descending through Object and Key.
func (s *Scanner) Skip() {
	if s.err != nil {
		return
	}
	switch c := s.peek(); {
	case c == '"':
		s.rawString()
	case c == '{' || c == '[':
		s.skipContainer()
	case c == '-' || (c >= '0' && c <= '9'):
		s.skipNumber()
	case c == 't':
		s.literal("true")
	case c == 'f':
		s.literal("false")
	case c == 'n':
		s.literal("null")
	default:
		s.fail("value")
	}
}

// SkipRaw skips the next value and returns its raw text.
func (s *Scanner) SkipRaw() []byte {
	s.peek()
	start := s.pos
	s.Skip()
	if s.err != nil {
		return nil
	}
	return s.buf[start:s.pos]
}

// Skip states.
const (
	wantValue      = iota // a value (after '[' with content, ',' in an array, or ':')
	wantKey               // a key (after ',' in an object)
	wantKeyOrClose        // after '{'
	wantValOrClose        // after '['
	wantSepOrClose        // after a value inside a container
)

// skipContainer skips an object or array starting at s.pos. It keeps its
// position in a local and scans strings and numbers inline: this loop is
// where most bytes of an event log are spent.
func (s *Scanner) skipContainer() {
	var stack [maxDepth]bool // true: object
	depth := 0
	state := wantValue
	buf := s.buf
	pos := s.pos
	n := len(buf)
	fail := func(want string) {
		s.pos = pos
		s.fail(want)
	}
	for {
		for pos < n && buf[pos] <= ' ' {
			pos++
		}
		if pos >= n {
			fail("more")
			return
		}
		c := buf[pos]
		if state == wantKeyOrClose || state == wantKey {
			if c == '}' && state == wantKeyOrClose {
				pos++
				depth--
				state = wantSepOrClose
				goto closed
			}
			if c != '"' {
				fail("object key")
				return
			}
			if pos = skipString(buf, pos); pos < 0 {
				pos = n
				fail("closing '\"'")
				return
			}
			for pos < n && buf[pos] <= ' ' {
				pos++
			}
			if pos >= n || buf[pos] != ':' {
				fail("':'")
				return
			}
			pos++
			state = wantValue
			continue
		}
		if state == wantSepOrClose {
			obj := stack[depth-1]
			switch {
			case c == ',':
				pos++
				state = wantValue
				if obj {
					state = wantKey
				}
				continue
			case (c == '}' && obj) || (c == ']' && !obj):
				pos++
				depth--
				goto closed
			case obj:
				fail("',' or '}'")
			default:
				fail("',' or ']'")
			}
			return
		}
		// wantValue or wantValOrClose
		if c == ']' && state == wantValOrClose {
			pos++
			depth--
			state = wantSepOrClose
			goto closed
		}
		state = wantSepOrClose
		switch {
		case c == '"':
			if pos = skipString(buf, pos); pos < 0 {
				pos = n
				fail("closing '\"'")
				return
			}
		case c == '{' || c == '[':
			if depth >= maxDepth || s.depth+depth >= maxDepth {
				fail("shallower nesting")
				return
			}
			stack[depth] = c == '{'
			depth++
			pos++
			state = wantValOrClose
			if c == '{' {
				state = wantKeyOrClose
			}
		case c == '-' || (c >= '0' && c <= '9'):
			end := skipNumber(buf, pos)
			if end < 0 {
				fail("number")
				return
			}
			pos = end
		case c == 't' && pos+4 <= n && string(buf[pos:pos+4]) == "true":
			pos += 4
		case c == 'f' && pos+5 <= n && string(buf[pos:pos+5]) == "false":
			pos += 5
		case c == 'n' && pos+4 <= n && string(buf[pos:pos+4]) == "null":
			pos += 4
		default:
			fail("value")
			return
		}
		continue
	closed:
		if depth == 0 {
			s.pos = pos
			s.first = false
			return
		}
	}
}

// skipString returns the offset after the string starting at buf[pos] (a
// quote), or -1 when it does not end. It looks for a quote or a backslash
// eight bytes at a time (SWAR); a backslash and the byte it escapes are
// stepped over, so the quote found is the closing one.
func skipString(buf []byte, pos int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := pos + 1
	for {
		for i+8 <= len(buf) {
			x := binary.LittleEndian.Uint64(buf[i:])
			q := x ^ 0x2222222222222222 // '"'
			b := x ^ 0x5c5c5c5c5c5c5c5c // '\\'
			if m := ((q - ones) &^ q) | ((b - ones) &^ b); m&highs != 0 {
				i += bits.TrailingZeros64(m&highs) >> 3
				goto found
			}
			i += 8
		}
		for i < len(buf) && buf[i] != '"' && buf[i] != '\\' {
			i++
		}
		if i >= len(buf) {
			return -1
		}
	found:
		if buf[i] == '"' {
			return i + 1
		}
		i += 2
	}
}

// StringEnd returns the offset after the string that starts at buf[pos] (a
// quote), or -1 when it does not end. It checks the string as Skip does:
// its end, not its escapes.
func StringEnd(buf []byte, pos int) int { return skipString(buf, pos) }

// ScalarEnd returns the offset after the string, number, true, false or
// null at buf[pos], checked as Skip checks it, or -1 when there is none
// there (a container, or malformed text).
func ScalarEnd(buf []byte, pos int) int {
	if pos >= len(buf) {
		return -1
	}
	lit := func(l string) int {
		if len(buf)-pos >= len(l) && string(buf[pos:pos+len(l)]) == l {
			return pos + len(l)
		}
		return -1
	}
	switch c := buf[pos]; {
	case c == '"':
		return skipString(buf, pos)
	case c == '-' || (c >= '0' && c <= '9'):
		return skipNumber(buf, pos)
	case c == 't':
		return lit("true")
	case c == 'f':
		return lit("false")
	case c == 'n':
		return lit("null")
	}
	return -1
}

// skipNumber returns the offset after the JSON number at buf[pos], or -1.
func skipNumber(buf []byte, pos int) int {
	n := len(buf)
	if buf[pos] == '-' {
		pos++
	}
	d := pos
	for pos < n && buf[pos] >= '0' && buf[pos] <= '9' {
		pos++
	}
	if pos == d || (buf[d] == '0' && pos-d > 1) {
		return -1
	}
	if pos < n && buf[pos] == '.' {
		pos++
		d = pos
		for pos < n && buf[pos] >= '0' && buf[pos] <= '9' {
			pos++
		}
		if pos == d {
			return -1
		}
	}
	if pos < n && (buf[pos] == 'e' || buf[pos] == 'E') {
		pos++
		if pos < n && (buf[pos] == '+' || buf[pos] == '-') {
			pos++
		}
		d = pos
		for pos < n && buf[pos] >= '0' && buf[pos] <= '9' {
			pos++
		}
		if pos == d {
			return -1
		}
	}
	return pos
}

func (s *Scanner) skipNumber() {
	end := skipNumber(s.buf, s.pos)
	if end < 0 {
		s.fail("number")
		return
	}
	s.pos = end
	s.first = false
}

// End checks that only white space follows the document.
func (s *Scanner) End() error {
	if s.err != nil {
		return s.err
	}
	if s.peek() != 0 {
		s.fail("end of document")
	}
	return s.err
}

// Source returns the document being scanned.
func (s *Scanner) Source() []byte { return s.buf }

// Rest returns the input from the next value on (white space skipped), for
// a caller that recognises a value's text itself and then consumes it with
// Advance; nil after an error.
func (s *Scanner) Rest() []byte {
	if s.err != nil {
		return nil
	}
	s.ws()
	return s.buf[s.pos:]
}

// Advance consumes the first n bytes of Rest, which the caller checked to
// be one whole value, valid as Skip would have found it.
func (s *Scanner) Advance(n int) {
	s.pos += n
	s.first = false
}
