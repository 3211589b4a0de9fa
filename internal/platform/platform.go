// Package platform tells where a Spark application ran — Databricks (and
// whether Photon ran its queries), Amazon EMR, Google Dataproc, Azure
// Synapse, Microsoft Fabric, or open-source Spark — from what its event log
// holds: the Spark properties of SparkListenerEnvironmentUpdate, the Spark
// version string and Databricks' DBCEventLoggingListenerMetadata markers. It
// also reads the cluster facts the platform's properties give (node types,
// worker count, runtime, autoscaling). Every conclusion carries the property
// or string that decided it as evidence.
//
// The property names are the platforms' own, as their services set them:
//
//   - Databricks: spark.databricks.clusterUsageTags.* (clusterId,
//     clusterName, sparkVersion, effectiveSparkVersion, runtimeEngine,
//     clusterNodeType, driverNodeType, clusterWorkers, clusterTargetWorkers,
//     clusterScalingType, clusterMinWorkers, clusterMaxWorkers,
//     cloudProvider, region, clusterAvailability), spark.databricks.
//     workerNodeTypeId and driverNodeTypeId. Whether Photon ran is decided
//     by the decoder (eventlog), which needs it to read Photon's metrics:
//     runtimeEngine PHOTON or "-photon-" in the runtime's names, or Photon
//     operators in a SQL plan.
//   - Amazon EMR: a Spark version built by Amazon ("3.0.1-amzn-0"), EMR's
//     classes in the properties (com.amazon.emr, com.amazonaws.emr), EMR
//     Serverless' spark.emr-serverless.* properties.
//   - Google Dataproc: spark.dataproc.* properties, "dataproc_" YARN tags
//     (spark.yarn.tags), an event-log folder in a dataproc bucket.
//   - Microsoft Fabric: spark.trident.* properties (Fabric's engine);
//     Azure Synapse: spark.synapse.workspace.name or spark.synapse.pool.name
//     without them.
package platform

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/clusterlens/clusterlens/internal/model"
)

// Identify sets a.Platform from what a's log says. What the decoder already
// put there (Photon and its evidence) is kept.
func Identify(a *model.App) {
	p := &a.Platform
	props := a.Env.Spark
	switch {
	case databricks(a, p):
	case emr(a, p):
	case hasPrefix(props, "spark.dataproc.", p) || tagged(props, p) || dataprocDir(props, p):
		p.Name = model.PlatformDataproc
	case hasPrefix(props, "spark.trident.", p):
		p.Name = model.PlatformFabric
		synapseFacts(props, &p.Cluster)
	case has(props, "spark.synapse.workspace.name", p) || has(props, "spark.synapse.pool.name", p):
		p.Name = model.PlatformSynapse
		synapseFacts(props, &p.Cluster)
	default:
		p.Name = model.PlatformOpenSource
		if !a.Env.Seen {
			p.Evidence = append(p.Evidence, "no Spark properties in the log (no SparkListenerEnvironmentUpdate)")
		} else {
			p.Evidence = append(p.Evidence, "no managed platform's properties")
		}
	}
}

// tags prefixes the cluster properties Databricks sets.
const tags = "spark.databricks.clusterUsageTags."

// jobCluster is the name Databricks gives a job's cluster: job-<job id>-run-<run id>.
var jobCluster = regexp.MustCompile(`^job-(\d+)-run-(\d+)`)

