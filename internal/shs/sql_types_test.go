package shs

// ExecutionData is one SQL execution (Spark 3.5's v1.sql.ExecutionData) as
// the tests read /sql's JSON back. Description and PlanDescription are
// absent when Spark has null (an execution known only from its jobs).
type ExecutionData struct {
	ID              int64      `json:"id"`
	Status          string     `json:"status"`
	Description     *string    `json:"description,omitempty"`
	PlanDescription *string    `json:"planDescription,omitempty"`
	SubmissionTime  string     `json:"submissionTime"`
	Duration        int64      `json:"duration"`
	RunningJobIDs   []int32    `json:"runningJobIds"`
	SuccessJobIDs   []int32    `json:"successJobIds"`
	FailedJobIDs    []int32    `json:"failedJobIds"`
	Nodes           []PlanNode `json:"nodes"`
	Edges           []PlanEdge `json:"edges"`
}

// PlanNode is an operator of the plan graph with its metrics' values
// (Spark's v1.sql.Node).
type PlanNode struct {
	NodeID              int64        `json:"nodeId"`
	NodeName            string       `json:"nodeName"`
	WholeStageCodegenID *int64       `json:"wholeStageCodegenId,omitempty"`
	Metrics             []PlanMetric `json:"metrics"`
}

// PlanMetric is one metric of a node as the SQL page prints it (v1.sql.Metric).
type PlanMetric struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// PlanEdge is a child (fromId) feeding a parent (toId) (SparkPlanGraphEdge).
type PlanEdge struct {
	FromID int64 `json:"fromId"`
	ToID   int64 `json:"toId"`
}
