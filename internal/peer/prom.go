package peer

import "github.com/clusterlens/clusterlens/internal/promtext"

// Collect writes o's per-node state as Prometheus metrics (the
// collector's /metrics): the alarm count and indicted flag (gauges), the
// alarms (a counter) per host, and the vectors labelled and unexplained.
func (o *Online) Collect(w *promtext.Writer) {
	st := o.Statuses()
	w.Family("clusterlens_peer_alarm_count", "Ganesha's exponentially weighted alarm count of the node.", "gauge")
	for _, s := range st {
		w.Sample("clusterlens_peer_alarm_count", s.AlarmCount, "host", s.Host)
	}
	w.Family("clusterlens_peer_indicted", "1 while the node's alarm count is above the indictment threshold, else 0.", "gauge")
	for _, s := range st {
		ind := 0.0
		if s.Indicted {
			ind = 1
		}
		w.Sample("clusterlens_peer_indicted", ind, "host", s.Host)
	}
	w.Family("clusterlens_peer_alarms_total", "Comparison steps in which the node differed from more than half of its peers.", "counter")
	for _, s := range st {
		w.Sample("clusterlens_peer_alarms_total", float64(s.Alarms), "host", s.Host)
	}
	v, u, _ := o.Counts()
	w.Family("clusterlens_peer_vectors_total", "Metric vectors labelled by the peer profile.", "counter")
	w.Sample("clusterlens_peer_vectors_total", float64(v))
	w.Family("clusterlens_peer_unknown_vectors_total", "Metric vectors no profile component explained.", "counter")
	w.Sample("clusterlens_peer_unknown_vectors_total", float64(u))
}
