package diagnose

import (
	"fmt"

	"github.com/clusterlens/clusterlens/internal/model"
)

// On a managed platform some of Spark's settings are the platform's: on
// Databricks every worker runs one executor whose memory follows the
// worker's instance type (model.Platform, read from the
// spark.databricks.clusterUsageTags.* properties). Advice that would set
// those properties names the cluster's own settings instead.

// databricks reports whether the application ran on Databricks.
func (in *Input) databricks() bool { return in.App.Platform.Name == model.PlatformDatabricks }

// workersOf names n workers of the cluster's worker type.
func workersOf(c model.Cluster, n int) string {
	s := fmt.Sprintf("%d workers", n)
	if c.WorkerNodeType != "" {
		s += " (" + c.WorkerNodeType + ")"
	}
	return s
}

// databricksSizing advises a Databricks cluster's worker count for an
// estimate of n executors.
func databricksSizing(c model.Cluster, n, slots int) string {
	how := "set the cluster's number of workers"
	if c.Autoscaling {
		how = "set the cluster's autoscaling maximum"
	}
	return fmt.Sprintf("Run the cluster with about %s, %d task slots (Databricks runs one executor per worker): %s to %d", workersOf(c, n), slots, how, n)
}

// databricksMemory is added to a configuration finding that grades the
// executor memory of a Databricks application.
func databricksMemory(c model.Cluster) string {
	t := "the worker's instance type"
	if c.WorkerNodeType != "" {
		t += " (" + c.WorkerNodeType + ")"
	}
	return "On Databricks, spark.executor.memory follows " + t + ": choose another worker type rather than setting the property."
}
