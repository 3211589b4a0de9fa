package cli

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"log/slog"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/agent"
	"github.com/clusterlens/clusterlens/internal/agentcmd"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/store"
	"github.com/clusterlens/clusterlens/internal/store/open"
)

// TestCollectAndAgent runs `collect` over a SQLite file and `agent` with
// the real proc sampler against it, then reads the file back; over plain
// HTTP and over HTTPS with a self-signed certificate the agent trusts
// through --ca-file.
func TestCollectAndAgent(t *testing.T) {
	t.Run("http", func(t *testing.T) { collectAndAgent(t, false) })
	t.Run("https", func(t *testing.T) { collectAndAgent(t, true) })
}

func collectAndAgent(t *testing.T, useTLS bool) {
	dir := t.TempDir()
	co := collectOptions{listen: "127.0.0.1:0", maxBody: 1 << 20}
	ao := agentcmd.Options{Spool: filepath.Join(dir, "spool"), Host: "cli-node", Samplers: "proc",
		Interval: 200 * time.Millisecond, SpoolMaxMB: 1, ProcRoot: "/proc", SysRoot: "/sys"}
	scheme := "http://"
	if useTLS {
		co.tlsCert, co.tlsKey = selfSigned(t, dir)
		ao.CAFile = co.tlsCert
		scheme = "https://"
	}
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
		co.store, co.tokenFile = dsn, tokenFile
		if err := runCollect(ctx, co, log, ready); err != nil {
			t.Errorf("collect: %v", err)
		}
	})
	addr := <-ready
	client, err := agentcmd.HTTPClient(ao.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := client.Get(scheme + addr + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz: %v %v", resp, err)
	}
	resp.Body.Close()

	actx, acancel := context.WithTimeout(ctx, 1600*time.Millisecond)
	defer acancel()
	t.Setenv(agent.TokenEnv, "tok-123") // the agent takes it from the environment
	ao.Collector = scheme + addr
	err = agentcmd.Run(actx, ao, log)
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
	t.Setenv(agent.TokenEnv, "")
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
		{[]string{"agent", "--collector", "https://127.0.0.1:1", "--token-file", tokenFile, "--spool", dir, "--ca-file", tokenFile}, ExitUsage, "no PEM certificate in it"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		code := Main(c.args, strings.NewReader(""), &out, &errb)
		if code != c.code || !strings.Contains(errb.String(), c.msg) || strings.Count(errb.String(), "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want %d and one line containing %q", c.args, code, errb.String(), c.code, c.msg)
		}
	}
}

// selfSigned writes a self-signed certificate for 127.0.0.1 and its key
// into dir and returns their paths.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "clusterlens test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600)
	return certFile, keyFile
}
