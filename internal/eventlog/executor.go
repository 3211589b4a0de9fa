package eventlog

import (
	"strconv"
	"strings"

	"github.com/clusterlens/clusterlens/internal/jsonscan"
	"github.com/clusterlens/clusterlens/internal/model"
)

// executor returns the executor with id, creating it when first seen.
func (d *Decoder) executor(id string) (*model.Executor, uint32) {
	if i, ok := d.execIndex[id]; ok {
		return d.app.Executors[i], i
	}
	e := &model.Executor{ID: id}
	i := uint32(len(d.app.Executors))
	d.execIndex[id] = i
	d.app.Executors = append(d.app.Executors, e)
	return e, i
}

// executorRef resolves a task's executor id (aliasing the line) to its index.
func (d *Decoder) executorRef(id, host []byte) uint32 {
	if i, ok := d.execIndex[string(id)]; ok {
		return i
	}
	e, i := d.executor(string(id))
	if e.Host == "" {
		e.Host = string(host)
	}
	return i
}

func decodeExecutorAdded(d *Decoder, s *jsonscan.Scanner) {
	var id, host string
	var ts int64
	var cores, profile int32
	var logs, attrs [][2]string
	var res []model.ExecutorResource
	hasID := false
	for k := s.Key(); k != nil; k = s.Key() {
		switch string(k) {
		case "Timestamp":
			ts = s.Int()
		case "Executor ID":
			id, hasID = s.String(), true
		case "Executor Info":
			if !s.Object() {
				continue
			}
			for f := s.Key(); f != nil; f = s.Key() {
				switch string(f) {
				case "Host":
					host = s.String()
				case "Total Cores":
					cores = int32(s.Int())
				case "Log Urls":
					logs = decodeStringMap(s)
				case "Attributes":
					attrs = decodeStringMap(s)
				case "Resources":
					res = decodeExecutorResources(s)
				case "Resource Profile Identifier":
					profile = int32(s.Int())
				default:
					s.Skip()
				}
			}
		default:
			s.Skip()
		}
	}
	d.require(hasID, "Executor ID")
	d.pending = func() {
		e, _ := d.executor(id)
		e.Host, e.Added, e.Cores, e.LogURLs, e.Attributes, e.Resources, e.Profile = host, ts, cores, logs, attrs, res, profile
		e.Removed, e.RemoveReason = 0, ""
	}
}

func decodeExecutorResources(s *jsonscan.Scanner) []model.ExecutorResource {
	if !s.Object() {
		return nil
	}
	var out []model.ExecutorResource
	for k := s.Key(); k != nil; k = s.Key() {
		r := model.ExecutorResource{Name: string(k)}
		if s.Object() {
			for f := s.Key(); f != nil; f = s.Key() {
				switch string(f) {
				case "name":
					r.Name = s.String()
				case "addresses":
					if s.Array() {
						for s.Next() {
							r.Addresses = append(r.Addresses, s.String())
						}
					}
				default:
					s.Skip()
				}
			}
		}
		out = append(out, r)
	}
	return out
}

func decodeExecutorRemoved(d *Decoder, s *jsonscan.Scanner) {
	var id, reason string
	var ts int64
	hasID := false
	for k := s.Key(); k != nil; k = s.Key() {
		switch string(k) {
		case "Timestamp":
			ts = s.Int()
		case "Executor ID":
			id, hasID = s.String(), true
		case "Removed Reason":
			reason = s.String()
		default:
			s.Skip()
		}
	}
	d.require(hasID, "Executor ID")
	d.pending = func() {
		e, _ := d.executor(id)
		e.Removed, e.RemoveReason = ts, reason
	}
}

func decodeBlockManagerAdded(d *Decoder, s *jsonscan.Scanner) {
	var bm *blockManager
	var maxMem, onHeap, offHeap, ts int64
	var hasOn bool
	for k := s.Key(); k != nil; k = s.Key() {
		switch string(k) {
		case "Block Manager ID":
			bm = decodeBlockManager(s)
		case "Maximum Memory":
			maxMem = s.Int()
		case "Maximum Onheap Memory":
			onHeap, hasOn = s.Int(), true
		case "Maximum Offheap Memory":
			offHeap = s.Int()
		case "Timestamp":
			ts = s.Int()
		default:
			s.Skip()
		}
	}
	if bm == nil {
		return
	}
	d.pending = func() {
		id := bm.exec
		if id == "<driver>" { // Spark 1.x names the driver's block manager so
			id = "driver"
		}
		e, _ := d.executor(id)
		if e.Host == "" {
			e.Host = bm.host
		}
		e.HostPort = bm.host + ":" + strconv.FormatInt(bm.port, 10)
		e.MaxMemory, e.BlockManagerSeen = maxMem, true
		if hasOn {
			e.MaxOnHeapMemory, e.MaxOffHeapMemory = onHeap, offHeap
		}
		if e.Added == 0 {
			e.BlockManagerAdded = ts
		}
	}
}

