package eventlog

import (
	"fmt"

	"github.com/clusterlens/clusterlens/internal/jsonscan"
	"github.com/clusterlens/clusterlens/internal/model"
)

// handler decodes one event's fields (the scanner is inside its object) and
// leaves the change to apply in d.pending.
type handler func(d *Decoder, s *jsonscan.Scanner)

type registered struct {
	decode handler
	index  int      // into handlerNames and Decoder.counts
	task   taskKind // the task events, parsed apart (parseTaskLine)
}

// handlers maps event names (package prefix dropped) to decoders. Events
// Spark logs but that change nothing here are mapped to skipEvent so that
// they are not counted as unknown.
var (
	handlers     = map[string]registered{}
	handlerNames []string
)

func init() {
	add := func(name string, h handler) {
		handlers[name] = registered{decode: h, index: len(handlerNames)}
		handlerNames = append(handlerNames, name)
	}
	for name, kind := range map[string]taskKind{
		"SparkListenerTaskStart":         taskStartEvent,
		"SparkListenerTaskGettingResult": taskGettingResultEvent,
		"SparkListenerTaskEnd":           taskEndEvent,
	} {
		handlers[name] = registered{index: len(handlerNames), task: kind}
		handlerNames = append(handlerNames, name)
	}
	for name, h := range map[string]handler{
		"SparkListenerLogStart":                    decodeLogStart,
		"SparkListenerApplicationStart":            decodeAppStart,
		"SparkListenerApplicationEnd":              decodeAppEnd,
		"SparkListenerEnvironmentUpdate":           decodeEnvironment,
		"SparkListenerResourceProfileAdded":        decodeResourceProfile,
		"SparkListenerExecutorAdded":               decodeExecutorAdded,
		"SparkListenerExecutorRemoved":             decodeExecutorRemoved,
		"SparkListenerBlockManagerAdded":           decodeBlockManagerAdded,
		"SparkListenerJobStart":                    decodeJobStart,
		"SparkListenerJobEnd":                      decodeJobEnd,
		"SparkListenerStageSubmitted":              decodeStageSubmitted,
		"SparkListenerStageCompleted":              decodeStageCompleted,
		"SparkListenerStageExecutorMetrics":        decodeStageExecutorMetrics,
		"SparkListenerMiscellaneousProcessAdded":   decodeProcessAdded,
		"SparkListenerSQLExecutionStart":           decodeSQLStart,
		"SparkListenerSQLExecutionEnd":             decodeSQLEnd,
		"SparkListenerSQLAdaptiveExecutionUpdate":  decodeSQLAdaptiveUpdate,
		"SparkListenerSQLAdaptiveSQLMetricUpdates": decodeSQLAdaptiveMetrics,
		"SparkListenerDriverAccumUpdates":          decodeDriverAccumUpdates,
		dbcEvent:                                   decodeDBCMetadata,
	} {
		add(name, h)
	}
	for _, n := range []string{"SparkListenerExecutorBlacklisted", "SparkListenerExecutorExcluded"} {
		add(n, decodeExecutorExcluded(true))
	}
	for _, n := range []string{"SparkListenerExecutorUnblacklisted", "SparkListenerExecutorUnexcluded"} {
		add(n, decodeExecutorExcluded(false))
	}
	for _, n := range []string{"SparkListenerNodeBlacklisted", "SparkListenerNodeExcluded"} {
		add(n, decodeNodeExcluded(true))
	}
	for _, n := range []string{"SparkListenerNodeUnblacklisted", "SparkListenerNodeUnexcluded"} {
		add(n, decodeNodeExcluded(false))
	}
	for _, n := range []string{"SparkListenerExecutorBlacklistedForStage", "SparkListenerExecutorExcludedForStage"} {
		add(n, decodeExecutorExcludedForStage)
	}
	for _, n := range []string{"SparkListenerNodeBlacklistedForStage", "SparkListenerNodeExcludedForStage"} {
		add(n, decodeNodeExcludedForStage)
	}
	for _, n := range []string{
		"SparkListenerBlockManagerRemoved", "SparkListenerBlockUpdated", "SparkListenerUnpersistRDD",
		"SparkListenerExecutorMetricsUpdate", "SparkListenerSpeculativeTaskSubmitted",
		"SparkListenerUnschedulableTaskSetAdded", "SparkListenerUnschedulableTaskSetRemoved",
		"StreamingQueryListener$QueryStartedEvent", "StreamingQueryListener$QueryProgressEvent",
		"StreamingQueryListener$QueryTerminatedEvent", "StreamingQueryListener$QueryIdleEvent",
	} {
		add(n, skipEvent)
	}
}

