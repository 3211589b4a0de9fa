package eventlog

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/clusterlens/clusterlens/internal/jsonscan"
	"github.com/clusterlens/clusterlens/internal/model"
)

// stageInfo is Spark's StageInfo as logged in job and stage events.
type stageInfo struct {
	id, attempt, numTasks, profile int32
	name, details, failure         string
	hasFailure                     bool
	parents, rdds                  []int32
	submitted, completed           int64
	accums                         []model.Accumulable
	pushEnabled                    bool
	mergers                        int32
}

func decodeStageInfo(s *jsonscan.Scanner) stageInfo {
	si := stageInfo{id: -1}
	if !s.Object() {
		return si
	}
	for k := s.Key(); k != nil; k = s.Key() {
		switch string(k) {
		case "Stage ID":
			si.id = int32(s.Int())
		case "Stage Attempt ID":
			si.attempt = int32(s.Int())
		case "Stage Name":
			si.name = s.String()
		case "Number of Tasks":
			si.numTasks = int32(s.Int())
		case "RDD Info":
			if s.Array() {
				for s.Next() {
					si.rdds = append(si.rdds, int32(readTime(objectOrSkip(s), "RDD ID")))
				}
			}
		case "Parent IDs":
			si.parents = decodeInts(s)
		case "Details":
			si.details = s.String()
		case "Submission Time":
			si.submitted = s.Int()
		case "Completion Time":
			si.completed = s.Int()
		case "Failure Reason":
			si.hasFailure = s.Kind() != 'n'
			si.failure = s.String()
		case "Accumulables":
			si.accums = keepAccumulables(s.SkipRaw(), nil)
		case "Resource Profile Id":
			si.profile = int32(s.Int())
		case "Shuffle Push Enabled":
			si.pushEnabled = s.Bool()
		case "Shuffle Push Mergers Count":
			si.mergers = int32(s.Int())
		default:
			s.Skip()
		}
	}
	return si
}

// objectOrSkip enters an object so readTime can walk it.
func objectOrSkip(s *jsonscan.Scanner) *jsonscan.Scanner {
	s.Object()
	return s
}

func decodeInts(s *jsonscan.Scanner) []int32 {
	if !s.Array() {
		return nil
	}
	out := []int32{}
	for s.Next() {
		out = append(out, int32(s.Int()))
	}
	return out
}

// stageFromInfo finds or creates the stage attempt and copies the info's
// descriptive fields.
func (d *Decoder) stageFromInfo(si *stageInfo) *model.Stage {
	st := d.stages[model.StageKey{ID: si.id, Attempt: si.attempt}]
	if st == nil {
		st = d.stageFor(si.id, si.attempt)
		st.Status = model.StagePending
	}
	st.Name, st.NumTasks, st.Details, st.Profile = si.name, si.numTasks, si.details, si.profile
	if si.parents != nil {
		st.ParentIDs = si.parents
	}
	if si.rdds != nil {
		st.RDDIDs = si.rdds
	}
	st.ShufflePushEnabled, st.ShuffleMergers = si.pushEnabled, si.mergers
	if si.submitted != 0 {
		st.Submitted = si.submitted
	}
	return st
}

func decodeJobStart(d *Decoder, s *jsonscan.Scanner) {
	job := &model.Job{ID: -1, SQLID: -1, ResultStage: -1}
	var infos []stageInfo
	for k := s.Key(); k != nil; k = s.Key() {
		switch string(k) {
		case "Job ID":
			job.ID = int32(s.Int())
		case "Submission Time":
			job.Submitted = s.Int()
		case "Stage Infos":
			if s.Array() {
				for s.Next() {
					infos = append(infos, decodeStageInfo(s))
				}
			}
		case "Stage IDs":
			job.StageIDs = decodeInts(s)
		case "Properties":
			job.Properties = decodeStringMap(s)
		default:
			s.Skip()
		}
	}
	d.require(job.ID >= 0, "Job ID")
	d.pending = func() {
		if !once(&d.seen.jobs, job.ID, seenStart) {
			d.duplicate("SparkListenerJobStart", fmt.Sprintf("job %d", job.ID))
			return
		}
		for _, kv := range job.Properties {
			switch kv[0] {
			case "spark.job.description":
				job.Description = kv[1]
			case "spark.jobGroup.id":
				job.Group = kv[1]
			case "spark.sql.execution.id":
				if v, err := strconv.ParseInt(kv[1], 10, 64); err == nil {
					job.SQLID = v
				}
			}
		}
		sort.Slice(infos, func(i, j int) bool { return infos[i].id < infos[j].id })
		if len(job.StageIDs) == 0 {
			for _, si := range infos {
				job.StageIDs = append(job.StageIDs, si.id)
			}
		}
		for _, sid := range job.StageIDs {
			d.stageJobs[sid] = appendUnique(d.stageJobs[sid], job.ID)
		}
		for i := range infos {
			st := d.stageFromInfo(&infos[i])
			st.JobIDs = appendUnique(st.JobIDs, job.ID)
			job.StageTasks = append(job.StageTasks, infos[i].numTasks)
			if infos[i].completed == 0 {
				job.NumTasks += int64(infos[i].numTasks)
			}
		}
		if n := len(infos); n > 0 {
			job.Name = infos[n-1].name
			job.ResultStage = infos[n-1].id
		}
		d.sqlJobStart(job, infos)
		d.jobs[job.ID] = job
		d.app.Jobs = append(d.app.Jobs, job)
	}
}

