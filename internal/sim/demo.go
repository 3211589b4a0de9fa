package sim

// This file holds the first, hand-made demo log generator. clusterlens demo
// now simulates the "demo" scenario; WriteDemoSparkLog stays because the
// summary command's tests check its output by hand.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
)

// DemoApp describes the demo application's ground truth.
type DemoApp struct {
	ID          string
	Hosts       []string
	Tasks       int // task attempts written
	Failed      int // failed task attempts
	SkewedStage int // the stage whose partition 0 is 20x larger
}

type ev map[string]any

// WriteDemoSparkLog writes a small Spark 3.5 event log, deterministic by seed:
// 4 executors on 4 hosts, 2 jobs, 3 stages of 48 tasks, one stage skewed
// (one task 20x the median), one host slower than the others, and one failed
// task attempt that is retried.
func WriteDemoSparkLog(w io.Writer, seed uint64) (DemoApp, error) {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	demo := DemoApp{ID: "app-20260101000000-0001", SkewedStage: 1,
		Hosts: []string{"node-1.demo", "node-2.demo", "node-3.demo", "node-4.demo"}}
	emit := func(e ev) { _ = enc.Encode(e) }
	t0 := int64(1767225600000) // 2026-01-01T00:00:00Z
	emit(ev{"Event": "SparkListenerLogStart", "Spark Version": "3.5.1"})
	emit(ev{"Event": "SparkListenerEnvironmentUpdate",
		"JVM Information":    ev{"Java Version": "17.0.10 (Eclipse Adoptium)"},
		"Spark Properties":   ev{"spark.app.name": "clusterlens-demo", "spark.executor.cores": "4", "spark.executor.memory": "4g", "spark.master": "yarn"},
		"Hadoop Properties":  ev{},
		"System Properties":  ev{"user.timezone": "UTC"},
		"Metrics Properties": ev{},
		"Classpath Entries":  ev{}})
	emit(ev{"Event": "SparkListenerApplicationStart", "App Name": "clusterlens-demo", "App ID": demo.ID,
		"Timestamp": t0, "User": "demo"})
	for i, h := range demo.Hosts {
		emit(ev{"Event": "SparkListenerExecutorAdded", "Timestamp": t0 + 2000 + int64(i)*100,
			"Executor ID": fmt.Sprint(i + 1), "Executor Info": ev{"Host": h, "Total Cores": 4,
				"Log Urls": ev{}, "Attributes": ev{}, "Resources": ev{}, "Resource Profile Identifier": 0}})
	}
	now := t0 + 3000
	taskID := 0
	slowHost := 3 // node-4 is 1.6x slower
	type stageSpec struct {
		id, job   int
		name      string
		parents   []int
		baseMs    float64
		shuffleIn bool
	}
	jobs := [][]stageSpec{
		{{0, 0, "textFile at Demo.scala:12", nil, 800, false}, {1, 0, "reduceByKey at Demo.scala:14", []int{0}, 600, true}},
		{{2, 1, "count at Demo.scala:20", nil, 400, false}},
	}
	for j, stages := range jobs {
		var infos []ev
		var ids []int
		for _, s := range stages {
			infos = append(infos, stageInfo(s.id, s.name, s.parents, 48, 0, 0, ""))
			ids = append(ids, s.id)
		}
		emit(ev{"Event": "SparkListenerJobStart", "Job ID": j, "Submission Time": now, "Stage Infos": infos,
			"Stage IDs": ids, "Properties": ev{"spark.scheduler.pool": "default"}})
		for _, s := range stages {
			submitted := now
			emit(ev{"Event": "SparkListenerStageSubmitted", "Stage Info": stageInfo(s.id, s.name, s.parents, 48, submitted, 0, ""),
				"Properties": ev{}})
			slots := make([]int64, 16) // 4 hosts x 4 cores: time each slot frees up
			for k := range slots {
				slots[k] = submitted + 10
			}
			end := submitted
			for idx := 0; idx < 48; idx++ {
				slot := 0
				for k := range slots {
					if slots[k] < slots[slot] {
						slot = k
					}
				}
				host := slot / 4
				dur := s.baseMs * math.Exp(rng.NormFloat64()*0.15)
				if host == slowHost {
					dur *= 1.6
				}
				inBytes := int64(64<<20) + rng.Int64N(8<<20)
				if s.id == demo.SkewedStage && idx == 0 {
					dur *= 20
					inBytes *= 20
				}
				failAttempt := s.id == 2 && idx == 7
				for attempt := 0; ; attempt++ {
					launch := slots[slot]
					finish := launch + int64(dur)
					failed := failAttempt && attempt == 0
					if failed {
						finish = launch + int64(dur/3)
					}
					info := ev{"Task ID": taskID, "Index": idx, "Attempt": attempt, "Partition ID": idx,
						"Launch Time": launch, "Executor ID": fmt.Sprint(host + 1), "Host": demo.Hosts[host],
						"Locality": "NODE_LOCAL", "Speculative": false, "Getting Result Time": 0}
					emit(ev{"Event": "SparkListenerTaskStart", "Stage ID": s.id, "Stage Attempt ID": 0, "Task Info": info})
					info["Finish Time"], info["Failed"], info["Killed"] = finish, failed, false
					info["Accumulables"] = []ev{}
					reason := ev{"Reason": "Success"}
					if failed {
						reason = ev{"Reason": "ExceptionFailure", "Class Name": "java.io.IOException",
							"Description": "Connection reset by peer", "Stack Trace": []ev{},
							"Full Stack Trace": "java.io.IOException: Connection reset by peer\n\tat demo.Shuffle.fetch(Shuffle.scala:42)\n"}
					}
					metrics := taskMetrics(int64(dur), inBytes, s.shuffleIn, rng)
					emit(ev{"Event": "SparkListenerTaskEnd", "Stage ID": s.id, "Stage Attempt ID": 0, "Task Type": "ShuffleMapTask",
						"Task End Reason": reason, "Task Info": info, "Task Metrics": metrics})
					taskID++
					demo.Tasks++
					slots[slot] = finish + 5
					end = max(end, finish)
					if !failed {
						break
					}
					demo.Failed++
				}
			}
			emit(ev{"Event": "SparkListenerStageCompleted", "Stage Info": stageInfo(s.id, s.name, s.parents, 48, submitted, end, "")})
			now = end + 20
		}
		emit(ev{"Event": "SparkListenerJobEnd", "Job ID": j, "Completion Time": now, "Job Result": ev{"Result": "JobSucceeded"}})
		now += 500
	}
	emit(ev{"Event": "SparkListenerApplicationEnd", "Timestamp": now + 1000})
	return demo, bw.Flush()
}

