package eventlog

import (
	"strconv"
	"strings"

	"github.com/clusterlens/clusterlens/internal/model"
)

// endReason writes the task's TaskEndReason as
// JsonProtocol.taskEndReasonToJson does, recovering the fields of each
// reason kind from the message the reader renders (decodeEndReason), so
// that reading gives the same model.Reason back.
func (e *encoder) endReason(t *model.Task) {
	j := &e.j
	j.open('{')
	if t.Reason == 0 || int(t.Reason) >= len(e.app.Reasons) {
		j.kstr("Reason", "Success")
		j.close('}')
		return
	}
	r := e.app.Reasons[t.Reason]
	kind := r.Kind
	if kind == "" {
		kind = "UnknownReason"
	}
	j.kstr("Reason", kind)
	switch kind {
	case "FetchFailed":
		writeFetchFailed(j, r.Message)
	case "ExceptionFailure":
		cls, desc := r.Message, ""
		if nl := strings.IndexByte(cls, '\n'); nl >= 0 {
			cls = cls[:nl]
		}
		if c := strings.Index(cls, ": "); c >= 0 {
			cls, desc = cls[:c], cls[c+2:]
		}
		j.kstr("Class Name", cls)
		j.kstr("Description", desc)
		j.key("Stack Trace")
		j.open('[')
		j.close(']')
		j.kstr("Full Stack Trace", r.Message)
		j.key("Accumulator Updates")
		j.open('[')
		j.close(']')
	case "TaskCommitDenied":
		// "TaskCommitDenied (Driver denied task commit) for job: J, partition: P, attemptNumber: A"
		nums := trailingInts(r.Message, []string{"for job: ", ", partition: ", ", attemptNumber: "})
		j.kint("Job ID", nums[0])
		j.kint("Partition ID", nums[1])
		j.kint("Attempt Number", nums[2])
	case "ExecutorLostFailure":
		writeExecutorLost(j, r.Message)
	case "TaskKilled":
		j.kstr("Kill Reason", r.Message)
		j.key("Accumulator Updates")
		j.open('[')
		j.close(']')
	}
	j.close('}')
}

// writeFetchFailed parses FetchFailed.toErrorString:
// "FetchFailed(BlockManagerId(exec, host, port, None), shuffleId=S,
// mapIndex=I, mapId=M, reduceId=R, message=\nMSG\n)".
func writeFetchFailed(j *jsonBuf, msg string) {
	body := strings.TrimSuffix(strings.TrimPrefix(msg, "FetchFailed("), "\n)")
	bm, rest, ok := strings.Cut(body, ", shuffleId=")
	if !ok {
		j.kint("Shuffle ID", 0)
		j.kint("Map ID", 0)
		j.kint("Reduce ID", 0)
		j.kstr("Message", msg)
		return
	}
	nums, text, _ := strings.Cut(rest, ", message=\n")
	if strings.HasPrefix(bm, "BlockManagerId(") {
		parts := strings.Split(strings.TrimSuffix(strings.TrimPrefix(bm, "BlockManagerId("), ")"), ", ")
		if len(parts) >= 3 {
			port, _ := strconv.ParseInt(parts[len(parts)-2], 10, 64)
			j.key("Block Manager Address")
			j.open('{')
			j.kstr("Executor ID", parts[0])
			j.kstr("Host", strings.Join(parts[1:len(parts)-2], ", "))
			j.kint("Port", port)
			j.close('}')
		}
	}
	field := func(name string) (int64, bool) {
		for _, kv := range strings.Split(nums, ", ") {
			if k, v, ok := strings.Cut(kv, "="); ok && k == name {
				n, err := strconv.ParseInt(v, 10, 64)
				return n, err == nil
			}
		}
		return 0, false
	}
	head, _, _ := strings.Cut(nums, ",") // shuffleId's value opens nums
	shuffle, _ := strconv.ParseInt(head, 10, 64)
	mapID, _ := field("mapId")
	reduce, _ := field("reduceId")
	j.kint("Shuffle ID", shuffle)
	j.kint("Map ID", mapID)
	if idx, ok := field("mapIndex"); ok {
		j.kint("Map Index", idx)
	}
	j.kint("Reduce ID", reduce)
	j.kstr("Message", text)
}

// writeExecutorLost parses ExecutorLostFailure.toErrorString:
// "ExecutorLostFailure (executor E exited caused by one of the running
// tasks) Reason: R".
func writeExecutorLost(j *jsonBuf, msg string) {
	const (
		head   = "ExecutorLostFailure (executor "
		byApp  = " exited caused by one of the running tasks)"
		notApp = " exited unrelated to the running tasks)"
	)
	rest := strings.TrimPrefix(msg, head)
	exec, tail, byTask := rest, "", true
	if i := strings.Index(rest, byApp); i >= 0 {
		exec, tail = rest[:i], rest[i+len(byApp):]
	} else if i := strings.Index(rest, notApp); i >= 0 {
		exec, tail, byTask = rest[:i], rest[i+len(notApp):], false
	}
	j.kstr("Executor ID", exec)
	j.kbool("Exit Caused By App", byTask)
	if r, ok := strings.CutPrefix(tail, " Reason: "); ok {
		j.kstr("Loss Reason", r)
	}
}

// trailingInts reads the integer after each label in s, in order.
func trailingInts(s string, labels []string) []int64 {
	out := make([]int64, len(labels))
	for i, l := range labels {
		k := strings.Index(s, l)
		if k < 0 {
			continue
		}
		s = s[k+len(l):]
		end := 0
		for end < len(s) && (s[end] == '-' || s[end] >= '0' && s[end] <= '9') {
			end++
		}
		out[i], _ = strconv.ParseInt(s[:end], 10, 64)
	}
	return out
}
