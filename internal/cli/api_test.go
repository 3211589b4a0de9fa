package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// events is the History Server suite's event-log folder.
func events(t *testing.T) string {
	return filepath.Join(sharedtest.Dir(t, "shs-expectations"), "spark-events")
}

func TestAPICommand(t *testing.T) {
	dir := events(t)
	var out, errb bytes.Buffer
	code := Main([]string{"api", dir, "applications/local-1422981780767/jobs?status=succeeded"}, nil, &out, &errb)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var jobs []map[string]any
	if err := json.Unmarshal(out.Bytes(), &jobs); err != nil || len(jobs) != 2 {
		t.Fatalf("jobs = %v (%v)\n%s", jobs, err, out.String())
	}
	out.Reset()
	errb.Reset()
	code = Main([]string{"api", dir, "applications/nope"}, nil, &out, &errb)
	if code != ExitError || !strings.Contains(errb.String(), "404: unknown app: nope") {
		t.Errorf("unknown app: exit %d, stderr %q", code, errb.String())
	}
	if code := Main([]string{"api", dir}, nil, &out, &errb); code != ExitUsage {
		t.Errorf("missing request: exit %d, want %d", code, ExitUsage)
	}
}

func TestServe(t *testing.T) {
	dir := events(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- runServe(ctx, serveOptions{logs: dir, addr: "127.0.0.1:0"}, slog.New(slog.DiscardHandler), ready)
	}()
	var addr string
	select {
	case addr = <-ready:
	case err := <-done:
		t.Fatalf("serve ended: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not start")
	}
	resp, err := http.Get("http://" + addr + "/api/v1/applications?limit=3")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var apps []map[string]any
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" ||
		json.Unmarshal(body, &apps) != nil || len(apps) != 3 {
		t.Errorf("GET applications: %d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("shutdown: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not stop")
	}
}