func decodeExecutorExcluded(excluded bool) handler {
	return func(d *Decoder, s *jsonscan.Scanner) {
		id := readString(s, "executorId")
		d.pending = func() {
			// Only executors already known, as the History Server updates only live ones.
			if i, ok := d.execIndex[id]; ok {
				d.app.Executors[i].Excluded = excluded
			}
		}
	}
}

func decodeNodeExcluded(excluded bool) handler {
	return func(d *Decoder, s *jsonscan.Scanner) {
		host := readString(s, "hostId")
		d.pending = func() {
			a := d.app
			// Like the History Server, (un)exclude every live executor on the
			// node but the driver, as of this event.
			for _, e := range a.Executors {
				if nodeExecutor(e, host) {
					e.Excluded = excluded
				}
			}
			for i, h := range a.ExcludedNodes {
				if h == host {
					if !excluded {
						a.ExcludedNodes = append(a.ExcludedNodes[:i], a.ExcludedNodes[i+1:]...)
					}
					return
				}
			}
			if excluded {
				a.ExcludedNodes = append(a.ExcludedNodes, host)
			}
		}
	}
}

// nodeExecutor reports whether e is a live executor, not the driver, on host.
func nodeExecutor(e *model.Executor, host string) bool {
	if e.ID == "driver" || e.Removed != 0 {
		return false
	}
	h := e.Host
	if h == "" {
		h = e.HostPort
		if i := strings.LastIndexByte(h, ':'); i >= 0 {
			h = h[:i]
		}
	}
	return h == host
}

// decodeNodeExcludedForStage applies SparkListenerNodeExcludedForStage (and
// its Blacklisted name) as the History Server does: every live executor on
// the node but the driver is excluded for the stage attempt.
func decodeNodeExcludedForStage(d *Decoder, s *jsonscan.Scanner) {
	host, stage, attempt := decodeStageExclusion(s, "hostId")
	d.pending = func() {
		st := d.stages[model.StageKey{ID: stage, Attempt: attempt}]
		for i, e := range d.app.Executors {
			if !nodeExecutor(e, host) {
				continue
			}
			e.ExcludedStages = append(e.ExcludedStages, stage)
			if st != nil {
				st.ExcludedExecutors = append(st.ExcludedExecutors, uint32(i))
			}
		}
	}
}

func decodeExecutorExcludedForStage(d *Decoder, s *jsonscan.Scanner) {
	id, stage, attempt := decodeStageExclusion(s, "executorId")
	d.pending = func() {
		e, i := d.executor(id)
		e.ExcludedStages = append(e.ExcludedStages, stage)
		st := d.stageFor(stage, attempt)
		st.ExcludedExecutors = append(st.ExcludedExecutors, i)
	}
}

func decodeStageExecutorMetrics(d *Decoder, s *jsonscan.Scanner) {
	var id string
	var stage, attempt int32
	var m model.ExecutorMetrics
	for k := s.Key(); k != nil; k = s.Key() {
		switch string(k) {
		case "Executor ID":
			id = s.String()
		case "Stage ID":
			stage = int32(s.Int())
		case "Stage Attempt ID":
			attempt = int32(s.Int())
		case "Executor Metrics":
			decodeExecutorMetrics(s, &m)
		default:
			s.Skip()
		}
	}
	d.pending = func() {
		e, i := d.executor(id)
		e.Peak.Peak(&m)
		d.stagePeak(d.stageFor(stage, attempt), i, &m)
	}
}

func decodeProcessAdded(d *Decoder, s *jsonscan.Scanner) {
	p := &model.Process{}
	for k := s.Key(); k != nil; k = s.Key() {
		switch string(k) {
		case "time":
			p.Time = s.Int()
		case "processId":
			p.ID = s.String()
		case "info":
			if !s.Object() {
				continue
			}
			for f := s.Key(); f != nil; f = s.Key() {
				switch string(f) {
				case "hostPort":
					p.Host = s.String()
				case "cores":
					p.Cores = int32(s.Int())
				case "logUrlInfo":
					p.LogURLs = decodeStringMap(s)
				default:
					s.Skip()
				}
			}
		default:
			s.Skip()
		}
	}
	d.pending = func() {
		if !once(&d.seen.processes, p.ID, seenStart) {
			d.duplicate("SparkListenerMiscellaneousProcessAdded", "process "+p.ID)
			return
		}
		d.app.Processes = append(d.app.Processes, p)
	}
}

// decodeStageExclusion reads the fields of the excluded-for-stage events:
// the excluded thing's id (under idKey), the stage and its attempt.
func decodeStageExclusion(s *jsonscan.Scanner, idKey string) (id string, stage, attempt int32) {
	for k := s.Key(); k != nil; k = s.Key() {
		switch string(k) {
		case idKey:
			id = s.String()
		case "stageId":
			stage = int32(s.Int())
		case "stageAttemptId":
			attempt = int32(s.Int())
		default:
			s.Skip()
		}
	}
	return id, stage, attempt
}
