package server

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/codec"
	"github.com/clusterlens/clusterlens/internal/eventlog"
	"github.com/clusterlens/clusterlens/internal/history"
	"github.com/clusterlens/clusterlens/internal/history/sqlite"
	"github.com/clusterlens/clusterlens/internal/indexer"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sim"
)

// secret is what a file outside the log root holds; no answer may carry it.
const secret = "clusterlens-test-secret-7f3a"

// serveDir writes the simulator's imbalance scenario's Spark logs under
// root/logs and a secret file beside the folder (root/secret.txt and a
// log of an application outside it, root/outside/), and serves
// root/logs with o; it returns the server's base URL and the id of the
// application outside, once the logs are listed.
func serveDir(t *testing.T, o Options) (base, outsideID string) {
	t.Helper()
	root := t.TempDir()
	logs := filepath.Join(root, "logs")
	sc, err := sim.Named("imbalance")
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Simulate(sc, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{logs, filepath.Join(root, "outside")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	first := true
	for _, a := range res.Apps {
		if a.Engine != model.Spark {
			continue
		}
		dir := logs
		if first {
			dir, first, outsideID = filepath.Join(root, "outside"), false, a.ID
		}
		if err := eventlog.WriteFile(filepath.Join(dir, a.ID), a, codec.None); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "secret.txt"), []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	o.Logs = []string{logs}
	if o.Addr == "" {
		o.Addr = "127.0.0.1:0"
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- Run(ctx, o, slog.New(slog.DiscardHandler), ready) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, ErrPartial) {
			t.Errorf("run: %v", err)
		}
	})
	select {
	case addr := <-ready:
		scheme := "http"
		if o.TLSCert != "" {
			scheme = "https"
		}
		base = scheme + "://" + addr
	case err := <-done:
		t.Fatalf("run: %v", err)
	}
	// Wait for the listing (the logs' first events).
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		_, body := fetch(t, c, http.MethodGet, base+"/api/v1/applications", "Authorization", "Bearer "+o.Token)
		if strings.Contains(body, `"id"`) {
			return base, outsideID
		}
		if time.Since(start) > 30*time.Second {
			t.Fatal("no application listed after 30 s")
		}
	}
}

func fetch(t *testing.T, c *http.Client, method, url string, header ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// hostilePaths try to climb out of the log root or the UI's routes.
var hostilePaths = []string{
	"/static/..%2F..%2F..%2Fsecret.txt", "/static/../../secret.txt", "/static/%2e%2e/secret.txt",
	"/app/..%2F..%2Fsecret.txt", "/app/../../secret.txt", "/app/%2e%2e%2f%2e%2e%2fsecret.txt",
	"/node/..%2F..%2Fsecret.txt", "/job/..%2Fsecret.txt", "/compare?a=..%2F..%2Fsecret.txt&b=..%2Fsecret.txt",
	"/api/v1/applications/..%2F..%2Fsecret.txt", "/api/v1/applications/..%2F..%2Fsecret.txt/logs",
	"/api/v1/applications/x/..%2F..%2F..%2Fsecret.txt/jobs", "//secret.txt", "/..%2fsecret.txt",
	"/app/%00", "/app/" + strings.Repeat("a", 10000), "/static/", "/static/web.js%00.txt",
	"/live/app/..%2F..%2Fsecret.txt", "/live/app/..%2F..%2Fsecret.txt/events", "/live/app/%2e%2e%2fsecret.txt/events",
	"/live/app/../../secret.txt/events", "/live/app/%00/events",
}

// TestServeHostilePaths: no request reaches a file outside the log root:
// no answer carries the secret file's content, none fails (5xx), and the
// application whose log lies outside the root is unknown to the UI and
// the API.
func TestServeHostilePaths(t *testing.T) {
	base, outside := serveDir(t, Options{})
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, p := range append(hostilePaths, "/app/"+outside, "/api/v1/applications/"+outside, "/api/v1/applications/"+outside+"/jobs",
		"/live/app/"+outside, "/live/app/"+outside+"/events") {
		code, body := fetch(t, c, http.MethodGet, base+p)
		if code >= 500 {
			t.Errorf("GET %s: status %d", p, code)
		}
		if strings.Contains(body, secret) {
			t.Errorf("GET %s: the answer holds the secret file", p)
		}
		if strings.Contains(p, outside) && code != http.StatusNotFound {
			t.Errorf("GET %s: status %d, want 404 (its log is outside the root)", p, code)
		}
	}
	// The pages that exist still answer.
	for _, p := range []string{"/apps", "/api/v1/applications", "/static/web.js"} {
		if code, _ := fetch(t, c, http.MethodGet, base+p); code != http.StatusOK {
			t.Errorf("GET %s: status %d", p, code)
		}
	}
	// The live page of an application inside the root, and its stream,
	// which sends the application's state (it ended: an "end" event).
	_, list := fetch(t, c, http.MethodGet, base+"/api/v1/applications")
	var apps []struct{ ID string }
	if err := json.Unmarshal([]byte(list), &apps); err != nil || len(apps) == 0 {
		t.Fatalf("applications: %v (%.200s)", err, list)
	}
	if code, body := fetch(t, c, http.MethodGet, base+"/live/app/"+apps[0].ID); code != http.StatusOK || !strings.Contains(body, "No longer live: the application ended") {
		t.Errorf("live page of %s: status %d: %.300s", apps[0].ID, code, body)
	}
	if code, body := fetch(t, c, http.MethodGet, base+"/live/app/"+apps[0].ID+"/events"); code != http.StatusOK || !strings.Contains(body, "\nevent: end\ndata: {") {
		t.Errorf("live stream of %s: status %d: %.300s", apps[0].ID, code, body)
	}
}

// TestServeReadOnly: every method but GET and HEAD is refused, on the UI
// and on the API.
func TestServeReadOnly(t *testing.T) {
	base, _ := serveDir(t, Options{})
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch, "PROPFIND"} {
		for _, p := range []string{"/apps", "/api/v1/applications", "/static/web.js"} {
			if code, _ := fetch(t, http.DefaultClient, m, base+p); code != http.StatusMethodNotAllowed {
				t.Errorf("%s %s: status %d, want 405", m, p, code)
			}
		}
	}
	if code, _ := fetch(t, http.DefaultClient, http.MethodHead, base+"/apps"); code != http.StatusOK {
		t.Errorf("HEAD /apps: status %d", code)
	}
}

