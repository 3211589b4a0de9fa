package diagnose

import (
	"fmt"
	"strconv"
	"strings"
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
	fs := configFindings(in.App.Env.SparkProp, p, in.appScope())
	for i := range fs {
		if in.databricks() && p.Memory.Ascending(evidenceValue(fs[i], "executorMemoryBytes")) > None {
			fs[i].Recommendation += " " + databricksMemory(in.App.Platform.Cluster)
			fs[i].Evidence = append(fs[i].Evidence, fact("platformSetsExecutorMemory", 1, "flag"))
		}
	}
	return fs
}

// evidenceValue returns the value of a finding's named evidence, 0 without it.
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
