package shs

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/clusterlens/clusterlens/internal/model"
)

// APIVersion is the Spark version whose REST API this package implements.
const APIVersion = "3.5.0"

// VersionInfo answers /version.
type VersionInfo struct {
	Spark string `json:"spark"`
}

// subResources are the paths under an application (or attempt) that are not
// an attempt id.
var subResources = map[string]bool{
	"jobs": true, "executors": true, "allexecutors": true, "allmiscellaneousprocess": true,
	"stages": true, "storage": true, "environment": true, "logs": true, "threads": true, "sql": true,
}

// digits is the \d+ of Spark's path templates.
var digits = regexp.MustCompile(`^[0-9]+$`)

// Get answers one GET request under /api/v1: path like
// "applications/app-1/stages/0/0/taskList" (a leading "/api/v1/" and
// surrounding slashes are allowed) and its query. The result marshals to
// the History Server's JSON; a refused request returns an *Error.
func (ix *Index) Get(path string, query url.Values) (any, error) {
	v, err := ix.get(path, query)
	if err != nil {
		return nil, err
	}
	return v, nil
}

// Answer is Get's result encoded as the History Server writes it
// (Marshal). Answers about an application attempt that read no clock are
// computed once: they are cached with the index's aggregates (With keeps
// them), up to answerCacheBytes, the least recently used dropped first.
func (ix *Index) Answer(path string, query url.Values) ([]byte, error) {
	var key answerKey
	if a, _, _ := ix.resource(cleanPath(path)); a != nil && !ix.heads[a] {
		key = answerKey{a, cleanPath(path) + "?" + query.Encode()}
		if body, ok := ix.cache.answer(key); ok {
			return body, nil
		}
	}
	clock := ix.cache.clockReads.Load()
	v, err := ix.Get(path, query)
	if err != nil {
		return nil, err
	}
	body, err := Marshal(v)
	if err != nil {
		return nil, err
	}
	if key.app != nil && ix.cache.clockReads.Load() == clock {
		ix.cache.store(key, body)
	}
	return body, nil
}

// cleanPath is path under /api/v1 without the prefix and surrounding slashes.
func cleanPath(path string) string {
	p := strings.Trim(path, "/")
	p = strings.TrimPrefix(strings.TrimPrefix(p, "api/"), "v1")
	return strings.Trim(p, "/")
}

// AppID is the application a request path is about, "" for the listing
// and the version.
func AppID(path string) string {
	seg := strings.Split(cleanPath(path), "/")
	if len(seg) < 2 || seg[0] != "applications" {
		return ""
	}
	return seg[1]
}

// resource splits a path under an application attempt (p as cleanPath
// returns it) into the attempt, its id (nil for the attempt without one)
// and the sub-resource path; the attempt is nil for other paths.
func (ix *Index) resource(p string) (*model.App, *string, []string) {
	seg := strings.Split(p, "/")
	if len(seg) < 3 || seg[0] != "applications" || seg[1] == "" {
		return nil, nil, nil
	}
	rest := seg[2:]
	var attemptID *string
	if !subResources[rest[0]] {
		id := rest[0]
		attemptID = &id
		rest = rest[1:]
		if len(rest) == 0 || !subResources[rest[0]] {
			return nil, nil, nil
		}
	}
	return ix.attempt(seg[1], attemptID), attemptID, rest
}

