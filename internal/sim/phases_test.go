package sim

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/codec"
	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/model"
)

type phaseRow struct {
	name       string
	host       string
	start, end int64
}

// readPhases reads phases.csv.zst by app/stage/task/attempt.
func readPhases(t *testing.T, path string) map[string][]phaseRow {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := codec.NewReader(codec.Zstd, path, f)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]phaseRow{}
	sc := bufio.NewScanner(r)
	sc.Scan()
	if sc.Text()+"\n" != phaseHeader {
		t.Fatalf("header %q", sc.Text())
	}
	for sc.Scan() {
		c := strings.Split(sc.Text(), ",")
		if len(c) != 9 {
			t.Fatalf("row %q", sc.Text())
		}
		s, _ := strconv.ParseInt(c[6], 10, 64)
		e, _ := strconv.ParseInt(c[7], 10, 64)
		k := strings.Join(c[:4], "/")
		out[k] = append(out[k], phaseRow{name: c[5], host: c[4], start: s, end: e})
	}
	return out
}

// TestPhasesMatchLogs checks phases.csv.zst against the logs read back:
// every attempt's phases are contiguous on its host, start at its launch,
// end at its finish when it succeeded, and put the MapReduce phase ends
// where the history says.
func TestPhasesMatchLogs(t *testing.T) {
	for _, name := range []string{"hang", "speculation", "straggler"} {
		dir := t.TempDir()
		if _, err := Run(mustNamed(t, name), 2, dir, testEncoders); err != nil {
			t.Fatal(err)
		}
		phases := readPhases(t, filepath.Join(dir, PhasesFile))
		loaded, err := decodelogs.Paths([]string{dir}, decodelogs.Options{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		var m model.TaskMetrics
		n := 0
		for _, app := range loaded.Apps {
			for _, st := range app.Stages {
				for i := range st.Tasks {
					tk := &st.Tasks[i]
					k := fmt.Sprintf("%s/%d/%d/%d", app.ID, st.ID, tk.Index, tk.Attempt)
					rows := phases[k]
					if len(rows) == 0 {
						t.Fatalf("%s: %s has no phases", name, k)
					}
					n++
					if rows[0].start != tk.Launch || rows[0].host != app.Hosts[tk.Host] {
						t.Errorf("%s: %s starts at %d on %s, launched %d on %s", name, k, rows[0].start, rows[0].host, tk.Launch, app.Hosts[tk.Host])
					}
					for j := 1; j < len(rows); j++ {
						if rows[j].start != rows[j-1].end {
							t.Errorf("%s: %s: gap between %s and %s", name, k, rows[j-1].name, rows[j].name)
						}
					}
					last := rows[len(rows)-1].end
					if tk.Status == model.TaskSuccess && last != tk.Finish || last > tk.Finish {
						t.Errorf("%s: %s (%v) phases end %d, finish %d", name, k, tk.Status, last, tk.Finish)
					}
					if app.Engine != model.MapReduce || tk.Status != model.TaskSuccess {
						continue
					}
					st.TaskMetrics(i, &m)
					ends := map[string]int64{}
					for _, r := range rows {
						ends[r.name] = r.end
					}
					switch {
					case st.Kind == model.StageMap && m[model.MapPhaseFinish] != max(ends["collect"], ends["map"]):
						t.Errorf("%s: %s map phase ends %d, history %d", name, k, ends["collect"], m[model.MapPhaseFinish])
					case st.Kind == model.StageReduce && m[model.ShufflePhaseFinish] != ends["shuffle"]:
						t.Errorf("%s: %s shuffle ends %d, history %d", name, k, ends["shuffle"], m[model.ShufflePhaseFinish])
					}
				}
			}
		}
		if n != len(phases) {
			t.Errorf("%s: %d attempts in the logs, %d in phases", name, n, len(phases))
		}
	}
}
