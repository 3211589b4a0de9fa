package shs

import (
	"io"
	"strconv"

	"github.com/clusterlens/clusterlens/internal/jsonscan"
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
	w.b = jsonscan.AppendString(w.b, s)
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
