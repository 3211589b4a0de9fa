package mapreduce

import (
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
)

// genJob builds a random MapReduce job model through the same builder the
// readers use, from random history records: maps and reduces with retried,
// failed, killed and speculative attempts on a few racks, counters, phase
// times, optionally setup and cleanup attempts, a failed or unfinished job.
func genJob(r *rand.Rand) *model.App {
	b := newBuilder("gen")
	tail := fmt.Sprintf("%d_%04d", 1_400_000_000_000+r.Int64N(1e9), r.IntN(10000))
	b.app.ID, b.app.Name, b.app.User = "job_"+tail, "gen \"job\" ü", "user"+fmt.Sprint(r.IntN(3))
	b.app.Version = "Avro-Json"
	now := int64(1_500_000_000_000) + r.Int64N(1e6)
	b.submit, b.queue = now, []string{"default", "root.q"}[r.IntN(2)]
	if r.IntN(2) == 0 {
		b.priority = "NORMAL"
	}
	now += 1 + r.Int64N(1000)
	b.launch = now
	nm, nr := 1+r.IntN(8), r.IntN(3)
	b.declared[model.StageMap], b.declared[model.StageReduce] = int32(nm), int32(nr)
	hosts := []string{"h1.example", "h2.example", "h3.example", "h4.example"}
	racks := []string{"/rack-a", "/rack-b"}
	failTask := -1
	if r.IntN(4) == 0 {
		failTask = r.IntN(nm)
	}
	run := func(kind model.StageKind, letter string, n int) bool {
		ok := true
		for i := 0; i < n; i++ {
			start := now + r.Int64N(50)
			b.task(kind, int32(i), start, 0, "", "", "")
			attempts := 1 + r.IntN(3)
			if i == failTask && kind == model.StageMap {
				attempts = 2
			}
			var last int64
			succeeded := false
			for a := 0; a < attempts && !succeeded; a++ {
				id := fmt.Sprintf("attempt_%s_%s_%06d_%d", tail, letter, i, a)
				h := r.IntN(len(hosts))
				launch := start + 1 + int64(a)*100 + r.Int64N(20)
				b.attempt(&attemptRec{id: id, kind: kind, start: launch, host: hosts[h], port: int32(8042 + h),
					locality:    []model.Locality{model.NodeLocal, model.RackLocal, model.AnyLocality}[r.IntN(3)],
					speculative: a > 0 && r.IntN(3) == 0})
				end := attemptRec{id: id, kind: kind, finish: launch + 10 + r.Int64N(500), host: hosts[h],
					rack: racks[h%2], port: int32(8042 + h), hasStatus: true}
				switch {
				case i == failTask && kind == model.StageMap:
					end.status, end.errMsg = model.TaskFailed, "Error: java.lang.RuntimeException: boom\n\tat X.map(X.java:1)"
				case a+1 < attempts && r.IntN(2) == 0:
					end.status, end.errMsg = model.TaskKilled, "Container killed by the ApplicationMaster."
				case a+1 < attempts:
					end.status, end.errMsg = model.TaskFailed, "Error: lost"
				default:
					end.status = model.TaskSuccess
					succeeded = true
				}
				if end.status != model.TaskKilled || r.IntN(2) == 0 {
					c := &counters{seen: true}
					for _, m := range []model.Metric{model.HDFSBytesRead, model.HDFSBytesWritten, model.FileBytesRead,
						model.FileBytesWritten, model.SpilledRecords, model.CPUMillis, model.JVMGCTime,
						model.PhysicalMemoryBytes, model.VirtualMemoryBytes, model.CommittedHeapBytes} {
						c.m[m] = r.Int64N(1 << 32)
					}
					if kind == model.StageMap {
						c.m[model.MapInputRecords], c.m[model.MapOutputRecords] = r.Int64N(1e6), r.Int64N(1e6)
						c.m[model.MapOutputBytes] = r.Int64N(1 << 30)
						if nr > 0 {
							c.materialized = 1 + r.Int64N(1<<30)
						}
						if end.status == model.TaskSuccess {
							end.mapFinish = end.finish - 5
						}
					} else if kind == model.StageReduce {
						c.m[model.ReduceInputRecords], c.m[model.ReduceOutputRecords] = r.Int64N(1e6), r.Int64N(1e6)
						c.m[model.ReduceShuffleBytes] = r.Int64N(1 << 30)
						if end.status == model.TaskSuccess {
							end.shuffleFinish, end.sortFn = launch+5, launch+7
						}
					}
					end.ctr = c
				}
				b.attempt(&end)
				last = end.finish
			}
			switch {
			case succeeded:
				b.task(kind, int32(i), 0, last+1, "SUCCEEDED", "", "")
			case i == failTask && kind == model.StageMap:
				b.task(kind, int32(i), 0, last+1, "FAILED", "Task failed task_"+tail+"_m_000000", "")
				ok = false
			}
			now = max(now, last)
		}
		return ok
	}
	if r.IntN(3) == 0 {
		run(model.StageSetup, "s", 1)
	}
	ok := run(model.StageMap, "m", nm)
	if ok {
		run(model.StageReduce, "r", nr)
		if r.IntN(3) == 0 {
			run(model.StageCleanup, "c", 1)
		}
	}
	switch {
	case r.IntN(6) == 0: // still running
	case ok:
		b.finish, b.status, b.complete = now+10, "SUCCEEDED", true
	default:
		b.finish, b.status, b.complete, b.diagnostics = now+10, "FAILED", true, "Task failed, job failed"
	}
	return b.build()
}

// TestWriteJhistProperty: random job models survive WriteJhist then ReadJhist.
func TestWriteJhistProperty(t *testing.T) {
	for seed := uint64(0); seed < 300; seed++ {
		app := genJob(rand.New(rand.NewPCG(seed, 11)))
		back := rewriteJhist(t, app)
		back.Source = app.Source
		if d := diffJobs(app, back); d != "" {
			t.Fatalf("seed %d: round trip differs (-model +read):\n%s", seed, d)
		}
	}
}

// BenchmarkWriteJhist measures writing random job histories.
func BenchmarkWriteJhist(b *testing.B) {
	var apps []*model.App
	var size int64
	tasks := 0
	for seed := uint64(0); seed < 200; seed++ {
		app := genJob(rand.New(rand.NewPCG(seed, 11)))
		var c countingWriter
		if err := WriteJhist(&c, app); err != nil {
			b.Fatal(err)
		}
		size += c.n
		tasks += app.NumTasks()
		apps = append(apps, app)
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		for _, app := range apps {
			if err := WriteJhist(io.Discard, app); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(tasks)*float64(b.N)/b.Elapsed().Seconds(), "attempts/s")
}

type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// GenJob and DiffJobs serve the external tests.
func GenJob(seed uint64) *model.App { return genJob(rand.New(rand.NewPCG(seed, 11))) }

// DiffJobs compares two job models as the round-trip tests do.
func DiffJobs(a, b *model.App) string { return diffJobs(a, b) }