// databricks recognizes a Databricks application and reads its cluster.
func databricks(a *model.App, p *model.Platform) bool {
	props := a.Env.Spark
	switch {
	case hasPrefix(props, tags, p):
	case len(a.Rollovers) > 0:
		p.Evidence = append(p.Evidence, "DBCEventLoggingListenerMetadata events")
	case p.Photon:
	default:
		return false
	}
	p.Name = model.PlatformDatabricks
	get := func(k string) string { v, _ := prop(props, k); return v }
	p.Runtime = first(get(tags+"effectiveSparkVersion"), get(tags+"sparkVersion"))
	c := &p.Cluster
	c.ID, c.Name = get(tags+"clusterId"), get(tags+"clusterName")
	c.Cloud, c.Region = get(tags+"cloudProvider"), get(tags+"region")
	c.DriverNodeType = first(get("spark.databricks.driverNodeTypeId"), get(tags+"driverNodeType"))
	c.WorkerNodeType = first(get("spark.databricks.workerNodeTypeId"), get(tags+"clusterNodeType"))
	c.Workers, c.TargetWorkers = atoi(get(tags+"clusterWorkers")), atoi(get(tags+"clusterTargetWorkers"))
	c.Availability = get(tags + "clusterAvailability")
	if strings.EqualFold(get(tags+"clusterScalingType"), "autoscaling") {
		c.Autoscaling = true
		c.MinWorkers, c.MaxWorkers = atoi(get(tags+"clusterMinWorkers")), atoi(get(tags+"clusterMaxWorkers"))
	}
	if m := jobCluster.FindStringSubmatch(c.Name); m != nil {
		c.Job = "job " + m[1] + " run " + m[2]
	}
	return true
}

// emr recognizes Amazon EMR: its build of Spark, its classes, EMR Serverless.
func emr(a *model.App, p *model.Platform) bool {
	found := false
	if i := strings.Index(a.Version, "-amzn-"); i >= 0 {
		p.Runtime = a.Version[i+1:]
		p.Evidence = append(p.Evidence, "Spark version "+a.Version)
		found = true
	}
	if hasPrefix(a.Env.Spark, "spark.emr-serverless.", p) {
		found = true
		if p.Runtime == "" {
			p.Runtime = "serverless"
		}
	}
	for _, kv := range a.Env.Spark {
		if strings.Contains(kv[1], "com.amazon.emr.") || strings.Contains(kv[1], "com.amazonaws.emr.") {
			p.Evidence = append(p.Evidence, kv[0]+"="+kv[1])
			found = true
			break
		}
	}
	if found {
		p.Name = model.PlatformEMR
	}
	return found
}

// tagged recognizes the YARN tags Dataproc gives its jobs
// (dataproc_job_<id>, dataproc_uuid_<id>, ...) and keeps the job id.
func tagged(props [][2]string, p *model.Platform) bool {
	v, ok := prop(props, "spark.yarn.tags")
	if !ok || !strings.Contains(v, "dataproc_") {
		return false
	}
	p.Evidence = append(p.Evidence, "spark.yarn.tags="+v)
	for _, t := range strings.Split(v, ",") {
		if id, ok := strings.CutPrefix(strings.TrimSpace(t), "dataproc_job_"); ok {
			p.Cluster.Job = id
		}
	}
	return true
}

// dataprocDir recognizes an event log written to a Dataproc bucket.
func dataprocDir(props [][2]string, p *model.Platform) bool {
	v, ok := prop(props, "spark.eventLog.dir")
	if !ok || !strings.HasPrefix(v, "gs://dataproc-") {
		return false
	}
	p.Evidence = append(p.Evidence, "spark.eventLog.dir="+v)
	return true
}

// synapseFacts reads the Spark pool and workspace of Synapse and Fabric.
func synapseFacts(props [][2]string, c *model.Cluster) {
	c.Pool, _ = prop(props, "spark.synapse.pool.name")
	c.Workspace, _ = prop(props, "spark.synapse.workspace.name")
}

// prop returns a property's value.
func prop(props [][2]string, key string) (string, bool) {
	for _, kv := range props {
		if kv[0] == key {
			return kv[1], true
		}
	}
	return "", false
}

// has reports whether key is set, recording it as evidence.
func has(props [][2]string, key string, p *model.Platform) bool {
	v, ok := prop(props, key)
	if ok {
		p.Evidence = append(p.Evidence, key+"="+v)
	}
	return ok
}

// hasPrefix reports whether a property starts with prefix, recording how
// many do as evidence.
func hasPrefix(props [][2]string, prefix string, p *model.Platform) bool {
	n := 0
	for _, kv := range props {
		if strings.HasPrefix(kv[0], prefix) {
			n++
		}
	}
	if n > 0 {
		p.Evidence = append(p.Evidence, fmt.Sprintf("%d %s* properties", n, prefix))
	}
	return n > 0
}

func first(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

func atoi(s string) int {
	v, _ := strconv.Atoi(strings.TrimSpace(s))
	return v
}
