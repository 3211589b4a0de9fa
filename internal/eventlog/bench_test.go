package eventlog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"testing"
	"time"
	"unsafe"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// realLog is the source of real task lines for the benchmark log: a Spark 3.0
// YARN application with 3411 tasks on 6 hosts, speculation and failures.
const realLog = "logs/spark-rapids-2021/tools/src/test/resources/spark-events-profiling/task_job_failure_eventlog_compressed.zstd"

var taskIDField = regexp.MustCompile(`"Task ID":(\d+)`)

// benchLog returns a Spark event log of at least size bytes, cached in the
// temp dir: the real log's header, then its task lines repeated with fresh
// task ids (as many stages of one long application), then its tail.
func benchLog(tb testing.TB, size int64) string {
	path := filepath.Join(os.TempDir(), fmt.Sprintf("clusterlens-bench-%dMB.log", size>>20))
	if st, err := os.Stat(path); err == nil && st.Size() >= size {
		return path
	}
	src := filepath.Join(sharedtest.Dir(tb, "logs"), realLog[len("logs/"):])
	r, err := openTest(src)
	if err != nil {
		tb.Fatal(err)
	}
	defer r.Close()
	var head, tasks, tail [][]byte
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		line := bytes.Clone(sc.Bytes())
		switch {
		case bytes.Contains(line, []byte(`"Event":"SparkListenerTask`)):
			tasks = append(tasks, line)
		case len(tasks) == 0:
			head = append(head, line)
		default:
			tail = append(tail, line)
		}
	}
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var n int64
	write := func(b []byte) {
		w.Write(b)
		w.WriteByte('\n')
		n += int64(len(b)) + 1
	}
	for _, l := range head {
		write(l)
	}
	var offset int64
	for n < size {
		for _, l := range tasks {
			write(taskIDField.ReplaceAllFunc(l, func(m []byte) []byte {
				id, _ := strconv.ParseInt(string(m[len(`"Task ID":`):]), 10, 64)
				return []byte(`"Task ID":` + strconv.FormatInt(id+offset, 10))
			}))
		}
		offset += 1 << 20
	}
	for _, l := range tail {
		write(l)
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	f.Close()
	if err := os.Rename(tmp, path); err != nil {
		tb.Fatal(err)
	}
	return path
}

// BenchmarkDecode measures decoding plus model building on a 256 MB log.
func BenchmarkDecode(b *testing.B) { benchDecode(b, benchLog(b, 256<<20), nil) }

// BenchmarkDecodeParallel is BenchmarkDecode on every core (-cpu): it
// reports the wall time over the CPU time (wall/cpu) beside the rate per
// CPU-second.
func BenchmarkDecodeParallel(b *testing.B) {
	benchDecode(b, benchLog(b, 256<<20), &Parallel{Workers: runtime.GOMAXPROCS(0) - 1})
}

// benchDecode decodes the log at path b.N times, in parallel with p, and
// checks it decoded without a bad line.
func benchDecode(b *testing.B, path string, p *Parallel) *model.App {
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	var app *model.App
	start, cpu := time.Now(), sharedtest.ProcessCPU().Seconds()
	for i := 0; i < b.N; i++ {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		d := NewDecoder()
		if p != nil && p.Workers > 0 {
			d.Parallel = p
		}
		err = d.Feed(path, f)
		f.Close()
		app = d.Apps()[0]
		if err != nil || app.Quality.BadLines != 0 {
			b.Fatalf("err=%v quality=%+v", err, app.Quality)
		}
	}
	secs := sharedtest.ProcessCPU().Seconds() - cpu
	b.ReportMetric(float64(app.NumTasks())*float64(b.N)/secs, "tasks/cpu-s")
	b.ReportMetric(float64(st.Size())*float64(b.N)/secs/1e6, "MB/cpu-s")
	b.ReportMetric(time.Since(start).Seconds()/secs, "wall/cpu")
	return app
}

