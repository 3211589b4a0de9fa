package diagnose

import (
	"strconv"
	"strings"

	"github.com/clusterlens/clusterlens/internal/model"
)

// Deployment is where a Spark application ran, as far as the advice is
// concerned: which settings exist and mean something there.
type Deployment string

// Deployments.
const (
	DeployLocal        Deployment = "local"         // local[N]: the driver's threads are the executor
	DeployLocalCluster Deployment = "local-cluster" // Spark's test cluster in one JVM host
	DeployStandalone   Deployment = "standalone"
	DeployYARN         Deployment = "yarn"
	DeployKubernetes   Deployment = "kubernetes"
	DeployMesos        Deployment = "mesos"
	DeployDatabricks   Deployment = "databricks"
	DeployEMR          Deployment = "emr" // Spark on YARN, the EMR way
	DeployUnknown      Deployment = "unknown"
)

// deployment tells where the application ran: the platform when it is a
// managed one, else spark.master, else the shape of the application id
// (local-…, app-… for standalone, application_… for YARN, spark-… for
// Kubernetes).
func (in *Input) deployment() Deployment {
	switch in.App.Platform.Name {
	case model.PlatformDatabricks:
		return DeployDatabricks
	case model.PlatformEMR:
		return DeployEMR
	}
	m, _ := in.App.Env.SparkProp("spark.master")
	switch {
	case strings.HasPrefix(m, "local-cluster"):
		return DeployLocalCluster
	case strings.HasPrefix(m, "local"):
		return DeployLocal
	case strings.HasPrefix(m, "spark://"):
		return DeployStandalone
	case strings.HasPrefix(m, "yarn"):
		return DeployYARN
	case strings.HasPrefix(m, "k8s://"):
		return DeployKubernetes
	case strings.HasPrefix(m, "mesos://"):
		return DeployMesos
	}
	id := in.App.ID
	switch {
	case strings.HasPrefix(id, "local-"):
		return DeployLocal
	case strings.HasPrefix(id, "app-"):
		return DeployStandalone
	case strings.HasPrefix(id, "application_"):
		return DeployYARN
	case strings.HasPrefix(id, "spark-"):
		return DeployKubernetes
	}
	return DeployUnknown
}

// onOneMachine reports whether the executors share the driver's machine
// (local mode or Spark's test cluster): cluster settings mean nothing there.
func (d Deployment) onOneMachine() bool { return d == DeployLocal || d == DeployLocalCluster }

// onYARN reports whether YARN runs the executors.
func (d Deployment) onYARN() bool { return d == DeployYARN || d == DeployEMR }

// interactive reports whether the application is an interactive session
// (spark-shell, pyspark, a notebook): the time between its jobs is a person
// thinking, not the driver working. An application a platform's job
// started (a Databricks job cluster, whose application is a "Databricks
// Shell" too, a Dataproc job) is not one: nobody sat at it.
func (in *Input) interactive() bool {
	if in.App.Platform.Cluster.Job != "" {
		return false
	}
	if _, ok := in.App.Env.SparkProp("spark.repl.class.uri"); ok {
		return true
	}
	name := strings.ToLower(in.App.Name)
	for _, n := range []string{"spark shell", "pysparkshell", "databricks shell", "sparkr", "zeppelin", "jupyter", "notebook"} {
		if strings.Contains(name, n) {
			return true
		}
	}
	return strings.HasPrefix(name, "livy-session")
}

// conf is a setting of the run: a Spark property, or a MapReduce job's
// configuration (with its Hadoop 1 name tried too).
func (in *Input) conf(key string) (string, bool) {
	if in.App.Engine == model.MapReduce {
		for _, k := range append([]string{key}, hadoop1Names[key]...) {
			for _, kv := range in.App.Conf {
				if kv[0] == k {
					return kv[1], true
				}
			}
		}
		return "", false
	}
	return in.App.Env.SparkProp(key)
}

