package loadtest

import (
	"context"
	"fmt"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/store"
)

// Check is what the store holds compared with what the agents produced.
type Check struct {
	Produced int64 // samples produced
	Stored   int64 // samples read back from the store
	Missing  int64 // produced, not stored
	Extra    int64 // stored, never produced (or stored twice)
	Wrong    int64 // stored with another value than produced
}

// OK says the store holds exactly what was produced.
func (c Check) OK() bool {
	return c.Stored == c.Produced && c.Missing == 0 && c.Extra == 0 && c.Wrong == 0
}

// String summarises the check in one line.
func (c Check) String() string {
	return fmt.Sprintf("produced %d, stored %d: %d missing, %d extra or duplicated, %d with a wrong value",
		c.Produced, c.Stored, c.Missing, c.Extra, c.Wrong)
}

// Verify reads every sample of res's hosts back from st (ordered by host,
// type, target, time, as store.Store promises) and compares each series
// with the times its node sampled at and the values it produced.
func Verify(ctx context.Context, st store.Store, res *Result) (Check, error) {
	times := map[string][]int64{}
	var c Check
	var hosts []string
	for _, n := range res.nodes {
		ts := n.sampled()
		times[n.host] = ts
		hosts = append(hosts, n.host)
		c.Produced += int64(len(ts) * SamplesPerTick)
	}
	type key struct{ host, typ, target string }
	known := map[series]bool{}
	for _, sr := range nodeSeries {
		known[sr] = true
	}
	next := map[key]int{} // per series, the index of the next expected time
	err := st.Query(ctx, store.Query{Hosts: hosts}, func(s *model.Sample) error {
		c.Stored++
		if s.Value != valueOf(s.Host, s.Type, s.Target, s.Time) {
			c.Wrong++
		}
		if !known[series{s.Type, s.Target}] {
			c.Extra++
			return nil
		}
		k := key{s.Host, s.Type, s.Target}
		ts, i := times[s.Host], next[k]
		for i < len(ts) && ts[i] < s.Time { // times the store skipped
			c.Missing++
			i++
		}
		if i < len(ts) && ts[i] == s.Time {
			i++
		} else {
			c.Extra++ // never produced, or stored twice
		}
		next[k] = i
		return nil
	})
	if err != nil {
		return c, fmt.Errorf("verify: %w", err)
	}
	for _, n := range res.nodes {
		ts := times[n.host]
		for _, sr := range nodeSeries {
			c.Missing += int64(len(ts) - next[key{n.host, sr.typ, sr.target}])
		}
	}
	return c, nil
}
