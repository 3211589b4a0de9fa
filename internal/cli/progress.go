package cli

import (
	"io"
	"os"
	"sync"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// newProgress returns a byte-progress callback drawing a bar on stderr when
// stderr is a terminal and the work is large enough to wait for, and a
// function that clears the bar. Otherwise both do nothing.
func newProgress(stderr io.Writer, total int64, what string) (func(int64), func()) {
	f, ok := stderr.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) || total < 32<<20 {
		return nil, func() {}
	}
	bar := progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(stderr),
		progressbar.OptionSetDescription(what),
		progressbar.OptionShowBytes(true),
		progressbar.OptionThrottle(200_000_000),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetWidth(30),
	)
	var mu sync.Mutex
	return func(n int64) {
			mu.Lock()
			bar.Add64(n)
			mu.Unlock()
		}, func() {
			mu.Lock()
			bar.Finish()
			mu.Unlock()
		}
}
