// Package storetest is the conformance suite every store.Store passes: exact
// round trips, filters, ordering, exactly-once batches (also across a crash
// between writing samples and recording the batch), concurrency, large and
// empty batches, awkward strings, NaN and infinities, and persistence across
// a reopen. Expected results come from a reference model in plain Go (and
// from the simulator's metrics), never from the store under test.
package storetest

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/clusterlens/clusterlens/internal/metrics"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sim"
	"github.com/clusterlens/clusterlens/internal/store"
	"github.com/clusterlens/clusterlens/internal/wire"
)

// Opener opens the store under test. It is called with each subtest's t and
// must return an empty store the first time it sees that t; called again
// with the same t (after the suite closed the first store) it must open the
// same stored data anew, as a restarted collector would (the same SQLite
// file, the same ClickHouse database through a new client). The suite
// closes every store it opens; the Opener cleans up what it created.
type Opener func(t *testing.T) store.Store

// Crasher is implemented, in test builds only (an export_test.go), by each
// store: AppendCrashed performs Append up to the point where the samples
// are written but the batch id is not yet recorded, and returns as if the
// process had died there (a transactional store rolls back, a
// non-transactional one leaves the samples written).
type Crasher interface {
	AppendCrashed(ctx context.Context, b *wire.Batch) error
}

// Run runs the conformance suite against the stores open returns.
func Run(t *testing.T, open Opener) {
	tests := []struct {
		name string
		fn   func(t *testing.T, open Opener)
	}{
		{"RoundTrip", testRoundTrip},
		{"Filters", testFilters},
		{"Duplicates", testDuplicates},
		{"SampleKeyLastWins", testSampleKeyLastWins},
		{"CrashBeforeBatchID", testCrash},
		{"Concurrent", testConcurrent},
		{"Large", testLarge},
		{"Empty", testEmpty},
		{"Strings", testStrings},
		{"NaNInf", testNaNInf},
		{"Reopen", testReopen},
		{"QueryStops", testQueryStops},
		{"Simulator", testSimulator},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, open) })
	}
}

// openT opens a store and closes it at the end of the test.
func openT(t *testing.T, open Opener) store.Store {
	t.Helper()
	s := open(t)
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return s
}

func appendOK(t *testing.T, s store.Store, b *wire.Batch, wantDup bool) {
	t.Helper()
	dup, err := s.Append(context.Background(), b)
	if err != nil {
		t.Fatalf("append %s/%d (%d samples): %v", b.Agent, b.Seq, len(b.Samples), err)
	}
	if dup != wantDup {
		t.Fatalf("append %s/%d: dup = %v, want %v", b.Agent, b.Seq, dup, wantDup)
	}
}

// queryAll returns copies of what q selects, in the store's order.
func queryAll(t *testing.T, s store.Store, q store.Query) []model.Sample {
	t.Helper()
	var out []model.Sample
	err := s.Query(context.Background(), q, func(x *model.Sample) error {
		out = append(out, *x)
		return nil
	})
	if err != nil {
		t.Fatalf("query %+v: %v", q, err)
	}
	return out
}

// reference is the model a store must agree with: one sample per key, the
// last appended winning, filtered and ordered as store.Query says.
type reference map[model.SampleKey]model.Sample

func (r reference) add(ss []model.Sample) {
	for _, s := range ss {
		r[s.Key()] = s
	}
}

func (r reference) query(q store.Query) []model.Sample {
	out := make([]model.Sample, 0, len(r))
	for _, s := range r {
		if len(q.Hosts) > 0 && !slices.Contains(q.Hosts, s.Host) {
			continue
		}
		if len(q.Types) > 0 && !slices.Contains(q.Types, s.Type) {
			continue
		}
		if q.From != 0 && s.Time < q.From || q.To != 0 && s.Time >= q.To {
			continue
		}
		out = append(out, s)
	}
	slices.SortFunc(out, compareSamples)
	return out
}