// TestServeExposure: an address beyond the loopback interface is refused
// without a token or TLS, and accepted with either; loopback addresses
// need neither.
func TestServeExposure(t *testing.T) {
	for _, c := range []struct {
		o    Options
		want bool
	}{
		{Options{Addr: "127.0.0.1:0"}, true}, {Options{Addr: "[::1]:0"}, true}, {Options{Addr: "localhost:18080"}, true},
		{Options{Addr: "127.3.4.5:80"}, true},
		{Options{Addr: ":18080"}, false}, {Options{Addr: "0.0.0.0:18080"}, false}, {Options{Addr: "[::]:18080"}, false},
		{Options{Addr: "192.0.2.10:18080"}, false}, {Options{Addr: "example.com:18080"}, false},
		{Options{Addr: "0.0.0.0:18080", Token: "t"}, true}, {Options{Addr: "0.0.0.0:18080", TLSCert: "c", TLSKey: "k"}, true},
		{Options{Addr: "127.0.0.1:0", TLSCert: "c"}, false},
	} {
		err := checkExposure(c.o)
		if (err == nil) != c.want {
			t.Errorf("%+v: %v, want allowed %v", c.o, err, c.want)
		}
	}
	err := Run(context.Background(), Options{Logs: []string{t.TempDir()}, Addr: "0.0.0.0:0"}, slog.New(slog.DiscardHandler), nil)
	if !errors.Is(err, ErrExposed) {
		t.Errorf("Run on 0.0.0.0 without a token: %v, want ErrExposed", err)
	}
}

// TestServeToken: with a token every request needs it, as a bearer
// header or the cookie a browser gets by opening a page with ?token=;
// a wrong token is refused.
func TestServeToken(t *testing.T) {
	const token = "s3cr3t-token"
	base, _ := serveDir(t, Options{Token: token})
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, p := range []string{"/apps", "/api/v1/applications", "/static/web.js", "/"} {
		if code, _ := fetch(t, c, http.MethodGet, base+p); code != http.StatusUnauthorized {
			t.Errorf("GET %s without the token: %d, want 401", p, code)
		}
		if code, _ := fetch(t, c, http.MethodGet, base+p, "Authorization", "Bearer wrong"); code != http.StatusUnauthorized {
			t.Errorf("GET %s with a wrong token: %d, want 401", p, code)
		}
		if code, _ := fetch(t, c, http.MethodGet, base+p+"?token=wrong"); code != http.StatusUnauthorized {
			t.Errorf("GET %s?token=wrong: %d, want 401", p, code)
		}
	}
	if code, _ := fetch(t, c, http.MethodGet, base+"/api/v1/applications", "Authorization", "Bearer "+token); code != http.StatusOK {
		t.Errorf("the API with the bearer token: %d", code)
	}
	req, _ := http.NewRequest(http.MethodGet, base+"/apps?token="+token+"&name=x", nil)
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	cookies := res.Cookies()
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/apps?name=x" || len(cookies) != 1 || !cookies[0].HttpOnly {
		t.Fatalf("?token=: status %d, location %q, cookies %v; want a redirect without the token and an HttpOnly cookie",
			res.StatusCode, res.Header.Get("Location"), cookies)
	}
	if code, body := fetch(t, c, http.MethodGet, base+"/apps?name=x", "Cookie", cookies[0].String()); code != http.StatusOK || !strings.Contains(body, "Applications") {
		t.Errorf("the page with the cookie: %d", code)
	}
}

