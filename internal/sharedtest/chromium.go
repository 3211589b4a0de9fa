package sharedtest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Chromium finds the browser: $CHROMIUM, else chromium on the PATH, else
// /usr/bin/chromium. Locally the test skips without one; under CI=true,
// where .ci/packages-browser.txt installs it, it fails.
func Chromium(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "/usr/bin/chromium"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium not found (CI installs it from .ci/packages-browser.txt; set CHROMIUM to its path)")
	}
	t.Skip("chromium not found; set CHROMIUM or install Debian's chromium to run the browser test")
	return ""
}

// RunChromium runs headless Chromium on a page with the flags that keep it
// off the network (but for the page's own server) and away from the
// user's profile, and returns its standard output.
func RunChromium(t testing.TB, bin string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
		"--user-data-dir=" + t.TempDir(), "--virtual-time-budget=20000"}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, lastLines(stderr.String(), 20))
	}
	return out
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}

// BodyAttr is an attribute of the <body> tag of a page Chromium dumped
// (--dump-dom), unescaped; "" when absent.
func BodyAttr(dom []byte, name string) string {
	tag := regexp.MustCompile(`<body[^>]*>`).Find(dom)
	m := regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `="([^"]*)"`).FindSubmatch(tag)
	if m == nil {
		return ""
	}
	r := strings.NewReplacer("&quot;", `"`, "&amp;", "&", "&lt;", "<", "&gt;", ">", "&#39;", "'")
	return r.Replace(string(m[1]))
}
