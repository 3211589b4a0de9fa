package server

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/eventlog"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
	"github.com/clusterlens/clusterlens/internal/shs"
	"github.com/clusterlens/clusterlens/internal/source"
)

// TestServeListsBeforeReading holds back every full read: the listing must
// still name every application (from its log's first events, as the
// History Server lists an application whose end it has not read), a
// request about one application must read that log alone, and once the
// reads go on the index must answer as one built from every log read.
func TestServeListsBeforeReading(t *testing.T) {
	const n = 40
	dir := t.TempDir()
	ids := writeLogs(t, dir, n)
	src := newLogSource([]string{dir}, decodelogs.Options{}, newSourceHealth([]string{dir}, slog.New(slog.DiscardHandler)), slog.New(slog.DiscardHandler))
	var mu sync.Mutex
	allowed := map[string]bool{}
	gate := make(chan struct{})
	full := src.readFull
	src.readFull = func(l *source.Log) ([]*model.App, error) {
		mu.Lock()
		ok := allowed[l.Name]
		mu.Unlock()
		if !ok {
			<-gate
		}
		return full(l)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	scanned := make(chan struct{})
	go func() { src.scan(ctx); close(scanned) }()

	ix := waitIndex(t, src, func(ix *shs.Index) bool { return countListed(t, ix) == n })
	if ix.Unread() != n {
		t.Fatalf("unread %d, want %d", ix.Unread(), n)
	}
	v, err := ix.Get("applications/"+ids[7], nil)
	if err != nil {
		t.Fatal(err)
	}
	if at := v.(shs.ApplicationInfo).Attempts[0]; at.Completed || at.EndTimeEpoch != -1 || at.StartTimeEpoch <= 0 {
		t.Errorf("listed before reading as %+v", at)
	}

	mu.Lock()
	allowed[filepath.Join(dir, ids[7])] = true
	mu.Unlock()
	ix, err = src.Read(ctx, ids[7])
	if err != nil {
		t.Fatal(err)
	}
	if ix.Pending(ids[7]) || !ix.Pending(ids[8]) || ix.Unread() != n-1 {
		t.Fatalf("after reading %s: pending %v, %s pending %v, unread %d", ids[7], ix.Pending(ids[7]), ids[8], ix.Pending(ids[8]), ix.Unread())
	}

	close(gate)
	<-scanned
	ix = src.Index()
	res, err := decodelogs.Paths([]string{dir}, decodelogs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := shs.NewIndex(res.Apps).Answer("applications", nil)
	if got, _ := ix.Answer("applications", nil); ix.Unread() != 0 || !bytes.Equal(got, want) {
		t.Errorf("after every read (unread %d) the listing differs from one of every log", ix.Unread())
	}
}

// writeLogs writes n event logs of the History Server suite's application
// local-1430917381534 under new ids, and returns the ids.
func writeLogs(t *testing.T, dir string, n int) []string {
	t.Helper()
	res, err := decodelogs.Paths([]string{filepath.Join(events(t), "local-1430917381534")}, decodelogs.Options{})
	if err != nil || len(res.Apps) != 1 {
		t.Fatalf("read the suite's log: %v (%d applications)", err, len(res.Apps))
	}
	var ids []string
	for i := range n {
		a := *res.Apps[0]
		a.ID = fmt.Sprintf("app-%04d", i)
		a.Start += int64(i) * 1000
		var buf bytes.Buffer
		if err := eventlog.Write(&buf, &a); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, a.ID), buf.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, a.ID)
	}
	return ids
}

// waitIndex waits for the source's index to satisfy ok.
func waitIndex(t *testing.T, src *logSource, ok func(*shs.Index) bool) *shs.Index {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if ix := src.Index(); ix != nil && ok(ix) {
			return ix
		}
	}
	t.Fatal("the index never got there")
	return nil
}

// countListed is the number of applications the index lists.
func countListed(t *testing.T, ix *shs.Index) int {
	t.Helper()
	v, err := ix.Get("applications", nil)
	if err != nil {
		t.Fatal(err)
	}
	return len(v.([]shs.ApplicationInfo))
}

// TestServeRescan checks that a second scan reads only the logs that
// changed, and that the index then answers from the new content.
func TestServeRescan(t *testing.T) {
	dir := t.TempDir()
	ids := writeLogs(t, dir, 5)
	src := newLogSource([]string{dir}, decodelogs.Options{}, newSourceHealth([]string{dir}, slog.New(slog.DiscardHandler)), slog.New(slog.DiscardHandler))
	var mu sync.Mutex
	var reads []string
	full := src.readFull
	src.readFull = func(l *source.Log) ([]*model.App, error) {
		mu.Lock()
		reads = append(reads, filepath.Base(l.Name))
		mu.Unlock()
		return full(l)
	}
	src.scan(context.Background())
	res, err := decodelogs.Paths([]string{filepath.Join(dir, ids[2])}, decodelogs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := res.Apps[0]
	a.Name = "renamed"
	var buf bytes.Buffer
	if err := eventlog.Write(&buf, a); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ids[2]), buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	reads = nil
	src.scan(context.Background())
	if len(reads) != 1 || reads[0] != ids[2] {
		t.Errorf("second scan read %v, want only %s", reads, ids[2])
	}
	v, err := src.Index().Get("applications/"+ids[2], nil)
	if err != nil || v.(shs.ApplicationInfo).Name != "renamed" {
		t.Errorf("after the rescan: %v, %v", v, err)
	}
}

// TestReadHeadMatchesFullRead reads the first events of every Spark log in
// shared/data/logs and checks what the listing shows of the application
// against the log read in full.
func TestReadHeadMatchesFullRead(t *testing.T) {
	logs, _, err := decodelogs.Find([]string{sharedtest.Dir(t, "logs")}, decodelogs.Options{Kinds: []source.Kind{source.SparkEventLog}})
	if err != nil {
		t.Fatal(err)
	}
	heads := 0
	for _, l := range logs {
		apps, _ := decodelogs.Log(l, decodelogs.Options{})
		h := readHead(l)
		if len(apps) == 0 || apps[0].ID == "" {
			if h != nil {
				t.Errorf("%s: head names %q, the full read no application", l.Name, h.ID)
			}
			continue
		}
		a := apps[0]
		if h == nil {
			t.Errorf("%s: no head for %s", l.Name, a.ID)
			continue
		}
		heads++
		if h.ID != a.ID || h.AttemptID != a.AttemptID || h.Name != a.Name || h.User != a.User || h.Start != a.Start ||
			h.Version != a.Version || h.LastUpdated != a.LastUpdated {
			t.Errorf("%s: head %q %q %q %q %d %q %d, full read %q %q %q %q %d %q %d", l.Name,
				h.ID, h.AttemptID, h.Name, h.User, h.Start, h.Version, h.LastUpdated,
				a.ID, a.AttemptID, a.Name, a.User, a.Start, a.Version, a.LastUpdated)
		}
	}
	if heads < 50 {
		t.Errorf("only %d logs named an application", heads)
	}
}

// events is the History Server suite's event-log folder.
func events(t *testing.T) string {
	return filepath.Join(sharedtest.Dir(t, "shs-expectations"), "spark-events")
}
