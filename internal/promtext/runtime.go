package promtext

import (
	"runtime"
	"runtime/pprof"
)

// Runtime writes the Go runtime's and the process's metrics, a subset of
// those of Prometheus's Go client under its names: go_goroutines,
// go_threads, go_memstats_alloc_bytes, go_memstats_sys_bytes,
// go_memstats_heap_inuse_bytes, go_gc_cycles_total, and on Linux
// process_cpu_seconds_total, process_resident_memory_bytes,
// process_virtual_memory_bytes, process_open_fds, process_max_fds and
// process_start_time_seconds.
type Runtime struct{}

// Collect writes the metrics.
func (Runtime) Collect(w *Writer) {
	gauge := func(name, help string, v float64) {
		w.Family(name, help, "gauge")
		w.Sample(name, v)
	}
	gauge("go_goroutines", "Number of goroutines that currently exist.", float64(runtime.NumGoroutine()))
	gauge("go_threads", "Number of OS threads created.", float64(pprof.Lookup("threadcreate").Count()))
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	gauge("go_memstats_alloc_bytes", "Number of bytes allocated in heap and currently in use.", float64(ms.HeapAlloc))
	gauge("go_memstats_sys_bytes", "Number of bytes obtained from system.", float64(ms.Sys))
	gauge("go_memstats_heap_inuse_bytes", "Number of heap bytes that are in use.", float64(ms.HeapInuse))
	w.Family("go_gc_cycles_total", "Number of completed GC cycles.", "counter")
	w.Sample("go_gc_cycles_total", float64(ms.NumGC))
	processMetrics(w)
}
