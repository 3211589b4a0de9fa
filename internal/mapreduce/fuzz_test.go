package mapreduce

import (
	"bytes"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
)

// The fuzz targets require only that the decoders never panic and that
// what they return is consistent: every task points at an existing host,
// rack, reason and executor.

func checkApp(t *testing.T, app *model.App) {
	t.Helper()
	if app == nil {
		return
	}
	for _, st := range app.Stages {
		for i := range st.Tasks {
			tk := &st.Tasks[i]
			if int(tk.Host) >= len(app.Hosts) || int(tk.Rack) >= len(app.Hosts) ||
				int(tk.Reason) >= len(app.Reasons) || (len(app.Executors) > 0 && int(tk.Executor) >= len(app.Executors)) {
				t.Fatalf("task %+v points outside hosts %d reasons %d executors %d",
					tk, len(app.Hosts), len(app.Reasons), len(app.Executors))
			}
			var m model.TaskMetrics
			st.TaskMetrics(i, &m)
		}
	}
}

const seedJhist = `Avro-Json
{"type":"record","name":"Event","namespace":"org.apache.hadoop.mapreduce.jobhistory","fields":[]}
{"type":"JOB_SUBMITTED","event":{"org.apache.hadoop.mapreduce.jobhistory.JobSubmitted":{"jobid":"job_1_0001","jobName":"j","userName":"u","submitTime":5,"jobQueueName":"q","workflowId":{"string":"w"}}}}
{"type":"TASK_STARTED","event":{"org.apache.hadoop.mapreduce.jobhistory.TaskStarted":{"taskid":"task_1_0001_m_000000","taskType":"MAP","startTime":10,"splitLocations":"h1,h2"}}}
{"type":"MAP_ATTEMPT_STARTED","event":{"org.apache.hadoop.mapreduce.jobhistory.TaskAttemptStarted":{"taskid":"task_1_0001_m_000000","taskType":"MAP","attemptId":"attempt_1_0001_m_000000_0","startTime":11,"trackerName":"h1","httpPort":80,"locality":{"string":"NODE_LOCAL"},"avataar":{"string":"SPECULATIVE"}}}}
{"type":"MAP_ATTEMPT_FAILED","event":{"org.apache.hadoop.mapreduce.jobhistory.TaskAttemptUnsuccessfulCompletion":{"taskid":"task_1_0001_m_000000","taskType":"MAP","attemptId":"attempt_1_0001_m_000000_0","finishTime":20,"hostname":"h1","port":1,"rackname":"/r","status":"FAILED","error":"boom","counters":{"org.apache.hadoop.mapreduce.jobhistory.JhCounters":{"name":"C","groups":[{"name":"org.apache.hadoop.mapreduce.TaskCounter","displayName":"x","counts":[{"name":"CPU_MILLISECONDS","displayName":"c","value":7}]}]}}}}}
{"type":"JOB_FAILED","event":{"org.apache.hadoop.mapreduce.jobhistory.JobUnsuccessfulCompletion":{"jobid":"job_1_0001","finishTime":30,"finishedMaps":0,"finishedReduces":0,"jobStatus":"FAILED","diagnostics":{"string":"d"}}}}
`

func FuzzReadJhist(f *testing.F) {
	f.Add([]byte(seedJhist))
	f.Add([]byte("Avro-Binary\n\"long\"\n\x02\x04"))
	f.Add([]byte("Obj\x01\x00"))
	f.Add([]byte("Avro-Json\n{}\n{\"type\":\"X\"}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		app, err := ReadJhist(bytes.NewReader(data), "fuzz.jhist")
		if err == nil {
			checkApp(t, app)
		}
	})
}

// FuzzAvroBinary feeds arbitrary datums to the Avro-Binary form with the
// job history's own Event schema shape.
func FuzzAvroBinary(f *testing.F) {
	schema := `{"type":"record","name":"Event","namespace":"org.apache.hadoop.mapreduce.jobhistory","fields":[` +
		`{"name":"type","type":{"type":"enum","name":"EventType","symbols":["MAP_ATTEMPT_STARTED","JOB_SUBMITTED"]}},` +
		`{"name":"event","type":[{"type":"record","name":"TaskAttemptStarted","fields":[` +
		`{"name":"attemptId","type":"string"},{"name":"startTime","type":"long"},{"name":"trackerName","type":["null","string"]},` +
		`{"name":"m","type":{"type":"map","values":{"type":"array","items":"double"}}}]},` +
		`{"type":"record","name":"JobSubmitted","fields":[{"name":"jobid","type":"string"},{"name":"b","type":"bytes"},{"name":"f","type":{"type":"fixed","name":"F","size":2}}]}]}]}`
	f.Add([]byte("\x00\x00\x30attempt_1_0001_m_000000_0\x14\x02\x04h1\x00"))
	f.Add([]byte("\x02\x02\x10job_1_01\x02\xff\x00\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		in := append([]byte("Avro-Binary\n"+schema+"\n"), data...)
		app, err := ReadJhist(bytes.NewReader(in), "fuzz.jhist")
		if err != nil {
			t.Fatal(err)
		}
		checkApp(t, app)
	})
}

