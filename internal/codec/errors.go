package codec

import (
	"errors"
	"fmt"
)

// MaxBlockSize bounds the declared size of one block (compressed or not) that
// a decoder accepts. Spark's blocks are 32 KiB by default and lz4-java's
// framing cannot exceed 32 MiB; a larger declaration is corruption, and is
// rejected with ErrTooLarge before any memory is allocated for it.
const MaxBlockSize = 64 << 20

var (
	// ErrCorrupt is wrapped by errors about malformed compressed data: a bad
	// magic number, an impossible header, a checksum mismatch.
	ErrCorrupt = errors.New("corrupt input")
	// ErrTooLarge is wrapped by errors about a block declaring more than
	// MaxBlockSize bytes.
	ErrTooLarge = errors.New("block too large")
	// ErrWindowTooLarge is wrapped by errors about a zstd frame whose window
	// is over the decoder's limit (Options.MaxWindow): the file is not
	// corrupt, the limit is too low for it.
	ErrWindowTooLarge = errors.New("window over the memory limit")
)

// Error is a decoding error at a position of a named stream. Err is what
// callers branch on with errors.Is: ErrCorrupt, ErrTooLarge,
// io.ErrUnexpectedEOF for a truncated stream, or the underlying read error.
type Error struct {
	Name   string // file name, as given to Open
	Codec  Codec  // codec being decoded
	Where  string // what was being read: "header", "block", "chunk", "frame", ...
	Offset int64  // byte offset of that thing in the compressed stream
	Detail string // what was wrong and what was expected
	Err    error  // cause
}

// Error formats the error as `codec: "name": block at offset N: detail: cause`.
func (e *Error) Error() string {
	s := fmt.Sprintf("codec: %q: %s at offset %d", e.Name, e.Where, e.Offset)
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }
