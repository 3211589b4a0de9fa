package eventlog

import (
	"bytes"
	"fmt"
	"io"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
	"github.com/clusterlens/clusterlens/internal/source"
)

// parallelCase is a way to read in parallel: workers, block size, and
// whether workers are refused every other block (the decoding goroutine
// then decodes those blocks itself, as when the cores are busy).
type parallelCase struct {
	workers, block int
	refuse         bool
}

var parallelCases = []parallelCase{{1, 1 << 10, false}, {2, 64 << 10, true}, {3, 0, false}}

// decoder returns a decoder reading as c says.
func (c parallelCase) decoder() *Decoder {
	d := NewDecoder()
	c.set(d)
	return d
}

func (c parallelCase) set(d *Decoder) {
	d.blockSize = c.block
	p := &Parallel{Workers: c.workers}
	if c.refuse {
		var n atomic.Int64
		p.Acquire = func() bool { return n.Add(1)%2 == 0 }
		p.Release = func() {}
	}
	d.Parallel = p
}

func (c parallelCase) String() string {
	return fmt.Sprintf("%d workers, %d-byte blocks, refused %v", c.workers, c.block, c.refuse)
}

// feedParts decodes a log's parts in order with d, as load does.
func feedParts(d *Decoder, names []string, parts [][]byte) []*model.App {
	for i, p := range parts {
		d.Feed(names[i], bytes.NewReader(p))
	}
	return d.Apps()
}

// TestParallelEqualsSequential decodes every real Spark event log of
// shared/data (logs/ and the platform-logs/ archives, rolled parts fed in
// order) sequentially and in parallel, and requires the same applications,
// data quality included (bad lines, issues with file and line, truncation,
// duplicates, impossible times); and the same again when the logs are read
// in pieces through snapshots (FeedLines, as a growing log is read).
func TestParallelEqualsSequential(t *testing.T) {
	var logs []*source.Log
	for _, dir := range []string{"logs", "platform-logs"} {
		found, _, err := source.Find([]string{sharedtest.Dir(t, dir)}, source.Options{PartHeader: PartHeader, Formats: []source.Format{{Kind: source.SparkEventLog, Sniff: Sniff}}})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range found {
			if l.Kind == source.SparkEventLog {
				logs = append(logs, l)
			}
		}
	}
	checked, lines := 0, int64(0)
	for _, l := range logs {
		var names []string
		var parts [][]byte
		for i, p := range l.Parts {
			r, err := l.Open(i)
			if err != nil {
				t.Fatalf("%s: %v", p.Name, err)
			}
			data, err := io.ReadAll(r)
			r.Close()
			if err != nil {
				t.Logf("%s: %v (read as far as it goes)", p.Name, err)
			}
			names, parts = append(names, p.Name), append(parts, data)
		}
		want := feedParts(NewDecoder(), names, parts)
		for _, c := range parallelCases {
			got := feedParts(c.decoder(), names, parts)
			if diff := appDiff(want, got); diff != "" {
				t.Fatalf("%s read in parallel (%v) differs (-sequential +parallel):\n%s", l.Name, c, diff)
			}
		}
		if len(parts) == 1 {
			data := parts[0]
			cuts := []int{len(data) / 3, 2 * len(data) / 3}
			seq := readResumed(t, names[0], data, cuts, nil)
			par := readResumed(t, names[0], data, cuts, parallelCases[0].set)
			if diff := appDiff(seq, par); diff != "" {
				t.Fatalf("%s read in pieces in parallel differs (-sequential +parallel):\n%s", l.Name, diff)
			}
		}
		for _, a := range want {
			lines += a.Quality.Lines
		}
		checked++
	}
	t.Logf("%d logs (%d lines) decoded in parallel as sequentially", checked, lines)
	if checked < 100 {
		t.Fatalf("only %d real logs checked", checked)
	}
}

// appDiff compares applications with go-cmp (appCmp), after a quicker
// reflect.DeepEqual, which is stricter (it tells nil from empty): go-cmp
// takes minutes over every real log's tasks.
func appDiff(want, got []*model.App) string {
	if reflect.DeepEqual(want, got) {
		return ""
	}
	return cmp.Diff(want, got, appCmp...)
}

// FuzzParallel decodes arbitrary input sequentially and in parallel, in
// small blocks, whole and in pieces: the applications must be the same.
func FuzzParallel(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s), uint16(100), uint8(3))
	}
	f.Fuzz(func(t *testing.T, b []byte, block uint16, max uint8) {
		c := parallelCase{workers: 2, block: int(block)%4096 + 1, refuse: block%3 == 0}
		seq := NewDecoder()
		seq.MaxLine = int64(max) + 1
		par := c.decoder()
		par.MaxLine = seq.MaxLine
		want := feedParts(seq, []string{"fuzz"}, [][]byte{b})
		got := feedParts(par, []string{"fuzz"}, [][]byte{b})
		if diff := appDiff(want, got); diff != "" {
			t.Fatalf("parallel (%v) differs (-sequential +parallel):\n%s", c, diff)
		}
		cuts := []int{len(b) / 2}
		seqPieces := readResumed(t, "fuzz", b, cuts, func(d *Decoder) { d.MaxLine = int64(max) + 1 })
		parPieces := readResumed(t, "fuzz", b, cuts, func(d *Decoder) { c.set(d); d.MaxLine = int64(max) + 1 })
		if diff := appDiff(seqPieces, parPieces); diff != "" {
			t.Fatalf("parallel (%v) in pieces differs (-sequential +parallel):\n%s", c, diff)
		}
	})
}
