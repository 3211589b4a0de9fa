package model

import "strings"

// Engine is the system that ran an application.
type Engine uint8

// Engines.
const (
	Spark Engine = iota + 1
	MapReduce
)

func (e Engine) String() string {
	switch e {
	case Spark:
		return "spark"
	case MapReduce:
		return "mapreduce"
	}
	return "unknown"
}

// App is one run (attempt) of an application, as read from one log: a Spark
// event log, a MapReduce job history, or one job of a Rumen trace. Times are
// epoch milliseconds; 0 means unknown.
type App struct {
	ID        string
	AttemptID string // "" when the application has a single, unnumbered attempt
	Name      string
	User      string
	Engine    Engine
	Version   string // Spark version from SparkListenerLogStart (or Databricks' metadata), or the history format's
	Start     int64
	End       int64 // 0 while running
	Complete  bool  // an application-end (or job-finished) record was read

	// LastUpdated is the log's modification time (epoch ms), as the History Server reports it.
	LastUpdated int64
	// Source names the file or folder the application was read from.
	Source string

	DriverLogs       [][2]string
	DriverAttributes [][2]string

	Env              Environment
	ResourceProfiles []ResourceProfile
	Jobs             []*Job
	Stages           []*Stage // every stage attempt, in submission order
	Executors        []*Executor
	Hosts            []string // interned host names, Hosts[0] == ""; Task.Host indexes it
	Reasons          []Reason // task failure reasons, Reasons[0] is "none"; Task.Reason indexes it
	SQL              []*SQLExecution
	// ExcludedNodes are hosts excluded (blacklisted) for the whole application.
	ExcludedNodes []string
	// Processes are miscellaneous processes (for example a stage-level plugin) the log announced.
	Processes []*Process

	// Conf holds MapReduce job configuration (key, value) when a conf XML lies beside the history.
	Conf [][2]string

	// Rollovers are the Databricks part markers read, in log order.
	Rollovers []Rollover
	// Platform is where the application ran.
	Platform Platform

	Quality Quality
}

// Environment is Spark's SparkListenerEnvironmentUpdate, sections in log order.
type Environment struct {
	JVM       [][2]string
	Spark     [][2]string
	Hadoop    [][2]string
	System    [][2]string
	Metrics   [][2]string
	Classpath [][2]string
	Seen      bool
}

// SparkProp returns a Spark property's value and whether it was set.
func (e *Environment) SparkProp(key string) (string, bool) {
	for _, kv := range e.Spark {
		if kv[0] == key {
			return kv[1], true
		}
	}
	return "", false
}

// ResourceProfile is a stage-level resource profile (Spark 3.1+).
type ResourceProfile struct {
	ID       int32
	Executor []ResourceRequest
	Task     []ResourceRequest
}

// ResourceRequest is one named resource amount of a profile.
type ResourceRequest struct {
	Name            string
	Amount          float64
	DiscoveryScript string
	Vendor          string
}

// Process is a miscellaneous process added to the application.
type Process struct {
	ID      string
	Host    string
	Cores   int32
	Time    int64
	LogURLs [][2]string
}

// Quality records what could not be read. Nothing is dropped silently: every
// skipped line is counted with where it was.
type Quality struct {
	Lines         int64 // lines (or records) read
	BadLines      int64 // lines that were not valid records
	UnknownEvents int64 // well-formed records of a type the reader does not know
	// Incomplete counts well-formed records that lack a field they need (for
	// example an ExecutorAdded without "Executor ID"); they are not applied.
	Incomplete int64
	// LongLines counts lines longer than the reader's line limit: skipped
	// unread, never held in memory.
	LongLines int64
	// Duplicates counts records that repeat one already applied (the same
	// task's start or end, a stage's submission or completion, a job's start
	// or end, twice): each is applied once.
	Duplicates int64
	// ImpossibleTimes counts records whose times cannot be right (an end
	// before its start, a task far outside its application): they are left
	// out of durations. See App.AuditTimes.
	ImpossibleTimes int64
	// Events counts valid records by type (Spark event name without package).
	Events    map[string]int64
	Truncated bool // the input ended inside a record
	// CutLastLine is set when the last line was cut off, as in a log still
	// being written: it is counted in BadLines, and is no loss.
	CutLastLine bool
	// Samples of problems, with file and line, at most MaxIssueSamples.
	Issues []Issue
	// Notes are about the input as a whole (parts missing, repeated or
	// ordered by a guess; metrics taken from other names).
	Notes []Note
}