// TestServeTLS: with a certificate the server speaks HTTPS, on any
// address.
func TestServeTLS(t *testing.T) {
	dir := t.TempDir()
	cert, key := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	writeSelfSigned(t, cert, key)
	base, _ := serveDir(t, Options{TLSCert: cert, TLSKey: key})
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	if code, body := fetch(t, c, http.MethodGet, base+"/apps"); code != http.StatusOK || !strings.Contains(body, "Applications") {
		t.Errorf("GET /apps over TLS: %d", code)
	}
	if !strings.HasPrefix(base, "https://") {
		t.Errorf("base %s", base)
	}
}

func writeSelfSigned(t *testing.T, certPath, keyPath string) {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestHistoryReadsOnlyUnderRoots: a run in the history whose log lies
// outside the served paths is listed but never read.
func TestHistoryReadsOnlyUnderRoots(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	logs := filepath.Join(root, "logs")
	outside := filepath.Join(root, "outside")
	for _, d := range []string{logs, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sc, err := sim.Named("imbalance")
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Simulate(sc, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	var in, out *model.App
	for _, a := range res.Apps {
		if a.Engine == model.Spark {
			if out == nil {
				out = a
			} else if in == nil {
				in = a
			}
		}
	}
	st, err := sqlite.Open(ctx, filepath.Join(root, "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, c := range []struct {
		app *model.App
		log string
	}{{in, filepath.Join(logs, in.ID)}, {out, filepath.Join(outside, out.ID)}, {out, filepath.Join(logs, "..", "outside", out.ID)}} {
		if err := eventlog.WriteFile(c.log, c.app, codec.None); err != nil {
			t.Fatal(err)
		}
		if err := st.Put(ctx, history.Entry{State: history.LogState{Path: c.log, Size: 1}, Runs: []*history.Run{history.FromApp(c.app, c.log, false, nil)}}); err != nil {
			t.Fatal(err)
		}
	}
	src := newHistorySource(st, []string{logs}, indexer.Options{}, newSourceHealth([]string{logs}, slog.New(slog.DiscardHandler)), slog.New(slog.DiscardHandler))
	if err := src.refresh(ctx); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		id   string
		read bool
	}{{in.ID, true}, {out.ID, false}} {
		ix, err := src.Read(ctx, c.id)
		if err != nil {
			t.Fatal(err)
		}
		got := !ix.Pending(c.id) && len(ix.Attempts(c.id)) > 0
		if got != c.read {
			t.Errorf("%s: read %v, want %v", c.id, got, c.read)
		}
		// Its live page follows the same logs only.
		if l, ok := src.AppLog(c.id); ok != c.read || ok && !underRoots(l.Name, []string{logs}) {
			t.Errorf("%s: live log %v, want one under the root %v", c.id, l, c.read)
		}
	}
	for _, c := range []struct {
		log  string
		want bool
	}{{"/a/logs/x", true}, {"/a/logs", true}, {"/a/logs/../secret", false}, {"/a/logsx/y", false}, {"/a/other", false},
		{"s3://b/logs/x", false}, {"relative/x", false}} {
		if got := underRoots(c.log, []string{"/a/logs"}); got != c.want {
			t.Errorf("underRoots(%q, /a/logs) = %v", c.log, got)
		}
	}
	for _, c := range []struct {
		log  string
		want bool
	}{{"s3://b/logs/x", true}, {"s3://b/logs/../x", false}, {"s3://b/logsx", false}, {"/b/logs/x", false}} {
		if got := underRoots(c.log, []string{"s3://b/logs/"}); got != c.want {
			t.Errorf("underRoots(%q, s3://b/logs/) = %v", c.log, got)
		}
	}
}
