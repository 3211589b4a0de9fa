package shs

// JobData is one job (Spark's v1.JobData).
type JobData struct {
	JobID               int32    `json:"jobId"`
	Name                string   `json:"name"`
	Description         *string  `json:"description,omitempty"`
	SubmissionTime      *Date    `json:"submissionTime,omitempty"`
	CompletionTime      *Date    `json:"completionTime,omitempty"`
	StageIDs            []int32  `json:"stageIds"`
	JobGroup            *string  `json:"jobGroup,omitempty"`
	JobTags             []string `json:"jobTags"`
	Status              string   `json:"status"`
	NumTasks            int64    `json:"numTasks"`
	NumActiveTasks      int64    `json:"numActiveTasks"`
	NumCompletedTasks   int64    `json:"numCompletedTasks"`
	NumSkippedTasks     int64    `json:"numSkippedTasks"`
	NumFailedTasks      int64    `json:"numFailedTasks"`
	NumKilledTasks      int64    `json:"numKilledTasks"`
	NumCompletedIndices int64    `json:"numCompletedIndices"`
	NumActiveStages     int64    `json:"numActiveStages"`
	NumCompletedStages  int64    `json:"numCompletedStages"`
	NumSkippedStages    int64    `json:"numSkippedStages"`
	NumFailedStages     int64    `json:"numFailedStages"`
	KilledTasksSummary  Counts   `json:"killedTasksSummary"`
}
