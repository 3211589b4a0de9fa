package model

// Rollover is one DBCEventLoggingListenerMetadata line. Databricks writes it
// at the head of every part of a rolled event log (eventlog,
// eventlog-YYYY-MM-DD--HH-MM.gz) in place of SparkListenerLogStart; inside a
// file it marks where a concatenated part begins.
type Rollover struct {
	Number       int64  // "Rollover Number": the part's place in its set, from 0
	ContextID    string // "SparkContext Id": the parts of one application share it
	SparkVersion string // "Spark Version"
	Timestamp    int64  // epoch ms the part was started
	File         string // where the line was read
	Line         int64  // its line number in File
}

// Platform names where an application ran, as its log says: the managed
// service, its runtime and what its properties tell of the cluster.
type Platform struct {
	// Name is one of the Platform* constants; "" when nothing was read
	// (MapReduce histories).
	Name string
	// Photon is true when Databricks' Photon engine ran the application's
	// queries (its runtime, or Photon's SQL metrics in the tasks).
	Photon bool
	// Runtime is the platform's release: the Databricks runtime
	// ("13.3.x-photon-scala2.12"), the EMR build of Spark ("amzn-0").
	Runtime string
	// Evidence lists what decided Name and Photon: property names and
	// values, the version string, metadata events.
	Evidence []string
	// Cluster holds the facts the properties give about the cluster.
	Cluster Cluster
}

// Platforms.
const (
	PlatformDatabricks = "databricks"
	PlatformEMR        = "emr"
	PlatformDataproc   = "dataproc"
	PlatformSynapse    = "synapse"
	PlatformFabric     = "fabric"
	PlatformOpenSource = "open-source"
)

// Cluster is what a platform's properties tell about the cluster an
// application ran on. Zero values are unknown.
type Cluster struct {
	ID             string
	Name           string
	Cloud          string // "AWS", "Azure", "GCP"
	Region         string
	DriverNodeType string // instance type of the driver
	WorkerNodeType string // instance type of the workers
	// Workers is the number of workers the cluster had when the application
	// started (Databricks clusterWorkers); TargetWorkers the number asked for.
	Workers       int
	TargetWorkers int
	// Autoscaling is set when the cluster scales between MinWorkers and
	// MaxWorkers (Databricks autoscaling, Spark dynamic allocation bounds are
	// not cluster facts and are not read here).
	Autoscaling bool
	MinWorkers  int
	MaxWorkers  int
	// Availability is how workers were bought ("SPOT_WITH_FALLBACK", "ON_DEMAND").
	Availability string
	// Pool is the Spark pool (Synapse, Fabric), Workspace its workspace.
	Pool      string
	Workspace string
	// Job names the platform's job or run that started the application, when told.
	Job string
}

// Note is what a reader has to say about an input as a whole rather than
// about one line: a part missing or read twice, an order it could not
// confirm, a metric taken from another name.
type Note struct {
	Text string
	// Partial is set when the application's numbers lack some of its events
	// (a missing part) or may be out of order: the answer is partial.
	Partial bool
}
