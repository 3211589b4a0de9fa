// Package objstoretest checks an objstore backend against a real server:
// objects are put with the store's own API (Put), then read back through
// objstore. Every store's tests run the same checks (Run, RealLogs,
// CheckErrors) so that the stores behave alike.
package objstoretest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/objstore"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
	"github.com/clusterlens/clusterlens/internal/source"
	"github.com/clusterlens/clusterlens/internal/summary"
)

// Put stores an object of size bytes read from r under key.
type Put func(t testing.TB, key string, r io.Reader, size int64)

// Store is a bucket under test: New opens it through objstore with opt,
// Put writes to it with the store's own API. Each test uses its own key
// prefix, so the bucket need not be empty.
type Store struct {
	New func(opt objstore.Options) *objstore.FS
	Put Put
}

// Bytes stores b under key.
func (p Put) Bytes(t testing.TB, key string, b []byte) { p(t, key, bytes.NewReader(b), int64(len(b))) }

// Run checks listings, globs, stats and reads.
func Run(t *testing.T, s Store) {
	pre := fmt.Sprintf("conf-%d/", time.Now().UnixNano())
	keys := map[string]int{
		"logs/app-1.zst": 10, "logs/app-2.zst": 20, "logs/app-10.json": 30, "logs/other.txt": 5,
		"logs/b/c.json": 7, "logs/b/d.json": 8, "logs/bb/e.json": 9, "logs/empty": 0, "top.txt": 3,
	}
	for k, n := range keys {
		s.Put.Bytes(t, pre+k, bytes.Repeat([]byte{'x'}, n))
	}
	s.Put.Bytes(t, pre+"logs/marker/", nil) // a console's folder marker
	rec := &recorder{}
	f := s.New(objstore.Options{})
	rf := objstore.New(recordingBackend{Backend: f.Backend(), rec: rec}, f.URL("."), objstore.Options{})
	root := strings.TrimSuffix(pre, "/")

	t.Run("ReadDir", func(t *testing.T) {
		entries, err := fs.ReadDir(f, root+"/logs")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range entries {
			n := e.Name()
			if e.IsDir() {
				n += "/"
			} else {
				info, _ := e.Info()
				n += fmt.Sprintf(":%d", info.Size())
			}
			got = append(got, n)
		}
		want := []string{"app-1.zst:10", "app-10.json:30", "app-2.zst:20", "b/", "bb/", "empty:0", "marker/", "other.txt:5"}
		if !slices.Equal(got, want) {
			t.Errorf("ReadDir = %v, want %v", got, want)
		}
		if _, err := fs.ReadDir(f, root+"/nothing"); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), f.URL(root+"/nothing")) {
			t.Errorf("ReadDir of a missing folder: %v, want fs.ErrNotExist naming the URL", err)
		}
	})
	t.Run("Stat", func(t *testing.T) {
		st, err := fs.Stat(f, root+"/logs/app-2.zst")
		if err != nil || st.IsDir() || st.Size() != 20 || st.ModTime().IsZero() || st.Name() != "app-2.zst" {
			t.Errorf("Stat(file) = %v, %v", st, err)
		}
		st, err = fs.Stat(f, root+"/logs/b")
		if err != nil || !st.IsDir() {
			t.Errorf("Stat(folder) = %v, %v", st, err)
		}
		if _, err := fs.Stat(f, root+"/logs/nope"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Stat(missing) = %v, want fs.ErrNotExist", err)
		}
		if st, err := fs.Stat(f, "."); err != nil || !st.IsDir() {
			t.Errorf("Stat(.) = %v, %v", st, err)
		}
	})
	t.Run("Glob", func(t *testing.T) {
		for _, c := range []struct {
			pattern string
			want    []string
			prefix  string // the listing prefix the glob must send
		}{
			{"logs/app-*.zst", []string{"logs/app-1.zst", "logs/app-2.zst"}, "logs/app-"},
			{"logs/app-1*", []string{"logs/app-1.zst", "logs/app-10.json"}, "logs/app-1"},
			{"logs/b*/*.json", []string{"logs/b/c.json", "logs/b/d.json", "logs/bb/e.json"}, "logs/b"},
			{"logs/[ab]*/c.json", []string{"logs/b/c.json"}, "logs/"},
			{"logs/x*", nil, "logs/x"},
		} {
			rec.reset()
			got, err := fs.Glob(rf, root+"/"+c.pattern)
			if err != nil {
				t.Errorf("Glob(%s): %v", c.pattern, err)
				continue
			}
			var want []string
			for _, w := range c.want {
				want = append(want, root+"/"+w)
			}
			if !slices.Equal(got, want) {
				t.Errorf("Glob(%s) = %v, want %v", c.pattern, got, want)
			}
			if p := rec.prefixes(); len(p) == 0 || p[0] != pre+c.prefix {
				t.Errorf("Glob(%s) listed prefixes %q, want first %q", c.pattern, p, pre+c.prefix)
			}
		}
	})
	t.Run("WalkDir", func(t *testing.T) {
		var files []string
		err := fs.WalkDir(f, root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() {
				files = append(files, strings.TrimPrefix(p, pre))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for k := range keys {
			want = append(want, k)
		}
		slices.Sort(want)
		if !slices.Equal(files, want) {
			t.Errorf("WalkDir found %v, want %v", files, want)
		}
	})
	t.Run("Read", func(t *testing.T) { checkRead(t, s, pre) })
	t.Run("Faults", func(t *testing.T) { checkFaults(t, s, f, pre) })
}

// checkFaults reads through a backend that refuses the first request at
// each offset with a 503 and cuts the second one's body short: retries and
// resumed ranges must still deliver the object exactly.
func checkFaults(t *testing.T, s Store, f *objstore.FS, pre string) {
	data := make([]byte, 200_000)
	if _, err := io.ReadFull(NewGen(3), data); err != nil {
		t.Fatal(err)
	}
	key := pre + "faults/object.bin"
	s.Put.Bytes(t, key, data)
	fb := &faultyBackend{Backend: f.Backend(), seen: map[string]int{}}
	ff := objstore.New(fb, f.URL("."), objstore.Options{FirstChunk: 5000, ChunkSize: 30_000, Parallel: 2,
		Retry: objstore.Retry{Attempts: 3, Base: time.Millisecond, Max: 5 * time.Millisecond}})
	entries, err := fs.ReadDir(ff, pre+"faults")
	if err != nil || len(entries) != 1 {
		t.Fatalf("listing through faults: %v, %v", entries, err)
	}
	fl, err := ff.Open(key)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(fl)
	fl.Close()
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read through faults: %d bytes (want %d, first difference at %d), %v", len(got), len(data), firstDiff(got, data), err)
	}
	if fb.cut == 0 || fb.refused == 0 {
		t.Errorf("%d bodies cut, %d requests refused: the faults were not injected", fb.cut, fb.refused)
	}
}

