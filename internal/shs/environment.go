package shs

import (
	"regexp"
	"sort"

	"github.com/clusterlens/clusterlens/internal/model"
)

// redactionPattern is spark.redaction.regex's default; the History Server
// redacts with its own configuration, which by default is this.
var redactionPattern = regexp.MustCompile(`(?i)secret|password|token|access[.]?key`)

// redacted is Spark's REDACTION_REPLACEMENT_TEXT.
const redacted = "*********(redacted)"

// environment answers /environment, or 404 when the log had no environment
// update (the History Server then fails to find the application's data).
func (v *appView) environment(appKey string) (ApplicationEnvironmentInfo, *Error) {
	env := &v.app.Env
	if !env.Seen {
		return ApplicationEnvironmentInfo{}, notFound("no such app: %s", appKey)
	}
	info := ApplicationEnvironmentInfo{
		Runtime: RuntimeInfo{
			JavaVersion:  lookup(env.JVM, "Java Version"),
			JavaHome:     lookup(env.JVM, "Java Home"),
			ScalaVersion: lookup(env.JVM, "Scala Version"),
		},
		SparkProperties:   sortedTuples(env.Spark, true),
		HadoopProperties:  sortedTuples(env.Hadoop, true),
		SystemProperties:  sortedTuples(env.System, true),
		MetricsProperties: sortedTuples(env.Metrics, true),
		ClasspathEntries:  sortedTuples(env.Classpath, false),
		ResourceProfiles:  resourceProfiles(v.app.ResourceProfiles),
	}
	return info, nil
}

// sortedTuples sorts a section by key (stably), redacting it when asked.
func sortedTuples(kvs [][2]string, redact bool) Tuples {
	out := make(Tuples, 0, len(kvs))
	for _, kv := range kvs {
		p := Pair{kv[0], kv[1]}
		if redact && (redactionPattern.MatchString(p.Key) || redactionPattern.MatchString(p.Value)) {
			p.Value = redacted
		}
		out = append(out, p)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// lookup returns a key's value, or nil.
func lookup(kvs [][2]string, key string) *string {
	return prop(kvs, key)
}

// resourceProfiles converts the application's resource profiles, by id.
func resourceProfiles(rps []model.ResourceProfile) []ResourceProfileInfo {
	out := make([]ResourceProfileInfo, 0, len(rps))
	for _, rp := range rps {
		info := ResourceProfileInfo{ID: rp.ID, ExecutorResources: ExecutorResourceRequests{}, TaskResources: TaskResourceRequests{}}
		for _, r := range rp.Executor {
			info.ExecutorResources = append(info.ExecutorResources, ExecutorResourceRequest{
				ResourceName: r.Name, Amount: int64(r.Amount), DiscoveryScript: r.DiscoveryScript, Vendor: r.Vendor})
		}
		for _, r := range rp.Task {
			info.TaskResources = append(info.TaskResources, TaskResourceRequest{ResourceName: r.Name, Amount: r.Amount})
		}
		out = append(out, info)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
