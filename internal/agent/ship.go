package agent

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	"github.com/clusterlens/clusterlens/internal/wire"
)

// outcome is what became of one delivery attempt.
type outcome int

const (
	delivered outcome = iota // 2xx: the collector has the batch
	rejected                 // the collector refuses this batch for good
	retry                    // try again later
)

// sealed is a numbered, encoded batch on its way to the collector.
type sealed struct {
	seq  uint64
	data []byte
}

// deliver POSTs one encoded batch and classifies the reply.
func (a *Agent) deliver(ctx context.Context, seq uint64, data []byte) outcome {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.url, bytes.NewReader(data))
	if err != nil {
		a.log.Error("build request", "err", err)
		return retry
	}
	req.Header.Set("Authorization", "Bearer "+a.cfg.Token)
	req.Header.Set("Content-Type", wire.ContentType)
	req.Header.Set("Content-Encoding", wire.Encoding)
	resp, err := a.client.Do(req)
	if err != nil {
		if ctx.Err() == nil {
			a.log.Warn("collector unreachable", "seq", seq, "err", err)
		}
		return retry
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	resp.Body.Close()
	reason := strings.TrimSpace(string(body))
	switch code := resp.StatusCode; {
	case code >= 200 && code < 300:
		a.delivered.Add(1)
		if bytes.Contains(body, []byte(`"dup":true`)) {
			a.duplicates.Add(1)
		}
		return delivered
	case code == http.StatusUnauthorized || code == http.StatusForbidden || code == http.StatusNotFound:
		a.log.Error("collector refuses the agent (check --collector and the token); batch kept", "seq", seq, "status", code, "reason", reason)
		return retry
	case code == http.StatusRequestTimeout || code == http.StatusTooManyRequests || code >= 500:
		a.log.Warn("collector unavailable", "seq", seq, "status", code, "reason", reason)
		return retry
	default:
		a.rejected.Add(1)
		a.log.Error("collector rejected batch; dropped", "seq", seq, "status", code, "reason", reason)
		return rejected
	}
}

// backoff doubles a retry delay from min up to max, with ±20% jitter so
// that many agents do not retry in lockstep after a collector restart.
type backoff struct {
	min, max, cur time.Duration
}

func (b *backoff) reset() { b.cur = 0 }

func (b *backoff) next() time.Duration {
	if b.cur == 0 {
		b.cur = b.min
	} else {
		b.cur = min(2*b.cur, b.max)
	}
	return time.Duration(float64(b.cur) * (0.8 + 0.4*rand.Float64()))
}

// ship delivers batches from in until in is closed: directly while the
// spool is empty, through the spool (oldest first) otherwise. Once ctx is
// done it stops sending and spools everything still arriving.
func (a *Agent) ship(ctx context.Context, in <-chan sealed) {
	bo := backoff{min: a.cfg.MinBackoff, max: a.cfg.MaxBackoff}
	var wait <-chan time.Time // non-nil while backing off
	for {
		if a.spool.len() == 0 && wait == nil {
			select {
			case b, ok := <-in:
				if !ok {
					a.drain(in)
					return
				}
				if a.deliver(ctx, b.seq, b.data) == retry {
					if ctx.Err() == nil {
						a.log.Warn("spooling batches until the collector takes them", "seq", b.seq, "spool", a.spool.dir)
					}
					a.toSpool(b)
					wait = time.After(bo.next())
				} else {
					bo.reset()
				}
			case <-ctx.Done():
				a.drain(in)
				return
			}
			continue
		}
		if wait == nil {
			if a.sendOldest(ctx) == retry {
				wait = time.After(bo.next())
			} else {
				bo.reset()
				if a.spool.len() == 0 {
					a.log.Info("spool replayed; delivering directly again", "delivered_total", a.delivered.Load())
				}
			}
		}
		// Absorb new batches into the spool, behind the older ones: without
		// waiting when the next spooled batch can go at once.
		var timeout <-chan time.Time
		if wait == nil {
			timeout = closed
		}
		select {
		case b, ok := <-in:
			if !ok {
				a.drain(in)
				return
			}
			a.toSpool(b)
		case <-wait:
			wait = nil
		case <-timeout:
		case <-ctx.Done():
			a.drain(in)
			return
		}
	}
}

// closed is a channel that is always ready.
var closed = func() chan time.Time { c := make(chan time.Time); close(c); return c }()

// drain handles shutdown: it spools the batches still arriving, then,
// for up to Config.FlushTimeout, delivers what it can from the spool (the
// last second sampled is not held back until the next start); the rest
// waits in the spool for the next run.
func (a *Agent) drain(in <-chan sealed) {
	for b := range in {
		a.toSpool(b)
	}
	fctx, cancel := context.WithTimeout(context.Background(), a.cfg.FlushTimeout)
	defer cancel()
	for a.spool.len() > 0 && fctx.Err() == nil {
		if a.sendOldest(fctx) == retry {
			return
		}
	}
}

// sendOldest tries to deliver the oldest spooled batch, which leaves the
// spool unless the outcome is retry. An unreadable file is dropped.
func (a *Agent) sendOldest(ctx context.Context) outcome {
	seq, data, err := a.spool.oldest()
	if err != nil {
		a.log.Error("unreadable spooled batch dropped", "seq", seq, "err", err)
		a.spool.dropped.Add(1)
		a.spool.removeOldest()
		return rejected
	}
	o := a.deliver(ctx, seq, data)
	if o != retry {
		a.spool.removeOldest()
	}
	return o
}

// toSpool keeps b for a later attempt; a failing disk loses it (logged).
func (a *Agent) toSpool(b sealed) {
	if err := a.spool.add(b.seq, b.data); err != nil {
		a.spool.dropped.Add(1)
		a.log.Error("batch lost: cannot spool it", "seq", b.seq, "err", err)
	}
}