// faultyBackend refuses the first request for each prefix or offset with
// a 503 (SlowDown) and cuts the second read at an offset after 1000 bytes.
type faultyBackend struct {
	objstore.Backend
	mu           sync.Mutex
	seen         map[string]int
	cut, refused int
}

// fault counts a request for what and says how it fails.
func (b *faultyBackend) fault(what string) (refuse, cut bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seen[what]++
	switch b.seen[what] {
	case 1:
		b.refused++
		return true, false
	case 2:
		return false, true
	}
	return false, false
}

func (b *faultyBackend) List(ctx context.Context, prefix string, fn func(objstore.Entry) error) error {
	if refuse, _ := b.fault("list " + prefix); refuse {
		return &objstore.HTTPError{Status: 503, Code: "SlowDown"}
	}
	return b.Backend.List(ctx, prefix, fn)
}

func (b *faultyBackend) Read(ctx context.Context, key, version string, off, n int64) (io.ReadCloser, objstore.Entry, error) {
	refuse, cut := b.fault(fmt.Sprintf("read %s %d", key, off))
	if refuse {
		return nil, objstore.Entry{}, &objstore.HTTPError{Status: 503, Code: "SlowDown"}
	}
	rc, e, err := b.Backend.Read(ctx, key, version, off, n)
	if err != nil || !cut || n <= 1000 {
		return rc, e, err
	}
	b.mu.Lock()
	b.cut++
	b.mu.Unlock()
	return cutBody{io.LimitReader(rc, 1000), rc}, e, nil
}

// cutBody ends with io.ErrUnexpectedEOF after its limit, as a dropped
// connection does.
type cutBody struct {
	r io.Reader
	io.Closer
}

