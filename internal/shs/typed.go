package shs

import "github.com/clusterlens/clusterlens/internal/model"

// The typed answers for callers in the same process (Dr. Elephant's
// heuristics in diagnose): the resources a History Server client would
// fetch, as values rather than REST paths to format and decode. Each
// answers exactly as the route of the same name with no query parameters.

// AllExecutors is /applications/{id}[/{attempt}]/allexecutors for attempt
// a: every executor, active or removed, the driver among them.
func (ix *Index) AllExecutors(a *model.App) []ExecutorSummary {
	return ix.view(a).executorList(false)
}

// Jobs is /applications/{id}[/{attempt}]/jobs for attempt a: every job.
func (ix *Index) Jobs(a *model.App) []JobData { return ix.view(a).jobList(nil) }

// Stages is /applications/{id}[/{attempt}]/stages for attempt a: every
// stage attempt, without task details, with the default quantiles.
func (ix *Index) Stages(a *model.App) []StageData {
	qs, err := parseQuantiles(defaultStageQuantiles)
	if err != nil {
		panic("shs: default stage quantiles do not parse: " + err.Message)
	}
	return ix.view(a).stageList(nil, stageOptions{quantiles: sortedCopy(qs)})
}

// Attempts returns application appID's attempts, newest start first (nil
// when the index has no such application). An attempt known only from its
// log's first events is among them: Pending(appID) tells.
func (ix *Index) Attempts(appID string) []*model.App {
	if e := ix.byID[appID]; e != nil {
		return e.attempts
	}
	return nil
}

// Apps returns every application's newest attempt, in the order the
// History Server lists them.
func (ix *Index) Apps() []*model.App {
	out := make([]*model.App, len(ix.apps))
	for i, e := range ix.apps {
		out[i] = e.attempts[0]
	}
	return out
}