// get routes a request; see Get.
func (ix *Index) get(path string, q url.Values) (any, *Error) {
	p := cleanPath(path)
	seg := strings.Split(p, "/")
	if q == nil {
		q = url.Values{}
	}
	switch {
	case len(seg) == 1 && seg[0] == "version":
		return VersionInfo{Spark: APIVersion}, nil
	case len(seg) == 1 && seg[0] == "applications":
		return ix.applicationList(q)
	case len(seg) < 2 || seg[0] != "applications" || seg[1] == "":
		return nil, notFound("no resource at /api/v1/%s", p)
	}
	appID := seg[1]
	rest := seg[2:]
	if len(rest) == 0 {
		return ix.oneApplication(appID)
	}
	if !subResources[rest[0]] && (len(rest) == 1 || !subResources[rest[1]]) {
		if len(rest) == 1 {
			return ix.oneAttempt(appID, rest[0])
		}
		return nil, notFound("no resource at /api/v1/%s", p)
	}
	a, attemptID, rest := ix.resource(p)
	return ix.appResource(a, appID, attemptID, rest, q, p)
}

// appResource answers the resources of one application attempt, a (nil
// when none has attemptID).
func (ix *Index) appResource(a *model.App, appID string, attemptID *string, rest []string, q url.Values, p string) (any, *Error) {
	noRoute := notFound("no resource at /api/v1/%s", p)
	appKey := appID
	if attemptID != nil {
		appKey += "/" + *attemptID
	}
	// Jersey converts query parameters before the resource runs.
	conv, perr := convertParams(rest, q)
	if perr != nil {
		return nil, perr
	}
	if !validRoute(rest) {
		return nil, noRoute
	}
	if a == nil {
		return nil, notFound("no such app: %s", appKey)
	}
	if rest[0] == "sql" {
		return ix.sqlResource(a, rest, conv.sql)
	}
	v := ix.view(a)
	switch rest[0] {
	case "jobs":
		if len(rest) == 1 {
			return v.jobList(conv.statuses), nil
		}
		id, err := pathInt(rest[1])
		if err != nil {
			return nil, err
		}
		return v.oneJob(id)
	case "executors":
		if len(rest) == 3 {
			return nil, threadDump(rest[1])
		}
		return v.executorList(true), nil
	case "allexecutors":
		return v.executorList(false), nil
	case "allmiscellaneousprocess":
		return v.processList(), nil
	case "environment":
		return v.environment(appKey)
	case "storage":
		if len(rest) == 2 {
			return []any{}, nil
		}
		return nil, notFound("no rdd found w/ id %s", rest[2])
	case "logs":
		return nil, unavailable("Event logs are not available for app: %s.", appID)
	case "threads":
		return nil, unavailable("Thread dumps not available through the history server.")
	case "stages":
		return v.stagesResource(rest[1:], q, conv)
	}
	return nil, noRoute
}

// validRoute checks a sub-resource path against Spark's templates.
func validRoute(rest []string) bool {
	n := len(rest)
	switch rest[0] {
	case "jobs":
		return n == 1 || n == 2 && digits.MatchString(rest[1])
	case "executors":
		return n == 1 || n == 3 && rest[2] == "threads"
	case "allexecutors", "allmiscellaneousprocess", "environment", "logs", "threads":
		return n == 1
	case "sql":
		return n == 1 || n == 2 && digits.MatchString(rest[1])
	case "storage":
		return n >= 2 && rest[1] == "rdd" && (n == 2 || n == 3 && digits.MatchString(rest[2]))
	case "stages":
		switch {
		case n == 1:
			return true
		case !digits.MatchString(rest[1]):
			return false
		case n == 2:
			return true
		case !digits.MatchString(rest[2]):
			return false
		case n == 3:
			return true
		case n == 4:
			return rest[3] == "taskSummary" || rest[3] == "taskList"
		}
	}
	return false
}

// params are a request's converted query parameters.
type params struct {
	statuses     []string // status: job, stage or task states
	taskStatuses []string // taskStatus
	details      bool
	summaries    bool
	offset       int
	length       int
	sortBy       int
	sql          sqlParams
}

