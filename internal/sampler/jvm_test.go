package sampler

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// TestParseThreadDumpJDK17 parses a dump jcmd wrote for a small program
// (testdata/threaddump-jdk17.txt, OpenJDK 17.0.15): 21 threads (14 Java, 7 VM), Java
// threads with their Thread.State and frames, VM threads with the header's
// status.
func TestParseThreadDumpJDK17(t *testing.T) {
	b, err := os.ReadFile("testdata/threaddump-jdk17.txt")
	if err != nil {
		t.Fatal(err)
	}
	th, err := parseThreadDump(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(th) != 21 {
		t.Fatalf("%d threads, want 21", len(th))
	}
	byName := map[string]javaThread{}
	for _, x := range th {
		byName[x.name] = x
	}
	w := byName["Executor task launch worker for task 3.0 in stage 1.0 (TID 7)"]
	if w.tid != 0xd83 || w.state != "RUNNABLE" || len(w.frames) != 3 || w.frames[0] != "SparkLike.lambda$main$0(SparkLike.java:3)" {
		t.Errorf("task thread %+v", w)
	}
	if m := byName["main"]; m.state != "TIMED_WAITING (sleeping)" || len(m.frames) != 2 {
		t.Errorf("main %+v", m)
	}
	if f := byName["Finalizer"]; len(f.frames) != 4 {
		t.Errorf("Finalizer frames %q: want the 4 'at' lines, not the lock lines", f.frames)
	}
	if g := byName["GC Thread#0"]; g.state != "runnable" || g.tid != 0xd72 || len(g.frames) != 0 {
		t.Errorf("GC thread %+v", g)
	}
}

// TestParseThreadDumpJDK25 parses a dump of the same program by jcmd of
// Temurin 25, whose headers carry "[tid]" and a decimal nid.
func TestParseThreadDumpJDK25(t *testing.T) {
	b, err := os.ReadFile("testdata/threaddump-jdk25.txt")
	if err != nil {
		t.Fatal(err)
	}
	th, err := parseThreadDump(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(th) != 20 {
		t.Fatalf("%d threads, want 20", len(th))
	}
	for _, x := range th {
		if x.name == "Executor task launch worker for task 3.0 in stage 1.0 (TID 7)" {
			if x.tid != 11571 || x.state != "RUNNABLE" || len(x.frames) != 4 {
				t.Errorf("task thread %+v", x)
			}
			return
		}
	}
	t.Error("task thread missing")
}

func TestParseThreadDumpErrors(t *testing.T) {
	for _, bad := range []string{"\"x\" #1 prio=5\n", "\"unterminated\n", "\"x\" nid=zz runnable\n", "\"x\" nid=0xzz runnable\n"} {
		dump := bad + "   java.lang.Thread.State: RUNNABLE\n\tat a.b(c)\n\n\"ok\" nid=0x10 runnable\n"
		th, err := parseThreadDump([]byte(dump))
		if err == nil || !strings.HasPrefix(err.Error(), "thread dump: 1 threads skipped, first at line 1: ") {
			t.Errorf("%q: error %v, want one naming line 1", bad, err)
		}
		if len(th) != 1 || th[0].name != "ok" || th[0].tid != 16 || len(th[0].frames) != 0 {
			t.Errorf("%q: threads %+v, want only the good one", bad, th)
		}
	}
}

func TestWriteThreadText(t *testing.T) {
	th := javaThread{name: "w\tx\ny", state: "RUNNABLE"}
	for i := range JVMMaxFrames + 10 {
		th.frames = append(th.frames, fmt.Sprintf("f%d", i))
	}
	var sb strings.Builder
	writeThreadText(&sb, "5", th)
	f := strings.Split(sb.String(), "\t")
	frames := strings.Split(f[3], "\n")
	if len(f) != 4 || f[0] != "5" || f[1] != "w x y" || f[2] != "RUNNABLE" || len(frames) != JVMMaxFrames+1 || frames[0] != "f0" || frames[JVMMaxFrames] != "..." {
		t.Fatalf("text %q", sb.String())
	}
}

func TestTaskOfThread(t *testing.T) {
	spark := taskJVM{exec: "5", attempt: -1}
	mr := taskJVM{exec: "attempt_1410_0001_m_000003_0", attempt: 3}
	for _, c := range []struct {
		name string
		j    taskJVM
		want int
	}{
		{"Executor task launch worker for task 3.0 in stage 1.0 (TID 7)", spark, 7},
		{"Executor task launch worker for task 0.1 in stage 12.0 (TID 12345)", spark, 12345},
		{"Executor task launch worker-2", spark, -1},
		{"Executor task launch worker for task 3.0 in stage 1.0 (TID x)", spark, -1},
		{"main", spark, -1},
		{"main", mr, 3},
		{"communication thread", mr, -1},
	} {
		if got := taskOfThread(c.name, c.j); got != c.want {
			t.Errorf("taskOfThread(%q, %+v) = %d, want %d", c.name, c.j, got, c.want)
		}
	}
}

func TestClassifyJVM(t *testing.T) {
	j, ok := classifyJVM(9, []byte("/usr/bin/java\x00-Xmx1g\x00org.apache.spark.executor.YarnCoarseGrainedExecutorBackend\x00--driver-url\x00spark://x\x00--executor-id\x004\x00"))
	if !ok || j.exec != "4" || j.attempt != -1 {
		t.Errorf("spark executor: %+v %v", j, ok)
	}
	j, ok = classifyJVM(9, []byte("java\x00org.apache.hadoop.mapred.YarnChild\x00127.0.0.1\x0040000\x00attempt_1410_0001_r_000012_1\x003\x00"))
	if !ok || j.exec != "attempt_1410_0001_r_000012_1" || j.attempt != 12 {
		t.Errorf("YarnChild: %+v %v", j, ok)
	}
	if _, ok := classifyJVM(9, []byte("java\x00org.apache.hadoop.mapred.YarnChild\x00")); ok {
		t.Error("YarnChild without an attempt id accepted")
	}
	if _, ok := classifyJVM(9, []byte("/usr/sbin/sshd\x00-D\x00")); ok {
		t.Error("sshd accepted")
	}
}

func FuzzParseThreadDump(f *testing.F) {
	for _, p := range []string{"testdata/threaddump-jdk17.txt", "testdata/threaddump-jdk25.txt"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("\"a\" nid=0x1 runnable\n   java.lang.Thread.State: RUNNABLE\n\tat x.y(z)\n\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		th, _ := parseThreadDump(b)
		for _, x := range th {
			if x.tid < 0 {
				t.Fatalf("negative tid %d", x.tid)
			}
		}
	})
}

func FuzzClassifyJVM(f *testing.F) {
	f.Add([]byte("java\x00org.apache.hadoop.mapred.YarnChild\x00h\x001\x00attempt_1_2_m_000003_0\x001\x00"))
	f.Add([]byte("java\x00org.apache.spark.executor.CoarseGrainedExecutorBackend\x00--executor-id\x007\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if j, ok := classifyJVM(1, b); ok && j.attempt < -1 {
			t.Fatalf("attempt %d", j.attempt)
		}
	})
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// executorSource is a stand-in Spark executor: its main class has the
// executor backend's name, one thread is named as Spark 3 names a task
// thread and blocks in accept (RUNNABLE, no CPU), one as Spark 1.x does.
const executorSource = `package org.apache.spark.executor;
public class CoarseGrainedExecutorBackend {
  public static void main(String[] a) throws Exception {
    java.net.ServerSocket ss = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
    Thread t = new Thread(() -> { try { ss.accept(); } catch (Exception e) {} },
      "Executor task launch worker for task 3.0 in stage 1.0 (TID 7)");
    t.setDaemon(true); t.start();
    Thread u = new Thread(() -> { try { Thread.sleep(600000); } catch (InterruptedException e) {} }, "Executor task launch worker-2");
    u.setDaemon(true); u.start();
    System.out.println("ready"); System.out.flush();
    Thread.sleep(60000);
  }
}
`

// TestJVMSamplerLive starts a stand-in executor JVM, samples it, and
// checks the samples against jcmd's own Thread.print of the same JVM and
// against /proc/PID/task (an independent list of its thread ids).
// startJava compiles source (one public class, named class) in a temp
// folder, runs it with args, waits for its "ready" line and returns its pid;
// the JVM is killed when the test ends.
func startJava(t *testing.T, class, source string, args ...string) int {
	t.Helper()
	javac := sharedtest.JavaTool(t, "javac")
	java := filepath.Join(filepath.Dir(javac), "java")
	dir := t.TempDir()
	src := filepath.Join(dir, strings.ReplaceAll(class, ".", "/")+".java")
	if err := os.MkdirAll(filepath.Dir(src), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, []byte(source), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(javac, "-d", dir, src).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	cmd := exec.Command(java, append([]string{"-Xmx32m", "-XX:+UseSerialGC", "-cp", dir, class}, args...)...)
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("java %s: %q, %v", class, line, err)
	}
	return cmd.Process.Pid
}

func TestJVMSamplerLive(t *testing.T) {
	jcmd := sharedtest.JavaTool(t, "jcmd")
	pid := startJava(t, "org.apache.spark.executor.CoarseGrainedExecutorBackend", executorSource, "--executor-id", "5")

	s, err := Build("jvm", Config{Host: "n1"})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	out := sampleUntil(t, s, pid)
	t.Logf("first samples (the attach listener started): %v", time.Since(start))
	start = time.Now()
	out, err = s.Sample(time.Now(), out[:0])
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("next sample: %v, %d threads", time.Since(start), len(out))

	jc, err := exec.Command(jcmd, strconv.Itoa(pid), "Thread.print").Output()
	if err != nil {
		t.Fatalf("jcmd: %v", err)
	}
	ref, err := parseThreadDump(jc)
	if err != nil {
		t.Fatal(err)
	}
	tasks, _ := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "task"))
	live := map[string]bool{}
	for _, e := range tasks {
		live[strconv.Itoa(pid)+"/"+e.Name()] = true
	}
	got := map[string]model.Sample{}
	for _, x := range out {
		if x.Type != model.ThreadSampleType || x.Host != "n1" {
			t.Fatalf("sample %+v", x)
		}
		if strings.HasPrefix(x.Target, strconv.Itoa(pid)+"/") {
			got[strings.Split(x.Text, "\t")[1]] = x
		}
	}
	for _, r := range ref {
		if r.name == "Attach Listener" {
			continue
		}
		x, ok := got[r.name]
		if !ok {
			t.Errorf("thread %q in jcmd's dump, not sampled", r.name)
			continue
		}
		if want := strconv.Itoa(pid) + "/" + strconv.Itoa(r.tid); x.Target != want || !live[x.Target] {
			t.Errorf("thread %q: target %s, jcmd says %s (in /proc: %v)", r.name, x.Target, want, live[x.Target])
		}
	}
	task := got["Executor task launch worker for task 3.0 in stage 1.0 (TID 7)"]
	f := strings.Split(task.Text, "\t")
	if task.Value != 7 || f[0] != "5" || f[2] != "RUNNABLE" || !strings.Contains(f[3], "CoarseGrainedExecutorBackend.lambda$main$0") {
		t.Errorf("task thread sample %+v", task)
	}
	if old := got["Executor task launch worker-2"]; old.Value != -1 || !strings.HasPrefix(strings.Split(old.Text, "\t")[2], "TIMED_WAITING") {
		t.Errorf("Spark 1.x-named thread %+v", old)
	}
}

