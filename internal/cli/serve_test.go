package cli

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/shs"
)

// TestServe serves the History Server suite's logs over HTTP and checks,
// once every log is read, that the listing and an application's stages are
// byte for byte what the offline api command answers.
func TestServe(t *testing.T) {
	dir := events(t)
	addr, stop := startServe(t, serveOptions{logs: []string{dir}, addr: "127.0.0.1:0"})
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

// TestServeFromStore serves the History Server suite's logs from a run
// history: the listing is answered at once from the store, byte for byte as
// the api command answers it from the logs read in full, an application's
// resources are read from its log when asked for, and a log added later is
// indexed by the next pass and listed.
func TestServeFromStore(t *testing.T) {
	src := events(t)
	dir := t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	var held string
	for i, e := range entries { // all but one log now, the last one later
		if i == len(entries)-1 {
			held = e.Name()
			break
		}
		copyLog(t, filepath.Join(src, e.Name()), filepath.Join(dir, e.Name()))
	}
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "h.db")
	if code, _, errs := run(t, "index", "--store", dsn, dir); code != ExitOK && code != ExitPartial {
		t.Fatalf("index: exit %d: %s", code, errs)
	}
	addr, stop := startServe(t, serveOptions{logs: []string{dir}, addr: "127.0.0.1:0", store: dsn, rescan: 200 * time.Millisecond})
	defer stop()
	get := func(req string) []byte {
		resp, err := http.Get("http://" + addr + "/api/v1/" + req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %s", req, resp.StatusCode, body)
		}
		return body
	}
	api := func(req string) []byte {
		var out, errb bytes.Buffer
		if code := Main([]string{"api", dir, req}, nil, &out, &errb); code != ExitOK && code != ExitPartial {
			t.Fatalf("api %s: exit %d: %s", req, code, errb.String())
		}
		return out.Bytes()
	}
	for _, req := range []string{"applications", "applications?status=completed&limit=3", "applications/local-1430917381534/stages", "applications/local-1430917381534/jobs"} {
		if got, want := get(req), api(req); !bytes.Equal(got, want) {
			t.Errorf("GET %s from the run history differs from the api command's answer:\n%s\nwant\n%s", req, got, want)
		}
	}
	// A log added while serving is indexed and listed by the next pass.
	copyLog(t, filepath.Join(src, held), filepath.Join(dir, held))
	want := api("applications")
	for deadline := time.Now().Add(30 * time.Second); !bytes.Equal(get("applications"), want); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the listing did not take in %s within 30 s", held)
		}
	}
}

// copyLog copies a log file, or a log folder with its files.
func copyLog(t *testing.T, from, to string) {
	t.Helper()
	if info, err := os.Stat(from); err == nil && info.IsDir() {
		if err := os.CopyFS(to, os.DirFS(from)); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestServeSafetyFlags: an address beyond the loopback interface without
// --token-file or TLS, an empty token file and --peer-profile without
// --metrics are usage errors (exit 2); with a token the UI and the API
// answer only to it.
func TestServeSafetyFlags(t *testing.T) {
	dir := events(t)
	empty := filepath.Join(t.TempDir(), "empty")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"serve", "--logs", dir, "--addr", "0.0.0.0:0"},
		{"serve", "--logs", dir, "--addr", ":0"},
		{"serve", "--logs", dir, "--token-file", empty},
		{"serve", "--logs", dir, "--peer-profile", "p.json"},
		{"serve", "--logs", dir, "--tls-cert", "c.pem"},
	} {
		if code, _, stderr := run(t, args...); code != ExitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", args, code, ExitUsage, stderr)
		}
	}
	tok := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tok, []byte("t0ken\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	addr, stop := startServe(t, serveOptions{logs: []string{dir}, addr: "127.0.0.1:0", tokenFile: tok})
	defer stop()
	for _, c := range []struct {
		path, auth string
		want       int
	}{{"/apps", "", 401}, {"/api/v1/applications", "", 401}, {"/apps", "Bearer t0ken", 200}, {"/api/v1/applications", "Bearer t0ken", 200}} {
		req, _ := http.NewRequest(http.MethodGet, "http://"+addr+c.path, nil)
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		var res *http.Response
		for start := time.Now(); ; time.Sleep(50 * time.Millisecond) {
			var err error
			if res, err = http.DefaultClient.Do(req); err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			// The API answers 503 until the logs are listed.
			if res.StatusCode != http.StatusServiceUnavailable || time.Since(start) > 30*time.Second {
				break
			}
		}
		if res.StatusCode != c.want {
			t.Errorf("GET %s (%q): %d, want %d", c.path, c.auth, res.StatusCode, c.want)
		}
	}
}
