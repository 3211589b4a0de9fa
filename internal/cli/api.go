package cli

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/spf13/cobra"

	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/shs"
	"github.com/clusterlens/clusterlens/internal/source"
)

func init() {
	register(func(e *env) *cobra.Command {
		var lf *logFlags
		cmd := &cobra.Command{
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
				opts, err := lf.options()
				if err != nil {
					return err
				}
				return runAPI(e, args[0], args[1], opts)
			},
		}
		lf = addLogFlags(cmd.Flags())
		return cmd
	})
}

// runAPI loads the logs at path and answers one request.
func runAPI(e *env, path, request string, opts decodelogs.Options) error {
	p, rawQuery, _ := strings.Cut(request, "?")
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return withCode(ExitUsage, fmt.Errorf("request query %q: %w", rawQuery, err))
	}
	opts.Kinds = sparkKinds
	res, err := readLogs(e, []string{path}, opts)
	if err != nil {
		partial(e, res)
		return fmt.Errorf("find logs: %w", err)
	}
	v, err := shs.NewIndex(sparkApps(res)).Get(p, q)
	if err != nil {
		partial(e, res)
		var apiErr *shs.Error
		if errors.As(err, &apiErr) {
			return fmt.Errorf("%s %d: %s", request, apiErr.Status, apiErr.Message)
		}
		return err
	}
	if err := shs.WriteJSON(e.stdout, v); err != nil {
		return fmt.Errorf("write response: %w", err)
	}
	return partial(e, res)
}

// sparkKinds restricts loading to Spark event logs: the History Server API
// knows nothing else.
var sparkKinds = []source.Kind{source.SparkEventLog}

// sparkApps keeps the applications that have an id (the History Server
// lists no others).
func sparkApps(res *decodelogs.Result) []*model.App {
	var apps []*model.App
	for _, a := range res.Apps {
		if a.ID != "" {
			apps = append(apps, a)
		}
	}
	return apps
}
