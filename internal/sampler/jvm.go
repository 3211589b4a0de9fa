package sampler

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/clusterlens/clusterlens/internal/model"
)

func init() { Register("jvm", false, newJVMSampler) }

// JVMRetryAfter is how long a JVM whose dump failed is left alone before
// the next try, so one JVM that never answers (another user's JDK 8, -Xrs)
// does not cost a wait at every call.
const JVMRetryAfter = time.Minute

// JVMMaxFrames is how many of a stack's innermost frames a thread sample
// keeps; deeper frames are replaced by one "..." line, so a JVM with deep
// stacks cannot blow up the shipped volume.
const JVMMaxFrames = 64

// jvmSampler is HiTune's task-execution sampler (Dai et al., USENIX ATC'11,
// §4.1): at each call it finds the node's Spark executors
// (org.apache.spark.executor.*ExecutorBackend) and MapReduce task JVMs
// (org.apache.hadoop.mapred.YarnChild) from /proc/PID/cmdline, takes a
// thread dump of each through the JVM's attach listener (attachSocket,
// dumpThreads), and
// emits one model.ThreadSampleType sample per thread: Target "pid/tid",
// Value the task the thread works for (taskOfThread), Text
// "executor\tthread name\tstate\tstack". A node without JVMs yields
// nothing; a JVM that cannot be dumped (gone, -Xrs, another user on an old
// JDK) is logged and skipped for JVMRetryAfter. A JVM asked to open its
// attach socket is skipped, not waited for, until it has (at most
// attachTimeout), so a JVM still starting holds up no other's samples.
type jvmSampler struct {
	host     string
	procRoot string
	log      func(msg string, args ...any)
	text     strings.Builder
	failed   map[int]time.Time      // pid → when to try again
	starting map[int]startingAttach // pid → its attach listener asked for
}

// startingAttach is a JVM asked to open its attach socket that has not yet.
type startingAttach struct {
	sock, trigger string
	since         time.Time
}

func newJVMSampler(cfg Config) (Sampler, error) {
	root := cfg.ProcRoot
	if root == "" {
		root = "/proc"
	}
	if _, err := os.Stat(root); err != nil {
		return nil, fmt.Errorf("jvm sampler: %w: %w", ErrUnsupported, err)
	}
	s := &jvmSampler{host: hostOf(cfg), procRoot: root, log: func(string, ...any) {},
		failed: map[int]time.Time{}, starting: map[int]startingAttach{}}
	if cfg.Logger != nil {
		s.log = cfg.Logger.Debug
	}
	return s, nil
}

// taskJVM is a JVM this sampler samples.
type taskJVM struct {
	pid     int
	exec    string // Spark executor id, or the MapReduce attempt id
	attempt int    // YarnChild: the attempt's task number; -1 for executors
}

// Sample implements Sampler.
func (s *jvmSampler) Sample(now time.Time, dst []model.Sample) ([]model.Sample, error) {
	jvms, err := findTaskJVMs(s.procRoot)
	if err != nil {
		return dst, fmt.Errorf("jvm sampler: %w", err)
	}
	ms := now.UnixMilli()
	alive := make(map[int]bool, len(jvms))
	for _, j := range jvms {
		alive[j.pid] = true
		if now.Before(s.failed[j.pid]) {
			continue
		}
		sock, err := s.attach(now, j.pid)
		if errors.Is(err, errAttachStarting) {
			continue
		}
		var dump []byte
		if err == nil {
			dump, err = dumpThreads(sock, j.pid)
		}
		if err != nil {
			s.log("jvm sampler: skip JVM", "pid", j.pid, "err", err, "retry_in", JVMRetryAfter)
			s.failed[j.pid] = now.Add(JVMRetryAfter)
			continue
		}
		delete(s.failed, j.pid)
		threads, err := parseThreadDump(dump)
		if err != nil {
			s.log("jvm sampler: thread dump parsed in part", "pid", j.pid, "err", err)
		}
		for _, t := range threads {
			s.text.Reset()
			writeThreadText(&s.text, j.exec, t)
			dst = append(dst, model.Sample{
				Time: ms, Host: s.host, Type: model.ThreadSampleType,
				Target: strconv.Itoa(j.pid) + "/" + strconv.Itoa(t.tid),
				Value:  float64(taskOfThread(t.name, j)), Text: s.text.String(),
			})
		}
	}
	for pid := range s.failed {
		if !alive[pid] {
			delete(s.failed, pid)
		}
	}
	for pid, st := range s.starting {
		if !alive[pid] {
			os.Remove(st.trigger)
			delete(s.starting, pid)
		}
	}
	return dst, nil
}