func stageInfo(id int, name string, parents []int, tasks int, submitted, completed int64, failure string) ev {
	if parents == nil {
		parents = []int{}
	}
	e := ev{"Stage ID": id, "Stage Attempt ID": 0, "Stage Name": name, "Number of Tasks": tasks,
		"RDD Info": []ev{{"RDD ID": id * 2}}, "Parent IDs": parents, "Details": "demo." + name,
		"Accumulables": []ev{}, "Resource Profile Id": 0}
	if submitted > 0 {
		e["Submission Time"] = submitted
	}
	if completed > 0 {
		e["Completion Time"] = completed
	}
	if failure != "" {
		e["Failure Reason"] = failure
	}
	return e
}

func taskMetrics(durMs, inBytes int64, shuffleIn bool, rng *rand.Rand) ev {
	run := durMs - 20
	read := ev{"Remote Blocks Fetched": 0, "Local Blocks Fetched": 0, "Fetch Wait Time": 0,
		"Remote Bytes Read": 0, "Remote Bytes Read To Disk": 0, "Local Bytes Read": 0, "Total Records Read": 0}
	input := ev{"Bytes Read": inBytes, "Records Read": inBytes / 100}
	if shuffleIn {
		read["Remote Blocks Fetched"], read["Local Blocks Fetched"] = 36, 12
		read["Remote Bytes Read"], read["Local Bytes Read"] = inBytes*3/4, inBytes/4
		read["Fetch Wait Time"], read["Total Records Read"] = rng.Int64N(30), inBytes/100
		input = ev{"Bytes Read": 0, "Records Read": 0}
	}
	return ev{"Executor Deserialize Time": 12, "Executor Deserialize CPU Time": 9000000,
		"Executor Run Time": run, "Executor CPU Time": run * 800000, "Peak Execution Memory": 0,
		"Result Size": 2100, "JVM GC Time": run / 25, "Result Serialization Time": 1,
		"Memory Bytes Spilled": 0, "Disk Bytes Spilled": 0, "Shuffle Read Metrics": read,
		"Shuffle Write Metrics": ev{"Shuffle Bytes Written": inBytes / 8, "Shuffle Write Time": 2000000, "Shuffle Records Written": inBytes / 800},
		"Input Metrics":         input, "Output Metrics": ev{"Bytes Written": 0, "Records Written": 0}, "Updated Blocks": []ev{}}
}
