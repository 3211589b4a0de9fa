package mapreduce

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/dustin/go-humanize"

	"github.com/clusterlens/clusterlens/internal/model"
)

// LegacyStats counts what a legacy history held before attempts were merged,
// for comparison with other tools that count records.
type LegacyStats struct {
	Records        int64 // well-formed records of any type
	AttemptRecords int64 // MapAttempt and ReduceAttempt records: an attempt's start and finish count apart
	AttemptHosts   int   // distinct HOSTNAME values of attempt records, as written ("/rack/host" and "host" differ)
	Jobs           int   // jobs (distinct JOBIDs)
}

// ReadLegacy reads a pre-0.21 MapReduce job history, as written by the
// JobTracker's org.apache.hadoop.mapred.JobHistory (Hadoop 0.18 to 1.x), one
// App per job in order of appearance. Records are "Type KEY="VALUE" ..."
// lines (Meta, Job, Task, MapAttempt, ReduceAttempt); 0.20+ files open with
// `Meta VERSION="1" .` and end records with " .", 0.18 has neither. Values
// may span lines. An attempt's start and finish records merge into one Task.
// Input may be a concatenation of files with Rumen's "\f!!FILE=name!!"
// separators (HadoopLogsAnalyzer's input); job conf XML segments in it
// ("..._conf.xml") go to the matching App's Conf. Gzipped files must be
// decompressed by the caller.
//
// A truncated history gives partial Apps (Complete false). The error is
// non-nil only when the input is not a legacy history (errors.Is(err,
// ErrFormat)) or could not be read.
func ReadLegacy(r io.Reader, name string) ([]*model.App, error) { return Reader{}.ReadLegacy(r, name) }

// ReadLegacy is the package's ReadLegacy with rd's line (and record) limit.
func (rd Reader) ReadLegacy(r io.Reader, name string) ([]*model.App, error) {
	apps, _, err := rd.readLegacy(r, name)
	return apps, err
}

// ReadLegacyStats is ReadLegacy that also returns record counts.
func ReadLegacyStats(r io.Reader, name string) ([]*model.App, LegacyStats, error) {
	return Reader{}.readLegacy(r, name)
}

func (rd Reader) readLegacy(r io.Reader, name string) ([]*model.App, LegacyStats, error) {
	d := &legacyDecoder{
		file:     name,
		lr:       newLineReader(r, rd.MaxLine),
		jobs:     map[string]*builder{},
		confs:    map[string][][2]string{},
		hostVals: map[string]struct{}{},
	}
	err := d.run()
	d.stats.AttemptHosts = len(d.hostVals)
	d.stats.Jobs = len(d.order)
	if err != nil {
		return nil, d.stats, err
	}
	apps := make([]*model.App, 0, len(d.order))
	for _, id := range d.order {
		b := d.jobs[id]
		b.app.Version = d.version
		app := b.build()
		if conf, ok := d.confs[id]; ok {
			ApplyConf(app, conf)
		}
		apps = append(apps, app)
	}
	return apps, d.stats, nil
}

type legacyDecoder struct {
	file     string
	lr       *lineReader
	jobs     map[string]*builder
	order    []string
	cur      *builder
	pending  model.Quality // issues met before any job
	confs    map[string][][2]string
	hostVals map[string]struct{}
	stats    LegacyStats
	version  string
	rec      record
	recBuf   []byte
	recLine  int64
	inQuote  bool
	started  bool // a record or file marker was seen
	conf     *bytes.Buffer
	confJob  string
}

var (
	fileMarker  = regexp.MustCompile(`^\f?!!FILE[= ](.*)!!\s*$`)
	recordStart = regexp.MustCompile(`^(Meta|Job|Task|MapAttempt|ReduceAttempt) [A-Z_]+="`)
	jobInName   = regexp.MustCompile(`job_[0-9]+_[0-9]+`)
)

// quality returns the Quality issues should go to now.
func (d *legacyDecoder) quality() *model.Quality {
	if d.cur != nil {
		return &d.cur.app.Quality
	}
	return &d.pending
}

