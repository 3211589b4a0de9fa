package sampler

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// javaThread is one thread of a HotSpot thread dump (jcmd PID Thread.print,
// jstack): its name, the Linux thread id (nid), its state and its frames.
type javaThread struct {
	name   string
	tid    int    // nid: the Linux thread id
	state  string // java.lang.Thread.State, or the header's status for VM threads
	frames []string
}

// parseThreadDump parses a HotSpot thread dump. A thread starts at a line
// beginning with '"' (the quoted name, then "#n daemon prio=… nid=…
// status"); "java.lang.Thread.State: X" gives its state and "\tat frame"
// lines its stack. Lines it does not know (locks, SMR info, JNI refs) are
// skipped. A thread whose header has no readable nid is skipped with its
// lines; the error then counts them and names the first one's line, and
// the other threads are still returned.
func parseThreadDump(b []byte) ([]javaThread, error) {
	var out []javaThread
	var cur *javaThread
	var bad int
	var firstErr error
	for n := 1; len(b) > 0; n++ {
		var l []byte
		l, b, _ = bytes.Cut(b, []byte{'\n'})
		l = bytes.TrimRight(l, "\r")
		switch {
		case len(l) > 0 && l[0] == '"':
			t, err := parseThreadHeader(string(l))
			if err != nil {
				if bad++; firstErr == nil {
					firstErr = fmt.Errorf("line %d: %w", n, err)
				}
				cur = nil
				continue
			}
			out = append(out, t)
			cur = &out[len(out)-1]
		case cur == nil:
		case bytes.HasPrefix(l, []byte("   java.lang.Thread.State: ")):
			cur.state = string(l[len("   java.lang.Thread.State: "):])
		case bytes.HasPrefix(l, []byte("\tat ")):
			cur.frames = append(cur.frames, string(l[len("\tat "):]))
		case len(l) == 0:
			cur = nil
		}
	}
	if firstErr != nil {
		return out, fmt.Errorf("thread dump: %d threads skipped, first at %w", bad, firstErr)
	}
	return out, nil
}

// parseThreadHeader parses `"name" #12 daemon prio=5 … nid=0xd83 runnable
// [0x…]` (JDK ≤ 18: nid in hexadecimal) or `"name" #21 [11571] daemon
// prio=5 … nid=11571 runnable  [0x…]` (JDK 19 and later: decimal).
func parseThreadHeader(l string) (javaThread, error) {
	end := strings.LastIndexByte(l, '"')
	if end < 1 {
		return javaThread{}, fmt.Errorf("thread header %.60q: want a closing quote after the name", l)
	}
	t := javaThread{name: l[1:end]}
	rest := l[end+1:]
	i := strings.Index(rest, " nid=")
	if i < 0 {
		return javaThread{}, fmt.Errorf("thread header %.60q: want nid=", l)
	}
	nid, status, _ := strings.Cut(rest[i+len(" nid="):], " ")
	digits, base := nid, 10
	if hex, ok := strings.CutPrefix(nid, "0x"); ok {
		digits, base = hex, 16
	}
	v, err := strconv.ParseUint(digits, base, 31)
	if err != nil {
		return javaThread{}, fmt.Errorf("thread header %.60q: nid %q: want a thread id, 0x-hexadecimal or decimal", l, nid)
	}
	t.tid = int(v)
	if j := strings.IndexByte(status, '['); j >= 0 {
		status = status[:j]
	}
	t.state = strings.TrimSpace(status) // replaced by Thread.State when the dump has one
	return t, nil
}
