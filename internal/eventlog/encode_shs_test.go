package eventlog_test

import (
	"bufio"
	"bytes"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/codec"
	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/eventlog"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
	"github.com/clusterlens/clusterlens/internal/shs"
)

// reencode writes app with eventlog.Write and reads it back, keeping the
// file facts (source, modification time) the log itself does not carry.
func reencode(t *testing.T, app *model.App) *model.App {
	t.Helper()
	var buf bytes.Buffer
	if err := eventlog.Write(&buf, app); err != nil {
		t.Fatal(err)
	}
	back, err := eventlog.Read(app.Source, &buf)
	if err != nil {
		t.Fatal(err)
	}
	back.Source, back.LastUpdated = app.Source, app.LastUpdated
	eventlog.Normalize(app, back) // the Spark version and default profile a 3.5 writer adds
	return back
}

// requests lists, for each application, the History Server requests whose
// answers must not change: the index.tsv conformance requests and, per
// application attempt, its jobs, stages, executors and every stage
// attempt's task list.
func requests(t *testing.T, dir string, apps []*model.App) []string {
	var reqs []string
	f, err := os.Open(filepath.Join(dir, "index.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		col := strings.Split(sc.Text(), "\t")
		if len(col) >= 2 && !strings.HasPrefix(col[0], "#") {
			reqs = append(reqs, col[1])
		}
	}
	for _, a := range apps {
		base := "applications/" + a.ID
		if a.AttemptID != "" {
			base += "/" + a.AttemptID
		}
		reqs = append(reqs, base+"/jobs", base+"/stages", base+"/stages?details=true", base+"/executors",
			base+"/allexecutors", base+"/environment")
		for _, st := range a.Stages {
			s := fmt.Sprintf("%s/stages/%d/%d", base, st.ID, st.Attempt)
			reqs = append(reqs, s, s+"/taskList?length=1000000", s+"/taskSummary")
		}
	}
	return reqs
}

func TestRoundTripHistoryServer(t *testing.T) {
	dir := sharedtest.Dir(t, "shs-expectations")
	res, err := decodelogs.Paths([]string{filepath.Join(dir, "spark-events")}, decodelogs.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	orig := res.Apps
	if len(orig) != 18 {
		t.Fatalf("read %d applications, want 18", len(orig))
	}
	var back []*model.App
	for _, a := range orig {
		back = append(back, reencode(t, a))
	}
	ix, iy := shs.NewIndex(orig), shs.NewIndex(back)
	now := func() time.Time { return time.UnixMilli(1_700_000_000_000) }
	ix.Now, iy.Now = now, now
	n := 0
	for _, req := range requests(t, dir, orig) {
		path, raw, _ := strings.Cut(req, "?")
		q, err := url.ParseQuery(raw)
		if err != nil {
			t.Fatal(err)
		}
		want, werr := ix.Get(path, q)
		got, gerr := iy.Get(path, q)
		if fmt.Sprint(werr) != fmt.Sprint(gerr) {
			t.Errorf("GET %s: error %v, re-encoded %v", req, werr, gerr)
			continue
		}
		wj, err1 := shs.Marshal(want)
		gj, err2 := shs.Marshal(got)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if !bytes.Equal(wj, gj) {
			t.Errorf("GET %s differs:\n%s", req, firstDiff(wj, gj))
		}
		n++
	}
	t.Logf("%d requests answered identically", n)
}

// TestRollingAndCompressedLoad writes real applications as a rolling
// folder (zstd parts, several per application) and as single files in
// every codec, and reads them back through source and load.
func TestRollingAndCompressedLoad(t *testing.T) {
	dir := sharedtest.Dir(t, "shs-expectations")
	res, err := decodelogs.Paths([]string{filepath.Join(dir, "spark-events")}, decodelogs.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range res.Apps {
		if len(a.Stages) == 0 {
			continue
		}
		name := a.ID + "_" + a.AttemptID
		t.Run(name, func(t *testing.T) {
			want := reencode(t, a)
			out := t.TempDir()
			if err := eventlog.WriteRolling(out, a, 16<<10, codec.Zstd); err != nil {
				t.Fatal(err)
			}
			root := filepath.Join(out, eventlog.RollingDirName(a))
			parts, _ := filepath.Glob(filepath.Join(root, "events_*"))
			if len(parts) < 2 {
				t.Errorf("rolling folder has %d parts, want several", len(parts))
			}
			paths := []string{root}
			for _, c := range append(codec.Codecs(), codec.None) {
				sub := filepath.Join(out, c.String())
				if err := os.Mkdir(sub, 0o755); err != nil {
					t.Fatal(err)
				}
				single := filepath.Join(sub, eventlog.FileName(a, c))
				if err := eventlog.WriteFile(single, a, c); err != nil {
					t.Fatal(err)
				}
				paths = append(paths, single)
			}
			for _, p := range paths {
				r, err := decodelogs.Paths([]string{p}, decodelogs.Options{Workers: 1})
				if err != nil {
					t.Fatal(err)
				}
				if len(r.Apps) != 1 || len(r.Problems) != 0 {
					t.Fatalf("%s: %d apps, problems %v, skipped %v", p, len(r.Apps), r.Problems, r.Skipped)
				}
				got := r.Apps[0]
				got.Source, got.LastUpdated = want.Source, want.LastUpdated
				eventlog.Normalize(a, got)
				if d := eventlog.DiffApps(want, got); d != "" {
					t.Errorf("%s differs from the single-file round trip:\n%s", p, d)
				}
			}
		})
	}
}

// firstDiff shows the first differing line of two JSON texts, with context.
func firstDiff(a, b []byte) string {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < len(la) || i < len(lb); i++ {
		if i >= len(la) || i >= len(lb) || la[i] != lb[i] {
			lo := max(0, i-3)
			return fmt.Sprintf("orig:\n%s\nback:\n%s", strings.Join(la[lo:min(len(la), i+2)], "\n"),
				strings.Join(lb[lo:min(len(lb), i+2)], "\n"))
		}
	}
	return ""
}

// TestRollingGenerated writes random applications, running and finished,
// as rolling folders and reads them back through source and load: the
// appstatus marker tells completeness and the model is unchanged.
func TestRollingGenerated(t *testing.T) {
	for seed := uint64(0); seed < 6; seed++ {
		for _, running := range []bool{true, false} {
			app := eventlog.GenApp(seed*10, running)
			out := t.TempDir()
			if err := eventlog.WriteRolling(out, app, 8<<10, codec.LZ4); err != nil {
				t.Fatal(err)
			}
			res, err := decodelogs.Paths([]string{out}, decodelogs.Options{Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Apps) != 1 || len(res.Problems) != 0 {
				t.Fatalf("%d apps, problems %v, skipped %v", len(res.Apps), res.Problems, res.Skipped)
			}
			got := res.Apps[0]
			if got.Complete == running {
				t.Errorf("seed %d: read Complete=%v for a running=%v application", seed, got.Complete, running)
			}
			if d := eventlog.DiffApps(app, got); d != "" {
				t.Errorf("seed %d running=%v: differs (-model +read):\n%s", seed, running, d)
			}
		}
	}
}
