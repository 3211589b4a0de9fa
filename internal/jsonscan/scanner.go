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
	"errors"
	"fmt"
	"math"
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
// Short strings (most keys and values in event logs) are scanned inline;
// long ones with IndexByte.
func (s *Scanner) rawString() []byte {
	start := s.pos + 1
	buf := s.buf
	end := min(start+32, len(buf))
	for i := start; i < end; i++ {
		switch buf[i] {
		case '"':
			s.pos = i + 1
			s.first = false
			return buf[start:i]
		case '\\':
			return s.rawStringSlow(start)
		}
	}
	return s.rawStringSlow(start)
}

func (s *Scanner) rawStringSlow(start int) []byte {
	i := start
	for {
		j := bytes.IndexByte(s.buf[i:], '"')
		if j < 0 {
			s.pos = len(s.buf)
			s.fail("closing '\"'")
			return nil
		}
		i += j
		// count the backslashes before the quote
		n := 0
		for k := i - 1; k >= start && s.buf[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			s.pos = i + 1
			s.first = false
			return s.buf[start:i]
		}
		i++
	}
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

// skipContainer skips an object or array starting at s.pos.
func (s *Scanner) skipContainer() {
	var stack [maxDepth]bool // true: object
	depth := 0
	state := wantValue
	buf := s.buf
	for {
		// white space
		for s.pos < len(buf) && buf[s.pos] <= ' ' {
			s.pos++
		}
		if s.pos >= len(buf) {
			s.fail("more")
			return
		}
		c := buf[s.pos]
		switch state {
		case wantKeyOrClose:
			if c == '}' {
				s.pos++
				depth--
				state = wantSepOrClose
				break
			}
			fallthrough
		case wantKey:
			if c != '"' {
				s.fail("object key")
				return
			}
			s.rawString()
			for s.pos < len(buf) && buf[s.pos] <= ' ' {
				s.pos++
			}
			if s.pos >= len(buf) || buf[s.pos] != ':' {
				s.fail("':'")
				return
			}
			s.pos++
			state = wantValue
		case wantValOrClose:
			if c == ']' {
				s.pos++
				depth--
				state = wantSepOrClose
				break
			}
			fallthrough
		case wantValue:
			switch {
			case c == '"':
				s.rawString()
				state = wantSepOrClose
			case c == '{' || c == '[':
				if depth >= maxDepth || s.depth+depth >= maxDepth {
					s.fail("shallower nesting")
					return
				}
				stack[depth] = c == '{'
				depth++
				s.pos++
				state = wantValOrClose
				if c == '{' {
					state = wantKeyOrClose
				}
			case c == '-' || (c >= '0' && c <= '9'):
				s.skipNumber()
				state = wantSepOrClose
			case c == 't':
				s.literal("true")
				state = wantSepOrClose
			case c == 'f':
				s.literal("false")
				state = wantSepOrClose
			case c == 'n':
				s.literal("null")
				state = wantSepOrClose
			default:
				s.fail("value")
				return
			}
			if s.err != nil {
				return
			}
		case wantSepOrClose:
			obj := stack[depth-1]
			switch {
			case c == ',':
				s.pos++
				state = wantValue
				if obj {
					state = wantKey
				}
			case (c == '}' && obj) || (c == ']' && !obj):
				s.pos++
				depth--
			default:
				if obj {
					s.fail("',' or '}'")
				} else {
					s.fail("',' or ']'")
				}
				return
			}
		}
		if depth == 0 {
			s.first = false
			return
		}
	}
}

func (s *Scanner) skipNumber() {
	start := s.pos
	if s.buf[s.pos] == '-' {
		s.pos++
	}
	digits := s.pos
	for s.pos < len(s.buf) && s.buf[s.pos] >= '0' && s.buf[s.pos] <= '9' {
		s.pos++
	}
	if s.pos == digits || (s.buf[digits] == '0' && s.pos-digits > 1) {
		s.pos = start
		s.fail("digit (no leading zeros)")
		return
	}
	if s.pos < len(s.buf) && s.buf[s.pos] == '.' {
		s.pos++
		d := s.pos
		for s.pos < len(s.buf) && s.buf[s.pos] >= '0' && s.buf[s.pos] <= '9' {
			s.pos++
		}
		if s.pos == d {
			s.fail("digit")
			return
		}
	}
	if s.pos < len(s.buf) && (s.buf[s.pos] == 'e' || s.buf[s.pos] == 'E') {
		s.pos++
		if s.pos < len(s.buf) && (s.buf[s.pos] == '+' || s.buf[s.pos] == '-') {
			s.pos++
		}
		d := s.pos
		for s.pos < len(s.buf) && s.buf[s.pos] >= '0' && s.buf[s.pos] <= '9' {
			s.pos++
		}
		if s.pos == d {
			s.fail("digit")
			return
		}
	}
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
