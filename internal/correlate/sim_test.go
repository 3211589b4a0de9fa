package correlate

import (
	"bufio"
	"cmp"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/codec"
	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/eventlog"
	"github.com/clusterlens/clusterlens/internal/mapreduce"
	"github.com/clusterlens/clusterlens/internal/metrics"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sim"
)

var encoders = sim.Encoders{
	SparkFile: eventlog.WriteFile, SparkRolling: eventlog.WriteRolling, RollingDirName: eventlog.RollingDirName,
	Jhist: mapreduce.WriteJhist, Conf: mapreduce.WriteConf,
}

// simRun is one simulation written to disk and read back as clusterlens
// reads it: the applications from their logs, the samples from
// metrics.csv.zst and the phases (the ground truth) from phases.csv.zst.
type simRun struct {
	res    *sim.Result
	apps   []*model.App
	frames *Frames
	phases []phase
}

// phase is a row of phases.csv.zst.
type phase struct {
	app              string
	stage, task, att int32
	host, name, res  string
	start, end       int64
}

var simCache = map[string]*simRun{}

// runSim simulates a named scenario (or with name "" clean plus every other
// job class) with metrics on every node and the
// phases, into a temporary folder (cached per test binary).
func runSim(t testing.TB, name string, seed uint64) *simRun {
	t.Helper()
	key := name + "/" + strconv.FormatUint(seed, 10)
	if r := simCache[key]; r != nil {
		return r
	}
	sc, err := sim.Named(cmp.Or(name, "clean"))
	if err != nil {
		t.Fatal(err)
	}
	if name == "" {
		// Every class on both engines: clean's four applications and
		// the others, small.
		sc.Name = "classes"
		sc.Apps = append(sc.Apps,
			sim.AppSpec{Engine: "spark", Class: "sort", Name: "SparkSort", SubmitS: 20, InputGB: 3, Executors: 4, Cores: 4, Partitions: 16},
			sim.AppSpec{Engine: "spark", Class: "terasort", Name: "SparkTeraSort", SubmitS: 40, InputGB: 3, Executors: 4, Cores: 4, Partitions: 16},
			sim.AppSpec{Engine: "spark", Class: "randomwriter", Name: "SparkRandomWriter", SubmitS: 70, InputGB: 3, Executors: 4, Cores: 4, Partitions: 16},
			sim.AppSpec{Engine: "mapreduce", Class: "wordcount", Name: "MRWordCount", SubmitS: 100, InputGB: 3, Executors: 12, Partitions: 12},
			sim.AppSpec{Engine: "mapreduce", Class: "randomwriter", Name: "MRRandomWriter", SubmitS: 120, InputGB: 3, Executors: 12, Partitions: 12})
	}
	sc.Metrics.EveryNth = 1
	sc.Output.Phases = true
	dir, err := os.MkdirTemp("", "correlate-sim-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	res, err := sim.Run(sc, seed, dir, encoders)
	if err != nil {
		t.Fatal(err)
	}
	r := &simRun{res: res}
	lr, err := decodelogs.Paths([]string{filepath.Join(dir, sim.SparkDir), filepath.Join(dir, sim.MapReduceDir)}, decodelogs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	decodelogs.ByStart(lr.Apps)
	r.apps = lr.Apps
	r.frames = readFrames(t, filepath.Join(dir, sim.MetricsFile))
	r.phases = readPhases(t, filepath.Join(dir, sim.PhasesFile))
	simCache[key] = r
	return r
}

func openZstd(t testing.TB, path string) (*bufio.Reader, func()) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := codec.NewReader(codec.Zstd, path, f)
	if err != nil {
		t.Fatal(err)
	}
	return bufio.NewReader(r), func() { r.Close(); f.Close() }
}

func readFrames(t testing.TB, path string) *Frames {
	t.Helper()
	r, done := openZstd(t, path)
	defer done()
	fs := NewFrames(0, 0)
	if err := metrics.ReadCSV(r, path, func(s *model.Sample) error { fs.Add(s); return nil }); err != nil {
		t.Fatal(err)
	}
	fs.Finish()
	return fs
}

func readPhases(t testing.TB, path string) []phase {
	t.Helper()
	r, done := openZstd(t, path)
	defer done()
	sc := bufio.NewScanner(r)
	var out []phase
	for line := 1; sc.Scan(); line++ {
		if line == 1 {
			continue
		}
		f := strings.Split(sc.Text(), ",")
		if len(f) != 9 {
			t.Fatalf("%s:%d: %d fields", path, line, len(f))
		}
		n := func(s string) int64 {
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				t.Fatalf("%s:%d: %v", path, line, err)
			}
			return v
		}
		out = append(out, phase{app: f[0], stage: int32(n(f[1])), task: int32(n(f[2])), att: int32(n(f[3])),
			host: f[4], name: f[5], start: n(f[6]), end: n(f[7]), res: f[8]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// appTruth returns the truth of an application.
func (r *simRun) appTruth(id string) *sim.AppTruth {
	for i := range r.res.Truth.Apps {
		if r.res.Truth.Apps[i].ID == id {
			return &r.res.Truth.Apps[i]
		}
	}
	return nil
}