func appendUnique(s []int32, v int32) []int32 {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

func decodeJobEnd(d *Decoder, s *jsonscan.Scanner) {
	id := int32(-1)
	var ts int64
	var result, failure string
	for k := s.Key(); k != nil; k = s.Key() {
		switch string(k) {
		case "Job ID":
			id = int32(s.Int())
		case "Completion Time":
			ts = s.Int()
		case "Job Result":
			if !s.Object() {
				continue
			}
			for f := s.Key(); f != nil; f = s.Key() {
				switch string(f) {
				case "Result":
					result = s.String()
				case "Exception":
					if s.Object() {
						for g := s.Key(); g != nil; g = s.Key() {
							if string(g) == "Message" {
								failure = s.String()
							} else {
								s.Skip()
							}
						}
					}
				default:
					s.Skip()
				}
			}
		default:
			s.Skip()
		}
	}
	d.require(id >= 0, "Job ID")
	d.pending = func() {
		if !once(&d.seen.jobs, id, seenEnd) {
			d.duplicate("SparkListenerJobEnd", fmt.Sprintf("job %d", id))
			return
		}
		job := d.jobs[id]
		if job == nil {
			job = &model.Job{ID: id, SQLID: -1, ResultStage: -1}
			d.jobs[id] = job
			d.app.Jobs = append(d.app.Jobs, job)
		}
		job.Completed = ts
		if result == "JobSucceeded" {
			job.Status = model.JobSucceeded
		} else {
			job.Status, job.Failure = model.JobFailed, failure
		}
		// Stages of the job never submitted were skipped, as the History Server marks them.
		for _, sid := range job.StageIDs {
			for a := int32(0); ; a++ {
				st := d.stages[model.StageKey{ID: sid, Attempt: a}]
				if st == nil {
					break
				}
				if st.Status == model.StagePending {
					st.Status = model.StageSkipped
				}
			}
		}
		d.sqlJobEnd(id)
	}
}

func decodeStageSubmitted(d *Decoder, s *jsonscan.Scanner) {
	si := stageInfo{id: -1}
	var props [][2]string
	for k := s.Key(); k != nil; k = s.Key() {
		switch string(k) {
		case "Stage Info":
			si = decodeStageInfo(s)
		case "Properties":
			props = decodeStringMap(s)
		default:
			s.Skip()
		}
	}
	d.require(si.id >= 0, "Stage Info.Stage ID")
	d.pending = func() {
		if !once(&d.seen.stages, model.StageKey{ID: si.id, Attempt: si.attempt}, seenStart) {
			d.duplicate("SparkListenerStageSubmitted", fmt.Sprintf("stage %d.%d", si.id, si.attempt))
			return
		}
		st := d.stageFromInfo(&si)
		st.Status = model.StageActive
		st.Properties = props
		for _, kv := range props {
			if kv[0] == "spark.scheduler.pool" {
				st.Pool = kv[1]
			}
		}
		for _, j := range d.stageJobs[st.ID] {
			st.JobIDs = appendUnique(st.JobIDs, j)
		}
		d.sqlStageSubmitted(si.id, si.attempt)
	}
}

func decodeStageCompleted(d *Decoder, s *jsonscan.Scanner) {
	si := stageInfo{id: -1}
	for k := s.Key(); k != nil; k = s.Key() {
		if string(k) == "Stage Info" {
			si = decodeStageInfo(s)
		} else {
			s.Skip()
		}
	}
	d.require(si.id >= 0, "Stage Info.Stage ID")
	d.pending = func() {
		if !once(&d.seen.stages, model.StageKey{ID: si.id, Attempt: si.attempt}, seenEnd) {
			d.duplicate("SparkListenerStageCompleted", fmt.Sprintf("stage %d.%d", si.id, si.attempt))
			return
		}
		st := d.stageFromInfo(&si)
		st.Completed = si.completed
		st.Accumulables = si.accums
		if si.hasFailure {
			st.Status, st.Failure = model.StageFailed, si.failure
		} else {
			st.Status = model.StageComplete
		}
	}
}
