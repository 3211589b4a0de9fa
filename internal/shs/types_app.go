package shs

// ApplicationInfo is one application with its attempts (Spark's v1.ApplicationInfo).
// The cores and memory fields are always None in the History Server and omitted.
type ApplicationInfo struct {
	ID       string                   `json:"id"`
	Name     string                   `json:"name"`
	Attempts []ApplicationAttemptInfo `json:"attempts"`
}

// ApplicationAttemptInfo is one attempt of an application (Spark's
// v1.ApplicationAttemptInfo, with its epoch getters).
type ApplicationAttemptInfo struct {
	AttemptID        *string `json:"attemptId,omitempty"`
	StartTime        Date    `json:"startTime"`
	EndTime          Date    `json:"endTime"`
	LastUpdated      Date    `json:"lastUpdated"`
	Duration         int64   `json:"duration"`
	SparkUser        string  `json:"sparkUser"`
	Completed        bool    `json:"completed"`
	AppSparkVersion  string  `json:"appSparkVersion"`
	EndTimeEpoch     int64   `json:"endTimeEpoch"`
	StartTimeEpoch   int64   `json:"startTimeEpoch"`
	LastUpdatedEpoch int64   `json:"lastUpdatedEpoch"`
}

// ApplicationEnvironmentInfo is an application's environment (Spark's
// v1.ApplicationEnvironmentInfo).
type ApplicationEnvironmentInfo struct {
	Runtime           RuntimeInfo           `json:"runtime"`
	SparkProperties   Tuples                `json:"sparkProperties"`
	HadoopProperties  Tuples                `json:"hadoopProperties"`
	SystemProperties  Tuples                `json:"systemProperties"`
	MetricsProperties Tuples                `json:"metricsProperties"`
	ClasspathEntries  Tuples                `json:"classpathEntries"`
	ResourceProfiles  []ResourceProfileInfo `json:"resourceProfiles"`
}

// RuntimeInfo is the JVM an application ran on; a value the log did not
// carry is null in Spark and so omitted.
type RuntimeInfo struct {
	JavaVersion  *string `json:"javaVersion,omitempty"`
	JavaHome     *string `json:"javaHome,omitempty"`
	ScalaVersion *string `json:"scalaVersion,omitempty"`
}

// ResourceProfileInfo is a stage-level resource profile (Spark's v1.ResourceProfileInfo).
type ResourceProfileInfo struct {
	ID                int32                    `json:"id"`
	ExecutorResources ExecutorResourceRequests `json:"executorResources"`
	TaskResources     TaskResourceRequests     `json:"taskResources"`
}

// ExecutorResourceRequest is one executor resource of a profile.
type ExecutorResourceRequest struct {
	ResourceName    string `json:"resourceName"`
	Amount          int64  `json:"amount"`
	DiscoveryScript string `json:"discoveryScript"`
	Vendor          string `json:"vendor"`
}

// TaskResourceRequest is one task resource of a profile.
type TaskResourceRequest struct {
	ResourceName string  `json:"resourceName"`
	Amount       float64 `json:"amount"`
}

// ExecutorResourceRequests is a Map[String, ExecutorResourceRequest] in order.
type ExecutorResourceRequests []ExecutorResourceRequest

// MarshalJSON writes the requests as an object keyed by resource name.
func (rs ExecutorResourceRequests) MarshalJSON() ([]byte, error) {
	return marshalKeyed(len(rs), func(i int) (string, any) { return rs[i].ResourceName, rs[i] })
}

// TaskResourceRequests is a Map[String, TaskResourceRequest] in order.
type TaskResourceRequests []TaskResourceRequest

// MarshalJSON writes the requests as an object keyed by resource name.
func (rs TaskResourceRequests) MarshalJSON() ([]byte, error) {
	return marshalKeyed(len(rs), func(i int) (string, any) {
		r := rs[i]
		return r.ResourceName, struct {
			ResourceName string     `json:"resourceName"`
			Amount       jsonDouble `json:"amount"`
		}{r.ResourceName, jsonDouble(r.Amount)}
	})
}

// jsonDouble is a Java double: whole values keep a ".0".
type jsonDouble float64

// MarshalJSON writes d as Jackson writes a double.
func (d jsonDouble) MarshalJSON() ([]byte, error) { return appendDouble(nil, float64(d)), nil }
