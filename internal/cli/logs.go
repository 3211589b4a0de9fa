package cli

import (
	"errors"
	"fmt"

	"github.com/dustin/go-humanize"
	"github.com/spf13/pflag"

	"github.com/clusterlens/clusterlens/internal/codec"
	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/lines"
	"github.com/clusterlens/clusterlens/internal/source"
)

// logFlags are the flags of every command that reads logs: the line limit
// and the decoders' memory budget.
type logFlags struct {
	maxLine, memory byteSize
}

// addLogFlags registers --max-line and --decoder-memory on f.
func addLogFlags(f *pflag.FlagSet) *logFlags {
	lf := &logFlags{maxLine: lines.DefaultMax, memory: decodelogs.DefaultMemory}
	f.Var(&lf.maxLine, "max-line", "longest log line (or record) read, e.g. 64MiB; longer ones are skipped unread and reported")
	f.Var(&lf.memory, "decoder-memory", "memory the log decoders working in parallel may hold for lines and decompression, e.g. 4GiB; a zstd frame whose window needs more is refused")
	return lf
}

// options returns the load options the flags set, or a usage error; nil
// flags (a command run from another, as demo runs analyze) give defaults.
func (lf *logFlags) options() (decodelogs.Options, error) {
	switch {
	case lf == nil:
		return decodelogs.Options{}, nil
	case lf.maxLine < 1<<10:
		return decodelogs.Options{}, withCode(ExitUsage, fmt.Errorf("--max-line %s: want at least 1 KiB", lf.maxLine.String()))
	case lf.memory < lf.maxLine:
		return decodelogs.Options{}, withCode(ExitUsage, fmt.Errorf("--decoder-memory %s: want at least --max-line (%s)", lf.memory.String(), lf.maxLine.String()))
	}
	return decodelogs.Options{MaxLine: int64(lf.maxLine), Memory: int64(lf.memory)}, nil
}

// byteSize is a flag value in bytes, written "8388608", "8MiB" or "8 MB".
type byteSize int64

func (b *byteSize) Set(s string) error {
	n, err := humanize.ParseBytes(s)
	if err != nil {
		return fmt.Errorf("want a size such as 64MiB: %w", err)
	}
	if n > 1<<62 {
		return fmt.Errorf("%s: too large", s)
	}
	*b = byteSize(n)
	return nil
}

func (b *byteSize) String() string { return humanize.IBytes(uint64(*b)) }
func (b *byteSize) Type() string   { return "size" }

// checkRows rejects a negative --rows.
func checkRows(rows int) error {
	if rows < 0 {
		return withCode(ExitUsage, fmt.Errorf("--rows %d: want 0 (every row) or more", rows))
	}
	return nil
}

// readLogs finds and reads the logs under paths, with a progress bar when
// stderr is a terminal. It fails only when no log was found.
func readLogs(e *env, paths []string, opts decodelogs.Options) (*decodelogs.Result, error) {
	logs, skipped, ferr := decodelogs.Find(paths, opts)
	if len(logs) == 0 {
		if ferr != nil {
			return &decodelogs.Result{Skipped: skipped}, explain(ferr)
		}
		return &decodelogs.Result{Skipped: skipped}, fmt.Errorf("no logs found in %v (%d files skipped as not logs)", paths, len(skipped))
	}
	progress, done := newProgress(e, source.TotalSize(logs), "reading")
	opts.Progress = progress
	res := decodelogs.Logs(logs, opts)
	done()
	res.Skipped = skipped
	res.Paths = decodelogs.PathErrors(ferr)
	return res, nil
}

// maxNotLogs caps the files named on stderr as not logs (the unreadable
// ones are all named).
const maxNotLogs = 20

// partial names on stderr every file or folder that could not be read,
// every log read in part (one line each), and the files skipped as not
// logs; it returns the ExitPartial error when input was lost.
func partial(e *env, res *decodelogs.Result) error {
	notLogs := 0
	for _, s := range res.Skipped {
		if s.Err != nil {
			fmt.Fprintf(e.stderr, "clusterlens: skipped %s: %s%s\n", s.Name, s.Reason, hint(s.Err))
			continue
		}
		if notLogs++; notLogs <= maxNotLogs {
			fmt.Fprintf(e.stderr, "clusterlens: note: skipped %s: %s\n", s.Name, s.Reason)
		}
	}
	if notLogs > maxNotLogs {
		fmt.Fprintf(e.stderr, "clusterlens: note: and %d more files skipped as not logs\n", notLogs-maxNotLogs)
	}
	for _, p := range res.Paths {
		fmt.Fprintf(e.stderr, "clusterlens: warning: %v%s\n", p, hint(p))
	}
	for _, p := range res.Problems {
		fmt.Fprintf(e.stderr, "clusterlens: warning: %v%s\n", p, hint(p))
	}
	unreadable := len(res.Unreadable()) + len(res.Paths)
	if len(res.Problems) == 0 && unreadable == 0 {
		return nil
	}
	return withCode(ExitPartial, fmt.Errorf("output from part of the input: %d logs read in part, %d paths, files or folders unreadable (named above)", len(res.Problems), unreadable))
}

// explain adds to err the flag that would have let it pass.
func explain(err error) error {
	if h := hint(err); h != "" {
		return fmt.Errorf("%w%s", err, h)
	}
	return err
}

// hint names the flag that raises the limit err ran into, if any.
func hint(err error) string {
	switch {
	case errors.Is(err, codec.ErrWindowTooLarge):
		return " (--decoder-memory raises the limit)"
	case errors.Is(err, lines.ErrTooLong):
		return " (--max-line raises the limit)"
	}
	return ""
}