func BenchmarkParseThreadDump(b *testing.B) {
	dump, err := os.ReadFile("testdata/threaddump-jdk17.txt")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(dump)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseThreadDump(dump); err != nil {
			b.Fatal(err)
		}
	}
}

// yarnChildSource is a stand-in MapReduce task JVM: YarnChild's class name,
// its main thread sleeping in a method named like a map task's.
const yarnChildSource = `package org.apache.hadoop.mapred;
public class YarnChild {
  static void runMapper() throws Exception { Thread.sleep(60000); }
  public static void main(String[] a) throws Exception {
    System.out.println("ready"); System.out.flush();
    runMapper();
  }
}
`

// TestJVMSamplerLiveYarnChild samples a stand-in YarnChild started as the
// NodeManager starts one (host, port, attempt id, JVM id): its main thread
// maps to the attempt's task number, the attempt id is the executor field.
func TestJVMSamplerLiveYarnChild(t *testing.T) {
	pid := startJava(t, "org.apache.hadoop.mapred.YarnChild", yarnChildSource, "127.0.0.1", "40404", "attempt_1410000000000_0001_m_000012_0", "7")
	s, err := Build("jvm", Config{Host: "n1"})
	if err != nil {
		t.Fatal(err)
	}
	out := sampleUntil(t, s, pid)
	var found bool
	for _, x := range out {
		f := strings.Split(x.Text, "\t")
		if !strings.HasPrefix(x.Target, strconv.Itoa(pid)+"/") || f[1] != "main" {
			continue
		}
		found = true
		if x.Value != 12 || f[0] != "attempt_1410000000000_0001_m_000012_0" || !strings.HasPrefix(f[2], "TIMED_WAITING") || !strings.Contains(f[3], "YarnChild.runMapper") {
			t.Errorf("YarnChild main thread sample %+v", x)
		}
	}
	if !found {
		t.Fatalf("no main thread sampled for YarnChild pid %d in %d samples", pid, len(out))
	}
}

