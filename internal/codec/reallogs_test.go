package codec

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// TestRealLogs decodes every real log listed in expected-counts.tsv as a
// stream and checks the decompressed text against the independently computed
// counts: SparkListenerJobStart and SparkListenerTaskEnd lines per Spark log.
func TestRealLogs(t *testing.T) {
	dir := sharedtest.Dir(t, "logs")
	tsv, err := os.ReadFile(filepath.Join(dir, "expected-counts.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[Codec]int{}
	for _, line := range strings.Split(string(tsv), "\n") {
		f := strings.Split(line, "\t")
		if len(f) < 16 || strings.HasPrefix(line, "#") {
			continue
		}
		kind, path := f[0], f[1]
		file, err := os.Open(filepath.Join(dir, path))
		if err != nil {
			t.Error(err)
			continue
		}
		r, c, err := Open(path, file)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			file.Close()
			continue
		}
		seen[c]++
		if want := FromExtension(path); c != want {
			t.Errorf("%s: detected %v, want %v", path, c, want)
		}
		var jobs, tasks, lines int
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			b := sc.Bytes()
			lines++
			if bytes.Contains(b, []byte(`"Event":"SparkListenerJobStart"`)) {
				jobs++
			}
			if bytes.Contains(b, []byte(`"Event":"SparkListenerTaskEnd"`)) {
				tasks++
			}
		}
		if err := sc.Err(); err != nil {
			t.Errorf("%s: %v", path, err)
		}
		r.Close()
		file.Close()
		if lines == 0 {
			t.Errorf("%s: no lines", path)
		}
		if kind != "spark-eventlog" || f[14] != "0" {
			continue // counts are per valid JSON event; skip logs with malformed lines
		}
		wantJobs, _ := strconv.Atoi(f[5])
		wantTasks, _ := strconv.Atoi(f[8])
		if jobs != wantJobs || tasks != wantTasks {
			t.Errorf("%s (%v): %d jobs, %d tasks; want %d, %d", path, c, jobs, tasks, wantJobs, wantTasks)
		}
	}
	if seen[Zstd] == 0 || seen[Gzip] == 0 || seen[None] == 0 {
		t.Errorf("codecs seen %v, want zstd, gzip and plain logs", seen)
	}
	t.Logf("decoded logs per codec: %v", seen)
}
