package cli

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/spf13/cobra"

	"github.com/clusterlens/clusterlens/internal/load"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/shs"
	"github.com/clusterlens/clusterlens/internal/source"
)

func init() {
	register(func(e *env) *cobra.Command {
		return &cobra.Command{
			Use:   "api PATH REQUEST",
			Short: "Answer one Spark History Server REST request offline",
			Long: `api reads the Spark event logs in PATH (a log file or a folder of logs) and answers
REQUEST as the Spark History Server's REST API (/api/v1) would, printing its JSON.
REQUEST is the path under /api/v1/ with its query, for example

  clusterlens api /var/log/spark-events 'applications/app-1/stages/0/0/taskList?sortBy=-runtime'

A request the History Server would refuse prints its status and message and exits 1.
See docs/API.md for the endpoints and parameters.`,
			Args: cobra.ExactArgs(2),
			RunE: func(cmd *cobra.Command, args []string) error {
				return runAPI(e, args[0], args[1])
			},
		}
	})
}

// runAPI loads the logs at path and answers one request.
func runAPI(e *env, path, request string) error {
	p, rawQuery, _ := strings.Cut(request, "?")
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return withCode(ExitUsage, fmt.Errorf("request query %q: %w", rawQuery, err))
	}
	apps, problems, err := loadSparkLogs(path)
	if err != nil {
		return err
	}
	for _, p := range problems {
		fmt.Fprintln(e.stderr, "clusterlens: warning:", p)
	}
	v, err := shs.NewIndex(apps).Get(p, q)
	if err != nil {
		var apiErr *shs.Error
		if errors.As(err, &apiErr) {
			return fmt.Errorf("%s %d: %s", request, apiErr.Status, apiErr.Message)
		}
		return err
	}
	body, err := shs.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode response: %w", err)
	}
	if _, err := e.stdout.Write(body); err != nil {
		return fmt.Errorf("write response: %w", err)
	}
	if len(problems) > 0 {
		return withCode(ExitPartial, fmt.Errorf("%d of the logs in %s could not be read fully", len(problems), path))
	}
	return nil
}

// loadSparkLogs reads the Spark event logs under path (a log file, or a
// folder searched recursively with rolling and Spark 1.x layouts, compressed
// logs and History Server zips, on disk or in an object store). Logs read
// only in part are returned with a problem each; other kinds of logs
// (MapReduce) are left out.
func loadSparkLogs(path string) (apps []*model.App, problems []error, err error) {
	res, err := load.Paths([]string{path}, sparkOnly)
	if err != nil {
		return nil, nil, fmt.Errorf("find logs: %w", err)
	}
	return sparkApps(res), res.Problems, nil
}

// sparkOnly loads Spark event logs only.
var sparkOnly = load.Options{Kinds: []source.Kind{source.SparkEventLog}}

// sparkApps keeps the applications that have an id.
func sparkApps(res *load.Result) []*model.App {
	var apps []*model.App
	for _, a := range res.Apps {
		if a.ID != "" {
			apps = append(apps, a)
		}
	}
	return apps
}