func (c cutBody) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// checkRead reads an object across several ranges, at random, and after it
// changed.
func checkRead(t *testing.T, s Store, pre string) {
	data := make([]byte, 300_000+17)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	key := pre + "read/object.bin"
	s.Put.Bytes(t, key, data)
	f := s.New(objstore.Options{FirstChunk: 1000, ChunkSize: 64 << 10, Parallel: 3})
	for _, n := range []int{1, 4096, 100_000} { // reads of many sizes
		fl, err := f.Open(key)
		if err != nil {
			t.Fatal(err)
		}
		var got []byte
		buf := make([]byte, n)
		for {
			m, err := fl.Read(buf)
			got = append(got, buf[:m]...)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		fl.Close()
		if !bytes.Equal(got, data) {
			t.Fatalf("reads of %d bytes: got %d bytes, want the %d put (first difference at %d)", n, len(got), len(data), firstDiff(got, data))
		}
	}
	fl, err := f.Open(key)
	if err != nil {
		t.Fatal(err)
	}
	defer fl.Close()
	ra := fl.(io.ReaderAt)
	for _, off := range []int64{0, 999, 1000, 65_536, 200_000, int64(len(data)) - 5} {
		p := make([]byte, 10)
		n, err := ra.ReadAt(p, off)
		want := data[off:min(off+10, int64(len(data)))]
		if n != len(want) || !bytes.Equal(p[:n], want) || (n < 10) != (err == io.EOF) {
			t.Errorf("ReadAt(%d) = %d, %v: %q, want %q", off, n, err, p[:n], want)
		}
	}
	sk := fl.(io.Seeker)
	if _, err := sk.Seek(150_000, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	rest, err := io.ReadAll(fl)
	if err != nil || !bytes.Equal(rest, data[150_000:]) {
		t.Errorf("after Seek(150000): %d bytes, %v; want %d", len(rest), err, len(data)-150_000)
	}

	// An object replaced while being read: the rest is refused, not mixed.
	fl2, err := f.Open(key)
	if err != nil {
		t.Fatal(err)
	}
	defer fl2.Close()
	s.Put.Bytes(t, key, bytes.Repeat([]byte{'y'}, len(data)))
	_, err = io.ReadAll(fl2)
	if !errors.Is(err, objstore.ErrChanged) || !strings.Contains(err.Error(), f.URL(key)) {
		t.Errorf("reading an object replaced meanwhile: %v, want objstore.ErrChanged naming the URL", err)
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// Large puts an object of size bytes (from a seeded generator, through a
// temporary file) and reads it through objstore with 1 MiB ranges, 4 in
// flight: the SHA-256 must match and the heap must stay under limit bytes
// above where it started.
func Large(t *testing.T, s Store, size, limit int64) {
	if testing.Short() {
		t.Skip("large object: not in -short")
	}
	key := fmt.Sprintf("large-%d/object.bin", time.Now().UnixNano())
	want := putGenerated(t, s.Put, key, 7, size)
	h := sha256.New()

	f := s.New(objstore.Options{ChunkSize: 1 << 20, Parallel: 4})
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // sample the heap while reading
		defer wg.Done()
		var m runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
		}
	}()
	fl, err := f.Open(key)
	if err != nil {
		t.Fatal(err)
	}
	h.Reset()
	n, err := io.Copy(h, fl)
	fl.Close()
	close(stop)
	wg.Wait()
	if err != nil || n != size || !bytes.Equal(h.Sum(nil), want) {
		t.Fatalf("read %d of %d bytes, err %v, sha256 match %v", n, size, err, bytes.Equal(h.Sum(nil), want))
	}
	grew := int64(peak.Load()) - int64(base)
	t.Logf("%d MiB object: heap grew at most %.1f MiB while streaming", size>>20, float64(grew)/(1<<20))
	if grew > limit {
		t.Errorf("heap grew by %d bytes while streaming %d, want at most %d", grew, size, limit)
	}
}

// putGenerated puts size bytes of NewGen(seed) under key, through a
// temporary file (some stores' clients want a body they can seek), and
// returns their SHA-256.
func putGenerated(t testing.TB, put Put, key string, seed uint64, size int64) []byte {
	tmp, err := os.CreateTemp(t.TempDir(), "object")
	if err != nil {
		t.Fatal(err)
	}
	defer tmp.Close()
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(tmp, h), io.LimitReader(NewGen(seed), size)); err != nil {
		t.Fatal(err)
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	put(t, key, tmp, size)
	return h.Sum(nil)
}

// NewGen returns an endless stream of pseudo-random bytes from seed.
func NewGen(seed uint64) io.Reader { return &gen{r: rand.New(rand.NewPCG(seed, seed))} }

type gen struct{ r *rand.Rand }

func (g *gen) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(g.r.Uint32())
	}
	return len(p), nil
}

