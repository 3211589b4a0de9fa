package sampler

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// attachTimeout bounds starting a JVM's attach listener (across calls)
// and one dump.
const attachTimeout = 5 * time.Second

// attachWait is how long one call waits for a JVM's new attach socket
// before going on with the other JVMs; the socket is looked for again at
// the next call, until attachTimeout. A JVM still starting (a container
// launched a moment ago, a loaded node) takes seconds to open it, and a
// call that waited for it held every other JVM's samples that long: 5.1 s
// in a CI run, with another test's JVMs starting beside it.
const attachWait = 100 * time.Millisecond

// errAttachStarting says a JVM was asked to open its attach socket and has
// not yet: its trigger file stays until the socket is there (HotSpot reads
// it when the SIGQUIT arrives; without it the JVM prints a thread dump to
// its stdout instead).
var errAttachStarting = errors.New("attach listener starting")

// maxDump bounds how much of one thread dump is read (a JVM with thousands
// of deep stacks); the rest is dropped and the dump parsed as far as read.
const maxDump = 16 << 20

// A HotSpot JVM's thread dump comes through its attach listener, the UNIX
// socket jcmd and jstack use (HotSpot's Linux attach protocol: create
// .attach_pid<pid>, send SIGQUIT, connect to /tmp/.java_pid<pid>, send
// "1\0jcmd\0Thread.print\0\0\0", read "0\n" and the dump): attachSocket,
// then dumpThreads. No agent is loaded and no JVM is started, so one dump
// costs the target a safepoint and this process a few milliseconds, not
// the ~0.2 s of CPU a jcmd launch costs. SIGQUIT is sent only when the
// target catches it (SigCgt in /proc/PID/status): a JVM run with -Xrs
// would die. procRoot/PID/root/tmp is the JVM's own /tmp, so JVMs in
// containers work.

// attachSocket is the JVM's attach socket, asking the JVM to open it when
// it is not there. When the JVM has not opened it within attachWait, it
// returns errAttachStarting and the trigger file left for the JVM, to be
// removed once the socket is there or given up on.
func attachSocket(procRoot string, pid int) (sock, trigger string, err error) {
	nspid, sigQuitCaught, err := jvmStatus(procRoot, pid)
	if err != nil {
		return "", "", err
	}
	tmp := filepath.Join(procRoot, strconv.Itoa(pid), "root", "tmp")
	sock = filepath.Join(tmp, ".java_pid"+strconv.Itoa(nspid))
	if _, err := os.Stat(sock); err == nil {
		return sock, "", nil
	}
	if !sigQuitCaught {
		return "", "", fmt.Errorf("jvm %d: attach listener not started and SIGQUIT not caught (-Xrs?): not signalling it", pid)
	}
	trigger, err = startAttachListener(tmp, sock, pid, nspid)
	return sock, trigger, err
}

// dumpThreads reads one thread dump from the JVM's attach socket.
func dumpThreads(sock string, pid int) ([]byte, error) {
	c, err := net.DialTimeout("unix", sock, attachTimeout)
	if err != nil {
		return nil, fmt.Errorf("jvm %d: connect %s: %w", pid, sock, err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(attachTimeout))
	if _, err := c.Write([]byte("1\x00jcmd\x00Thread.print\x00\x00\x00")); err != nil {
		return nil, fmt.Errorf("jvm %d: attach request: %w", pid, err)
	}
	r := bufio.NewReader(io.LimitReader(c, maxDump))
	code, err := r.ReadString('\n')
	if err != nil {
		return nil, fmt.Errorf("jvm %d: attach reply: %w", pid, err)
	}
	body, err := io.ReadAll(r)
	if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
		return nil, fmt.Errorf("jvm %d: read thread dump: %w", pid, err)
	}
	if strings.TrimSpace(code) != "0" {
		return nil, fmt.Errorf("jvm %d: attach reply code %q: %.200s", pid, strings.TrimSpace(code), body)
	}
	return body, nil
}

// startAttachListener makes the JVM open its attach socket: HotSpot looks
// for .attach_pid<pid> in its working directory or /tmp when SIGQUIT
// arrives, and then listens on sock. It waits attachWait for the socket;
// past that it returns the trigger file, kept, and errAttachStarting.
func startAttachListener(tmp, sock string, pid, nspid int) (trigger string, err error) {
	trigger = filepath.Join(tmp, ".attach_pid"+strconv.Itoa(nspid))
	if err := os.WriteFile(trigger, nil, 0o600); err != nil {
		return "", fmt.Errorf("jvm %d: create %s: %w", pid, trigger, err)
	}
	if err := sigQuit(pid); err != nil {
		os.Remove(trigger)
		return "", fmt.Errorf("jvm %d: SIGQUIT: %w", pid, err)
	}
	for wait, deadline := 5*time.Millisecond, time.Now().Add(attachWait); time.Now().Before(deadline); wait = min(2*wait, 40*time.Millisecond) {
		time.Sleep(wait)
		if _, err := os.Stat(sock); err == nil {
			os.Remove(trigger)
			return "", nil
		}
	}
	return trigger, errAttachStarting
}

// jvmStatus reads the process's pid in its own namespace (the last NSpid
// field; the attach files are named with it) and whether it catches
// SIGQUIT (bit 3 of SigCgt).
func jvmStatus(procRoot string, pid int) (nspid int, sigQuit bool, err error) {
	b, err := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(pid), "status"))
	if err != nil {
		return 0, false, fmt.Errorf("jvm %d: %w", pid, err)
	}
	nspid = pid
	for line := range bytes.SplitSeq(b, []byte{'\n'}) {
		k, v, _ := bytes.Cut(line, []byte{':'})
		f := bytes.Fields(v)
		switch {
		case len(f) == 0:
		case string(k) == "NSpid":
			if n, err := strconv.Atoi(string(f[len(f)-1])); err == nil {
				nspid = n
			}
		case string(k) == "SigCgt":
			if m, err := strconv.ParseUint(string(f[0]), 16, 64); err == nil {
				sigQuit = m&(1<<(syscall.SIGQUIT-1)) != 0
			}
		}
	}
	return nspid, sigQuit, nil
}
