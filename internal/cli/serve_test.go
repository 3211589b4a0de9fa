package cli

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/shs"
)

// TestServe serves the History Server suite's logs over HTTP and checks,
// once every log is read, that the listing and an application's stages are
// byte for byte what the offline api command answers.
func TestServe(t *testing.T) {
	dir := events(t)
	addr, stop := startServe(t, serveOptions{logs: dir, addr: "127.0.0.1:0"})
	for _, req := range []string{"applications", "applications/local-1430917381534/stages"} {
		body := getRead(t, addr, req)
		var want, errb bytes.Buffer
		if code := Main([]string{"api", dir, req}, nil, &want, &errb); code != ExitOK {
			t.Fatalf("api %s: exit %d: %s", req, code, errb.String())
		}
		if !bytes.Equal(body, want.Bytes()) {
			t.Errorf("GET %s differs from the api command's answer", req)
		}
	}
	stop()
}

// startServe runs serve with o; stop shuts it down and checks that it
// stopped cleanly.
func startServe(t *testing.T, o serveOptions) (addr string, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- runServe(ctx, o, slog.New(slog.DiscardHandler), ready) }()
	select {
	case addr = <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("serve ended: %v", err)
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatal("serve did not start")
	}
	return addr, func() {
		t.Helper()
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
}

// getRead answers GET /api/v1/req once every log serve found is read (it
// answers before, listing applications from their first events), waiting
// up to 30 s for that.
func getRead(t *testing.T, addr, req string) []byte {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		resp, err := http.Get("http://" + addr + "/api/v1/" + req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK && resp.Header.Get(shs.UnreadHeader) == "" {
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("GET %s: Content-Type %q", req, ct)
			}
			return body
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s: %d, %s %q after 30 s", req, resp.StatusCode, shs.UnreadHeader, resp.Header.Get(shs.UnreadHeader))
		}
	}
}