// compareSamples orders by host, type, target, time, comparing strings
// bytewise as both stores do.
func compareSamples(a, b model.Sample) int {
	if c := strings.Compare(a.Host, b.Host); c != 0 {
		return c
	}
	if c := strings.Compare(a.Type, b.Type); c != 0 {
		return c
	}
	if c := strings.Compare(a.Target, b.Target); c != 0 {
		return c
	}
	return cmp.Compare(a.Time, b.Time)
}

// sameValue is exact equality of stored values: the same bits, except that
// any NaN matches any NaN (payloads are not kept, see docs/STORE.md) and
// -0 matches +0 (SQLite stores integral reals as integers).
func sameValue(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	if a == 0 && b == 0 {
		return true
	}
	return math.Float64bits(a) == math.Float64bits(b)
}

func sameSample(a, b model.Sample) bool {
	return a.Time == b.Time && a.Host == b.Host && a.Type == b.Type && a.Target == b.Target &&
		a.Text == b.Text && sameValue(a.Value, b.Value)
}

// checkEqual compares got with want sample by sample and reports the first
// few differences.
func checkEqual(t *testing.T, what string, got, want []model.Sample) {
	t.Helper()
	bad := 0
	for i := 0; i < len(got) || i < len(want); i++ {
		switch {
		case i >= len(got):
			t.Errorf("%s: sample %d missing, want %s", what, i, show(want[i]))
		case i >= len(want):
			t.Errorf("%s: sample %d extra: %s", what, i, show(got[i]))
		case !sameSample(got[i], want[i]):
			t.Errorf("%s: sample %d\n got %s\nwant %s", what, i, show(got[i]), show(want[i]))
		default:
			continue
		}
		if bad++; bad >= 5 {
			t.Fatalf("%s: got %d samples, want %d; stopping after %d differences", what, len(got), len(want), bad)
		}
	}
}

func show(s model.Sample) string {
	return fmt.Sprintf("{%d %q %q %q %v (%#x) %q}", s.Time, s.Host, s.Type, s.Target, s.Value, math.Float64bits(s.Value), s.Text)
}

// sampleSet builds a deterministic batch of hosts × types × targets × times
// with values that exercise the float format.
func sampleSet(hosts, types, targets []string, times []int64) []model.Sample {
	vals := []float64{0, 1, -1, 0.1, 1.0 / 3, math.Pi, 1e300, -1e-300, 5e-324, math.MaxFloat64,
		math.SmallestNonzeroFloat64, 1 << 53, (1 << 53) + 1, 123456.789, -42.5}
	var out []model.Sample
	i := 0
	for _, h := range hosts {
		for _, ty := range types {
			for _, tg := range targets {
				for _, tm := range times {
					s := model.Sample{Time: tm, Host: h, Type: ty, Target: tg, Value: vals[i%len(vals)]}
					if i%7 == 3 {
						s.Text = fmt.Sprintf("text %d", i)
					}
					out = append(out, s)
					i++
				}
			}
		}
	}
	return out
}

func testRoundTrip(t *testing.T, open Opener) {
	s := openT(t, open)
	if got := queryAll(t, s, store.Query{}); len(got) != 0 {
		t.Fatalf("new store holds %d samples", len(got))
	}
	ss := sampleSet([]string{"node-b", "node-a", "node-c"}, []string{"load1", "cpu_user_pct", model.ThreadSampleType},
		[]string{"", "sda", "123/45"}, []int64{1767225603000, 1767225601000, 1767225602000, 0, -1000, 1 << 50})
	// Shuffle deterministically so that the store must sort.
	for i := range ss {
		j := (i * 7919) % len(ss)
		ss[i], ss[j] = ss[j], ss[i]
	}
	appendOK(t, s, &wire.Batch{Agent: "a1", Seq: 1, Samples: ss}, false)
	ref := reference{}
	ref.add(ss)
	checkEqual(t, "all", queryAll(t, s, store.Query{}), ref.query(store.Query{}))
}

