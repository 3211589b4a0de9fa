package shs

import (
	"io"
	"strconv"
	"unicode/utf8"
)

// streamer is an answer that writes its own JSON in Marshal's format
// (two-space indent, no HTML escaping) to a stream, piece by piece: the
// /sql of an application with thousands of large plans is tens of
// megabytes, which reflection and a second pass to indent take seconds to
// print, and which need not be held whole.
type streamer interface {
	writeJSON(out io.Writer) error
}

// WriteJSON writes v to out as Marshal does, streaming the answers that
// can be.
func WriteJSON(out io.Writer, v any) error {
	if s, ok := v.(streamer); ok {
		if err := s.writeJSON(out); err != nil {
			return err
		}
		_, err := out.Write([]byte{'\n'})
		return err
	}
	b, err := Marshal(v)
	if err != nil {
		return err
	}
	_, err = out.Write(b)
	return err
}

// jsonOut appends indented JSON the way json.Encoder with SetIndent("", "  ")
// and SetEscapeHTML(false) prints it, handing full buffers to out.
type jsonOut struct {
	b     []byte
	depth int
	first bool // nothing yet in the open object or array
	out   io.Writer
	err   error
}

// flushOver writes the buffer to out once it holds more than n bytes.
func (w *jsonOut) flushOver(n int) {
	if len(w.b) <= n || w.err != nil {
		return
	}
	_, w.err = w.out.Write(w.b)
	w.b = w.b[:0]
}

func (w *jsonOut) newline() {
	w.b = append(w.b, '\n')
	for range w.depth {
		w.b = append(w.b, ' ', ' ')
	}
}

// elem starts the next element of the open array, or field of the open
// object (key != "").
func (w *jsonOut) elem(key string) {
	if !w.first {
		w.b = append(w.b, ',')
	}
	w.first = false
	w.newline()
	if key != "" {
		w.b = append(w.b, '"')
		w.b = append(w.b, key...)
		w.b = append(w.b, '"', ':', ' ')
	}
}

func (w *jsonOut) open(c byte) {
	w.b = append(w.b, c)
	w.depth++
	w.first = true
}

func (w *jsonOut) close(c byte) {
	w.depth--
	if !w.first {
		w.newline()
	}
	w.first = false
	w.b = append(w.b, c)
}

func (w *jsonOut) str(key, s string) {
	w.elem(key)
	w.b = appendJSONString(w.b, s)
}

func (w *jsonOut) int(key string, v int64) {
	w.elem(key)
	w.b = strconv.AppendInt(w.b, v, 10)
}

// ints writes an array of ints.
func (w *jsonOut) ints(key string, vs []int32) {
	w.elem(key)
	w.open('[')
	for _, v := range vs {
		w.elem("")
		w.b = strconv.AppendInt(w.b, int64(v), 10)
	}
	w.close(']')
}

const hexDigits = "0123456789abcdef"

// appendJSONString is encoding/json's string encoding without HTML
// escaping: quotes, backslashes and control characters escaped, invalid
// UTF-8 as \ufffd, U+2028 and U+2029 escaped.
func appendJSONString[T string | []byte](dst []byte, s T) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		// Skip eight plain bytes at a time: none below 0x20, a quote, a
		// backslash or a non-ASCII byte.
		for i+8 <= len(s) && plain8(uint64(s[i])|uint64(s[i+1])<<8|uint64(s[i+2])<<16|uint64(s[i+3])<<24|
			uint64(s[i+4])<<32|uint64(s[i+5])<<40|uint64(s[i+6])<<48|uint64(s[i+7])<<56) {
			i += 8
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '\\', '"':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		n := min(len(s)-i, utf8.UTFMax)
		r, size := utf8.DecodeRuneInString(string(s[i : i+n]))
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// plain8 reports whether none of the eight bytes of x needs escaping.
func plain8(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	below := (x - ones*0x20) &^ x // high bit set where a byte is below 0x20 (or the byte is >= 0x80)
	quote := (x ^ ones*'"') - ones&^(x^ones*'"')
	slash := (x ^ ones*'\\') - ones&^(x^ones*'\\')
	return (below|quote|slash|x)&highs == 0
}