// convertParams converts the query parameters the addressed resource
// declares, as Jersey does before calling it.
func convertParams(rest []string, q url.Values) (params, *Error) {
	var p params
	var err *Error
	switch rest[0] {
	case "sql":
		p.sql, err = convertSQLParams(rest, q)
	case "jobs":
		if len(rest) == 1 {
			p.statuses, err = enumValues(q, "status", jobStatuses)
		}
	case "stages":
		n := len(rest)
		switch {
		case n <= 3:
			if n == 1 {
				p.statuses, err = enumValues(q, "status", stageStatuses)
			}
			if err == nil {
				p.taskStatuses, err = enumValues(q, "taskStatus", taskStatuses)
			}
			p.details = boolParam(q, "details", n > 1)
			p.summaries = boolParam(q, "withSummaries", false)
		case rest[3] == "taskList":
			if p.offset, err = intParam(q, "offset", 0); err != nil {
				return p, err
			}
			if p.length, err = intParam(q, "length", 20); err != nil {
				return p, err
			}
			if s, ok := first(q, "sortBy"); ok {
				if p.sortBy, err = parseTaskSorting(s); err != nil {
					return p, err
				}
			}
			p.statuses, err = enumValues(q, "status", taskStatuses)
		}
	}
	return p, err
}

// stagesResource answers /stages and below.
func (v *appView) stagesResource(rest []string, q url.Values, p params) (any, *Error) {
	qs := defaultStageQuantiles
	if len(rest) == 3 && rest[2] == "taskSummary" {
		qs = defaultSummaryQuantiles
	}
	if s, ok := first(q, "quantiles"); ok {
		qs = s
	}
	o := stageOptions{details: p.details, taskStatuses: p.taskStatuses, withSummaries: p.summaries}
	if len(rest) == 0 {
		quantiles, err := parseQuantiles(qs)
		if err != nil {
			return nil, err
		}
		o.quantiles = sortedCopy(quantiles)
		return v.stageList(p.statuses, o), nil
	}
	id, err := pathInt(rest[0])
	if err != nil {
		return nil, err
	}
	if len(rest) == 1 {
		quantiles, err := parseQuantiles(qs)
		if err != nil {
			return nil, err
		}
		o.quantiles = sortedCopy(quantiles)
		return v.oneStage(id, o)
	}
	attempt, err := pathInt(rest[1])
	if err != nil {
		return nil, err
	}
	if len(rest) == 2 {
		quantiles, err := parseQuantiles(qs)
		if err != nil {
			return nil, err
		}
		sa, err := v.findAttempt(id, attempt)
		if err != nil {
			return nil, err
		}
		o.quantiles = sortedCopy(quantiles)
		return v.stageData(sa, o), nil
	}
	if rest[2] == "taskSummary" {
		quantiles, err := parseQuantiles(qs)
		if err != nil {
			return nil, err
		}
		sa, _ := v.findAttempt(id, attempt)
		var d *TaskMetricDistributions
		if sa != nil {
			d = v.taskSummary(sa.st, sortedCopy(quantiles))
		}
		if d == nil {
			return nil, notFound("No tasks reported metrics for %d / %d yet.", id, attempt)
		}
		return d, nil
	}
	sa, _ := v.findAttempt(id, attempt)
	if sa == nil {
		return []TaskData{}, nil
	}
	return v.taskList(sa.st, p.offset, p.length, p.sortBy, p.statuses), nil
}

// pathInt converts a \d+ path segment to an Int; one that overflows is a
// 404 as Jersey answers it.
func pathInt(s string) (int32, *Error) {
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return 0, notFound("bad path parameter: %s", s)
	}
	return int32(n), nil
}

// sortedCopy returns qs sorted ascending.
func sortedCopy(qs []float64) []float64 {
	out := append([]float64(nil), qs...)
	sortFloats(out)
	return out
}

// threadDump answers /executors/{id}/threads: the History Server has no
// live executors to ask.
func threadDump(execID string) *Error {
	if execID != driverID && !digits.MatchString(execID) {
		return badRequest("Invalid executorId: neither '%s' nor number.", driverID)
	}
	return unavailable("Thread dumps not available through the history server.")
}