func (d *legacyDecoder) run() error {
	for {
		ln, err := d.lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			d.quality().Add(d.file, d.lr.line+1, "read: "+err.Error())
			d.quality().Truncated = true
			break
		}
		if ln.TooLong {
			d.lr.tooLong(d.quality(), d.file, ln)
			continue
		}
		line := ln.Bytes
		if i := bytes.IndexByte(line, '\f'); i > 0 {
			line = line[i:] // HadoopLogsAnalyzer drops what precedes a form feed
		}
		if m := fileMarker.FindSubmatch(line); m != nil {
			d.endRecord(true)
			d.endConf()
			d.started = true
			if strings.HasSuffix(string(m[1]), "_conf.xml") {
				d.conf = &bytes.Buffer{}
				d.confJob = string(jobInName.Find(m[1]))
			}
			continue
		}
		if d.conf != nil {
			if int64(d.conf.Len()+len(line)) <= d.lr.Max() {
				d.conf.Write(line)
				d.conf.WriteByte('\n')
			}
			if bytes.Contains(line, []byte("</configuration>")) {
				d.endConf() // records may follow without a marker of their own
			}
			continue
		}
		if len(d.recBuf) > 0 && d.inQuote && recordStart.Match(line) {
			d.endRecord(true) // an unterminated value: the next record began
		}
		if len(d.recBuf) == 0 {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			if !d.started {
				if !recordStart.Match(line) && !bytes.HasPrefix(line, []byte("Meta ")) {
					return lineErr(d.file, d.lr.line, "a legacy job history record (Meta, Job, Task, MapAttempt or ReduceAttempt)")
				}
				d.started = true
			}
			d.recLine = d.lr.line
		} else {
			d.recBuf = append(d.recBuf, '\n')
		}
		if n := int64(len(d.recBuf) + len(line)); n > d.lr.Max() {
			d.recBuf = d.recBuf[:0]
			d.inQuote = false
			d.quality().LongLines++
			d.quality().Add(d.file, d.recLine, "record over the "+humanize.IBytes(uint64(d.lr.Max()))+" line limit: skipped")
			continue
		}
		d.recBuf = append(d.recBuf, line...)
		d.inQuote = quoteState(line, d.inQuote)
		if !d.inQuote {
			d.endRecord(false)
		}
	}
	d.endRecord(true)
	d.endConf()
	if !d.started {
		return lineErr(d.file, 1, "a legacy job history record, got empty input")
	}
	if len(d.order) == 0 && d.pending.BadLines > 0 {
		return lineErr(d.file, d.pending.Issues[0].Line, "a legacy job history record")
	}
	return nil
}

// quoteState reports whether a quoted value is still open after line.
func quoteState(line []byte, in bool) bool {
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case '"':
			in = !in
		}
	}
	return in
}

// endRecord processes the accumulated record. cut tells that it was ended
// by something other than its own end (a file marker, the next record, the
// end of input), which makes an open value a truncation.
func (d *legacyDecoder) endRecord(cut bool) {
	if len(d.recBuf) == 0 {
		return
	}
	rec := d.recBuf
	open := d.inQuote
	d.recBuf = d.recBuf[:0]
	d.inQuote = false
	q := d.quality()
	q.Lines++
	if open && cut {
		q.Truncated = true
		q.Add(d.file, d.recLine, "record cut short (unterminated value)")
		return
	}
	if err := d.rec.parse(rec); err != nil {
		q.BadLines++
		q.Add(d.file, d.recLine, err.Error())
		return
	}
	d.stats.Records++
	d.apply()
}

func (d *legacyDecoder) endConf() {
	if d.conf == nil {
		return
	}
	conf, err := ReadConf(d.conf)
	if err != nil {
		d.quality().Add(d.file, d.lr.line, "conf segment: "+err.Error())
	}
	if d.confJob != "" && len(conf) > 0 {
		d.confs[d.confJob] = conf
	}
	d.conf, d.confJob = nil, ""
}

// job returns the builder of a job id, creating it.
func (d *legacyDecoder) job(id string) *builder {
	b, ok := d.jobs[id]
	if !ok {
		b = newBuilder(d.file)
		b.app.ID = id
		if len(d.order) == 0 {
			// issues met before the first job belong to it
			b.app.Quality = d.pending
			d.pending = model.Quality{}
		}
		d.jobs[id] = b
		d.order = append(d.order, id)
	}
	return b
}

func (d *legacyDecoder) apply() {
	r := &d.rec
	switch string(r.typ) {
	case "Meta":
		d.version = r.str("VERSION")
	case "Job":
		d.applyJob()
	case "Task":
		d.applyTask()
	case "MapAttempt", "ReduceAttempt":
		d.applyAttempt()
	default:
		d.quality().UnknownEvents++
	}
}