// stdTaskEvent is what encoding/json must decode to obtain the same task
// fields the decoder reads: the fairest use of the standard library.
type stdTaskEvent struct {
	Event        string `json:"Event"`
	StageID      int64  `json:"Stage ID"`
	StageAttempt int64  `json:"Stage Attempt ID"`
	Reason       struct {
		Reason string `json:"Reason"`
	} `json:"Task End Reason"`
	Info struct {
		TaskID       int64  `json:"Task ID"`
		Index        int64  `json:"Index"`
		Attempt      int64  `json:"Attempt"`
		Launch       int64  `json:"Launch Time"`
		Executor     string `json:"Executor ID"`
		Host         string `json:"Host"`
		Locality     string `json:"Locality"`
		Speculative  bool   `json:"Speculative"`
		Finish       int64  `json:"Finish Time"`
		Failed       bool   `json:"Failed"`
		Killed       bool   `json:"Killed"`
		Accumulables []struct {
			ID       int64           `json:"ID"`
			Name     string          `json:"Name"`
			Update   json.RawMessage `json:"Update"`
			Value    json.RawMessage `json:"Value"`
			Internal bool            `json:"Internal"`
		} `json:"Accumulables"`
	} `json:"Task Info"`
	ExecMetrics map[string]int64 `json:"Task Executor Metrics"`
	Metrics     struct {
		DeserializeTime int64            `json:"Executor Deserialize Time"`
		DeserializeCPU  int64            `json:"Executor Deserialize CPU Time"`
		RunTime         int64            `json:"Executor Run Time"`
		CPUTime         int64            `json:"Executor CPU Time"`
		PeakMem         int64            `json:"Peak Execution Memory"`
		ResultSize      int64            `json:"Result Size"`
		GC              int64            `json:"JVM GC Time"`
		Serialization   int64            `json:"Result Serialization Time"`
		MemSpill        int64            `json:"Memory Bytes Spilled"`
		DiskSpill       int64            `json:"Disk Bytes Spilled"`
		ShuffleRead     map[string]int64 `json:"Shuffle Read Metrics"`
		ShuffleWrite    map[string]int64 `json:"Shuffle Write Metrics"`
		Input           map[string]int64 `json:"Input Metrics"`
		Output          map[string]int64 `json:"Output Metrics"`
	} `json:"Task Metrics"`
}

// BenchmarkDecodeEncodingJSON decodes the same file with encoding/json into
// typed structs (no model building): the baseline for the ratio.
func BenchmarkDecodeEncodingJSON(b *testing.B) {
	path := benchLog(b, 256<<20)
	st, _ := os.Stat(path)
	b.SetBytes(st.Size())
	b.ReportAllocs()
	cpu := sharedtest.ProcessCPU().Seconds()
	defer func() {
		b.ReportMetric(float64(st.Size())*float64(b.N)/(sharedtest.ProcessCPU().Seconds()-cpu)/1e6, "MB/cpu-s")
	}()
	for i := 0; i < b.N; i++ {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		br := bufio.NewReaderSize(f, 64<<10)
		var ev stdTaskEvent
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 1 {
				ev = stdTaskEvent{}
				if json.Unmarshal(line, &ev) != nil {
					b.Fatal("bad line")
				}
			}
			if err == io.EOF {
				break
			}
		}
		f.Close()
	}
}

// TestBytesPerTask checks the memory target: at most 300 bytes of live heap
// per task attempt once a log is read (the model kept, everything else freed).
// The measure does not depend on what ran before it: the heap is settled
// (liveHeap) on both sides, and a result below what the model's task
// records and metric arenas occupy by themselves fails as implausible.
func TestBytesPerTask(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 64 MB log")
	}
	path := benchLog(t, 64<<20)
	before := liveHeap()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	app, err := Read(path, f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	after := liveHeap()
	tasks := app.NumTasks()
	perTask := float64(int64(after)-int64(before)) / float64(tasks)
	var floor int
	for _, s := range app.Stages {
		floor += cap(s.Tasks)*int(unsafe.Sizeof(s.Tasks[0])) + s.Metrics.Len()
	}
	runtime.KeepAlive(app)
	minPerTask := float64(floor) / float64(tasks)
	t.Logf("%d task attempts, %.0f bytes of live heap each (their records and metrics alone: %.0f)", tasks, perTask, minPerTask)
	if tasks < 10000 || perTask < minPerTask {
		t.Fatalf("implausible measure: %d task attempts, %.0f bytes each, below the %.0f their records occupy", tasks, perTask, minPerTask)
	}
	if perTask > 300 {
		t.Errorf("%.0f bytes per task attempt, want <= 300", perTask)
	}
}

// liveHeap is the heap in use once garbage is collected: two collections,
// since sync.Pool keeps its objects (the codecs' pooled zstd decoders) in a
// victim cache through the first one. With one, objects pooled while the
// input was written are counted before a read and freed during it.
func liveHeap() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestWriteBenchLog writes the benchmark log of CLUSTERLENS_BENCH_LOG_MB
// megabytes for measurements outside go test (docs/PERFORMANCE.md), and
// prints its path. It does nothing unless the variable is set.
func TestWriteBenchLog(t *testing.T) {
	mb, _ := strconv.Atoi(os.Getenv("CLUSTERLENS_BENCH_LOG_MB"))
	if mb <= 0 {
		t.Skip("set CLUSTERLENS_BENCH_LOG_MB to write a benchmark log")
	}
	fmt.Println(benchLog(t, int64(mb)<<20))
}
