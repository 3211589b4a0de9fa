package agent

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/collector"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/store"
)

const testToken = "agent-test-token"

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// fakeSampler emits n metrics per call stamped with the call's time and
// records every sample it produced, so a test can compare what was
// produced with what was stored.
type fakeSampler struct {
	host string
	n    int
	mu   sync.Mutex
	made map[model.SampleKey]float64
	last int64
}

func newFake(host string, n int) *fakeSampler {
	return &fakeSampler{host: host, n: n, made: map[model.SampleKey]float64{}}
}

func (f *fakeSampler) Sample(now time.Time, dst []model.Sample) ([]model.Sample, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := now.UnixMilli()
	if t <= f.last { // two ticks in one millisecond would collide
		t = f.last + 1
	}
	f.last = t
	for i := 0; i < f.n; i++ {
		s := model.Sample{Time: t, Host: f.host, Type: model.NodeMetricNames[i%len(model.NodeMetricNames)],
			Target: string(rune('a' + i/len(model.NodeMetricNames))), Value: float64(t%1000) + float64(i)}
		f.made[s.Key()] = s.Value
		dst = append(dst, s)
	}
	return dst, nil
}

func (f *fakeSampler) produced() map[model.SampleKey]float64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[model.SampleKey]float64, len(f.made))
	for k, v := range f.made {
		out[k] = v
	}
	return out
}

// collectorOn runs a real collector on addr (a fixed loopback address, so
// that it can be stopped and started again) until stop is called. stop
// with abrupt set closes the listener and every connection at once, as a
// killed process would, without waiting for requests in flight.
func collectorOn(t *testing.T, addr string, st store.Store) (stop func(abrupt bool)) {
	t.Helper()
	srv, err := collector.New(collector.Config{Store: st, Token: testToken, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	var ln net.Listener
	for i := 0; ; i++ { // the previous instance's port may linger briefly
		if ln, err = net.Listen("tcp", addr); err == nil || i == 50 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: srv.Handler()}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	return func(abrupt bool) {
		if abrupt {
			hs.Close()
			time.Sleep(100 * time.Millisecond) // handlers still running finish their store call
		} else if err := hs.Shutdown(context.Background()); err != nil {
			t.Errorf("collector shutdown: %v", err)
		}
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("collector: %v", err)
		}
	}
}

// freeAddr returns a loopback address with a free port.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// storedKeys reads every sample back from st, counting each key's
// occurrences.
func storedKeys(t *testing.T, st store.Store) map[model.SampleKey][]float64 {
	t.Helper()
	got := map[model.SampleKey][]float64{}
	err := st.Query(context.Background(), store.Query{}, func(s *model.Sample) error {
		got[s.Key()] = append(got[s.Key()], s.Value)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// exactlyOnce fails unless stored holds every produced sample exactly
// once with its value, and nothing else.
func exactlyOnce(t *testing.T, produced map[model.SampleKey]float64, stored map[model.SampleKey][]float64) {
	t.Helper()
	var missing, dups, wrong int
	for k, v := range produced {
		switch got := stored[k]; {
		case len(got) == 0:
			missing++
		case len(got) > 1:
			dups++
		case got[0] != v:
			wrong++
		}
	}
	extra := 0
	for k := range stored {
		if _, ok := produced[k]; !ok {
			extra++
		}
	}
	if missing+dups+wrong+extra > 0 || len(produced) == 0 {
		t.Fatalf("produced %d samples, stored %d keys: %d missing, %d stored more than once, %d with another value, %d never produced",
			len(produced), len(stored), missing, dups, wrong, extra)
	}
}
