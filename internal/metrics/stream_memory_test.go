package metrics

import (
	"bytes"
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/model"
)

// repeatReader yields prefix, then item n times separated by sep, then
// suffix, without ever holding more than one item.
func repeatReader(prefix, item, sep, suffix []byte, n int) io.Reader {
	parts := []io.Reader{bytes.NewReader(prefix)}
	parts = append(parts, &repeater{item: item, sep: sep, n: n})
	return io.MultiReader(append(parts, bytes.NewReader(suffix))...)
}

type repeater struct {
	item, sep []byte
	n, i, off int
}

func (r *repeater) Read(p []byte) (int, error) {
	if r.i >= r.n {
		return 0, io.EOF
	}
	cur := r.item
	if r.i > 0 {
		cur = append(append([]byte(nil), r.sep...), r.item...)
	}
	k := copy(p, cur[r.off:])
	r.off += k
	if r.off == len(cur) {
		r.i, r.off = r.i+1, 0
	}
	return k, nil
}

// heapWatch collects garbage every 65,536 calls and keeps the peak of the
// live heap above what was live when it was made: what the reader holds.
type heapWatch struct {
	n          int
	base, peak uint64
}

func newHeapWatch() *heapWatch {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	return &heapWatch{base: m.HeapAlloc}
}

func (h *heapWatch) sample(*model.Sample) error {
	if h.n++; h.n%65536 == 0 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		if m.HeapAlloc > h.base {
			h.peak = max(h.peak, m.HeapAlloc-h.base)
		}
	}
	return nil
}

// TestReadersStream checks that the sadf -j, Prometheus and nmon readers
// hold one record, series or snapshot, not the input: a ~30 MB input of
// each keeps the live heap under 8 MB.
func TestReadersStream(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 60 MB")
	}
	doc := benchSadf(t, 1)
	i := bytes.Index(doc, []byte(`"statistics": [`)) + len(`"statistics": [`)
	j := bytes.LastIndex(doc, []byte("]}]}}"))
	rec := doc[i:j]
	n := 30 << 20 / len(rec)
	h := newHeapWatch()
	if err := ReadSysstat(repeatReader(doc[:i], rec, []byte{','}, doc[j:], n), "big.json", h.sample); err != nil {
		t.Fatal(err)
	}
	if h.n != n*len(model.NodeMetricNames) || h.peak > 8<<20 {
		t.Fatalf("sadf -j: %d samples (want %d), peak live heap %d MB", h.n, n*len(model.NodeMetricNames), h.peak>>20)
	}
	t.Logf("sadf -j: %d records (%d MB), peak live heap %.1f MB", n, n*len(rec)>>20, float64(h.peak)/(1<<20))

	series := benchProm(1, 11000)
	i = bytes.Index(series, []byte(`"result":[`)) + len(`"result":[`)
	j = bytes.LastIndex(series, []byte("]}}"))
	one := series[i:j]
	n = 30 << 20 / len(one)
	h = newHeapWatch()
	var s model.Sample
	_, err := promParseMatrix(repeatReader(series[:i], one, []byte{','}, series[j:], n), func(_ string, pts []promPoint) error {
		for range pts {
			_ = h.sample(&s)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if h.n != n*11000 || h.peak > 8<<20 {
		t.Fatalf("prometheus: %d points (want %d), peak live heap %d MB", h.n, n*11000, h.peak>>20)
	}
	t.Logf("prometheus: %d series of 11,000 points (%d MB), peak live heap %.1f MB", n, n*len(one)>>20, float64(h.peak)/(1<<20))

	rec2 := benchNmon(2)
	i = bytes.Index(rec2, []byte("ZZZZ,T0002"))
	j = bytes.LastIndex(rec2[:i], []byte("ZZZZ,T0001"))
	snap := bytes.ReplaceAll(rec2[i:], []byte("T0002"), []byte("T0001")) // one snapshot, again and again
	n = 30 << 20 / len(snap)
	h = newHeapWatch()
	if _, err := ReadNmon(repeatReader(rec2[:j], snap, nil, nil, n), "big.nmon", time.UTC, h.sample); err != nil {
		t.Fatal(err)
	}
	if want := n*19 - 3; h.n != want || h.peak > 8<<20 { // no paging rates in the first snapshot
		t.Fatalf("nmon: %d samples (want %d), peak live heap %d MB", h.n, want, h.peak>>20)
	}
	t.Logf("nmon: %d snapshots (%d MB), peak live heap %.1f MB", n, n*len(snap)>>20, float64(h.peak)/(1<<20))
}
