package diagnose

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/clusterlens/clusterlens/internal/model"
)

// DrElephantSparkConfigParams tune Dr. Elephant's Spark Configuration
// heuristic (spark/heuristics/ConfigurationHeuristic.scala); the defaults
// are the object's and its Evaluator's (which it marks as experimental).
type DrElephantSparkConfigParams struct {
	// Serializer is the recommended spark.serializer
	// (serializer_if_non_null_recommendation); another one, or none, is
	// moderate.
	Serializer string
	// Memory grades spark.executor.memory and spark.driver.memory in bytes
	// (10, 15, 20, 25 GiB).
	Memory Limits
	// Cores grades spark.executor.cores and spark.driver.cores (4, 6, 8, 10).
	Cores Limits
	// OverheadMemory grades spark.yarn.executor.memoryOverhead and
	// spark.yarn.driver.memoryOverhead in bytes
	// (spark.overheadMemory.thresholds.key: 2, 4, 6, 8 GiB).
	OverheadMemory Limits
	// MinExecutors grades spark.dynamicAllocation.minExecutors: more than
	// THRESHOLD_MIN_EXECUTORS (1) is critical, so all four limits are 2.
	MinExecutors Limits
	// MaxExecutors grades spark.dynamicAllocation.maxExecutors: more than
	// THRESHOLD_MAX_EXECUTORS (900) is critical, so all four limits are 901.
	MaxExecutors Limits
}

// DefaultDrElephantSparkConfigParams are ConfigurationHeuristic's defaults.
var DefaultDrElephantSparkConfigParams = DrElephantSparkConfigParams{
	Serializer:     "org.apache.spark.serializer.KryoSerializer",
	Memory:         Limits{10 << 30, 15 << 30, 20 << 30, 25 << 30},
	Cores:          Limits{4, 6, 8, 10},
	OverheadMemory: Limits{2 << 30, 4 << 30, 6 << 30, 8 << 30},
	MinExecutors:   Limits{2, 2, 2, 2},
	MaxExecutors:   Limits{901, 901, 901, 901},
}

func init() {
	mustRegister(Func[DrElephantSparkConfigParams]{
		ID:       "drelephant-spark-configuration",
		Heading:  "Spark configuration (Dr. Elephant)",
		Cite:     drSource + "app/com/linkedin/drelephant/spark/heuristics/ConfigurationHeuristic.scala",
		Defaults: DefaultDrElephantSparkConfigParams,
		Fn:       drSparkConfig,
	})
}

// drConfigCheck is one graded setting.
type drConfigCheck struct {
	key, name, unit string
	value           int64
	limits          Limits
}

// drSparkConfig is ConfigurationHeuristic's Evaluator (app/com/linkedin/drelephant/spark/heuristics/ConfigurationHeuristic.scala): the serializer
// (moderate unless the recommended one), the external shuffle service
// (moderate when off, severe when off under dynamic allocation), memory,
// cores, memory overhead and dynamic-allocation bounds graded, and "*" in
// spark.yarn.secondary.jars (critical); the severity is the worst. An unset
// or unreadable setting counts as 0, as Dr. Elephant's getOrElse(0) (where
// Dr. Elephant would throw on an unreadable overhead). The overhead, a
// number of MiB when it ends in a digit, goes through Dr. Elephant's
// bytesToString and back, rounding included.
func drSparkConfig(in *Input, p DrElephantSparkConfigParams) []Finding {
	if !in.spark() || !in.App.Env.Seen {
		return nil
	}
	dep := in.deployment()
	prop := in.App.Env.SparkProp
	if dep.onOneMachine() {
		// In local mode the driver is the executor: spark.executor.* and
		// the cluster's settings (YARN overheads, dynamic allocation, the
		// shuffle service) do nothing, and the driver's memory is the
		// executors' heap.
		prop = func(k string) (string, bool) {
			if k == "spark.serializer" {
				return in.App.Env.SparkProp(k)
			}
			return "", false
		}
	}
	fs := configFindings(prop, p, in.appScope())
	for i := range fs {
		fs[i] = configAdvice(in, dep, fs[i], p)
		if in.databricks() && p.Memory.Ascending(evidenceValue(fs[i], "executorMemoryBytes")) > None {
			fs[i].Recommendation += " " + databricksMemory(in.App.Platform.Cluster)
			fs[i].Evidence = append(fs[i].Evidence, fact("platformSetsExecutorMemory", 1, "flag"))
		}
	}
	return slices.DeleteFunc(fs, func(f Finding) bool { return f.Recommendation == "" })
}