// Upload puts every file under dir below prefix, keys being the files'
// slash-separated paths, and returns how many files it put.
func Upload(t testing.TB, put Put, dir, prefix string) int {
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return err
		}
		put(t, prefix+filepath.ToSlash(rel), f, st.Size())
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// CheckErrors checks the errors of a bucket that does not exist, of
// credentials the store refuses (nil: the server checks none), and of a
// server that is down.
func CheckErrors(t *testing.T, missing, refused, down *objstore.FS) {
	t.Run("MissingBucket", func(t *testing.T) {
		_, err := fs.Stat(missing, ".")
		if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing.URL(".")) {
			t.Errorf("stat of a missing bucket: %v, want fs.ErrNotExist naming %s", err, missing.URL("."))
		}
		t.Log(err)
	})
	t.Run("Refused", func(t *testing.T) {
		if refused == nil {
			t.Skip("this server checks no credentials")
		}
		_, err := fs.ReadDir(refused, ".")
		if !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), "credentials tried: ") || !strings.Contains(err.Error(), refused.URL(".")) {
			t.Errorf("listing with wrong credentials: %v, want fs.ErrPermission naming the URL and the credentials", err)
		}
		t.Log(err)
	})
	t.Run("Down", func(t *testing.T) {
		start := time.Now()
		_, err := down.Open("some/key")
		var e *objstore.Error
		if !errors.As(err, &e) || e.Attempts != 3 || !objstore.Transient(e.Err) || !strings.Contains(err.Error(), "gave up after 3 attempts") {
			t.Errorf("open with the server down: %v, want 3 attempts then an error", err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("gave up after %s, want the backoff's bound", d)
		}
		t.Log(err)
	})
}

// DownRetry is the retry policy CheckErrors' down FS must have.
var DownRetry = objstore.Retry{Attempts: 3, Base: 10 * time.Millisecond, Max: 50 * time.Millisecond}

// recorder remembers the prefixes listed.
type recorder struct {
	mu sync.Mutex
	p  []string
}

func (r *recorder) reset() { r.mu.Lock(); r.p = nil; r.mu.Unlock() }
func (r *recorder) prefixes() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.p)
}

// recordingBackend records the prefixes of List.
type recordingBackend struct {
	objstore.Backend
	rec *recorder
}

func (b recordingBackend) List(ctx context.Context, prefix string, fn func(objstore.Entry) error) error {
	b.rec.mu.Lock()
	b.rec.p = append(b.rec.p, prefix)
	b.rec.mu.Unlock()
	return b.Backend.List(ctx, prefix, fn)
}

