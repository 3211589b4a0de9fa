package mapreduce_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/mapreduce"
)

// TestWrittenHistoryLoads writes random jobs as a done folder (history and
// conf under the job history server's names) and reads them through source
// and load: the same model, with the configuration attached.
func TestWrittenHistoryLoads(t *testing.T) {
	for seed := uint64(0); seed < 10; seed++ {
		app := mapreduce.GenJob(seed)
		dir := t.TempDir()
		f, err := os.Create(filepath.Join(dir, mapreduce.JhistFileName(app)))
		if err != nil {
			t.Fatal(err)
		}
		if err := mapreduce.WriteJhist(f, app); err != nil {
			t.Fatal(err)
		}
		f.Close()
		conf := [][2]string{{"mapreduce.job.name", app.Name}, {"mapreduce.job.user.name", app.User}, {"mapreduce.job.maps", "3"}}
		c, err := os.Create(filepath.Join(dir, mapreduce.ConfFileName(app)))
		if err != nil {
			t.Fatal(err)
		}
		if err := mapreduce.WriteConf(c, conf); err != nil {
			t.Fatal(err)
		}
		c.Close()
		res, err := decodelogs.Paths([]string{dir}, decodelogs.Options{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Apps) != 1 || len(res.Problems) != 0 {
			t.Fatalf("seed %d: %d apps, problems %v, skipped %v", seed, len(res.Apps), res.Problems, res.Skipped)
		}
		got := res.Apps[0]
		if d := cmp.Diff(conf, got.Conf); d != "" {
			t.Errorf("seed %d: conf differs:\n%s", seed, d)
		}
		got.Conf = nil
		if d := mapreduce.DiffJobs(app, got); d != "" {
			t.Errorf("seed %d: differs (-model +read):\n%s", seed, d)
		}
	}
}
