package shs

// ProcessSummary is a miscellaneous process of an application (Spark's v1.ProcessSummary).
type ProcessSummary struct {
	ID          string `json:"id"`
	HostPort    string `json:"hostPort"`
	IsActive    bool   `json:"isActive"`
	TotalCores  int32  `json:"totalCores"`
	AddTime     Date   `json:"addTime"`
	ProcessLogs Pairs  `json:"processLogs"`
}

// processList answers /allmiscellaneousprocess.
func (v *appView) processList() []ProcessSummary {
	out := []ProcessSummary{}
	for _, p := range v.app.Processes {
		out = append(out, ProcessSummary{ID: p.ID, HostPort: p.Host, IsActive: true, TotalCores: p.Cores,
			AddTime: Date(p.Time), ProcessLogs: pairs(p.LogURLs)})
	}
	return out
}
