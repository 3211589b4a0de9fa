package diagnose

import (
	"path/filepath"
	"testing"

	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// TestDrElephantOwnHistory runs the MapReduce heuristics on Dr. Elephant's
// own test history job_1526555215992_0001 (QuasiMonteCarlo, one map, one
// reduce, 1024 MiB containers, physical memory logged as 0). From the .jhist by hand: the map attempt
// ran 1526555651139 → 1526555653236 = 2097 ms; the reduce attempt started
// 1526555656049, shuffled until …8031 (1982 ms), sorted until …8048
// (17 ms) and finished at …8260 (2211 ms in all, 212 ms of reduce code).
// Shuffle ratio 2 × 1982 / 212 = 18 (integer division), sort 2 × 17 / 212
// = 0. With the defaults nothing is reported (one task, two seconds); with
// every limit at zero each heuristic reports and shows those numbers.
func TestDrElephantOwnHistory(t *testing.T) {
	dir := filepath.Join(sharedtest.Dir(t, "logs"), "dr-elephant/test/resources/history/done/2018/05/17/000000")
	res, err := decodelogs.Paths([]string{filepath.Join(dir, "job_1526555215992_0001-1526555642677-user-QuasiMonteCarlo-1526555658299-1-1-SUCCEEDED-default-1526555648931.jhist")}, decodelogs.Options{Workers: 1})
	if err != nil || len(res.Apps) != 1 {
		t.Fatalf("load: %v", err)
	}
	app := res.Apps[0]
	for _, id := range drElephantDetectors {
		if sev, f := drRun(t, app, id, nil); sev != None {
			t.Errorf("%s: %v %s", id, sev, f.Summary)
		}
	}
	zero := Limits{}
	_, f := drRun(t, app, "drelephant-shuffle-sort", DrElephantShuffleSortParams{RuntimeRatio: zero, RuntimeMinutes: zero})
	for name, want := range map[string]float64{"avgShuffleMs": 1982, "avgSortMs": 17, "avgCodeMs": 212, "shuffleRatio": 18, "sortRatio": 0} {
		if got := evidence(t, f, name); got != want {
			t.Errorf("shuffle-sort %s = %v, want %v", name, got, want)
		}
	}
	_, f = drRun(t, app, "drelephant-mapper-time", DrElephantTimeParams{ShortRuntimeMinutes: Limits{1e9, 1e9, 1e9, 1e9}, NumTasks: zero, LongRuntimeMinutes: zero})
	if got := evidence(t, f, "avgRuntimeMs"); got != 2097 {
		t.Errorf("mapper time avgRuntimeMs = %v, want 2097", got)
	}
	// The history logs PHYSICAL_MEMORY_BYTES as 0 for every task: memory is
	// not graded even with every limit met; the container size is read.
	if sev, _ := drRun(t, app, "drelephant-reducer-memory", DrElephantMemoryParams{MemoryRatio: Limits{1, 1, 1, 1}, ContainerMemory: zero, ContainerMemoryDefaultMB: 2048}); sev != None {
		t.Errorf("reducer memory graded without a memory counter: %v", sev)
	}
	if mb, ok := drContainerMemoryMB(app, "mapreduce.reduce.memory.mb"); !ok || mb != 1024 {
		t.Errorf("mapreduce.reduce.memory.mb = %d %v, want 1024", mb, ok)
	}
}
