package mapreduce

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
)

// TestRumenModelMemory measures what the model of the largest trace (19
// jobs, 13,041 attempts) keeps on the heap after reading: the readers' maps
// are transient, so a task attempt should cost a few hundred bytes at most.
func TestRumenModelMemory(t *testing.T) {
	data := readLog(t, benchRumen)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var apps []*model.App
	if err := ReadRumen(bytes.NewReader(data), "19-jobs", func(a *model.App) error { apps = append(apps, a); return nil }); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	n := 0
	for _, a := range apps {
		n += a.NumTasks()
	}
	per := float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(n)
	t.Logf("%d attempts, %.0f bytes retained per attempt (input %d bytes)", n, per, len(data))
	if per > 600 {
		t.Errorf("%.0f bytes per attempt retained, want at most 600", per)
	}
	runtime.KeepAlive(apps)
	runtime.KeepAlive(data)
}
