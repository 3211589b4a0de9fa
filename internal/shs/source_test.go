package shs

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/model"
)

// TestAnswerCache checks that an answer about a finished attempt is
// computed once, and that one reading the clock (a running application's
// driver time) is computed again.
func TestAnswerCache(t *testing.T) {
	done := testApp()
	running := testApp()
	running.ID, running.Complete, running.End = "app-2", false, 0
	running.Executors = append(running.Executors, &model.Executor{ID: "driver", Host: "h0", Added: base + 1000})
	ix := NewIndex([]*model.App{done, running})
	clock := int64(base + 20_000)
	ix.Now = func() time.Time { clock += 1000; return time.UnixMilli(clock) }

	a1, err := ix.Answer("applications/app-1/stages", nil)
	if err != nil {
		t.Fatal(err)
	}
	a2, _ := ix.Answer("/api/v1/applications/app-1/stages/", nil)
	if &a1[0] != &a2[0] {
		t.Error("the second answer about a finished attempt was computed again")
	}
	if v, _ := ix.Get("applications/app-1/stages", nil); !bytes.Equal(a1, mustMarshal(t, v)) {
		t.Error("cached answer differs from Marshal(Get)")
	}
	r1, _ := ix.Answer("applications/app-2/allexecutors", nil)
	r2, _ := ix.Answer("applications/app-2/allexecutors", nil)
	if bytes.Equal(r1, r2) {
		t.Error("a running application's driver time did not move with the clock: answer cached")
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestWithHeads checks an index of applications read in full and heads:
// a head is listed as the History Server lists an application whose end
// it has not read, Pending says so, and reading it in full (With) keeps
// the other attempts' aggregates.
func TestWithHeads(t *testing.T) {
	full := testApp()
	head := &model.App{ID: "app-2", Name: "later", User: "bob", Engine: model.Spark, Version: "3.5.0", Start: base + 5000,
		LastUpdated: base + 6000}
	ix := NewIndex(nil).With([]*model.App{full}, []*model.App{head}, 1)
	if !ix.Pending("app-2") || ix.Pending("app-1") || ix.Unread() != 1 {
		t.Fatalf("pending app-2 %v, app-1 %v, unread %d", ix.Pending("app-2"), ix.Pending("app-1"), ix.Unread())
	}
	v, err := ix.Get("applications/app-2", nil)
	if err != nil {
		t.Fatal(err)
	}
	at := v.(ApplicationInfo).Attempts[0]
	if at.Completed || at.EndTimeEpoch != -1 || at.Duration != 0 || at.SparkUser != "bob" {
		t.Errorf("head listed as %+v", at)
	}
	view := ix.view(full)
	read := &model.App{ID: "app-2", Name: "later", User: "bob", Engine: model.Spark, Start: base + 5000, End: base + 7000,
		Complete: true, LastUpdated: base + 6000}
	ix2 := ix.With([]*model.App{full, read}, nil, 0)
	if ix2.Pending("app-2") || ix2.Unread() != 0 {
		t.Error("app-2 still pending once read")
	}
	if ix2.view(full) != view {
		t.Error("With recomputed the aggregates of an attempt it kept")
	}
	if ix3 := ix2.With([]*model.App{read}, nil, 0); ix3.Has("app-1") || len(ix3.cache.views) != 0 {
		t.Errorf("dropped app-1 still listed (%v) or its aggregates kept (%d)", ix3.Has("app-1"), len(ix3.cache.views))
	}
}

// pendingSource lists app-2 from its head until Read reads it.
type pendingSource struct {
	ix, read *Index
	reads    atomic.Int32
}

func (s *pendingSource) Index() *Index { return s.ix }
func (s *pendingSource) Read(_ context.Context, id string) (*Index, error) {
	s.reads.Add(1)
	return s.read, nil
}

// TestHandlerReadsPending checks that the listing answers at once, labeled
// with the unread logs, and that a request about a pending application
// waits for its log to be read.
func TestHandlerReadsPending(t *testing.T) {
	head := &model.App{ID: "app-2", Engine: model.Spark, Start: base}
	full := testApp()
	full.ID = "app-2"
	src := &pendingSource{ix: NewIndex(nil).With([]*model.App{testApp()}, []*model.App{head}, 1)}
	src.read = src.ix.With([]*model.App{testApp(), full}, nil, 0)
	srv := httptest.NewServer(Handler(src, nil))
	defer srv.Close()

	resp, err := http.Get(srv.URL + "/api/v1/applications")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.Header.Get(UnreadHeader) != "1" || !strings.Contains(string(body), `"id": "app-2"`) || src.reads.Load() != 0 {
		t.Errorf("listing: %s=%q, %d reads, %s", UnreadHeader, resp.Header.Get(UnreadHeader), src.reads.Load(), body)
	}
	resp, err = http.Get(srv.URL + "/api/v1/applications/app-2/jobs")
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"jobId": 0`) || src.reads.Load() != 1 || resp.Header.Get(UnreadHeader) != "" {
		t.Errorf("pending app: %d, %d reads, %s", resp.StatusCode, src.reads.Load(), body)
	}
}
