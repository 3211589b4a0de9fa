package promtext

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// processMetrics writes the process's metrics from /proc/self, as the Go
// client reads them (procfs; the CPU time from getrusage, finer than
// /proc's ticks): CPU time, memory, file descriptors and the start time.
func processMetrics(w *Writer) {
	gauge := func(name, help string, v float64) {
		w.Family(name, help, "gauge")
		w.Sample(name, v)
	}
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return
	}
	// The fields after the command's closing parenthesis, from field 3.
	f := bytes.Fields(stat[bytes.LastIndexByte(stat, ')')+1:])
	field := func(n int) float64 {
		if n-3 >= len(f) {
			return 0
		}
		v, _ := strconv.ParseFloat(string(f[n-3]), 64)
		return v
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		w.Family("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.", "counter")
		w.Sample("process_cpu_seconds_total", float64(ru.Utime.Nano()+ru.Stime.Nano())/1e9)
	}
	gauge("process_virtual_memory_bytes", "Virtual memory size in bytes.", field(23))
	gauge("process_resident_memory_bytes", "Resident memory size in bytes.", field(24)*float64(os.Getpagesize()))
	if fds, err := os.ReadDir("/proc/self/fd"); err == nil {
		gauge("process_open_fds", "Number of open file descriptors.", float64(len(fds)))
	}
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil {
		gauge("process_max_fds", "Maximum number of open file descriptors.", float64(lim.Cur))
	}
	const userHZ = 100 // sysconf(_SC_CLK_TCK) on Linux, as procfs assumes
	if boot := bootTime(); boot > 0 {
		gauge("process_start_time_seconds", "Start time of the process since unix epoch in seconds.", boot+field(22)/userHZ)
	}
}

// bootTime is the system's boot time (/proc/stat's btime), Unix seconds.
func bootTime() float64 {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	for line := range bytes.Lines(b) {
		if v, ok := bytes.CutPrefix(line, []byte("btime ")); ok {
			t, _ := strconv.ParseFloat(string(bytes.TrimSpace(v)), 64)
			return t
		}
	}
	return 0
}
