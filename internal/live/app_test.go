package live

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/eventlog"
	"github.com/clusterlens/clusterlens/internal/sim"
)

// TestAppLogGone follows a log that is deleted while the application
// runs: the follower ends, says why, and keeps the application as last
// read; a poll after the end reads nothing.
func TestAppLogGone(t *testing.T) {
	sc, err := sim.Named("recurring")
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Simulate(sc, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	var full bytes.Buffer
	if err := eventlog.Write(&full, res.Apps[0]); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), res.Apps[0].ID+".inprogress")
	if err := os.WriteFile(path, full.Bytes()[:full.Len()/2], 0o644); err != nil {
		t.Fatal(err)
	}
	logs, _, err := decodelogs.Find([]string{path}, decodelogs.Options{})
	if err != nil || len(logs) != 1 {
		t.Fatalf("find: %d logs, %v", len(logs), err)
	}
	f := FollowApp(logs[0], decodelogs.Options{})
	if news, err := f.Poll(); !news || err != nil {
		t.Fatalf("first poll: news %v, %v", news, err)
	}
	if news, _ := f.Poll(); news {
		t.Error("a poll of an unchanged log has news")
	}
	first, ended, _ := f.App()
	if ended || first.Complete {
		t.Fatal("half a log read as ended")
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if news, err := f.Poll(); !news || err == nil {
		t.Fatalf("poll of a deleted log: news %v, err %v (want news and an error)", news, err)
	}
	last, ended, err := f.App()
	if !ended || err == nil || last != first {
		t.Errorf("after the log is gone: ended %v, err %v, the same application %v", ended, err, last == first)
	}
	if news, _ := f.Poll(); news {
		t.Error("a poll after the end has news")
	}
}