// MaxIssueSamples caps Quality.Issues.
const MaxIssueSamples = 20

// MaxKindSamples caps the samples of a problem that comes in numbers
// (duplicate events, impossible times), to leave room for the others.
const MaxKindSamples = 3

// Issue is one problem found in the input.
type Issue struct {
	File string
	Line int64
	What string
	// Handled marks what was read in full and dealt with (a duplicate
	// applied once, an impossible time left out), as opposed to a record
	// lost.
	Handled bool `json:",omitempty"`
}

// Add records an issue, keeping at most MaxIssueSamples samples.
func (q *Quality) Add(file string, line int64, what string) {
	if len(q.Issues) < MaxIssueSamples {
		q.Issues = append(q.Issues, Issue{File: file, Line: line, What: what})
	}
}

// Note records a note about the input as a whole.
func (q *Quality) Note(partial bool, text string) {
	q.Notes = append(q.Notes, Note{Text: text, Partial: partial})
}

// Partial reports whether a note says the numbers are partial.
func (q *Quality) Partial() bool {
	for _, n := range q.Notes {
		if n.Partial {
			return true
		}
	}
	return false
}

// AddHandled records an issue that lost nothing (Issue.Handled), keeping at
// most MaxIssueSamples samples.
func (q *Quality) AddHandled(file string, line int64, what string) {
	if len(q.Issues) < MaxIssueSamples {
		q.Issues = append(q.Issues, Issue{File: file, Line: line, What: what, Handled: true})
	}
}

// Lost reports whether records were lost: lines that were not valid records
// (but for a last line cut off while the log was written), lines over the
// length limit, records lacking a field they need.
func (q *Quality) Lost() bool {
	bad := q.BadLines
	if q.CutLastLine {
		bad--
	}
	return bad > 0 || q.LongLines > 0 || q.Incomplete > 0
}

// FirstLoss returns the first sample of a lost record (an Issue that is not
// Handled), if one was kept.
func (q *Quality) FirstLoss() (Issue, bool) {
	for _, is := range q.Issues {
		if !is.Handled && !(q.CutLastLine && strings.HasPrefix(is.What, CutLastLinePrefix)) {
			return is, true
		}
	}
	return Issue{}, false
}

// CutLastLinePrefix starts the issue of a last line cut off (CutLastLine).
const CutLastLinePrefix = "last line incomplete (log in progress or truncated): "

// Duration is End-Start, or 0 when either is unknown.
func (a *App) Duration() int64 {
	if a.Start > 0 && a.End >= a.Start {
		return a.End - a.Start
	}
	return 0
}

// Host returns the name of an interned host index.
func (a *App) Host(i uint32) string {
	if int(i) < len(a.Hosts) {
		return a.Hosts[i]
	}
	return ""
}

// NumTasks counts the task attempts of all stages.
func (a *App) NumTasks() int {
	n := 0
	for _, s := range a.Stages {
		n += len(s.Tasks)
	}
	return n
}

// ReasonResubmitted is the Reason.Kind of Spark's TaskEnd for a finished map
// task whose output was lost with its executor (TaskEndReason Resubmitted).
const ReasonResubmitted = "Resubmitted"

// Resubmitted reports whether t is such a record: Spark logs a second TaskEnd
// for an attempt already recorded (same task id, launch and finish, no
// metrics) with reason Resubmitted. It is a note about that attempt, not an
// attempt of its own; the decoder gives it status TaskSuccess.
func (a *App) Resubmitted(t *Task) bool {
	return t.Reason != 0 && int(t.Reason) < len(a.Reasons) && a.Reasons[t.Reason].Kind == ReasonResubmitted
}