// RealLogs puts shared/data/logs below a fresh prefix of the bucket whose
// URL is base ("s3://bucket/") and reads it back through decodelogs.Find and
// load: the logs found (kind, layout, parts and their sizes) and the files
// skipped must be those of the local folder, each application's summary
// must equal the local one, and every single-file Spark log's task totals
// must equal expected-counts.tsv's (counted independently of this project).
func RealLogs(t *testing.T, put Put, base string) {
	dir, rows := sharedtest.ExpectedRows(t, "spark-eventlog", 100)
	prefix := fmt.Sprintf("real-%d/", time.Now().UnixNano())
	start := time.Now()
	n := Upload(t, put, dir, prefix)
	t.Logf("put %d files in %s", n, time.Since(start).Round(time.Millisecond))
	url := base + strings.TrimSuffix(prefix, "/")
	local := func(name string) string { return strings.TrimPrefix(filepath.ToSlash(name), filepath.ToSlash(dir)+"/") }
	remote := func(name string) string { return strings.TrimPrefix(name, url+"/") }

	start = time.Now()
	rlogs, rskipped, err := decodelogs.Find([]string{url}, decodelogs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("found %d logs in %s (%d files skipped)", len(rlogs), time.Since(start).Round(time.Millisecond), len(rskipped))
	llogs, lskipped, err := decodelogs.Find([]string{dir}, decodelogs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	describe := func(logs []*source.Log, skipped []source.Skipped, rel func(string) string) []string {
		var out []string
		for _, l := range logs {
			s := fmt.Sprintf("%s %s %s id=%s complete=%v", rel(l.Name), l.Kind, l.Layout, l.ID, l.Complete)
			for _, p := range l.Parts {
				s += fmt.Sprintf(" [%s %d %v]", rel(p.Name), p.Size, p.Codec)
			}
			out = append(out, s)
		}
		for _, s := range skipped {
			out = append(out, "skipped "+rel(s.Name))
		}
		return out
	}
	got, want := describe(rlogs, rskipped, remote), describe(llogs, lskipped, local)
	if !slices.Equal(got, want) {
		for i := range max(len(got), len(want)) {
			g, w := "", ""
			if i < len(got) {
				g = got[i]
			}
			if i < len(want) {
				w = want[i]
			}
			if g != w {
				t.Errorf("log %d from the store:\n  %s\nfrom the disk:\n  %s", i, g, w)
			}
		}
		t.FailNow()
	}

	start = time.Now()
	rres := decodelogs.Logs(rlogs, decodelogs.Options{})
	t.Logf("read %d applications (%d bytes stored) in %s", len(rres.Apps), source.TotalSize(rlogs), time.Since(start).Round(time.Millisecond))
	start = time.Now()
	lres := decodelogs.Logs(llogs, decodelogs.Options{})
	t.Logf("the same from the local disk in %s", time.Since(start).Round(time.Millisecond))
	if len(rres.Apps) != len(lres.Apps) || len(rres.Problems) != len(lres.Problems) {
		t.Fatalf("%d applications and %d problems from the store, %d and %d from the disk", len(rres.Apps), len(rres.Problems), len(lres.Apps), len(lres.Problems))
	}
	tasks := map[string]int{} // single-file log → TaskEnd count
	for _, r := range rows {
		if n, err := strconv.Atoi(r[8]); err == nil {
			tasks[r[1]] = n
		}
	}
	checked := 0
	for i, ra := range rres.Apps {
		la := lres.Apps[i]
		rs, ls := summary.Build(ra), summary.Build(la)
		rs.App.Source, ls.App.Source = remote(rs.App.Source), local(ls.App.Source)
		rj, _ := json.Marshal(rs)
		lj, _ := json.Marshal(ls)
		// Data-quality issues name their files: by the same relative names.
		rj = bytes.ReplaceAll(rj, []byte(url+"/"), nil)
		lj = bytes.ReplaceAll(lj, []byte(filepath.ToSlash(dir)+"/"), nil)
		if !bytes.Equal(rj, lj) {
			i := firstDiff(rj, lj)
			t.Errorf("%s: the summary read from the store differs from the disk's at byte %d:\n  store: …%s…\n  disk:  …%s…", rs.App.Source, i, rj[max(i-80, 0):min(i+80, len(rj))], lj[max(i-80, 0):min(i+80, len(lj))])
		}
		if n, ok := tasks[rs.App.Source]; ok && ra.Engine == model.Spark {
			checked++
			if rs.Totals.Tasks != n {
				t.Errorf("%s: %d tasks, expected-counts.tsv says %d", rs.App.Source, rs.Totals.Tasks, n)
			}
		}
	}
	if checked < 50 {
		t.Errorf("only %d single-file Spark logs checked against expected-counts.tsv", checked)
	}
}

// BenchSize is the object size of the read benchmarks.
const BenchSize = 64 << 20

// BenchRead measures reading a BenchSize object whole through objstore
// with opt (b.SetBytes: MB/s is the read throughput).
func BenchRead(b *testing.B, s Store, opt objstore.Options) {
	key := fmt.Sprintf("bench-%d/object.bin", BenchSize)
	f := s.New(opt)
	if st, err := fs.Stat(f, key); err != nil || st.Size() != BenchSize {
		putGenerated(b, s.Put, key, 9, BenchSize)
	}
	b.SetBytes(BenchSize)
	b.ReportAllocs()
	for b.Loop() {
		fl, err := f.Open(key)
		if err != nil {
			b.Fatal(err)
		}
		if n, err := io.Copy(io.Discard, fl); err != nil || n != BenchSize {
			b.Fatalf("read %d bytes: %v", n, err)
		}
		fl.Close()
	}
}

// BenchLocal measures reading the same BenchSize bytes from a local file
// (in the page cache after the first pass), the baseline of BenchRead.
func BenchLocal(b *testing.B) {
	p := filepath.Join(b.TempDir(), "object.bin")
	out, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(out, io.LimitReader(NewGen(9), BenchSize)); err != nil {
		b.Fatal(err)
	}
	out.Close()
	b.SetBytes(BenchSize)
	b.ReportAllocs()
	for b.Loop() {
		fl, err := os.Open(p)
		if err != nil {
			b.Fatal(err)
		}
		if n, err := io.Copy(io.Discard, fl); err != nil || n != BenchSize {
			b.Fatalf("read %d bytes: %v", n, err)
		}
		fl.Close()
	}
}