// configAdvice rebuilds a configuration finding's summary and advice from
// the checks that failed on this run, for its deployment: Dr. Elephant's
// one fixed sentence advised what the run already had (a Kryo serializer,
// the shuffle service) and fewer cores than it called low. Its checks stay
// the rule (RuleSeverity); without a measured cost the finding is advice.
func configAdvice(in *Input, dep Deployment, f Finding, p DrElephantSparkConfigParams) Finding {
	b := &settingsBuilder{in: in}
	var why, advice []string
	flag := func(name string) bool { return evidenceValue(f, name) == 1 }
	// Kryo speeds up the serialization of RDD records shuffled or cached;
	// DataFrames and SQL use their own encoders.
	if !flag("kryoSerializer") && in.rddShuffleBytes() >= kryoMinBytes {
		why = append(why, "the Java serializer shuffled "+bytesText(float64(in.rddShuffleBytes()))+" of RDD records")
		if b.want("spark.serializer", p.Serializer) {
			advice = append(advice, "serialize RDD records with Kryo (spark.serializer="+p.Serializer+")")
		}
	}
	if flag("dynamicAllocationEnabled") && !flag("shuffleServiceEnabled") && !dep.onOneMachine() && dep != DeployDatabricks {
		why = append(why, "dynamic allocation runs without the external shuffle service: removed executors take their shuffle files with them")
		if dep == DeployKubernetes {
			if b.want("spark.dynamicAllocation.shuffleTracking.enabled", "true") {
				advice = append(advice, "keep executors holding shuffle data (spark.dynamicAllocation.shuffleTracking.enabled=true; Kubernetes has no external shuffle service)")
			}
		} else if b.want("spark.shuffle.service.enabled", "true") {
			advice = append(advice, "enable the external shuffle service (spark.shuffle.service.enabled=true, with the service on every node)")
		}
	}
	if dep != DeployDatabricks {
		for _, c := range []struct{ name, key, what string }{
			{"executorMemoryBytes", "spark.executor.memory", "executor heaps this large spend long in garbage-collection pauses: prefer more executors with less memory each unless a task needs it"},
			{"driverMemoryBytes", "spark.driver.memory", "a driver this large is needed only for large collect()s or broadcasts"},
			{"executorCores", "spark.executor.cores", "this many tasks share one heap and one node's disks: 4 or 5 per executor is the usual ceiling"},
			{"executorMemoryOverheadBytes", "spark.yarn.executor.memoryOverhead", "this much off-heap memory per executor is more than the JVM and Python workers usually need"},
		} {
			v := evidenceValue(f, c.name)
			lim := p.Memory
			switch c.name {
			case "executorCores":
				lim = p.Cores
			case "executorMemoryOverheadBytes":
				lim = p.OverheadMemory
			}
			if lim.Ascending(v) >= Moderate {
				val := strconv.FormatFloat(v, 'f', 0, 64)
				if strings.HasSuffix(c.name, "Bytes") {
					val = drBytes(int64(v))
				}
				why = append(why, fmt.Sprintf("%s is %s", c.key, val))
				advice = append(advice, c.what)
			}
		}
	}
	if evidenceValue(f, "dynamicMinExecutors") > 1 || evidenceValue(f, "dynamicMaxExecutors") > 900 {
		why = append(why, "dynamic allocation's bounds are Dr. Elephant's red flags (minExecutors over 1 or maxExecutors over 900)")
		advice = append(advice, "keep spark.dynamicAllocation.minExecutors at most 1 and maxExecutors at most 900 unless the cluster is sized for it")
	}
	if strings.Contains(f.Summary, "spark.yarn.secondary.jars uses *") {
		why = append(why, "spark.yarn.secondary.jars names jars with *")
		advice = append(advice, "name the secondary jars one by one")
	}
	f.Settings = b.out
	if len(advice) == 0 {
		f.Recommendation = ""
		return f
	}
	f.Summary = "Configuration (Dr. Elephant's checks, for a " + string(dep) + " deployment): " + strings.Join(why, "; ") + "."
	f.Recommendation = strings.ToUpper(advice[0][:1]) + advice[0][1:]
	if len(advice) > 1 {
		f.Recommendation += "; " + strings.Join(advice[1:], "; ")
	}
	f.Recommendation += "."
	return f
}

// kryoMinBytes is the RDD shuffle from which the serializer matters
// (clusterlens's).
const kryoMinBytes = 1 << 30

// rddShuffleBytes is the shuffle written by the stages of jobs that no SQL
// execution ran (RDD code, whose records spark.serializer serializes).
func (in *Input) rddShuffleBytes() int64 {
	sqlJob := map[int32]bool{}
	for _, j := range in.App.Jobs {
		if j.SQLID >= 0 {
			sqlJob[j.ID] = true
		}
	}
	var n int64
	var m model.TaskMetrics
	for _, st := range in.App.Stages {
		if len(st.JobIDs) > 0 && sqlJob[st.JobIDs[0]] {
			continue
		}
		for i := range st.Tasks {
			if st.Tasks[i].HasMetrics {
				st.TaskMetrics(i, &m)
				n += m[model.ShuffleWriteBytes]
			}
		}
	}
	return n
}

func evidenceValue(f Finding, name string) float64 {
	for _, e := range f.Evidence {
		if e.Name == name {
			return e.Value
		}
	}
	return 0
}

