package clickhouse

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/clusterlens/clusterlens/internal/clickhttp"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/wire"
)

// maxGroupSamples bounds how many samples one INSERT carries.
const maxGroupSamples = 500_000

// request is one Append waiting for the writer.
type request struct {
	ctx context.Context
	b   *wire.Batch
	// crash makes the writer write the samples and stop before recording
	// the batch, as if the process died there (storetest's crash test).
	crash bool

	dup  bool
	err  error
	done chan struct{}
}

// run is the writer goroutine. It takes a request and every request
// already waiting; when the last group had more than one request (agents
// are sending together) it also waits up to MaxDelay for more, so that the
// server sees a few large inserts.
func (s *Store) run() {
	defer close(s.done)
	var group []*request
	last := 0
	for {
		select {
		case <-s.quit:
			return
		case r := <-s.reqs:
			group = append(group[:0], r)
		}
		n := len(group[0].b.Samples)
		var timeout <-chan time.Time
		var timer *time.Timer
		if last > 1 {
			timer = time.NewTimer(s.opt.MaxDelay)
			timeout = timer.C
		}
	collect:
		for n < maxGroupSamples {
			select {
			case r := <-s.reqs:
				group = append(group, r)
				n += len(r.b.Samples)
				continue
			default:
			}
			if timeout == nil {
				break
			}
			select {
			case r := <-s.reqs:
				group = append(group, r)
				n += len(r.b.Samples)
			case <-timeout:
				break collect
			case <-s.quit:
				break collect
			}
		}
		if timer != nil {
			timer.Stop()
		}
		last = len(group)
		s.writeGroup(group)
		for _, r := range group {
			close(r.done)
		}
		clear(group)
	}
}

// writeGroup writes a group: one query finds which batches are already
// recorded, one INSERT writes the samples of the others, one INSERT
// records them. Each request gets its outcome.
func (s *Store) writeGroup(group []*request) {
	// The group's work is not any one caller's: a caller that gives up does
	// not abort the others' writes.
	ctx := context.Background()
	var live []*request
	for _, r := range group {
		if r.err = r.ctx.Err(); r.err == nil {
			live = append(live, r)
		}
	}
	if len(live) == 0 {
		return
	}
	fail := func(err error) {
		for _, r := range live {
			r.dup, r.err = false, err
		}
	}
	stored, err := s.recorded(ctx, live)
	if err != nil {
		fail(fmt.Errorf("look up batch ids: %w", err))
		return
	}
	seen := map[batchID]bool{}
	var rows, batches []byte
	now := time.Now().UnixMilli()
	for _, r := range live {
		k := batchID{r.b.Agent, r.b.Seq}
		if stored[k] || seen[k] {
			r.dup = true
			continue
		}
		rows = appendBatchSamples(rows, r.b.Samples)
		if r.crash {
			continue // never recorded: a re-send is new
		}
		seen[k] = true
		batches = clickhttp.AppendString(batches, r.b.Agent)
		batches = clickhttp.AppendUint64(batches, r.b.Seq)
		batches = clickhttp.AppendUint64(batches, uint64(len(r.b.Samples)))
		batches = clickhttp.AppendInt64(batches, now)
	}
	if len(rows) > 0 {
		if err := s.c.Exec(ctx, "INSERT INTO samples (time, host, type, target, value, text) FORMAT RowBinary", rows); err != nil {
			fail(fmt.Errorf("insert samples: %w", err))
			return
		}
	}
	if len(batches) > 0 {
		if err := s.c.Exec(ctx, "INSERT INTO batches (agent, seq, samples, stored) FORMAT RowBinary", batches); err != nil {
			fail(fmt.Errorf("record batch ids: %w", err))
			return
		}
	}
}

// appendBatchSamples encodes a batch's samples, keeping only the last of
// samples that share a key, as the table's replacement would, so that
// which one survives does not depend on how the server sorts an insert.
func appendBatchSamples(b []byte, ss []model.Sample) []byte {
	last := make(map[model.SampleKey]int, len(ss))
	for i := range ss {
		last[ss[i].Key()] = i
	}
	for i := range ss {
		if len(last) == len(ss) || last[ss[i].Key()] == i {
			b = appendSample(b, &ss[i])
		}
	}
	return b
}

type batchID struct {
	agent string
	seq   uint64
}

// recorded returns which of the requests' batch ids the batches table
// holds.
func (s *Store) recorded(ctx context.Context, rs []*request) (map[batchID]bool, error) {
	var q strings.Builder
	q.WriteString("SELECT agent, seq FROM batches WHERE (agent, seq) IN (")
	for i, r := range rs {
		if i > 0 {
			q.WriteByte(',')
		}
		fmt.Fprintf(&q, "(%s, %d)", clickhttp.Quote(r.b.Agent), r.b.Seq)
	}
	q.WriteString(") FORMAT RowBinary")
	body, err := s.c.Do(ctx, q.String(), nil)
	if err != nil {
		return nil, err
	}
	defer body.Close()
	out := map[batchID]bool{}
	d := clickhttp.NewRowReader(body)
	for {
		if end, err := d.AtEOF(); end || err != nil {
			return out, err
		}
		agent, err := d.Bytes()
		if err != nil {
			return nil, err
		}
		k := batchID{agent: string(agent)}
		if k.seq, err = d.Fixed(); err != nil {
			return nil, err
		}
		out[k] = true
	}
}
