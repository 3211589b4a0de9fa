// Package htmlw writes HTML from Go code: the markup as the code spells
// it, every value escaped for the place it goes (text or a quoted
// attribute value, a URL, a part of a URL, a query value) exactly as
// html/template escapes it there.
//
// The web UI's pages and the report's tables are written with it rather
// than with html/template because executing a template calls
// reflect.Value.MethodByName, and a program that can call it keeps every
// exported method of every type it uses, called or not: 13 MB of
// clusterlens's 55 MB (docs/ARCHITECTURE.md, "What the binary carries").
package htmlw

import (
	"strconv"
	"strings"
)

// Writer accumulates a page. The zero value is ready to use. Its methods
// return the Writer so that a line of markup reads as one chain.
type Writer struct {
	b []byte
}

// Raw writes markup as it is: text the program spells, never a value
// from data.
func (w *Writer) Raw(markup string) *Writer {
	w.b = append(w.b, markup...)
	return w
}

// Text writes s as text or inside a double-quoted attribute value,
// escaped as html/template's htmlEscaper escapes it: NUL, ", &, ', +, <
// and > replaced by a character reference (NUL by U+FFFD).
func (w *Writer) Text(s string) *Writer {
	w.b = appendEscaped(w.b, s)
	return w
}

// Int writes an integer.
func (w *Writer) Int(i int64) *Writer {
	w.b = strconv.AppendInt(w.b, i, 10)
	return w
}

// URL writes s as a whole URL in an attribute (href, src): a URL with a
// scheme other than http, https or mailto is replaced by "#ZgotmplZ",
// as html/template's urlFilter does; the rest is normalized (URLPart).
func (w *Writer) URL(s string) *Writer {
	if !isSafeURL(s) {
		s = "#ZgotmplZ"
	}
	return w.URLPart(s)
}

// URLPart writes s as part of a URL's path after markup that started
// it (href="/app/): what may not stand in a URL is percent-encoded,
// reserved characters and valid escapes are kept (html/template's
// urlNormalizer), and the result escaped for the attribute.
func (w *Writer) URLPart(s string) *Writer {
	var b strings.Builder
	processURL(s, true, &b)
	return w.Text(b.String())
}

// Query writes s as a value in a URL's query (href="/compare?a=): every
// byte but letters, digits and -._~ percent-encoded (html/template's
// urlEscaper; a space is %20).
func (w *Writer) Query(s string) *Writer {
	var b strings.Builder
	processURL(s, false, &b)
	w.b = append(w.b, b.String()...)
	return w
}

// Bytes returns what was written.
func (w *Writer) Bytes() []byte { return w.b }

// String returns what was written.
func (w *Writer) String() string { return string(w.b) }

// Escape returns s escaped as Text writes it.
func Escape(s string) string { return string(appendEscaped(nil, s)) }

// replacement is html/template's htmlReplacementTable.
var replacement = [...]string{
	0:    "\uFFFD",
	'"':  "&#34;",
	'&':  "&amp;",
	'\'': "&#39;",
	'+':  "&#43;",
	'<':  "&lt;",
	'>':  "&gt;",
}

func appendEscaped(b []byte, s string) []byte {
	written := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if int(c) >= len(replacement) || replacement[c] == "" {
			continue
		}
		b = append(b, s[written:i]...)
		b = append(b, replacement[c]...)
		written = i + 1
	}
	return append(b, s[written:]...)
}

// isSafeURL is html/template's: a URL without a scheme, or with http,
// https or mailto.
func isSafeURL(s string) bool {
	if protocol, _, ok := strings.Cut(s, ":"); ok && !strings.Contains(protocol, "/") {
		if !strings.EqualFold(protocol, "http") && !strings.EqualFold(protocol, "https") && !strings.EqualFold(protocol, "mailto") {
			return false
		}
	}
	return true
}

// processURL is html/template's processURLOnto: it percent-encodes the
// bytes of s that may not stand in a URL (norm: keeping reserved
// characters and valid %xx escapes; else every byte but the unreserved).
func processURL(s string, norm bool, b *strings.Builder) {
	const hex = "0123456789abcdef"
	written := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '!', '#', '$', '&', '*', '+', ',', '/', ':', ';', '=', '?', '@', '[', ']':
			if norm {
				continue
			}
		case '-', '.', '_', '~':
			continue
		case '%':
			if norm && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
				continue
			}
		default:
			if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
				continue
			}
		}
		b.WriteString(s[written:i])
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
		written = i + 1
	}
	b.WriteString(s[written:])
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
