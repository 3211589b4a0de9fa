package mapreduce

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
)

// Benchmarks read the real logs (skipping where shared data is absent) from
// memory, so they measure decoding, not disk or gunzip. They report MB/s of
// uncompressed input and attempts/s.

const (
	benchJhist  = "hadoop/hadoop-mapreduce-project/hadoop-mapreduce-client/hadoop-mapreduce-client-hs/src/test/resources/job_1329348432655_0001-1329348443227-user-Sleep+job-1329348468601-10-1-SUCCEEDED-default.jhist"
	benchLegacy = "hadoop-mapreduce-0.21/src/test/tools/data/rumen/small-trace-test/sample-job-tracker-logs.gz"
	benchRumen  = "hadoop-mapreduce-0.21/src/contrib/mumak/src/test/data/19-jobs.trace.json.gz"
	benchConf   = "hadoop/hadoop-mapreduce-project/hadoop-mapreduce-client/hadoop-mapreduce-client-hs/src/test/resources/job_1329348432655_0001_conf.xml"
)

func reportAttempts(b *testing.B, attempts int) {
	b.ReportMetric(float64(attempts)*float64(b.N)/b.Elapsed().Seconds(), "attempts/s")
}

func benchJhistData(b *testing.B, data []byte) {
	app, err := ReadJhist(bytes.NewReader(data), "bench")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := ReadJhist(bytes.NewReader(data), "bench"); err != nil {
			b.Fatal(err)
		}
	}
	reportAttempts(b, app.NumTasks())
}

func BenchmarkReadJhist(b *testing.B) {
	benchJhistData(b, readLog(b, benchJhist))
}

func BenchmarkReadJhistBinary(b *testing.B) {
	_, _, stream := encodeBinary(b, readLog(b, benchJhist))
	benchJhistData(b, stream)
}

func BenchmarkReadJhistContainerSnappy(b *testing.B) {
	schema, natives, _ := encodeBinary(b, readLog(b, benchJhist))
	benchJhistData(b, encodeContainer(b, schema, natives, "snappy"))
}

func BenchmarkReadLegacy(b *testing.B) {
	data := readLog(b, benchLegacy)
	apps, err := ReadLegacy(bytes.NewReader(data), "bench")
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for _, a := range apps {
		n += a.NumTasks()
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := ReadLegacy(bytes.NewReader(data), "bench"); err != nil {
			b.Fatal(err)
		}
	}
	reportAttempts(b, n)
}

func BenchmarkReadRumen(b *testing.B) {
	data := readLog(b, benchRumen)
	n := 0
	if err := ReadRumen(bytes.NewReader(data), "bench", func(a *model.App) error { n += a.NumTasks(); return nil }); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := ReadRumen(bytes.NewReader(data), "bench", func(*model.App) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
	reportAttempts(b, n)
}

// BenchmarkRumenEncodingJSON is the peer: encoding/json's streaming Decoder
// into typed LoggedJob structs holding only the fields ReadRumen uses,
// without building a model.
func BenchmarkRumenEncodingJSON(b *testing.B) {
	data := readLog(b, benchRumen)
	type attempt struct {
		AttemptID, HostName, Result         string
		StartTime, FinishTime               int64
		ShuffleFinished, SortFinished       int64
		HdfsBytesRead, HdfsBytesWritten     int64
		FileBytesRead, FileBytesWritten     int64
		MapInputRecords, MapOutputRecords   int64
		MapOutputBytes, ReduceInputRecords  int64
		ReduceOutputRecords, SpilledRecords int64
		ReduceShuffleBytes                  int64
		Location                            struct{ Layers []string }
		ResourceUsageMetrics                map[string]int64
	}
	type task struct {
		TaskID, TaskType, TaskStatus string
		StartTime, FinishTime        int64
		PreferredLocations           []struct{ Layers []string }
		Attempts                     []attempt
	}
	type job struct {
		JobID, User, JobName, Outcome, Queue, Priority string
		SubmitTime, LaunchTime, FinishTime             int64
		TotalMaps, TotalReduces                        int64
		MapTasks, ReduceTasks, OtherTasks              []task
		JobProperties                                  map[string]string
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		dec := json.NewDecoder(bytes.NewReader(data))
		for {
			var j job
			if err := dec.Decode(&j); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
	reportAttempts(b, 13041)
}

func BenchmarkReadConf(b *testing.B) {
	data := readLog(b, benchConf)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadConf(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}
