package cli

import (
	"os"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progressDelay is how long reading runs before a progress bar appears:
// any input that takes that long gets one, whatever its stored size (a
// small compressed file can hold gigabytes of blank lines).
const progressDelay = time.Second

// newProgress returns a callback counting the stored bytes read, from any
// goroutine, and a function that clears the bar. When stderr is a terminal
// (or e.terminal says so) a bar of the count against total is drawn once
// reading has taken progressDelay (e.progressDelay when set).
func newProgress(e *env, total int64, what string) (func(int64), func()) {
	if !e.isTerminal() {
		return nil, func() {}
	}
	delay := progressDelay
	if e.progressDelay > 0 {
		delay = e.progressDelay
	}
	var n atomic.Int64
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		wait := time.NewTimer(delay)
		defer wait.Stop()
		select {
		case <-stop:
			return
		case <-wait.C:
		}
		bar := progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(e.stderr),
			progressbar.OptionSetDescription(what),
			progressbar.OptionShowBytes(true),
			progressbar.OptionClearOnFinish(),
			progressbar.OptionSetWidth(30),
			progressbar.OptionSetRenderBlankState(true), // drawn at once, at 0% too
		)
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			// A compressed file's stored bytes may all be read long before
			// it is decoded: the bar reaches the end only when reading
			// stops (at the end a bar that clears on finish draws nothing).
			bar.Set64(min(n.Load(), max(total-1, 0)))
			select {
			case <-stop:
				bar.Finish()
				return
			case <-tick.C:
			}
		}
	}()
	return func(k int64) { n.Add(k) }, func() { close(stop); <-stopped }
}

// isTerminal reports whether stderr is a terminal (or the tests say so).
func (e *env) isTerminal() bool {
	if e.terminal {
		return true
	}
	f, ok := e.stderr.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