// configFindings grades the Spark properties prop.
func configFindings(prop func(string) (string, bool), p DrElephantSparkConfigParams, scope Scope) []Finding {
	mem := func(k string) int64 {
		v, ok := prop(k)
		if !ok {
			return 0
		}
		n, err := drStringToBytes(v)
		if err != nil {
			return 0
		}
		return n
	}
	num := func(k string) int64 {
		v, _ := prop(k)
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return 0
		}
		return int64(n)
	}
	overhead := func(k string) int64 {
		v, ok := prop(k)
		if !ok {
			return 0
		}
		if v != "" && v[len(v)-1] >= '0' && v[len(v)-1] <= '9' {
			// A number of MiB, which Dr. Elephant formats and parses again:
			// 2047 becomes "2 GB", 2 GiB.
			n, err := drStringToBytes(v + "MB")
			if err != nil {
				return 0
			}
			v = drBytesToString(n)
		}
		n, err := drStringToBytes(v)
		if err != nil {
			return 0
		}
		return n
	}
	checks := []drConfigCheck{
		{"spark.executor.memory", "executorMemoryBytes", "bytes", mem("spark.executor.memory"), p.Memory},
		{"spark.driver.memory", "driverMemoryBytes", "bytes", mem("spark.driver.memory"), p.Memory},
		{"spark.executor.cores", "executorCores", "count", num("spark.executor.cores"), p.Cores},
		{"spark.driver.cores", "driverCores", "count", num("spark.driver.cores"), p.Cores},
		{"spark.yarn.executor.memoryOverhead", "executorMemoryOverheadBytes", "bytes", overhead("spark.yarn.executor.memoryOverhead"), p.OverheadMemory},
		{"spark.yarn.driver.memoryOverhead", "driverMemoryOverheadBytes", "bytes", overhead("spark.yarn.driver.memoryOverhead"), p.OverheadMemory},
		{"spark.dynamicAllocation.minExecutors", "dynamicMinExecutors", "executors", num("spark.dynamicAllocation.minExecutors"), p.MinExecutors},
		{"spark.dynamicAllocation.maxExecutors", "dynamicMaxExecutors", "executors", num("spark.dynamicAllocation.maxExecutors"), p.MaxExecutors},
	}
	sev := None
	var why []string
	var ev []Evidence
	for _, c := range checks {
		s := c.limits.Ascending(float64(c.value))
		ev = append(ev, graded(c.name, float64(c.value), c.unit, c.limits))
		if s > None {
			v := strconv.FormatInt(c.value, 10)
			if c.unit == "bytes" {
				v = drBytes(c.value)
			}
			why = append(why, fmt.Sprintf("%s is %s (%s)", c.key, v, s))
		}
		sev = max(sev, s)
	}
	serializer, hasSerializer := prop("spark.serializer")
	kryo := hasSerializer && serializer == p.Serializer
	if !kryo {
		sev = max(sev, Moderate)
		why = append(why, fmt.Sprintf("spark.serializer is %q, not %s (moderate)", serializer, p.Serializer))
	}
	dynamic, shuffle := drPropTrue(prop("spark.dynamicAllocation.enabled")), drPropTrue(prop("spark.shuffle.service.enabled"))
	switch {
	case shuffle:
	case dynamic:
		sev = max(sev, Severe)
		why = append(why, "dynamic allocation runs without the external shuffle service (severe)")
	default:
		sev = max(sev, Moderate)
		why = append(why, "the external shuffle service is off (moderate)")
	}
	if jars, _ := prop("spark.yarn.secondary.jars"); strings.Contains(jars, "*") {
		sev = Critical
		why = append(why, "spark.yarn.secondary.jars uses * (critical)")
	}
	if sev == None {
		return nil
	}
	ev = append(ev, fact("kryoSerializer", drFlag(kryo), "flag"), fact("shuffleServiceEnabled", drFlag(shuffle), "flag"), fact("dynamicAllocationEnabled", drFlag(dynamic), "flag"))
	return []Finding{{
		Severity:       sev,
		Scope:          scope,
		Summary:        "Configuration checks: " + strings.Join(why, "; ") + ".",
		Evidence:       ev,
		Recommendation: "Set spark.serializer=org.apache.spark.serializer.KryoSerializer, enable spark.shuffle.service.enabled (required with dynamic allocation), keep executor and driver memory under 10 GiB and cores under 4 unless measured otherwise, keep spark.dynamicAllocation.minExecutors <= 1 and maxExecutors <= 900, name jars without *, and do not ask for more than 2 GiB of memory overhead.",
	}}
}

// drPropTrue is Scala's getProperty(key).exists(_.toBoolean): set and "true"
// in any case.
func drPropTrue(v string, ok bool) bool { return ok && strings.EqualFold(strings.TrimSpace(v), "true") }

// drFlag is 1 for true, 0 for false.
func drFlag(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
