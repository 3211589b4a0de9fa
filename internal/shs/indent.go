package shs

import "bytes"

// appendIndented appends src, compact JSON as encoding/json writes it (no
// space outside strings), indented as json.Indent(dst, src, "", "  ")
// would: the same bytes, without json.Indent's byte-by-byte validating
// scanner (the value was just marshalled, so it is valid). Strings are
// copied whole, found with bytes.IndexByte. A trailing newline is kept.
func appendIndented(dst, src []byte) []byte {
	depth := 0
	open := false // after '{' or '[': the newline waits, so that empty ones stay {} and []
	for i := 0; i < len(src); i++ {
		c := src[i]
		if open && c != '}' && c != ']' {
			open = false
			depth++
			dst = appendNewline(dst, depth)
		}
		switch c {
		case '"':
			j := stringEnd(src, i)
			dst = append(dst, src[i:j]...)
			i = j - 1
		case '{', '[':
			open = true
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			dst = appendNewline(dst, depth)
		case ':':
			dst = append(dst, c, ' ')
		case '}', ']':
			if open {
				open = false
			} else {
				depth--
				dst = appendNewline(dst, depth)
			}
			dst = append(dst, c)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// stringEnd returns the index just past the string that starts at src[i]
// (a quote): its closing quote is the first one not escaped.
func stringEnd(src []byte, i int) int {
	for k := i + 1; ; {
		q := bytes.IndexByte(src[k:], '"')
		if q < 0 {
			return len(src)
		}
		k += q
		bs := 0
		for src[k-1-bs] == '\\' {
			bs++
		}
		if bs%2 == 0 {
			return k + 1
		}
		k++
	}
}

// appendNewline starts a new line indented depth levels of two spaces.
func appendNewline(dst []byte, depth int) []byte {
	dst = append(dst, '\n')
	for range depth {
		dst = append(dst, ' ', ' ')
	}
	return dst
}