func (d *legacyDecoder) applyJob() {
	r := &d.rec
	id := r.str("JOBID")
	if id == "" {
		if d.cur == nil {
			d.pending.BadLines++
			d.pending.Add(d.file, d.recLine, "Job record without JOBID")
			return
		}
		id = d.cur.app.ID
	}
	b := d.job(id)
	d.cur = b
	if v := r.str("JOBNAME"); v != "" {
		b.app.Name = v
	}
	if v := r.str("USER"); v != "" {
		b.app.User = v
	}
	if v := r.num("SUBMIT_TIME"); v > 0 {
		b.submit = v
	}
	if v := r.num("LAUNCH_TIME"); v > 0 {
		b.launch = v
	}
	if _, ok := r.raw("TOTAL_MAPS"); ok {
		b.declared[model.StageMap] = int32(r.num("TOTAL_MAPS"))
	}
	if _, ok := r.raw("TOTAL_REDUCES"); ok {
		b.declared[model.StageReduce] = int32(r.num("TOTAL_REDUCES"))
	}
	if v := r.str("JOB_PRIORITY"); v != "" {
		b.priority = v
	}
	if v := r.str("JOB_QUEUE"); v != "" {
		b.queue = v
	}
	if v := r.num("FINISH_TIME"); v > 0 {
		b.finish, b.complete = v, true
		b.status = r.str("JOB_STATUS")
		if b.status == "" {
			b.status = "UNKNOWN"
		}
	}
}

// taskJob finds the builder for a task or attempt record.
func (d *legacyDecoder) taskJob(taskID, attemptID string) *builder {
	b := d.cur
	if a, ok := parseAttemptID(attemptID); ok {
		b = d.job(a.job)
	} else if job, _, _, ok := parseTaskID(taskID); ok {
		b = d.job(job)
	}
	if d.cur == nil {
		d.cur = b
	}
	return b
}

func (d *legacyDecoder) applyTask() {
	r := &d.rec
	taskID := r.str("TASKID")
	b := d.taskJob(taskID, "")
	_, typ, idx, ok := parseTaskID(taskID)
	if b == nil || !ok {
		d.quality().BadLines++
		d.quality().Add(d.file, d.recLine, "Task record without a valid TASKID")
		return
	}
	kind, ok := kindOfType(r.str("TASK_TYPE"))
	if !ok {
		kind, _ = kindOfLetter(typ)
	}
	b.task(kind, idx, r.num("START_TIME"), r.num("FINISH_TIME"), r.str("TASK_STATUS"), r.str("ERROR"), r.str("SPLITS"))
}

func (d *legacyDecoder) applyAttempt() {
	r := &d.rec
	d.stats.AttemptRecords++
	aid := r.str("TASK_ATTEMPT_ID")
	b := d.taskJob(r.str("TASKID"), aid)
	if _, ok := parseAttemptID(aid); b == nil || !ok {
		d.quality().BadLines++
		d.quality().Add(d.file, d.recLine, "attempt record without a valid TASK_ATTEMPT_ID")
		return
	}
	rec := attemptRec{id: aid}
	if k, ok := kindOfType(r.str("TASK_TYPE")); ok {
		rec.kind = k
	} else if string(r.typ) == "ReduceAttempt" {
		rec.kind = model.StageReduce
	} else {
		rec.kind = model.StageMap
	}
	rec.start = r.num("START_TIME")
	rec.finish = r.num("FINISH_TIME")
	if h := r.str("HOSTNAME"); h != "" {
		d.hostVals[h] = struct{}{}
		rec.rack, rec.host = splitHost(h)
	} else if t := r.str("TRACKER_NAME"); t != "" {
		rec.host = trackerHost(t)
	}
	rec.port = int32(r.num("HTTP_PORT"))
	if s := r.str("TASK_STATUS"); s != "" {
		rec.status, rec.hasStatus = parseStatus(s)
		if !rec.hasStatus {
			rec.status, rec.hasStatus = model.TaskUnknown, true
		}
	}
	rec.errMsg = strings.TrimSpace(r.str("ERROR"))
	rec.mapFinish = r.num("MAP_FINISH_TIME")
	rec.shuffleFinish = r.num("SHUFFLE_FINISHED")
	rec.sortFn = r.num("SORT_FINISHED")
	if v, ok := r.raw("COUNTERS"); ok {
		var c counters
		r.buf = unescapeLegacy(r.buf[:0], v)
		if parseCounters(&c, r.buf) {
			rec.ctr = &c
		}
	}
	b.attempt(&rec)
}

// String summarizes the counts.
func (s LegacyStats) String() string {
	return fmt.Sprintf("%d records, %d attempt records, %d attempt hosts, %d jobs", s.Records, s.AttemptRecords, s.AttemptHosts, s.Jobs)
}