// sampleUntil calls s until it gives samples of pid's threads (a JVM's
// attach listener can take longer than one call waits for it to start),
// for at most attachTimeout and a second, and returns that call's samples.
func sampleUntil(t *testing.T, s Sampler, pid int) []model.Sample {
	t.Helper()
	for deadline := time.Now().Add(attachTimeout + time.Second); ; time.Sleep(20 * time.Millisecond) {
		out, err := s.Sample(time.Now(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range out {
			if strings.HasPrefix(x.Target, strconv.Itoa(pid)+"/") {
				return out
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no samples of JVM %d in %v", pid, attachTimeout+time.Second)
		}
	}
}

// TestJVMSamplerNoJVM samples a /proc without task JVMs: no samples, no error.
func TestJVMSamplerNoJVM(t *testing.T) {
	s, err := Build("jvm", Config{ProcRoot: "testdata/t0/proc"})
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.Sample(time.Now(), nil)
	if err != nil || len(out) != 0 {
		t.Fatalf("%d samples, %v", len(out), err)
	}
}

// fakeExecutorProc builds a /proc in a temp folder with one process, pid,
// named a Spark executor by its cmdline, catching SIGQUIT or not, with an
// empty /tmp, and returns a jvm sampler reading it and the folder.
func fakeExecutorProc(t *testing.T, pid int, sigQuitCaught bool) (*jvmSampler, string) {
	t.Helper()
	root := t.TempDir()
	p := filepath.Join(root, strconv.Itoa(pid))
	if err := os.MkdirAll(filepath.Join(p, "root", "tmp"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p, "cmdline"), []byte("java\x00org.apache.spark.executor.CoarseGrainedExecutorBackend\x00--executor-id\x001\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	sigCgt := "0000000000000000"
	if sigQuitCaught {
		sigCgt = "0000000000000004" // bit 3: SIGQUIT
	}
	if err := os.WriteFile(filepath.Join(p, "status"), []byte(fmt.Sprintf("Name:\tjava\nNSpid:\t%d\nSigCgt:\t%s\n", pid, sigCgt)), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := newJVMSampler(Config{ProcRoot: root})
	if err != nil {
		t.Fatal(err)
	}
	return s.(*jvmSampler), root
}

// TestJVMSamplerBacksOff builds a /proc with one executor JVM that does not
// catch SIGQUIT (as with -Xrs) and has no attach socket: the sampler must
// not signal it, must skip it without error, and must not retry it before
// JVMRetryAfter; once the process is gone its entry is forgotten.
func TestJVMSamplerBacksOff(t *testing.T) {
	const pid = 424242
	js, root := fakeExecutorProc(t, pid, false)
	p := filepath.Join(root, strconv.Itoa(pid))
	var s Sampler = js
	t0 := time.Unix(1_700_000_000, 0)
	for _, c := range []struct {
		at    time.Duration
		retry time.Duration
	}{{0, JVMRetryAfter}, {JVMRetryAfter / 2, JVMRetryAfter}, {JVMRetryAfter + time.Second, 2*JVMRetryAfter + time.Second}} {
		out, err := s.Sample(t0.Add(c.at), nil)
		if err != nil || len(out) != 0 {
			t.Fatalf("at %v: %d samples, %v", c.at, len(out), err)
		}
		if got := js.failed[pid]; !got.Equal(t0.Add(c.retry)) {
			t.Fatalf("at %v: retry at %v, want %v", c.at, got.Sub(t0), c.retry)
		}
	}
	if err := os.RemoveAll(p); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Sample(t0.Add(3*JVMRetryAfter), nil); err != nil || len(js.failed) != 0 {
		t.Fatalf("after exit: %v, failed %v", err, js.failed)
	}
}

// TestJVMSamplerDoesNotWaitForStartingJVM runs a process that catches
// SIGQUIT but never opens an attach socket (a JVM still starting, as far as
// the sampler can tell), behind a /proc that names it an executor: a call
// must not wait for it (at most 300 ms; attachWait is 100), later calls
// must skip it at once with its trigger file kept for the JVM, and past
// attachTimeout it is given up (trigger removed) and backed off like any
// JVM that fails.
func TestJVMSamplerDoesNotWaitForStartingJVM(t *testing.T) {
	cmd := exec.Command("bash", "-c", "trap 'true' QUIT; while :; do sleep 0.05; done")
	if err := cmd.Start(); err != nil {
		t.Skip("bash:", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	pid := cmd.Process.Pid
	js, root := fakeExecutorProc(t, pid, true)
	trigger := filepath.Join(root, strconv.Itoa(pid), "root", "tmp", ".attach_pid"+strconv.Itoa(pid))
	var s Sampler = js
	t0 := time.Unix(1_700_000_000, 0)
	for _, c := range []struct {
		at      time.Duration
		maxWall time.Duration
	}{{0, 300 * time.Millisecond}, {time.Second, 50 * time.Millisecond}, {attachTimeout - time.Second, 50 * time.Millisecond}} {
		start := time.Now()
		out, err := s.Sample(t0.Add(c.at), nil)
		if wall := time.Since(start); err != nil || len(out) != 0 || wall > c.maxWall {
			t.Fatalf("at %v: %d samples, %v, in %v (want none, no error, at most %v)", c.at, len(out), err, wall, c.maxWall)
		}
		if _, err := os.Stat(trigger); err != nil {
			t.Fatalf("at %v: trigger file for the JVM: %v", c.at, err)
		}
		if _, ok := js.starting[pid]; !ok || !js.failed[pid].IsZero() {
			t.Fatalf("at %v: starting %v, failed %v: want starting, not failed", c.at, js.starting, js.failed)
		}
	}
	if _, err := s.Sample(t0.Add(attachTimeout+time.Second), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(trigger); !os.IsNotExist(err) || len(js.starting) != 0 || !js.failed[pid].Equal(t0.Add(attachTimeout+time.Second+JVMRetryAfter)) {
		t.Fatalf("past attachTimeout: trigger %v, starting %v, failed %v: want removed, none, backed off", err, js.starting, js.failed)
	}
}
