package live

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
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

// TestAppLogReplaced: a followed log that is replaced by a shorter one (the
// application run again under the same name) is followed from its start,
// whether the follower had read the old log to its end or not: the page
// kept "application ended" while the API showed the new run's stage 0
// active (issue 23).
func TestAppLogReplaced(t *testing.T) {
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
	short := full.Bytes()[:full.Len()/4]
	short = short[:bytes.LastIndexByte(short, '\n')+1]
	for _, c := range []struct {
		name  string
		first []byte
	}{{"ended", full.Bytes()}, {"running", full.Bytes()[:full.Len()*3/4]}} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), res.Apps[0].ID)
			if err := os.WriteFile(path, c.first, 0o644); err != nil {
				t.Fatal(err)
			}
			logs, _, err := decodelogs.Find([]string{path}, decodelogs.Options{})
			if err != nil || len(logs) != 1 {
				t.Fatalf("find: %d logs, %v", len(logs), err)
			}
			f := FollowApp(logs[0], decodelogs.Options{})
			f.Poll()
			before, ended, _ := f.App()
			if ended != (c.name == "ended") {
				t.Fatalf("first read: ended %v", ended)
			}
			pb, tb := ProgressOf(before), f.Token()
			// Replaced (written beside, renamed over it), shorter.
			if err := os.WriteFile(path+".new", short, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(path+".new", path); err != nil {
				t.Fatal(err)
			}
			if news, err := f.Poll(); !news || err != nil {
				t.Fatalf("poll of the replaced log: news %v, %v", news, err)
			}
			after, ended, _ := f.App()
			logs, _, _ = decodelogs.Find([]string{path}, decodelogs.Options{})
			fresh, err := decodelogs.Growing(logs[0], nil, decodelogs.Options{})
			if err != nil {
				t.Fatal(err)
			}
			pa, pf := ProgressOf(after), ProgressOf(fresh.Apps[0])
			// The token names the read: a new follower of the replaced log
			// reads it to the same one, the old read's differs.
			g := FollowApp(logs[0], decodelogs.Options{})
			g.Poll()
			if ta := f.Token(); ta == tb || ta != g.Token() {
				t.Errorf("tokens: before %q, after %q, a new follower's %q", tb, ta, g.Token())
			}
			if ended || after.Complete || !reflect.DeepEqual(pa, pf) || pa.Running == 0 || reflect.DeepEqual(pa, pb) {
				t.Errorf("after the replacement: ended %v, complete %v, progress %+v; want the shorter log's %+v (was %+v)",
					ended, after.Complete, *pa, *pf, *pb)
			}
		})
	}
}