func skipEvent(_ *Decoder, s *jsonscan.Scanner) {
	for s.Key() != nil {
		s.Skip()
	}
}

func decodeLogStart(d *Decoder, s *jsonscan.Scanner) {
	v := readString(s, "Spark Version")
	d.pending = func() { d.app.Version = v }
}

func decodeAppStart(d *Decoder, s *jsonscan.Scanner) {
	var name, id, user, attempt string
	var ts int64
	var driverLogs, driverAttrs [][2]string
	for k := s.Key(); k != nil; k = s.Key() {
		switch string(k) {
		case "App Name":
			name = s.String()
		case "App ID":
			id = s.String()
		case "Timestamp":
			ts = s.Int()
		case "User":
			user = s.String()
		case "App Attempt ID":
			attempt = s.String()
		case "Driver Logs":
			driverLogs = decodeStringMap(s)
		case "Driver Attributes":
			driverAttrs = decodeStringMap(s)
		default:
			s.Skip()
		}
	}
	d.pending = func() {
		a := d.app
		a.Name, a.ID, a.User, a.AttemptID, a.Start = name, id, user, attempt, ts
		a.DriverLogs, a.DriverAttributes = driverLogs, driverAttrs
	}
}

func decodeAppEnd(d *Decoder, s *jsonscan.Scanner) {
	ts := readTime(s, "Timestamp")
	d.pending = func() { d.app.End, d.app.Complete = ts, true }
}

// readTime reads one numeric field by name, skipping the others.
func readTime(s *jsonscan.Scanner, name string) int64 {
	var v int64
	for k := s.Key(); k != nil; k = s.Key() {
		if string(k) == name {
			v = s.Int()
		} else {
			s.Skip()
		}
	}
	return v
}

// readString reads one string field by name, skipping the others.
func readString(s *jsonscan.Scanner, name string) string {
	var v string
	for k := s.Key(); k != nil; k = s.Key() {
		if string(k) == name {
			v = s.String()
		} else {
			s.Skip()
		}
	}
	return v
}

// decodeStringMap reads an object of string values as ordered pairs.
func decodeStringMap(s *jsonscan.Scanner) [][2]string {
	if !s.Object() {
		return nil
	}
	out := [][2]string{}
	for k := s.Key(); k != nil; k = s.Key() {
		key := string(k)
		out = append(out, [2]string{key, s.String()})
	}
	return out
}

func decodeEnvironment(d *Decoder, s *jsonscan.Scanner) {
	var env model.Environment
	for k := s.Key(); k != nil; k = s.Key() {
		switch string(k) {
		case "JVM Information":
			env.JVM = decodeStringMap(s)
		case "Spark Properties":
			env.Spark = decodeStringMap(s)
		case "Hadoop Properties":
			env.Hadoop = decodeStringMap(s)
		case "System Properties":
			env.System = decodeStringMap(s)
		case "Metrics Properties":
			env.Metrics = decodeStringMap(s)
		case "Classpath Entries":
			env.Classpath = decodeStringMap(s)
		default:
			s.Skip()
		}
	}
	env.Seen = true
	d.pending = func() {
		d.app.Env = env
		if !d.photon.on {
			d.photon.photonEnvironment(env.Spark)
		}
	}
}

func decodeResourceProfile(d *Decoder, s *jsonscan.Scanner) {
	var rp model.ResourceProfile
	for k := s.Key(); k != nil; k = s.Key() {
		switch string(k) {
		case "Resource Profile Id":
			rp.ID = int32(s.Int())
		case "Executor Resource Requests":
			rp.Executor = decodeResourceRequests(s)
		case "Task Resource Requests":
			rp.Task = decodeResourceRequests(s)
		default:
			s.Skip()
		}
	}
	d.pending = func() {
		if !once(&d.seen.profiles, rp.ID, seenStart) {
			d.duplicate("SparkListenerResourceProfileAdded", fmt.Sprintf("resource profile %d", rp.ID))
			return
		}
		d.app.ResourceProfiles = append(d.app.ResourceProfiles, rp)
	}
}

func decodeResourceRequests(s *jsonscan.Scanner) []model.ResourceRequest {
	if !s.Object() {
		return nil
	}
	out := []model.ResourceRequest{}
	for k := s.Key(); k != nil; k = s.Key() {
		r := model.ResourceRequest{Name: string(k)}
		if s.Object() {
			for f := s.Key(); f != nil; f = s.Key() {
				switch string(f) {
				case "Resource Name":
					r.Name = s.String()
				case "Amount":
					r.Amount = s.Float()
				case "Discovery Script":
					r.DiscoveryScript = s.String()
				case "Vendor":
					r.Vendor = s.String()
				default:
					s.Skip()
				}
			}
		}
		out = append(out, r)
	}
	return out
}
