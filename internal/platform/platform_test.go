package platform_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/platform"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// app is an application with these Spark properties and version.
func app(version string, props ...string) *model.App {
	a := &model.App{Engine: model.Spark, Version: version}
	for i := 0; i+1 < len(props); i += 2 {
		a.Env.Spark = append(a.Env.Spark, [2]string{props[i], props[i+1]})
	}
	a.Env.Seen = len(props) > 0
	return a
}

func TestIdentify(t *testing.T) {
	const tags = "spark.databricks.clusterUsageTags."
	for _, tc := range []struct {
		name     string
		app      *model.App
		platform string
		runtime  string
		cluster  model.Cluster
		evidence string
	}{
		{"databricks autoscaling job cluster", app("3.3.0",
			tags+"clusterId", "0523-113117-1f8u0192", tags+"clusterName", "job-703-run-31144",
			tags+"sparkVersion", "12.2.x-scala2.12", tags+"cloudProvider", "AWS", tags+"region", "us-east-1",
			"spark.databricks.driverNodeTypeId", "m5.xlarge", tags+"clusterNodeType", "m5.4xlarge",
			tags+"clusterWorkers", "3", tags+"clusterTargetWorkers", "3", tags+"clusterScalingType", "autoscaling",
			tags+"clusterMinWorkers", "2", tags+"clusterMaxWorkers", "8", tags+"clusterAvailability", "SPOT_WITH_FALLBACK"),
			model.PlatformDatabricks, "12.2.x-scala2.12", model.Cluster{ID: "0523-113117-1f8u0192", Name: "job-703-run-31144",
				Cloud: "AWS", Region: "us-east-1", DriverNodeType: "m5.xlarge", WorkerNodeType: "m5.4xlarge", Workers: 3, TargetWorkers: 3,
				Autoscaling: true, MinWorkers: 2, MaxWorkers: 8, Availability: "SPOT_WITH_FALLBACK", Job: "job 703 run 31144"},
			"12 spark.databricks.clusterUsageTags.* properties"},
		{"databricks by its markers", &model.App{Engine: model.Spark, Rollovers: []model.Rollover{{Number: 1}}},
			model.PlatformDatabricks, "", model.Cluster{}, "DBCEventLoggingListenerMetadata events"},
		{"emr build", app("3.3.0-amzn-1", "spark.master", "yarn"), model.PlatformEMR, "amzn-1", model.Cluster{}, "Spark version 3.3.0-amzn-1"},
		{"emr classes", app("3.5.0", "spark.sql.parquet.output.committer.class", "com.amazon.emr.committer.EmrOptimizedSparkSqlParquetOutputCommitter"),
			model.PlatformEMR, "", model.Cluster{}, "spark.sql.parquet.output.committer.class=com.amazon.emr."},
		{"emr serverless", app("3.5.0", "spark.emr-serverless.driver.disk", "20G"), model.PlatformEMR, "serverless", model.Cluster{}, "spark.emr-serverless.* properties"},
		{"dataproc properties", app("3.5.1", "spark.dataproc.sql.joinConditionReorder.enabled", "true"), model.PlatformDataproc, "", model.Cluster{}, "spark.dataproc.* properties"},
		{"dataproc yarn tags", app("3.1.3", "spark.yarn.tags", "dataproc_hash_2cc0,dataproc_job_5632455,dataproc_master_index_0"),
			model.PlatformDataproc, "", model.Cluster{Job: "5632455"}, "spark.yarn.tags=dataproc_hash_2cc0"},
		{"dataproc bucket", app("3.3.0", "spark.eventLog.dir", "gs://dataproc-temp-us-central1-1-x/spark-job-history"), model.PlatformDataproc, "", model.Cluster{}, "spark.eventLog.dir=gs://dataproc-temp"},
		{"fabric", app("3.4.1", "spark.trident.pbienv", "PROD", "spark.synapse.pool.name", "Starter Pool"),
			model.PlatformFabric, "", model.Cluster{Pool: "Starter Pool"}, "spark.trident.* properties"},
		{"synapse", app("3.3.1", "spark.synapse.workspace.name", "ws1", "spark.synapse.pool.name", "pool1"),
			model.PlatformSynapse, "", model.Cluster{Pool: "pool1", Workspace: "ws1"}, "spark.synapse.workspace.name=ws1"},
		{"open source", app("3.5.0", "spark.master", "yarn"), model.PlatformOpenSource, "", model.Cluster{}, "no managed platform's properties"},
		{"no environment", app("2.4.0"), model.PlatformOpenSource, "", model.Cluster{}, "no SparkListenerEnvironmentUpdate"},
	} {
		platform.Identify(tc.app)
		p := tc.app.Platform
		if p.Name != tc.platform || p.Runtime != tc.runtime || p.Cluster != tc.cluster ||
			!strings.Contains(strings.Join(p.Evidence, "; "), tc.evidence) {
			t.Errorf("%s: %+v", tc.name, p)
		}
	}
}

// TestRealLogs identifies the platform of real logs against what their own
// properties and versions say, read here on their own.
func TestRealLogs(t *testing.T) {
	root := sharedtest.Dir(t, "logs")
	res, err := decodelogs.Paths([]string{root, sharedtest.Dir(t, "platform-logs")}, decodelogs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, a := range res.Apps {
		if a.Engine != model.Spark {
			continue
		}
		p := a.Platform
		got[p.Name]++
		engine, _ := a.Env.SparkProp("spark.databricks.clusterUsageTags.runtimeEngine")
		_, dbc := a.Env.SparkProp("spark.databricks.clusterUsageTags.clusterId")
		switch {
		case dbc || len(a.Rollovers) > 0:
			if p.Name != model.PlatformDatabricks || p.Photon != (engine == "PHOTON") {
				t.Errorf("%s: %+v (runtime engine %q)", a.Source, p, engine)
			}
			workers, _ := a.Env.SparkProp("spark.databricks.clusterUsageTags.clusterWorkers")
			node, _ := a.Env.SparkProp("spark.databricks.workerNodeTypeId")
			if dbc && (p.Cluster.WorkerNodeType != node || workers != "" && p.Cluster.Workers == 0) {
				t.Errorf("%s: cluster %+v, properties say %s × %s", a.Source, p.Cluster, workers, node)
			}
		case strings.Contains(a.Version, "-amzn-"):
			if p.Name != model.PlatformEMR {
				t.Errorf("%s: %+v", a.Source, p)
			}
		case p.Name != model.PlatformOpenSource:
			t.Errorf("%s (%s): %+v", filepath.Base(a.Source), a.Version, p)
		}
	}
	if got[model.PlatformDatabricks] < 10 || got[model.PlatformEMR] < 5 || got[model.PlatformOpenSource] < 80 {
		t.Errorf("platforms %v", got)
	}
	t.Logf("platforms %v", got)
}
