package shs

import (
	"net/url"

	"github.com/clusterlens/clusterlens/internal/model"
)

// applicationStatuses are Spark's ApplicationStatus names.
var applicationStatuses = []string{"COMPLETED", "RUNNING"}

// applicationList answers /applications: status (repeatable), minDate,
// maxDate, minEndDate, maxEndDate and limit, as ApplicationListResource.
func (ix *Index) applicationList(q url.Values) ([]ApplicationInfo, *Error) {
	statuses, err := enumValues(q, "status", applicationStatuses)
	if err != nil {
		return nil, err
	}
	minDate, err := dateParam(q, "minDate", "2010-01-01")
	if err != nil {
		return nil, err
	}
	maxDate, err := dateParam(q, "maxDate", "3000-01-01")
	if err != nil {
		return nil, err
	}
	minEnd, err := dateParam(q, "minEndDate", "2010-01-01")
	if err != nil {
		return nil, err
	}
	maxEnd, err := dateParam(q, "maxEndDate", "3000-01-01")
	if err != nil {
		return nil, err
	}
	limit, hasLimit := 0, false
	if _, ok := first(q, "limit"); ok {
		if limit, err = intParam(q, "limit", 0); err != nil {
			return nil, err
		}
		hasLimit = true
	}
	includeCompleted := len(statuses) == 0 || contains(statuses, "COMPLETED")
	includeRunning := len(statuses) == 0 || contains(statuses, "RUNNING")

	out := []ApplicationInfo{}
	for _, e := range ix.apps {
		if hasLimit && len(out) >= limit {
			break
		}
		anyRunning := !e.attempts[0].Complete
		if !(anyRunning && includeRunning || !anyRunning && includeCompleted) {
			continue
		}
		inRange := false
		for _, a := range e.attempts {
			startOK := a.Start >= minDate && a.Start <= maxDate
			end := attemptEnd(a)
			endOK := anyRunning && maxEnd > ix.now() || !anyRunning && end >= minEnd && end <= maxEnd
			if startOK && endOK {
				inRange = true
				break
			}
		}
		if inRange {
			out = append(out, e.info())
		}
	}
	return out, nil
}

// oneApplication answers /applications/{appId}.
func (ix *Index) oneApplication(appID string) (ApplicationInfo, *Error) {
	e := ix.byID[appID]
	if e == nil {
		return ApplicationInfo{}, notFound("unknown app: %s", appID)
	}
	return e.info(), nil
}

// oneAttempt answers /applications/{appId}/{attemptId}.
func (ix *Index) oneAttempt(appID, attemptID string) (ApplicationAttemptInfo, *Error) {
	if e := ix.byID[appID]; e != nil {
		for _, a := range e.attempts {
			if a.AttemptID != "" && a.AttemptID == attemptID {
				return attemptInfo(a), nil
			}
		}
	}
	return ApplicationAttemptInfo{}, notFound("unknown app %s, attempt %s", appID, attemptID)
}

// info is the listing entry of an application.
func (e *appEntry) info() ApplicationInfo {
	ai := ApplicationInfo{ID: e.id, Name: e.name, Attempts: make([]ApplicationAttemptInfo, 0, len(e.attempts))}
	for _, a := range e.attempts {
		ai.Attempts = append(ai.Attempts, attemptInfo(a))
	}
	return ai
}

// attemptInfo is what FsHistoryProvider's AppListingListener records for an
// attempt: end -1 and duration 0 until the application-end event.
func attemptInfo(a *model.App) ApplicationAttemptInfo {
	end := attemptEnd(a)
	var dur int64
	if a.Complete {
		dur = a.End - a.Start
	}
	ai := ApplicationAttemptInfo{
		StartTime:        Date(a.Start),
		EndTime:          Date(end),
		LastUpdated:      Date(a.LastUpdated),
		Duration:         dur,
		SparkUser:        a.User,
		Completed:        a.Complete,
		AppSparkVersion:  a.Version,
		EndTimeEpoch:     end,
		StartTimeEpoch:   a.Start,
		LastUpdatedEpoch: a.LastUpdated,
	}
	if a.AttemptID != "" {
		id := a.AttemptID
		ai.AttemptID = &id
	}
	return ai
}

// contains reports whether ss holds s.
func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
