package eventlog

import (
	"fmt"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// photonTaskEnd is a TaskEnd whose Spark metrics are as given (Photon leaves
// peak memory, shuffle write time and spill at 0) and whose accumulables
// carry Photon's SQL metrics: two operators' peaks, two shuffle-write
// times, a spill and two operators' times.
func photonTaskEnd(id int, peak, writeNs, spilled int64) string {
	acc := func(i int, name string, v int64) string {
		return fmt.Sprintf(`{"ID":%d,"Name":%q,"Update":%d,"Value":%d,"Internal":true,"Count Failed Values":true,"Metadata":"sql"}`, i, name, v, v)
	}
	accums := strings.Join([]string{
		acc(1, "peak memory usage", 100<<20), acc(2, "peak memory usage", 300<<20),
		acc(3, "part of shuffle file write", 5_000_000), acc(4, "part of shuffle file write", 7_000_000),
		acc(5, "num bytes spilled to disk due to memory pressure", 1<<20),
		acc(6, "cumulative time", 2_000_000_000), acc(7, "cumulative time", 500_000_000),
		`{"ID":8,"Name":"internal.metrics.executorRunTime","Update":2600,"Value":2600,"Internal":true,"Count Failed Values":true}`,
	}, ",")
	return fmt.Sprintf(`{"Event":"SparkListenerTaskEnd","Stage ID":0,"Stage Attempt ID":0,"Task Type":"ResultTask","Task End Reason":{"Reason":"Success"},`+
		`"Task Info":{"Task ID":%d,"Index":%d,"Attempt":0,"Launch Time":1000,"Executor ID":"1","Host":"h1","Locality":"PROCESS_LOCAL","Speculative":false,"Getting Result Time":0,"Finish Time":3700,"Failed":false,"Killed":false,"Accumulables":[%s]},`+
		`"Task Metrics":{"Executor Run Time":2600,"Peak Execution Memory":%d,"Disk Bytes Spilled":%d,"Shuffle Write Metrics":{"Shuffle Bytes Written":10,"Shuffle Write Time":%d,"Shuffle Records Written":1}}}`+"\n",
		id, id, accums, peak, spilled, writeNs)
}

// environment is an EnvironmentUpdate with one Spark property.
func environment(key, value string) string {
	return fmt.Sprintf(`{"Event":"SparkListenerEnvironmentUpdate","Spark Properties":{%q:%q}}`+"\n", key, value)
}

// photonMetricsOf decodes log and returns its first task's metrics.
func photonMetricsOf(t *testing.T, log string) (*model.App, model.TaskMetrics) {
	t.Helper()
	a, err := Read("log", strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	var m model.TaskMetrics
	a.Stages[0].TaskMetrics(0, &m)
	return a, m
}

func TestPhotonMetrics(t *testing.T) {
	// A Photon runtime: the metrics Spark left at 0 come from Photon's.
	for _, env := range []string{
		environment("spark.databricks.clusterUsageTags.runtimeEngine", "PHOTON"),
		environment("spark.databricks.clusterUsageTags.sparkVersion", "13.3.x-photon-scala2.12"),
		`{"Event":"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart","executionId":0,"description":"q","details":"","physicalPlanDescription":"","sparkPlanInfo":{"nodeName":"PhotonResultStage","simpleString":"","children":[{"nodeName":"PhotonScan parquet","simpleString":"","children":[],"metadata":{},"metrics":[]}],"metadata":{},"metrics":[]},"time":1}` + "\n",
	} {
		a, m := photonMetricsOf(t, env+photonTaskEnd(0, 0, 0, 0))
		if m[model.PeakExecutionMemory] != 300<<20 || m[model.ShuffleWriteNanos] != 12_000_000 || m[model.DiskBytesSpilled] != 1<<20 {
			t.Errorf("%.60s: peak %d, write %d ns, spilled %d", env, m[model.PeakExecutionMemory], m[model.ShuffleWriteNanos], m[model.DiskBytesSpilled])
		}
		if !a.Platform.Photon || len(a.Platform.Evidence) != 1 || len(a.Quality.Notes) != 1 ||
			!strings.Contains(a.Quality.Notes[0].Text, `peakExecutionMemory from "peak memory usage" for 1`) ||
			!strings.Contains(a.Quality.Notes[0].Text, "Photon operators (\"cumulative time\"): 2.5 s") {
			t.Errorf("%.60s: platform %+v notes %v", env, a.Platform, a.Quality.Notes)
		}
	}
	// What Spark recorded is kept.
	_, m := photonMetricsOf(t, environment("spark.databricks.clusterUsageTags.runtimeEngine", "PHOTON")+photonTaskEnd(0, 7, 8, 9))
	if m[model.PeakExecutionMemory] != 7 || m[model.ShuffleWriteNanos] != 8 || m[model.DiskBytesSpilled] != 9 {
		t.Errorf("Spark's metrics replaced: %d %d %d", m[model.PeakExecutionMemory], m[model.ShuffleWriteNanos], m[model.DiskBytesSpilled])
	}
	// Photon without its metrics in the tasks: said.
	a, _ := photonMetricsOf(t, environment("spark.databricks.clusterUsageTags.runtimeEngine", "PHOTON")+
		`{"Event":"SparkListenerTaskEnd","Stage ID":0,"Stage Attempt ID":0,"Task Info":{"Task ID":1,"Launch Time":1,"Finish Time":2,"Accumulables":[]},"Task Metrics":{"Executor Run Time":1}}`+"\n")
	if !a.Platform.Photon || len(a.Quality.Notes) != 1 || !strings.Contains(a.Quality.Notes[0].Text, "no task carried Photon's SQL metrics") {
		t.Errorf("Photon without metrics: notes %v", a.Quality.Notes)
	}
	// Databricks without Photon writes some of the names for its own
	// operators: nothing is taken from them.
	a, m = photonMetricsOf(t, environment("spark.databricks.clusterUsageTags.runtimeEngine", "STANDARD")+photonTaskEnd(0, 0, 0, 0))
	if m[model.PeakExecutionMemory] != 0 || m[model.ShuffleWriteNanos] != 0 || a.Platform.Photon || len(a.Quality.Notes) != 0 {
		t.Errorf("not Photon: metrics %d %d, platform %+v, notes %v", m[model.PeakExecutionMemory], m[model.ShuffleWriteNanos], a.Platform, a.Quality.Notes)
	}
}

// BenchmarkDecodePhoton decodes 100,000 task ends carrying Photon's SQL
// metrics, on a Photon runtime (the metrics are read) and on a standard one
// (they are passed over): the cost of reading them.
func BenchmarkDecodePhoton(b *testing.B) {
	var tasks strings.Builder
	for i := range 100_000 {
		tasks.WriteString(photonTaskEnd(i, 0, 0, 0))
	}
	for _, engine := range []string{"PHOTON", "STANDARD"} {
		log := environment("spark.databricks.clusterUsageTags.runtimeEngine", engine) + tasks.String()
		b.Run(engine, func(b *testing.B) {
			b.SetBytes(int64(len(log)))
			b.ReportAllocs()
			cpu := sharedtest.ProcessCPU().Seconds()
			for b.Loop() {
				if a, err := Read("log", strings.NewReader(log)); err != nil || a.Platform.Photon != (engine == "PHOTON") {
					b.Fatal(err, a.Platform)
				}
			}
			b.ReportMetric(float64(len(log))*float64(b.N)/(sharedtest.ProcessCPU().Seconds()-cpu)/1e6, "MB/cpu-s")
		})
	}
}
