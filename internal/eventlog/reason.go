package eventlog

import (
	"strconv"
	"strings"

	"github.com/clusterlens/clusterlens/internal/jsonscan"
	"github.com/clusterlens/clusterlens/internal/model"
)

// decodeEndReason reads "Task End Reason" and renders the History Server's
// errorMessage text (Spark's TaskFailedReason.toErrorString, 3.x wording).
func decodeEndReason(s *jsonscan.Scanner) model.Reason {
	if !s.Object() {
		return model.Reason{}
	}
	var (
		kind, className, desc, fullTrace, msg, killReason, lossReason, execID string
		trace                                                                 []string
		shuffleID, mapID, reduceID, jobID, partID, attemptNo                  int64
		mapIndex                                                              = int64(-1 << 31)
		bm                                                                    *blockManager
		exitByApp                                                             = true
		hasLoss                                                               bool
	)
	for k := s.Key(); k != nil; k = s.Key() {
		switch string(k) {
		case "Reason":
			kind = s.String()
		case "Class Name":
			className = s.String()
		case "Description":
			desc = s.String()
		case "Full Stack Trace":
			fullTrace = s.String()
		case "Stack Trace":
			trace = decodeStackTrace(s)
		case "Message":
			msg = s.String()
		case "Kill Reason":
			killReason = s.String()
		case "Loss Reason":
			lossReason, hasLoss = s.String(), true
		case "Executor ID":
			execID = s.String()
		case "Exit Caused By App":
			exitByApp = s.Bool()
		case "Block Manager Address":
			bm = decodeBlockManager(s)
		case "Shuffle ID":
			shuffleID = s.Int()
		case "Map ID":
			mapID = s.Int()
		case "Map Index":
			mapIndex = s.Int()
		case "Reduce ID":
			reduceID = s.Int()
		case "Job ID":
			jobID = s.Int()
		case "Partition ID":
			partID = s.Int()
		case "Attempt Number":
			attemptNo = s.Int()
		default:
			s.Skip()
		}
	}
	r := model.Reason{Kind: kind}
	switch kind {
	case "Success":
	case "Resubmitted":
		r.Message = "Resubmitted (resubmitted due to node loss)"
	case "FetchFailed":
		bmText := "null"
		if bm != nil {
			bmText = bm.String()
		}
		mi := "Unknown"
		if mapIndex != -1<<31 {
			mi = strconv.FormatInt(mapIndex, 10)
		}
		r.Message = "FetchFailed(" + bmText + ", shuffleId=" + strconv.FormatInt(shuffleID, 10) +
			", mapIndex=" + mi + ", mapId=" + strconv.FormatInt(mapID, 10) +
			", reduceId=" + strconv.FormatInt(reduceID, 10) + ", message=\n" + msg + "\n)"
	case "ExceptionFailure":
		if fullTrace != "" {
			r.Message = fullTrace
		} else {
			var b strings.Builder
			b.WriteString(className + ": " + desc + "\n")
			for i, e := range trace {
				if i > 0 {
					b.WriteByte('\n')
				}
				b.WriteString("        " + e)
			}
			r.Message = b.String()
		}
	case "TaskCommitDenied":
		r.Message = "TaskCommitDenied (Driver denied task commit) for job: " + strconv.FormatInt(jobID, 10) +
			", partition: " + strconv.FormatInt(partID, 10) + ", attemptNumber: " + strconv.FormatInt(attemptNo, 10)
	case "TaskKilled":
		if killReason == "" {
			killReason = "unknown reason"
		}
		// The History Server shows a kill's bare reason (LiveTask.errorMessage,
		// killedTasksSummary), not TaskKilled.toErrorString.
		r.Message = killReason
	case "ExecutorLostFailure":
		behavior := "unrelated to the running tasks"
		if exitByApp {
			behavior = "caused by one of the running tasks"
		}
		r.Message = "ExecutorLostFailure (executor " + execID + " exited " + behavior + ")"
		if hasLoss {
			r.Message += " Reason: " + lossReason
		}
	case "TaskResultLost":
		r.Message = "TaskResultLost (result lost from block manager)"
	case "UnknownReason", "":
		r.Kind = "UnknownReason"
		r.Message = "UnknownReason"
	default:
		r.Message = kind
	}
	return r
}

type blockManager struct {
	exec, host string
	port       int64
}

// String renders BlockManagerId.toString.
func (b *blockManager) String() string {
	return "BlockManagerId(" + b.exec + ", " + b.host + ", " + strconv.FormatInt(b.port, 10) + ", None)"
}

func decodeBlockManager(s *jsonscan.Scanner) *blockManager {
	if !s.Object() {
		return nil
	}
	b := &blockManager{}
	for k := s.Key(); k != nil; k = s.Key() {
		switch string(k) {
		case "Executor ID":
			b.exec = s.String()
		case "Host":
			b.host = s.String()
		case "Port":
			b.port = s.Int()
		default:
			s.Skip()
		}
	}
	return b
}

// decodeStackTrace renders each StackTraceElement as Java's toString does.
func decodeStackTrace(s *jsonscan.Scanner) []string {
	var out []string
	if !s.Array() {
		return nil
	}
	for s.Next() {
		if !s.Object() {
			continue
		}
		var cls, method, file string
		line := int64(-1)
		for k := s.Key(); k != nil; k = s.Key() {
			switch string(k) {
			case "Declaring Class":
				cls = s.String()
			case "Method Name":
				method = s.String()
			case "File Name":
				file = s.String()
			case "Line Number":
				line = s.Int()
			default:
				s.Skip()
			}
		}
		loc := "Unknown Source"
		switch {
		case line == -2:
			loc = "Native Method"
		case file != "" && line >= 0:
			loc = file + ":" + strconv.FormatInt(line, 10)
		case file != "":
			loc = file
		}
		out = append(out, cls+"."+method+"("+loc+")")
	}
	return out
}
