package mapreduce

import (
	"errors"
	"fmt"
)

// ErrFormat is wrapped (matched by errors.Is) by every error that reports
// input which is not the expected format at all, so a caller can try another
// decoder.
var ErrFormat = errors.New("not a MapReduce history")

// FormatError reports input that is not the expected format: which file,
// where, and what was expected there. errors.Is(err, ErrFormat) holds.
type FormatError struct {
	File  string
	Where string // "line 1", "offset 4", ...
	Want  string
}

// Error formats the error as mapreduce: "file": where: want what.
func (e *FormatError) Error() string {
	return fmt.Sprintf("mapreduce: %q: %s: want %s", e.File, e.Where, e.Want)
}

// Is reports whether target is ErrFormat.
func (e *FormatError) Is(target error) bool { return target == ErrFormat }

func lineErr(file string, line int64, want string) error {
	return &FormatError{File: file, Where: fmt.Sprintf("line %d", line), Want: want}
}

func offsetErr(file string, off int64, want string) error {
	return &FormatError{File: file, Where: fmt.Sprintf("offset %d", off), Want: want}
}