func testFilters(t *testing.T, open Opener) {
	s := openT(t, open)
	ss := sampleSet([]string{"h1", "h2", "h3", "h10"}, []string{"load1", "mem_usage", "cpu_usage"},
		[]string{"", "eth0"}, []int64{1000, 2000, 3000, 4000, 5000})
	ref := reference{}
	for i := 0; i < len(ss); i += 17 {
		end := min(i+17, len(ss))
		appendOK(t, s, &wire.Batch{Agent: "f", Seq: uint64(i + 1), Samples: ss[i:end]}, false)
		ref.add(ss[i:end])
	}
	queries := []store.Query{
		{},
		{Hosts: []string{"h2"}},
		{Hosts: []string{"h10", "h1"}},
		{Hosts: []string{"nope"}},
		{Types: []string{"mem_usage"}},
		{Types: []string{"mem_usage", "load1"}, Hosts: []string{"h3"}},
		{From: 2000},
		{To: 3000},
		{From: 2000, To: 4000},
		{From: 2001, To: 2002},
		{From: 3000, To: 3000},
		{From: 5000},
		{To: 1000},
		{Hosts: []string{"h1", "h3"}, Types: []string{"cpu_usage"}, From: 1000, To: 5000},
		{Hosts: []string{"a'b", `x"y`, "h1"}},
		{To: math.MinInt64},
		{From: math.MinInt64, To: math.MaxInt64},
		{From: math.MaxInt64},
		{From: -1, To: 1},
	}
	for _, q := range queries {
		checkEqual(t, fmt.Sprintf("query %+v", q), queryAll(t, s, q), ref.query(q))
	}
}

func testDuplicates(t *testing.T, open Opener) {
	s := openT(t, open)
	b1 := &wire.Batch{Agent: "agent-1", Seq: 1, Samples: sampleSet([]string{"h"}, []string{"load1"}, []string{""}, []int64{1, 2, 3})}
	b2 := &wire.Batch{Agent: "agent-1", Seq: 2, Samples: sampleSet([]string{"h"}, []string{"load1"}, []string{""}, []int64{4, 5})}
	other := &wire.Batch{Agent: "agent-2", Seq: 1, Samples: sampleSet([]string{"g"}, []string{"load1"}, []string{""}, []int64{1})}
	appendOK(t, s, b1, false)
	appendOK(t, s, b1, true)
	appendOK(t, s, b2, false)
	appendOK(t, s, other, false) // same Seq, other agent: a different batch
	appendOK(t, s, b2, true)
	appendOK(t, s, b1, true)
	big := &wire.Batch{Agent: "agent-1", Seq: math.MaxUint64, Samples: b1.Samples[:1]}
	appendOK(t, s, big, false)
	appendOK(t, s, big, true)
	ref := reference{}
	ref.add(b1.Samples)
	ref.add(b2.Samples)
	ref.add(other.Samples)
	checkEqual(t, "after duplicates", queryAll(t, s, store.Query{}), ref.query(store.Query{}))
}

// testSampleKeyLastWins: two batches (or one) holding the same sample key
// keep one sample, the last appended.
func testSampleKeyLastWins(t *testing.T, open Opener) {
	s := openT(t, open)
	k := model.Sample{Time: 1000, Host: "h", Type: "load1"}
	a, b, c := k, k, k
	a.Value, b.Value, c.Value = 1, 2, 3
	c.Text = "third"
	appendOK(t, s, &wire.Batch{Agent: "x", Seq: 1, Samples: []model.Sample{a}}, false)
	appendOK(t, s, &wire.Batch{Agent: "y", Seq: 1, Samples: []model.Sample{b}}, false)
	checkEqual(t, "across batches", queryAll(t, s, store.Query{}), []model.Sample{b})
	appendOK(t, s, &wire.Batch{Agent: "x", Seq: 2, Samples: []model.Sample{a, c}}, false)
	checkEqual(t, "within a batch", queryAll(t, s, store.Query{}), []model.Sample{c})
}

