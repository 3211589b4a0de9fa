package cli

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/store"
	"github.com/clusterlens/clusterlens/internal/store/open"
)

// TestCollectAndAgent runs `collect` over a SQLite file and `agent` with
// the real proc sampler against it, then reads the file back.
func TestCollectAndAgent(t *testing.T) {
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte("tok-123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dsn := "sqlite:" + filepath.Join(dir, "samples.db")
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan string, 1)
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := runCollect(ctx, collectOptions{listen: "127.0.0.1:0", store: dsn, tokenFile: tokenFile, maxBody: 1 << 20}, log, ready); err != nil {
			t.Errorf("collect: %v", err)
		}
	})
	addr := <-ready
	resp, err := http.Get("http://" + addr + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz: %v %v", resp, err)
	}
	resp.Body.Close()

	actx, acancel := context.WithTimeout(ctx, 1600*time.Millisecond)
	defer acancel()
	t.Setenv(tokenEnv, "tok-123") // the agent takes it from the environment
	err = runAgent(actx, agentOptions{collector: "http://" + addr, spool: filepath.Join(dir, "spool"), host: "cli-node",
		samplers: "proc", interval: 200 * time.Millisecond, spoolMaxMB: 1, procRoot: "/proc", sysRoot: "/sys"}, log)
	if err != nil {
		t.Fatalf("agent: %v", err)
	}
	cancel()
	wg.Wait()

	st, err := open.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	n := 0
	err = st.Query(context.Background(), store.Query{Hosts: []string{"cli-node"}, Types: []string{"cpu_usage"}}, func(s *model.Sample) error {
		n++
		return nil
	})
	if err != nil || n < 4 {
		t.Fatalf("stored cpu_usage samples of cli-node: %d, %v; want ≥ 4", n, err)
	}
}

func TestAgentCollectUsage(t *testing.T) {
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	os.WriteFile(tokenFile, []byte("tok\n"), 0o600)
	twoLines := filepath.Join(dir, "two")
	os.WriteFile(twoLines, []byte("a\nb\n"), 0o600)
	t.Setenv(tokenEnv, "")
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"agent", "--token-file", tokenFile}, ExitUsage, "--collector is required"},
		{[]string{"agent", "--collector", "http://127.0.0.1:1"}, ExitUsage, "a token is required: --token-file FILE or $CLUSTERLENS_TOKEN"},
		{[]string{"agent", "--collector", "http://127.0.0.1:1", "--token-file", filepath.Join(dir, "nope")}, ExitUsage, "--token-file: open"},
		{[]string{"agent", "--collector", "http://127.0.0.1:1", "--token-file", twoLines}, ExitUsage, "want one line holding the token"},
		{[]string{"agent", "--collector", "http://127.0.0.1:1", "--token-file", tokenFile, "--samplers", "proc,nope", "--spool", dir}, ExitUsage, `unknown sampler "nope"`},
		{[]string{"agent", "--collector", "127.0.0.1:1", "--token-file", tokenFile, "--spool", dir}, ExitUsage, "want an http:// or https:// URL"},
		{[]string{"collect", "--store", "sqlite:" + filepath.Join(dir, "x.db")}, ExitUsage, "a token is required"},
		{[]string{"collect", "--token-file", tokenFile, "--store", "mysql://x"}, ExitError, "--store: open store"},
		{[]string{"collect", "--token-file", tokenFile, "--tls-cert", "c.pem"}, ExitUsage, "--tls-cert and --tls-key go together"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		code := Main(c.args, strings.NewReader(""), &out, &errb)
		if code != c.code || !strings.Contains(errb.String(), c.msg) || strings.Count(errb.String(), "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want %d and one line containing %q", c.args, code, errb.String(), c.code, c.msg)
		}
	}
}
