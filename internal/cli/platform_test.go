package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// databricksFolder writes a Databricks log folder with the given parts (by
// Rollover Number) of one application.
func databricksFolder(t *testing.T, parts ...int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "0304-221748-abc", "eventlog", "5706921391408253054")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	marker := func(n int) string {
		return fmt.Sprintf(`{"Event":"DBCEventLoggingListenerMetadata","Spark Version":"3.1.2","Timestamp":%d,"Rollover Number":%d,"SparkContext Id":5706921391408253054}`+"\n", 1646432444550+n, n)
	}
	bodies := []string{
		`{"Event":"SparkListenerApplicationStart","App Name":"Databricks Shell","App ID":"app-20220304222044-0000","Timestamp":1646432441343,"User":"root"}` + "\n" +
			`{"Event":"SparkListenerEnvironmentUpdate","Spark Properties":{"spark.databricks.clusterUsageTags.clusterId":"0304-221748-abc","spark.databricks.clusterUsageTags.sparkVersion":"9.1.x-scala2.12","spark.databricks.workerNodeTypeId":"m5.4xlarge","spark.databricks.driverNodeTypeId":"m5.xlarge","spark.databricks.clusterUsageTags.clusterWorkers":"4"}}` + "\n",
		`{"Event":"SparkListenerJobStart","Job ID":0,"Submission Time":1646432450000,"Stage Infos":[],"Stage IDs":[]}` + "\n",
		`{"Event":"SparkListenerJobEnd","Job ID":0,"Completion Time":1646432460000,"Job Result":{"Result":"JobSucceeded"}}` + "\n",
	}
	for i, n := range parts {
		name := fmt.Sprintf("eventlog-2022-03-04--%02d-00", 22+n)
		if i == len(parts)-1 {
			name = "eventlog"
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(marker(n)+bodies[n]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Dir(filepath.Dir(dir))
}

// TestSummaryDatabricks: a Databricks log folder read whole shows its
// platform and cluster; with a part missing the answer is partial, said in
// the data quality and on stderr, and the exit code is 3.
func TestSummaryDatabricks(t *testing.T) {
	code, out, errs := run(t, "summary", databricksFolder(t, 0, 1, 2))
	if code != ExitOK || !strings.Contains(out, "spark 3.1.2") || !strings.Contains(out, "platform databricks, runtime 9.1.x-scala2.12") ||
		!strings.Contains(out, "cluster 0304-221748-abc, driver m5.xlarge, 4 workers m5.4xlarge") || strings.Contains(out, "PARTIAL") {
		t.Errorf("complete: exit %d\n%s\n%s", code, out, errs)
	}
	folder := databricksFolder(t, 0, 2)
	code, out, errs = run(t, "summary", folder)
	if code != ExitPartial || !strings.Contains(out, "PARTIAL: part 1 is missing before part 2") ||
		!strings.Contains(errs, "app-20220304222044-0000 read in part: part 1 is missing") {
		t.Errorf("part 1 missing: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, _ = run(t, "summary", "--format", "json", folder)
	var doc struct {
		Applications []struct {
			Application struct {
				Version  string
				Platform struct {
					Name    string
					Cluster struct{ WorkerNodeType string }
				}
			}
			DataQuality struct {
				Partial bool
				Notes   []struct {
					Text    string
					Partial bool
				}
				Rollovers []struct{ Number int }
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != ExitPartial || len(doc.Applications) != 1 {
		t.Fatalf("exit %d, %v:\n%s", code, err, out)
	}
	a := doc.Applications[0]
	if a.Application.Version != "3.1.2" || a.Application.Platform.Name != "databricks" || a.Application.Platform.Cluster.WorkerNodeType != "m5.4xlarge" ||
		!a.DataQuality.Partial || len(a.DataQuality.Notes) != 1 || !a.DataQuality.Notes[0].Partial || len(a.DataQuality.Rollovers) != 2 {
		t.Errorf("json %+v", a)
	}
}
