package sharedtest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"
)

// Browser is headless Chromium driven over the DevTools protocol on a
// pipe (--remote-debugging-pipe: commands on its fd 3, answers on fd 4),
// with one page open: for tests that watch a page over real time, which
// --dump-dom cannot.
type Browser struct {
	cmd     *exec.Cmd
	in      *os.File
	msgs    chan map[string]json.RawMessage
	id      int
	session string
}

// OpenBrowser starts headless Chromium (bin, from Chromium) on url; the
// browser is closed when the test ends.
func OpenBrowser(t testing.TB, bin, url string, size string) *Browser {
	t.Helper()
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	resR, resW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	// The profile folder is removed after the browser's helper processes,
	// which outlive the main one a moment, stop writing to it (t.TempDir's
	// own removal failed on "directory not empty").
	profile, err := os.MkdirTemp("", "clusterlens-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
		"--disable-background-timer-throttling", "--disable-renderer-backgrounding",
		"--user-data-dir="+profile, "--remote-debugging-pipe", "--window-size="+size, "about:blank")
	cmd.ExtraFiles = []*os.File{cmdR, resW}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	cmdR.Close()
	resW.Close()
	b := &Browser{cmd: cmd, in: cmdW, msgs: make(chan map[string]json.RawMessage, 64)}
	go func() {
		defer close(b.msgs)
		r := bufio.NewReaderSize(resR, 1<<20)
		for {
			msg, err := r.ReadBytes(0)
			if err != nil {
				return
			}
			var m map[string]json.RawMessage
			if json.Unmarshal(msg[:len(msg)-1], &m) == nil && m["id"] != nil {
				b.msgs <- m
			}
		}
	}()
	t.Cleanup(func() {
		cmdW.Close()
		cmd.Process.Kill()
		cmd.Wait()
		resR.Close()
		for i := 0; i < 50 && os.RemoveAll(profile) != nil; i++ {
			time.Sleep(100 * time.Millisecond)
		}
	})
	var target struct{ TargetID string }
	b.call(t, "Target.createTarget", map[string]any{"url": url}, &target)
	var att struct{ SessionID string }
	b.call(t, "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &att)
	b.session = att.SessionID
	return b
}

// call sends one command and decodes its result into out.
func (b *Browser) call(t testing.TB, method string, params any, out any) {
	t.Helper()
	b.id++
	msg := map[string]any{"id": b.id, "method": method, "params": params}
	if b.session != "" {
		msg["sessionId"] = b.session
	}
	body, err := json.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.in.Write(append(body, 0)); err != nil {
		t.Fatalf("devtools %s: %v", method, err)
	}
	timeout := time.After(time.Minute)
	for {
		select {
		case m, ok := <-b.msgs:
			if !ok {
				t.Fatalf("devtools %s: the browser closed the pipe", method)
			}
			var id int
			json.Unmarshal(m["id"], &id)
			if id != b.id {
				continue
			}
			if m["error"] != nil {
				t.Fatalf("devtools %s: %s", method, m["error"])
			}
			if out != nil {
				if err := json.Unmarshal(m["result"], out); err != nil {
					t.Fatalf("devtools %s: %v", method, err)
				}
			}
			return
		case <-timeout:
			t.Fatalf("devtools %s: no answer in a minute", method)
		}
	}
}

// Eval evaluates a JavaScript expression in the page and decodes its
// value (JSON-serializable) into out.
func (b *Browser) Eval(t testing.TB, expr string, out any) {
	t.Helper()
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	b.call(t, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &res)
	if res.ExceptionDetails != nil {
		t.Fatalf("eval %q: %s", expr, res.ExceptionDetails.Text)
	}
	if out != nil && len(res.Result.Value) > 0 {
		if err := json.Unmarshal(res.Result.Value, out); err != nil {
			t.Fatalf("eval %q: %v (%s)", expr, err, res.Result.Value)
		}
	}
}

// WaitFor evaluates a boolean expression every 20 ms until it is true, and
// fails the test after timeout.
func (b *Browser) WaitFor(t testing.TB, expr string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		var ok bool
		b.Eval(t, "!!("+expr+")", &ok)
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not true after %v", expr, timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Screenshot writes a PNG of the page's viewport (the window's size) to
// path.
func (b *Browser) Screenshot(t testing.TB, path string) {
	t.Helper()
	var res struct{ Data []byte }
	b.call(t, "Page.captureScreenshot", map[string]any{"format": "png"}, &res)
	if err := os.WriteFile(path, res.Data, 0o644); err != nil {
		t.Fatal(fmt.Errorf("screenshot: %w", err))
	}
}