// hadoop1Names are the Hadoop 1 names of the MapReduce settings the advice
// uses.
var hadoop1Names = map[string][]string{
	"mapreduce.job.reduce.slowstart.completedmaps":  {"mapred.reduce.slowstart.completed.maps"},
	"mapreduce.reduce.shuffle.parallelcopies":       {"mapred.reduce.parallel.copies"},
	"mapreduce.map.output.compress":                 {"mapred.compress.map.output"},
	"mapreduce.map.speculative":                     {"mapred.map.tasks.speculative.execution"},
	"mapreduce.reduce.speculative":                  {"mapred.reduce.tasks.speculative.execution"},
	"mapreduce.task.io.sort.mb":                     {"io.sort.mb"},
	"mapreduce.input.fileinputformat.split.minsize": {"mapred.min.split.size"},
	"mapreduce.job.reduces":                         {"mapred.reduce.tasks"},
	"mapreduce.job.ubertask.enable":                 {},
	"mapreduce.map.memory.mb":                       {},
	"mapreduce.reduce.memory.mb":                    {},
	"mapreduce.map.java.opts":                       {"mapred.child.java.opts"},
	"mapreduce.reduce.java.opts":                    {"mapred.child.java.opts"},
}

// settingsBuilder collects the settings a recommendation asks for, leaving
// out those the run already has: a recommendation never asks for what is
// set.
type settingsBuilder struct {
	in  *Input
	out []Setting
}

// want asks for key=value and reports whether it was needed (false: the run
// already had that value). Values compare as booleans, numbers or sizes
// when they parse as such.
func (b *settingsBuilder) want(key, value string) bool {
	cur, ok := b.in.conf(key)
	if ok && sameValue(cur, value) {
		return false
	}
	for _, s := range b.out {
		if s.Key == key {
			return true
		}
	}
	b.out = append(b.out, Setting{Key: key, Value: value, Current: cur})
	return true
}

// sameValue compares two setting values: case-insensitively for words,
// numerically for numbers, by bytes for sizes.
func sameValue(a, b string) bool {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	if strings.EqualFold(a, b) {
		return true
	}
	if x, err := strconv.ParseFloat(a, 64); err == nil {
		if y, err := strconv.ParseFloat(b, 64); err == nil {
			return x == y
		}
	}
	if x, err := drStringToBytes(a); err == nil {
		if y, err := drStringToBytes(b); err == nil {
			return x == y
		}
	}
	return false
}

// setNow is what the run has for key, or "unset".
func (in *Input) setNow(key string) string {
	if v, ok := in.conf(key); ok {
		return v
	}
	return "unset"
}

// boolConf reads a boolean setting with its default.
func (in *Input) boolConf(key string, def bool) bool {
	v, ok := in.conf(key)
	if !ok {
		return def
	}
	return strings.EqualFold(strings.TrimSpace(v), "true")
}

// aqeOn reports whether Spark SQL's adaptive execution was on: the
// application's setting, else its version's default (on from 3.2, absent
// before 3.0).
func (in *Input) aqeOn() bool {
	if v, ok := in.conf("spark.sql.adaptive.enabled"); ok {
		return strings.EqualFold(strings.TrimSpace(v), "true")
	}
	return sparkAtLeast(in.App.Version, 3, 2)
}

// aqeAdvice is the clause advising adaptive skew-join splitting for a
// SQL application of Spark 3.0 or later that ran without it ("" otherwise).
func aqeAdvice(in *Input) string {
	if len(in.App.SQL) == 0 || !sparkAtLeast(in.App.Version, 3, 0) {
		return ""
	}
	if !in.aqeOn() {
		return ", or let adaptive execution split skewed join partitions (spark.sql.adaptive.enabled=true, spark.sql.adaptive.skewJoin.enabled=true)"
	}
	if !in.boolConf("spark.sql.adaptive.skewJoin.enabled", true) {
		return ", or let adaptive execution split skewed join partitions (spark.sql.adaptive.skewJoin.enabled=true)"
	}
	return "; adaptive execution was on and did not split it (it splits only sort-merge join inputs over spark.sql.adaptive.skewJoin.skewedPartitionThresholdInBytes)"
}

// latencyBytesPerMs is the copy rate of one reduce under which its
// shuffle's time after the last map cannot have been copying (100 KiB/s: a
// disk or a network is a thousand times faster): clusterlens's.
const latencyBytesPerMs = 100 << 10 / 1000.0

// hadoop2 reports whether a MapReduce job ran on YARN (Hadoop 2 and
// later): a .jhist history, or a job id whose cluster part is an epoch in
// milliseconds (job_1329348432655_0001) rather than the JobTracker's start
// date (job_200904211745_0002).
func (in *Input) hadoop2() bool {
	if strings.HasPrefix(in.App.Version, "Avro") {
		return true
	}
	f := strings.Split(in.App.ID, "_")
	return len(f) >= 3 && len(f[1]) == 13
}
