package cli

import (
	"errors"
	"fmt"
)

// metricNote prints what the metric readers say about the files they read
// (metrics a format does not record, an incomplete last line) as a
// warning.
func (e *env) metricNote(m string) { fmt.Fprintln(e.stderr, "clusterlens: warning:", m) }

// metricsPartial reports a metric source read only in part (a
// metrics.ErrPartial error) on stderr and turns it into exit code 3 unless
// err, the command's own outcome, already says something.
func metricsPartial(e *env, partial, err error) error {
	if partial == nil {
		return err
	}
	fmt.Fprintln(e.stderr, "clusterlens: warning:", partial)
	if err != nil {
		return err
	}
	return withCode(ExitPartial, errors.New("the metric source could be read only in part"))
}