func testCrash(t *testing.T, open Opener) {
	s := openT(t, open)
	c, ok := s.(Crasher)
	if !ok {
		t.Fatalf("%T does not implement storetest.Crasher (add AppendCrashed in an export_test.go)", s)
	}
	b := &wire.Batch{Agent: "crashy", Seq: 7, Samples: sampleSet([]string{"h1", "h2"}, []string{"load1"}, []string{""}, []int64{1000, 2000, 3000})}
	if err := c.AppendCrashed(context.Background(), b); err != nil {
		t.Fatalf("append up to the crash: %v", err)
	}
	// The agent never got an answer, so it sends the batch again: it must
	// be stored (not reported as a duplicate of a batch never recorded)
	// and its samples must not be doubled.
	appendOK(t, s, b, false)
	appendOK(t, s, b, true)
	ref := reference{}
	ref.add(b.Samples)
	checkEqual(t, "after crash and re-send", queryAll(t, s, store.Query{}), ref.query(store.Query{}))
}

// testConcurrent: many goroutines append distinct batches and, racing,
// re-send each other's; every batch is reported new exactly once.
func testConcurrent(t *testing.T, open Opener) {
	s := openT(t, open)
	const workers, perWorker = 16, 12
	batches := make([]*wire.Batch, 0, workers*perWorker)
	ref := reference{}
	for w := range workers {
		host := fmt.Sprintf("node-%02d", w)
		for i := range perWorker {
			b := &wire.Batch{Agent: host, Seq: uint64(i + 1),
				Samples: sampleSet([]string{host}, []string{"load1", "cpu_usage"}, []string{""}, []int64{int64(i*10 + 1), int64(i*10 + 2)})}
			batches = append(batches, b)
			ref.add(b.Samples)
		}
	}
	fresh := make([]int, len(batches))
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make(chan error, 2*workers)
	for w := range 2 * workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range batches {
				// Worker w and worker w+workers send the same batches, in
				// opposite orders.
				i := k
				if w >= workers {
					i = len(batches) - 1 - k
				}
				if i%workers != w%workers {
					continue
				}
				dup, err := s.Append(context.Background(), batches[i])
				if err != nil {
					errs <- err
					return
				}
				if !dup {
					mu.Lock()
					fresh[i]++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("concurrent append: %v", err)
	}
	for i, n := range fresh {
		if n != 1 {
			t.Errorf("batch %s/%d reported new %d times, want once", batches[i].Agent, batches[i].Seq, n)
		}
	}
	checkEqual(t, "after concurrent appends", queryAll(t, s, store.Query{}), ref.query(store.Query{}))
}

func testLarge(t *testing.T, open Opener) {
	s := openT(t, open)
	times := make([]int64, 2000)
	for i := range times {
		times[i] = 1767225600000 + int64(i)*1000
	}
	ss := sampleSet([]string{"big-1", "big-2"}, model.NodeMetricNames[:], []string{""}, times) // 88,000 samples
	appendOK(t, s, &wire.Batch{Agent: "big", Seq: 1, Samples: ss}, false)
	ref := reference{}
	ref.add(ss)
	checkEqual(t, "large batch", queryAll(t, s, store.Query{}), ref.query(store.Query{}))
	q := store.Query{Hosts: []string{"big-2"}, Types: []string{"load1"}, From: times[100], To: times[200]}
	checkEqual(t, "slice of the large batch", queryAll(t, s, q), ref.query(q))
}

func testEmpty(t *testing.T, open Opener) {
	s := openT(t, open)
	appendOK(t, s, &wire.Batch{Agent: "quiet", Seq: 1}, false)
	appendOK(t, s, &wire.Batch{Agent: "quiet", Seq: 1}, true)
	if got := queryAll(t, s, store.Query{}); len(got) != 0 {
		t.Fatalf("empty batch stored %d samples", len(got))
	}
	if _, err := s.Append(context.Background(), nil); err == nil {
		t.Fatal("append of a nil batch: no error")
	}
}

// awkwardStrings are the strings a text format could get wrong.
var awkwardStrings = []string{
	"", "plain", "a'b", `a"b`, "a\tb", "a\nb", "a\r\nb", `back\slash`, `\N`, "NULL", "trailing\\",
	"ünïcödé ✓ 日本語 🚀", "\x00nul\x00", "\xff\xfe not utf-8", "comma,semi;pipe|", strings.Repeat("long ", 2000),
}

func testStrings(t *testing.T, open Opener) {
	s := openT(t, open)
	var ss []model.Sample
	for i, str := range awkwardStrings {
		ss = append(ss,
			model.Sample{Time: int64(i), Host: "h" + str, Type: "t", Target: "", Value: float64(i), Text: str},
			model.Sample{Time: int64(i), Host: "h", Type: str, Target: str, Value: float64(i), Text: "x" + str},
		)
	}
	thread := model.Sample{Time: 99, Host: "h", Type: model.ThreadSampleType, Target: "4242/4243", Value: 17,
		Text: "exec-1\tExecutor task launch worker for task 17\tRUNNABLE\tjava.io.FileInputStream.readBytes(Native Method)\n" +
			"org.apache.spark.rdd.HadoopRDD$$anon$1.getNext(HadoopRDD.scala:283)"}
	ss = append(ss, thread)
	appendOK(t, s, &wire.Batch{Agent: "strings\t'\"\n✓", Seq: 1, Samples: ss}, false)
	appendOK(t, s, &wire.Batch{Agent: "strings\t'\"\n✓", Seq: 1, Samples: ss}, true)
	ref := reference{}
	ref.add(ss)
	checkEqual(t, "awkward strings", queryAll(t, s, store.Query{}), ref.query(store.Query{}))
	for _, str := range awkwardStrings {
		q := store.Query{Hosts: []string{"h" + str}, Types: []string{"t"}}
		checkEqual(t, fmt.Sprintf("host %q", "h"+str), queryAll(t, s, q), ref.query(q))
		q = store.Query{Types: []string{str}}
		checkEqual(t, fmt.Sprintf("type %q", str), queryAll(t, s, q), ref.query(q))
	}
}

// testNaNInf: NaN and both infinities are stored and read back (a source
// such as Prometheus reports NaN for an undefined rate; rejecting a whole
// batch for it would make an agent retry forever).
func testNaNInf(t *testing.T, open Opener) {
	s := openT(t, open)
	ss := []model.Sample{
		{Time: 1, Host: "h", Type: "v", Value: math.NaN()},
		{Time: 2, Host: "h", Type: "v", Value: math.Inf(1)},
		{Time: 3, Host: "h", Type: "v", Value: math.Inf(-1)},
		{Time: 4, Host: "h", Type: "v", Value: math.Float64frombits(0x7ff8000000000bad)},
		{Time: 5, Host: "h", Type: "v", Value: math.Copysign(0, -1)},
		{Time: 6, Host: "h", Type: "v", Value: -math.MaxFloat64},
	}
	appendOK(t, s, &wire.Batch{Agent: "nan", Seq: 1, Samples: ss}, false)
	checkEqual(t, "NaN and infinities", queryAll(t, s, store.Query{}), ss)
}

func testReopen(t *testing.T, open Opener) {
	s := open(t)
	ss := sampleSet([]string{"h1", "h2"}, []string{"load1", "cpu_usage"}, []string{"", "sda"}, []int64{10, 20, 30})
	appendOK(t, s, &wire.Batch{Agent: "r", Seq: 1, Samples: ss}, false)
	if err := s.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	s = openT(t, open)
	ref := reference{}
	ref.add(ss)
	checkEqual(t, "after reopen", queryAll(t, s, store.Query{}), ref.query(store.Query{}))
	appendOK(t, s, &wire.Batch{Agent: "r", Seq: 1, Samples: ss}, true)
	more := sampleSet([]string{"h3"}, []string{"load1"}, []string{""}, []int64{40})
	appendOK(t, s, &wire.Batch{Agent: "r", Seq: 2, Samples: more}, false)
	ref.add(more)
	checkEqual(t, "after reopen and append", queryAll(t, s, store.Query{}), ref.query(store.Query{}))
}

// testQueryStops: an error from fn ends Query with that error, and a
// cancelled context fails Append and Query.
func testQueryStops(t *testing.T, open Opener) {
	s := openT(t, open)
	ss := sampleSet([]string{"h1", "h2"}, []string{"load1"}, []string{""}, []int64{1, 2, 3, 4, 5})
	appendOK(t, s, &wire.Batch{Agent: "q", Seq: 1, Samples: ss}, false)
	stop := errors.New("enough")
	n := 0
	err := s.Query(context.Background(), store.Query{}, func(*model.Sample) error {
		if n++; n == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 3 {
		t.Fatalf("query stopped by fn: err %v after %d samples, want %v after 3", err, n, stop)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Append(ctx, &wire.Batch{Agent: "q", Seq: 2, Samples: ss}); err == nil {
		t.Error("append with a cancelled context: no error")
	}
	if err := s.Query(ctx, store.Query{}, func(*model.Sample) error { return nil }); err == nil {
		t.Error("query with a cancelled context: no error")
	}
	checkEqual(t, "after cancelled append", queryAll(t, s, store.Query{}), reference(toRef(ss)).query(store.Query{}))
}

func toRef(ss []model.Sample) map[model.SampleKey]model.Sample {
	r := reference{}
	r.add(ss)
	return r
}

// testSimulator stores the simulator's node metrics (4 nodes, 22 metrics,
// 1 s) the way agents would ship them, one batch per host and 10 s, and
// reads back every host's and metric's series exactly as the simulator
// wrote them.
func testSimulator(t *testing.T, open Opener) {
	sc, err := sim.Named("cpu-hog")
	if err != nil {
		t.Fatal(err)
	}
	var csv bytes.Buffer
	if _, err := sim.Simulate(sc.WithNodes(4), 1, &csv); err != nil {
		t.Fatalf("simulate: %v", err)
	}
	type key struct {
		host string
		slot int64
	}
	batches := map[key]*wire.Batch{}
	var order []key
	ref := reference{}
	err = metrics.ReadCSV(&csv, "simulator metrics", func(x *model.Sample) error {
		k := key{x.Host, x.Time / 10000}
		b := batches[k]
		if b == nil {
			b = &wire.Batch{Agent: x.Host, Seq: uint64(len(order) + 1)}
			batches[k] = b
			order = append(order, k)
		}
		b.Samples = append(b.Samples, *x)
		ref[x.Key()] = *x
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(ref) < 10000 {
		t.Fatalf("simulator wrote only %d samples", len(ref))
	}
	s := openT(t, open)
	for _, k := range order {
		appendOK(t, s, batches[k], false)
	}
	checkEqual(t, "simulator metrics", queryAll(t, s, store.Query{}), ref.query(store.Query{}))
	all := ref.query(store.Query{})
	mid := all[len(all)/2].Time
	q := store.Query{Hosts: []string{all[0].Host}, Types: []string{"cpu_user_pct", "disk_read_bytes_per_s"}, From: mid - 30000, To: mid + 30000}
	checkEqual(t, fmt.Sprintf("simulator window %+v", q), queryAll(t, s, q), ref.query(q))
}
