package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/decodelogs"
)

// refusingS3 is an S3 endpoint that refuses every request as AWS refuses
// wrong credentials (403 InvalidAccessKeyId), and the environment that
// points the S3 client at it with such credentials.
func refusingS3(t *testing.T) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>InvalidAccessKeyId</Code>`+
			`<Message>The AWS Access Key Id you provided does not exist in our records.</Message></Error>`)
	}))
	t.Cleanup(srv.Close)
	none := filepath.Join(t.TempDir(), "none")
	for k, v := range map[string]string{"AWS_ENDPOINT_URL_S3": srv.URL, "AWS_ACCESS_KEY_ID": "AKIAWRONGWRONGWRONG0",
		"AWS_SECRET_ACCESS_KEY": "wrong", "AWS_REGION": "us-east-1", "AWS_CONFIG_FILE": none, "AWS_SHARED_CREDENTIALS_FILE": none} {
		t.Setenv(k, v)
	}
}

// TestRunFailsWithoutReadableSource: serve given only sources that cannot
// be read (a path that does not exist, an HDFS URL, an S3 bucket that
// refuses the credentials) fails at start, before listening, naming each
// source and its cause, instead of serving an empty UI (issue 23).
func TestRunFailsWithoutReadableSource(t *testing.T) {
	refusingS3(t)
	missing := filepath.Join(t.TempDir(), "no-such-folder")
	bucket := fmt.Sprintf("s3://refused-%d/spark-events/", time.Now().UnixNano())
	for _, c := range []struct {
		logs []string
		want []string
	}{
		{[]string{missing}, []string{missing, "no such file or directory"}},
		{[]string{"hdfs://nn:8020/spark-events"}, []string{"hdfs://nn:8020/spark-events", "HDFS is not readable yet"}},
		{[]string{bucket}, []string{strings.TrimSuffix(bucket, "spark-events/"), "403 Forbidden", "InvalidAccessKeyId", "credentials tried"}},
		{[]string{missing, "ftp://x/y"}, []string{missing, `unsupported URL scheme "ftp"`}},
	} {
		ready := make(chan string, 1)
		start := time.Now()
		err := Run(context.Background(), Options{Logs: c.logs, Addr: "127.0.0.1:0"}, slog.New(slog.DiscardHandler), ready)
		if !errors.Is(err, ErrNoSource) {
			t.Errorf("%v: Run = %v, want ErrNoSource", c.logs, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: error %q does not say %q", c.logs, err, w)
			}
		}
		if len(ready) > 0 {
			t.Errorf("%v: listened before failing", c.logs)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%v: took %s to fail", c.logs, d)
		}
	}
}

// TestSourceFailsLater: of two sources, one that goes away after the first
// scan is named (with its cause, since when) while its applications stay
// listed as last read; once it is back, it is no longer named.
func TestSourceFailsLater(t *testing.T) {
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	for _, d := range []string{a, b} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeLogs(t, a, 2)
	writeLogs(t, b, 3) // app-0000..app-0002: two share ids with a's, one is b's alone
	health := newSourceHealth([]string{a, b}, slog.New(slog.DiscardHandler))
	src := newLogSource([]string{a, b}, decodelogs.Options{}, health, slog.New(slog.DiscardHandler))
	ctx := context.Background()
	src.scan(ctx)
	if n := countListed(t, src.Index()); n != 3 || len(health.Problems()) != 0 {
		t.Fatalf("first scan: %d listed, problems %v; want 3 and none", n, health.Problems())
	}
	moved := b + ".away"
	if err := os.Rename(b, moved); err != nil {
		t.Fatal(err)
	}
	src.scan(ctx)
	ps := health.Problems()
	if len(ps) != 1 || ps[0].Source != b || !errors.Is(ps[0].Err, os.ErrNotExist) || ps[0].Since.IsZero() {
		t.Fatalf("after %s went away: problems %+v, want it alone, not found", b, ps)
	}
	if n := countListed(t, src.Index()); n != 3 {
		t.Errorf("after %s went away: %d listed, want the 3 read before", b, n)
	}
	if err := os.Rename(moved, b); err != nil {
		t.Fatal(err)
	}
	src.scan(ctx)
	if ps := health.Problems(); len(ps) != 0 {
		t.Errorf("after %s came back: problems %+v", b, ps)
	}
}

// TestBannerWhenSourceFails: serve with two sources, one of which goes
// away after the start; at the next rescan every page names it above its
// content, with the cause, while its applications stay listed.
func TestBannerWhenSourceFails(t *testing.T) {
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	for _, d := range []string{a, b} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeLogs(t, a, 1)
	writeLogs(t, b, 2)
	ctx, cancel := context.WithCancel(context.Background())
	ready, done := make(chan string, 1), make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{Logs: []string{a, b}, Addr: "127.0.0.1:0", Rescan: 100 * time.Millisecond}, slog.New(slog.DiscardHandler), ready)
	}()
	defer func() { cancel(); <-done }()
	base := "http://" + <-ready
	page := func() string {
		res, err := http.Get(base + "/apps")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var sb strings.Builder
		if _, err := io.Copy(&sb, res.Body); err != nil {
			t.Fatal(err)
		}
		return sb.String()
	}
	if p := page(); strings.Contains(p, "cannot be read") {
		t.Fatalf("a banner with both sources readable: %.300s", p)
	}
	// The logs are read in the background: b's own application must be
	// read in full (its jobs answered) before b goes, or there is nothing
	// of b's to keep (a read cut short by the source going is no log).
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		res, err := http.Get(base + "/api/v1/applications/app-0001/jobs")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode == http.StatusOK {
			break
		}
		if time.Since(start) > 20*time.Second {
			t.Fatalf("app-0001 of %s not read after 20 s: %s", b, res.Status)
		}
	}
	if err := os.Rename(b, b+".gone"); err != nil {
		t.Fatal(err)
	}
	for start := time.Now(); ; time.Sleep(50 * time.Millisecond) {
		p := page()
		if strings.Contains(p, "A log source cannot be read:</b> "+b) {
			if !strings.Contains(p, "no such file or directory") || !strings.Contains(p, "app-0001") {
				t.Errorf("the banner lacks the cause, or the source's applications went: %.2000s", p)
			}
			break
		}
		if time.Since(start) > 20*time.Second {
			t.Fatalf("no banner 20 s after %s went away", b)
		}
	}
}