// attach is pid's attach socket. A JVM asked at an earlier call and still
// without it gives errAttachStarting until attachTimeout has passed since,
// then an error; a JVM asked now and not answering within attachWait is
// remembered as starting.
func (s *jvmSampler) attach(now time.Time, pid int) (string, error) {
	if st, ok := s.starting[pid]; ok {
		_, err := os.Stat(st.sock)
		if err != nil && now.Sub(st.since) < attachTimeout {
			return "", errAttachStarting
		}
		os.Remove(st.trigger)
		delete(s.starting, pid)
		if err != nil {
			return "", fmt.Errorf("jvm %d: no attach socket %s after %v", pid, st.sock, attachTimeout)
		}
		return st.sock, nil
	}
	sock, trigger, err := attachSocket(s.procRoot, pid)
	if errors.Is(err, errAttachStarting) {
		s.starting[pid] = startingAttach{sock: sock, trigger: trigger, since: now}
	}
	return sock, err
}

// writeThreadText writes model.ThreadSampleType's Text: "executor\tthread
// name\tstate\tstack", the stack's frames (at most JVMMaxFrames) joined by "\n".
// Tabs and newlines inside the executor id or the thread name (Java allows
// any name) become spaces, so the fields stay separable.
func writeThreadText(sb *strings.Builder, exec string, t javaThread) {
	sb.WriteString(fieldSafe.Replace(exec))
	sb.WriteByte('\t')
	sb.WriteString(fieldSafe.Replace(t.name))
	sb.WriteByte('\t')
	sb.WriteString(t.state)
	sb.WriteByte('\t')
	for i, f := range t.frames {
		if i > 0 {
			sb.WriteByte('\n')
		}
		if i == JVMMaxFrames {
			sb.WriteString("...")
			break
		}
		sb.WriteString(f)
	}
}

var fieldSafe = strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")

// taskOfThread maps a thread to the task it runs, from its name: Spark 2+
// names task threads "Executor task launch worker for task 3.0 in stage
// 1.0 (TID 7)" → 7; a YarnChild's "main" thread runs the JVM's one attempt
// → its task number. Anything else, including Spark 1.x's "Executor task
// launch worker-N" (N is a pool slot; the TID is only in the executor's
// log lines that thread writes), maps to -1.
func taskOfThread(name string, j taskJVM) int {
	if j.attempt >= 0 {
		if name == "main" {
			return j.attempt
		}
		return -1
	}
	const prefix = "Executor task launch worker for task "
	if !strings.HasPrefix(name, prefix) || !strings.HasSuffix(name, ")") {
		return -1
	}
	i := strings.LastIndex(name, "(TID ")
	if i < 0 {
		return -1
	}
	n, err := strconv.Atoi(name[i+len("(TID ") : len(name)-1])
	if err != nil || n < 0 {
		return -1
	}
	return n
}

// findTaskJVMs lists the Spark executor and YarnChild JVMs under procRoot.
func findTaskJVMs(procRoot string) ([]taskJVM, error) {
	ents, err := os.ReadDir(procRoot)
	if err != nil {
		return nil, err
	}
	var out []taskJVM
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 0 {
			continue
		}
		b, err := os.ReadFile(filepath.Join(procRoot, e.Name(), "cmdline"))
		if err != nil {
			continue // exited, or a kernel thread
		}
		if j, ok := classifyJVM(pid, b); ok {
			out = append(out, j)
		}
	}
	return out, nil
}

// classifyJVM recognises a task JVM from its NUL-separated command line:
// a Spark executor backend (its --executor-id names it) or a YarnChild
// (java … YarnChild <host> <port> <attempt id> <jvm id>).
func classifyJVM(pid int, cmdline []byte) (taskJVM, bool) {
	args := bytes.Split(bytes.TrimRight(cmdline, "\x00"), []byte{0})
	for i, a := range args {
		switch {
		case bytes.HasPrefix(a, []byte("org.apache.spark.executor.")) && bytes.HasSuffix(a, []byte("ExecutorBackend")):
			j := taskJVM{pid: pid, exec: "executor", attempt: -1}
			for k := i + 1; k+1 < len(args); k++ {
				if string(args[k]) == "--executor-id" {
					j.exec = string(args[k+1])
				}
			}
			return j, true
		case string(a) == "org.apache.hadoop.mapred.YarnChild":
			if i+3 >= len(args) {
				return taskJVM{}, false
			}
			id := string(args[i+3])
			return taskJVM{pid: pid, exec: id, attempt: attemptTaskNumber(id)}, true
		}
	}
	return taskJVM{}, false
}

// attemptTaskNumber is the task number of a MapReduce attempt id,
// attempt_<cluster>_<job>_<m|r>_<task>_<attempt> → task, or -1.
func attemptTaskNumber(id string) int {
	f := strings.Split(id, "_")
	if len(f) != 6 || f[0] != "attempt" {
		return -1
	}
	n, err := strconv.Atoi(f[4])
	if err != nil || n < 0 {
		return -1
	}
	return n
}