const seedLegacy = `Meta VERSION="1" .
Job JOBID="job_1_0001" JOBNAME="n\.x" USER="u" SUBMIT_TIME="1" .
Task TASKID="task_1_0001_m_000000" TASK_TYPE="MAP" START_TIME="2" SPLITS="/r/h1,/r/h2" .
MapAttempt TASK_TYPE="MAP" TASKID="task_1_0001_m_000000" TASK_ATTEMPT_ID="attempt_1_0001_m_000000_0" START_TIME="3" TRACKER_NAME="tracker_h1:localhost/127\.0\.0\.1:1" HTTP_PORT="50060" .
MapAttempt TASK_TYPE="MAP" TASKID="task_1_0001_m_000000" TASK_ATTEMPT_ID="attempt_1_0001_m_000000_0" TASK_STATUS="FAILED" FINISH_TIME="9" HOSTNAME="h1" ERROR="x
  at y
" .
ReduceAttempt TASK_TYPE="REDUCE" TASKID="task_1_0001_r_000000" TASK_ATTEMPT_ID="attempt_1_0001_r_000000_0" TASK_STATUS="SUCCESS" SHUFFLE_FINISHED="5" SORT_FINISHED="6" FINISH_TIME="9" HOSTNAME="/r/h2" COUNTERS="{(FileSystemCounters)(FileSystemCounters)[(HDFS_BYTES_WRITTEN)(HDFS_BYTES_WRITTEN)(12)]}{(org\.apache\.hadoop\.mapred\.Task$Counter)(Map-Reduce Framework)[(PHYSICAL_MEMORY_BYTES)(Physical memory \\(bytes\\) snapshot)(100)]}" .
Job JOBID="job_1_0001" FINISH_TIME="10" JOB_STATUS="SUCCESS" .
`

func FuzzReadLegacy(f *testing.F) {
	f.Add([]byte(seedLegacy))
	f.Add([]byte("\f!!FILE=x_job_1_0001_conf.xml!!\n<configuration><property><name>a</name><value>b</value></property></configuration>\n"))
	f.Add([]byte(`Job JOBID="job_1_1" COUNTERS="File Systems.HDFS bytes read:5,Map-Reduce Framework.Map input records:3"`))
	f.Fuzz(func(t *testing.T, data []byte) {
		apps, _, err := ReadLegacyStats(bytes.NewReader(data), "fuzz")
		if err == nil {
			for _, a := range apps {
				checkApp(t, a)
			}
		}
	})
}

const seedRumen = `{"jobID":"job_1_0001","user":"u","submitTime":1,"launchTime":2,"finishTime":9,"outcome":"SUCCESS","totalMaps":1,
 "mapTasks":[{"taskID":"task_1_0001_m_000000","taskType":"MAP","startTime":2,"finishTime":8,"preferredLocations":[{"layers":["r","h\\.1"]}],
  "attempts":[{"attemptID":"attempt_1_0001_m_000000_0","hostName":"/r/h\\.1","startTime":3,"finishTime":8,"result":"SUCCESS","hdfsBytesRead":-1,"mapInputRecords":5,
   "resourceUsageMetrics":{"cumulativeCpuUsage":40}}]}],"reduceTasks":[],"otherTasks":[],"jobProperties":{"mapreduce.job.queuename":"q"}}
{"jobID":"job_1_0002","mapTasks":[{"taskID":"task_1_0002_m_000000","attempts":[{"attemptID":"attempt_1_0002_m_000000_0","hostName":null,"result":"KILLED"}]}]}`

func FuzzReadRumen(f *testing.F) {
	f.Add([]byte(seedRumen))
	f.Add([]byte(`{"jobID":"x","mapTasks":[{"attempts":[{"attemptID":"`))
	f.Add([]byte(`{} x {"a":"\"}"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = ReadRumen(bytes.NewReader(data), "fuzz", func(a *model.App) error {
			checkApp(t, a)
			return nil
		})
	})
}

func FuzzReadConf(f *testing.F) {
	f.Add([]byte(`<?xml version="1.0"?><configuration><property><name>a</name><value>b</value></property></configuration>`))
	f.Add([]byte(`<configuration><property><name>a</name>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = ReadConf(bytes.NewReader(data))
	})
}

func TestAvroEmptyDatumsDoNotHang(t *testing.T) {
	app, err := ReadJhist(bytes.NewReader([]byte("Avro-Binary\n\"null\"\nxyz")), "x")
	if err != nil || app.Quality.BadLines != 1 {
		t.Fatalf("err %v quality %+v", err, app.Quality)
	}
}
