package server

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/eventlog"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sim"
)

// TestServeStopsWithLiveStreams: serve stops at once, cleanly, while a
// browser follows a running application's live page (its stream never
// ends by itself).
func TestServeStopsWithLiveStreams(t *testing.T) {
	sc, err := sim.Named("imbalance")
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Simulate(sc, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	var app *model.App
	for _, a := range res.Apps {
		if a.Engine == model.Spark {
			app = a
			break
		}
	}
	var full bytes.Buffer
	if err := eventlog.Write(&full, app); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	half := full.Bytes()[:bytes.LastIndexByte(full.Bytes()[:full.Len()/2], '\n')+1]
	if err := os.WriteFile(filepath.Join(dir, app.ID+".inprogress"), half, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready, done := make(chan string, 1), make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{Logs: []string{dir}, Addr: "127.0.0.1:0"}, slog.New(slog.DiscardHandler), ready)
	}()
	base := "http://" + <-ready
	var res2 *http.Response
	for start := time.Now(); ; time.Sleep(50 * time.Millisecond) {
		res2, err = http.Get(base + "/live/app/" + app.ID + "/events")
		if err != nil {
			t.Fatal(err)
		}
		if res2.StatusCode == http.StatusOK {
			break
		}
		res2.Body.Close()
		if time.Since(start) > 30*time.Second {
			t.Fatalf("live stream: status %d after 30 s", res2.StatusCode)
		}
	}
	defer res2.Body.Close()
	line, err := bufio.NewReader(res2.Body).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "event: update") {
		t.Fatalf("first line of the stream %q, %v", line, err)
	}
	stop := time.Now()
	cancel()
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, ErrPartial) {
			t.Errorf("run: %v", err)
		}
		if took := time.Since(stop); took > 3*time.Second {
			t.Errorf("stopping took %v with a live stream open", took)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not stop with a live stream open")
	}
}
