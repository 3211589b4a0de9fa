package promtext

import (
	"math"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrape reads the registry's /metrics with Prometheus's own parser.
func scrape(t *testing.T, r *Registry) map[string]*dto.MetricFamily {
	t.Helper()
	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("Content-Type %q", ct)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(rec.Body.String()))
	if err != nil {
		t.Fatalf("Prometheus's parser: %v\n%s", err, rec.Body.String())
	}
	return fams
}

// TestPrometheusReadsIt: counters, counters by label (values needing
// escapes included) and a histogram read back by Prometheus's parser
// with the values observed.
func TestPrometheusReadsIt(t *testing.T) {
	c := NewCounter("c_total", "a counter\nwith a \\ in its help")
	v := NewCounterVec("v_total", "by reason", "reason")
	h := NewHistogram("h_seconds", "latency", ExponentialBuckets(0.001, 10, 3)) // 1 ms, 10 ms, 100 ms
	r := NewRegistry(c, v, h)
	c.Inc()
	c.Add(2.5)
	v.Add(`a "quoted"\ value`+"\n", 2)
	v.Add("plain", 0)
	for _, x := range []float64{0.0005, 0.001, 0.002, 0.05, 0.5, 7} {
		h.Observe(x)
	}
	fams := scrape(t, r)
	if got := fams["c_total"].GetMetric()[0].GetCounter().GetValue(); got != 3.5 || fams["c_total"].GetHelp() != "a counter\nwith a \\ in its help" {
		t.Errorf("counter %g, help %q", got, fams["c_total"].GetHelp())
	}
	byLabel := map[string]float64{}
	for _, m := range fams["v_total"].GetMetric() {
		byLabel[m.GetLabel()[0].GetValue()] = m.GetCounter().GetValue()
	}
	if byLabel[`a "quoted"\ value`+"\n"] != 2 || byLabel["plain"] != 0 || len(byLabel) != 2 {
		t.Errorf("counters by label: %v", byLabel)
	}
	hist := fams["h_seconds"].GetMetric()[0].GetHistogram()
	want := []uint64{2, 3, 4, 6} // cumulative: ≤1 ms, ≤10 ms, ≤100 ms, +Inf
	if len(hist.GetBucket()) != len(want) {
		t.Fatalf("%d buckets, want %d", len(hist.GetBucket()), len(want))
	}
	for i, b := range hist.GetBucket() {
		if b.GetCumulativeCount() != want[i] {
			t.Errorf("bucket le=%g: %d, want %d", b.GetUpperBound(), b.GetCumulativeCount(), want[i])
		}
	}
	if hist.GetSampleCount() != 6 || math.Abs(hist.GetSampleSum()-7.5535) > 1e-9 {
		t.Errorf("count %d sum %g, want 6 and 7.5535", hist.GetSampleCount(), hist.GetSampleSum())
	}
}

// TestRuntime: the Go runtime's and the process's metrics, under the Go
// client's names, with plausible values.
func TestRuntime(t *testing.T) {
	fams := scrape(t, NewRegistry(Runtime{}))
	value := func(name string) float64 {
		f := fams[name]
		if f == nil {
			t.Errorf("no %s", name)
			return 0
		}
		m := f.GetMetric()[0]
		if f.GetType() == dto.MetricType_COUNTER {
			return m.GetCounter().GetValue()
		}
		return m.GetGauge().GetValue()
	}
	if g := value("go_goroutines"); g < 1 {
		t.Errorf("go_goroutines %g", g)
	}
	if a := value("go_memstats_alloc_bytes"); a <= 0 || a > value("go_memstats_sys_bytes") {
		t.Errorf("go_memstats_alloc_bytes %g", a)
	}
	if runtime.GOOS != "linux" {
		return
	}
	if rss := value("process_resident_memory_bytes"); rss < 1<<20 {
		t.Errorf("process_resident_memory_bytes %g", rss)
	}
	if fds := value("process_open_fds"); fds < 3 || fds > value("process_max_fds") {
		t.Errorf("process_open_fds %g", fds)
	}
	if cpu := value("process_cpu_seconds_total"); cpu <= 0 {
		t.Errorf("process_cpu_seconds_total %g", cpu)
	}
	if start := value("process_start_time_seconds"); start < 1.6e9 {
		t.Errorf("process_start_time_seconds %g", start)
	}
}
