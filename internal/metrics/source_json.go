package metrics

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/clusterlens/clusterlens/internal/jsonscan"
)

// sourceMaxValue bounds one value read whole (a Prometheus series, a
// sysstat record): hostile input cannot make the reader hold more.
const sourceMaxValue = 256 << 20

// sourceJSON walks a JSON document on a stream: the caller enters the
// containers it streams through token by token and reads every other value
// whole, as raw bytes that jsonscan then parses and validates. So memory
// holds one such value (one series, one record), never the document, and
// the bytes are scanned once by a tight loop instead of encoding/json's
// byte-at-a-time state machine.
type sourceJSON struct {
	r   *bufio.Reader
	off int64 // bytes consumed
	raw []byte
	sc  jsonscan.Scanner
}

func newSourceJSON(r io.Reader) *sourceJSON {
	return &sourceJSON{r: bufio.NewReaderSize(r, 64<<10)}
}

// errorf returns an error at the current offset.
func (j *sourceJSON) errorf(format string, args ...any) error {
	return fmt.Errorf("offset %d: "+format, append([]any{j.off}, args...)...)
}

// peek skips white space and returns the next byte, or an error wrapping
// io.ErrUnexpectedEOF (io.EOF when eofOK) at the end.
func (j *sourceJSON) peek(eofOK bool) (byte, error) {
	for {
		c, err := j.r.ReadByte()
		if err != nil {
			if err == io.EOF && !eofOK {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			_ = j.r.UnreadByte()
			return c, nil
		}
		j.off++
	}
}

// expect consumes the byte c, what naming it in the error.
func (j *sourceJSON) expect(c byte, what string) error {
	got, err := j.peek(false)
	if err != nil {
		return j.errorf("want %s: %w", what, err)
	}
	if got != c {
		return j.errorf("want %s, got %q", what, got)
	}
	_, _ = j.r.ReadByte()
	j.off++
	return nil
}

// enter consumes '{' or '['; it returns false, consuming it, on null.
func (j *sourceJSON) enter(open byte, what string) (bool, error) {
	c, err := j.peek(false)
	if err != nil {
		return false, j.errorf("want %s: %w", what, err)
	}
	if c == 'n' {
		raw, err := j.value()
		if err != nil || string(raw) != "null" {
			return false, j.errorf("want %s", what)
		}
		return false, nil
	}
	return true, j.expect(open, what)
}

// more reports whether the container being walked has another element
// (first: none read yet), consuming the separator, or the closing byte.
func (j *sourceJSON) more(close byte, first bool) (bool, error) {
	c, err := j.peek(false)
	if err != nil {
		return false, j.errorf("want ',' or %q: %w", close, err)
	}
	switch {
	case c == close:
		_, _ = j.r.ReadByte()
		j.off++
		return false, nil
	case first:
		return true, nil
	case c == ',':
		_, _ = j.r.ReadByte()
		j.off++
		return true, nil
	}
	return false, j.errorf("want ',' or %q, got %q", close, c)
}

// object walks an object, calling each for every key; each must consume
// the key's value.
func (j *sourceJSON) object(what string, each func(key string) error) error {
	if err := j.expect('{', what+": an object"); err != nil {
		return err
	}
	for first := true; ; first = false {
		ok, err := j.more('}', first)
		if err != nil || !ok {
			return err
		}
		k, err := j.key()
		if err != nil {
			return err
		}
		if err := each(k); err != nil {
			return err
		}
	}
}

// array walks an array (null is an empty one), calling each with every
// element's index; each must consume the element.
func (j *sourceJSON) array(what string, each func(i int) error) error {
	ok, err := j.enter('[', what+": an array")
	for i := 0; ok && err == nil; i++ {
		if ok, err = j.more(']', i == 0); ok && err == nil {
			err = each(i)
		}
	}
	return err
}

// key reads an object key and its colon.
func (j *sourceJSON) key() (string, error) {
	k, err := j.str("an object key")
	if err != nil {
		return "", err
	}
	return k, j.expect(':', "':'")
}

// str reads a string value.
func (j *sourceJSON) str(what string) (string, error) {
	at := j.off
	raw, err := j.value()
	if err != nil {
		return "", err
	}
	j.sc.Reset(raw)
	if j.sc.Kind() != '"' {
		return "", fmt.Errorf("offset %d: want %s, a string", at, what)
	}
	s := j.sc.String()
	if err := j.sc.End(); err != nil {
		return "", fmt.Errorf("offset %d: %s: %w", at, what, err)
	}
	return s, nil
}

// skip reads a value of any kind and validates it.
func (j *sourceJSON) skip(what string) error {
	at := j.off
	raw, err := j.value()
	if err != nil {
		return err
	}
	j.sc.Reset(raw)
	j.sc.Skip()
	if err := j.sc.End(); err != nil {
		return fmt.Errorf("offset %d: %s: %w", at, what, err)
	}
	return nil
}

// end checks that only white space is left.
func (j *sourceJSON) end() error {
	if _, err := j.peek(true); err != io.EOF {
		if err != nil {
			return j.errorf("%w", err)
		}
		return j.errorf("want the end of the document")
	}
	return nil
}

// value reads the next value whole and returns its raw bytes, valid until
// the next call. It finds the value's end only (strings and nesting); the
// caller's jsonscan validates the rest.
func (j *sourceJSON) value() ([]byte, error) {
	c, err := j.peek(false)
	if err != nil {
		return nil, j.errorf("want a value: %w", err)
	}
	start := j.off
	j.raw = j.raw[:0]
	depth, inStr, esc := 0, false, false
	scalar := c != '{' && c != '[' && c != '"'
	for {
		chunk, err := j.r.Peek(max(j.r.Buffered(), 1))
		if len(chunk) == 0 {
			if err == io.EOF && scalar && len(j.raw) > 0 {
				return j.raw, nil // a scalar ending the stream
			}
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, fmt.Errorf("offset %d: value starting at offset %d: %w", j.off, start, err)
		}
		n, done := len(chunk), false
	scan:
		for i, b := range chunk {
			switch {
			case scalar:
				if b == ',' || b == '}' || b == ']' || b == ' ' || b == '\t' || b == '\n' || b == '\r' {
					n, done = i, true
					break scan
				}
			case inStr:
				switch {
				case esc:
					esc = false
				case b == '\\':
					esc = true
				case b == '"':
					inStr = false
					if depth == 0 {
						n, done = i+1, true
						break scan
					}
				}
			case b == '"':
				inStr = true
			case b == '{' || b == '[':
				depth++
			case b == '}' || b == ']':
				depth--
				if depth <= 0 {
					n, done = i+1, true
					break scan
				}
			}
		}
		if len(j.raw)+n > sourceMaxValue {
			return nil, fmt.Errorf("offset %d: value starting at offset %d: %w", j.off, start, errSourceTooLarge)
		}
		j.raw = append(j.raw, chunk[:n]...)
		_, _ = j.r.Discard(n)
		j.off += int64(n)
		if done {
			return j.raw, nil
		}
	}
}

// errSourceTooLarge is wrapped when one value exceeds sourceMaxValue.
var errSourceTooLarge = errors.New("value over 256 MB")
