package model

// JobStatus is a job's outcome.
type JobStatus uint8

// Job statuses, as the History Server names them.
const (
	JobRunning JobStatus = iota
	JobSucceeded
	JobFailed
	JobUnknown
)

func (s JobStatus) String() string {
	return [...]string{"RUNNING", "SUCCEEDED", "FAILED", "UNKNOWN"}[s]
}

// Job is a Spark job (an action) or a MapReduce job.
type Job struct {
	ID          int32
	Name        string // Spark: name of the job's last stage; MapReduce: job name
	Description string // spark.job.description
	Group       string // spark.jobGroup.id
	SQLID       int64  // spark.sql.execution.id, -1 when none
	Submitted   int64
	Completed   int64
	Status      JobStatus
	Failure     string
	StageIDs    []int32
	// StageInfos are the stage ids listed at job start with their declared task counts,
	// including stages later skipped.
	StageTasks []int32
	// NumTasks is the job's task count as Spark estimates it at job start
	// (the History Server's JobData.numTasks): the declared tasks of the
	// stages listed then that had not completed, so reused stages are left out.
	NumTasks   int64
	Properties [][2]string
	// ResultStage is the job's final stage id.
	ResultStage int32
}
