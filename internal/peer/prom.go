package peer

import "github.com/prometheus/client_golang/prometheus"

var (
	descAlarmCount = prometheus.NewDesc("clusterlens_peer_alarm_count",
		"Ganesha's exponentially weighted alarm count of the node.", []string{"host"}, nil)
	descIndicted = prometheus.NewDesc("clusterlens_peer_indicted",
		"1 while the node's alarm count is above the indictment threshold, else 0.", []string{"host"}, nil)
	descAlarms = prometheus.NewDesc("clusterlens_peer_alarms_total",
		"Comparison steps in which the node differed from more than half of its peers.", []string{"host"}, nil)
	descVectors = prometheus.NewDesc("clusterlens_peer_vectors_total",
		"Metric vectors labelled by the peer profile.", nil, nil)
	descUnknown = prometheus.NewDesc("clusterlens_peer_unknown_vectors_total",
		"Metric vectors no profile component explained.", nil, nil)
)

// Collector returns a prometheus.Collector exporting o's per-node state:
// the alarm count and indicted flag (gauges) and alarms (a counter).
func (o *Online) Collector() prometheus.Collector { return promCollector{o} }

type promCollector struct{ o *Online }

// Describe sends the metrics' descriptions.
func (c promCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descAlarmCount, descIndicted, descAlarms, descVectors, descUnknown} {
		ch <- d
	}
}

// Collect sends the current values.
func (c promCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.o.Statuses()
	for _, s := range st {
		ind := 0.0
		if s.Indicted {
			ind = 1
		}
		ch <- prometheus.MustNewConstMetric(descAlarmCount, prometheus.GaugeValue, s.AlarmCount, s.Host)
		ch <- prometheus.MustNewConstMetric(descIndicted, prometheus.GaugeValue, ind, s.Host)
		ch <- prometheus.MustNewConstMetric(descAlarms, prometheus.CounterValue, float64(s.Alarms), s.Host)
	}
	v, u, _ := c.o.Counts()
	ch <- prometheus.MustNewConstMetric(descVectors, prometheus.CounterValue, float64(v))
	ch <- prometheus.MustNewConstMetric(descUnknown, prometheus.CounterValue, float64(u))
}
