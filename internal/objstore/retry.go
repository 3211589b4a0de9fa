package objstore

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"net"
	"syscall"
	"time"
)

// Retry is a retry policy: up to Attempts tries, waiting a random time up
// to Base·2^(try−1) (at most Max) before each retry ("full jitter",
// M. Brooker, "Exponential Backoff And Jitter", AWS Architecture Blog,
// 2015), so that readers retrying at once do not hammer a store in step.
type Retry struct {
	Attempts int           // tries in all (default 5)
	Base     time.Duration // first backoff bound (default 200 ms)
	Max      time.Duration // largest backoff bound (default 5 s)
}

// Defaults of Retry.
const (
	DefaultAttempts = 5
	DefaultBase     = 200 * time.Millisecond
	DefaultMax      = 5 * time.Second
)

func (r Retry) withDefaults() Retry {
	if r.Attempts <= 0 {
		r.Attempts = DefaultAttempts
	}
	if r.Base <= 0 {
		r.Base = DefaultBase
	}
	if r.Max <= 0 {
		r.Max = DefaultMax
	}
	return r
}

// do runs op until it succeeds, fails for good, or has been tried
// r.Attempts times; the error is an *Error naming url, and for a refusal
// the credentials that creds describes.
func (r Retry) do(ctx context.Context, opName, url string, creds func() string, op func() error) error {
	start := time.Now()
	var err error
	for try := 1; ; try++ {
		if err = op(); err == nil {
			return nil
		}
		if !Transient(err) || try >= r.Attempts || ctx.Err() != nil {
			e := &Error{Op: opName, URL: url, Attempts: try, Elapsed: time.Since(start), Err: err}
			if errors.Is(err, fs.ErrPermission) {
				e.Creds = creds()
			}
			return e
		}
		bound := min(r.Max, r.Base<<(try-1))
		t := time.NewTimer(rand.N(bound) + 1)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return &Error{Op: opName, URL: url, Attempts: try, Elapsed: time.Since(start), Err: ctx.Err()}
		}
	}
}

// Transient reports whether err is worth retrying: a store's ErrTransient
// (HTTP 408, 429, 5xx), a connection refused, reset or timed out, or a
// body cut short.
func Transient(err error) bool {
	if errors.Is(err, ErrTransient) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
