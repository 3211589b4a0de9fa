package mapreduce

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/clusterlens/clusterlens/internal/jsonscan"
	"github.com/clusterlens/clusterlens/internal/model"
)

// ReadRumen reads a Rumen job trace (org.apache.hadoop.tools.rumen: a
// stream of JSON LoggedJob objects, pretty-printed or not, written by
// TraceBuilder or HadoopLogsAnalyzer and read by JobTraceReader) and calls
// each with one App per job, in trace order. Only one job is held at a time.
// Rumen's -1 ("unknown") becomes 0. Host names keep no escape backslashes
// (HadoopLogsAnalyzer copied them from the history: "node1\.example\.com").
//
// A job that is not valid JSON is still delivered with what could be read
// before the fault, counted in its Quality (Truncated when the input ended
// inside it). The error is non-nil when the input is not a Rumen trace
// (errors.Is(err, ErrFormat)), could not be read, or each returned one.
func ReadRumen(r io.Reader, name string, each func(*model.App) error) error {
	return Reader{}.ReadRumen(r, name, each)
}

// ReadRumen is the package's ReadRumen. A Rumen job is one JSON object over
// many lines, bounded by its own limit (maxObject), not the line limit.
func (rd Reader) ReadRumen(r io.Reader, name string, each func(*model.App) error) error {
	f := &framer{r: bufio.NewReaderSize(r, 64<<10)}
	var d rumenDecoder
	jobs := 0
	for {
		obj, off, skipped, complete, err := f.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("mapreduce: read %q: %w", name, err)
		}
		if jobs == 0 && (skipped > 0 || len(obj) == 0 || obj[0] != '{') {
			return offsetErr(name, off-skipped, "a JSON object (Rumen LoggedJob)")
		}
		app := d.job(obj, name, off, complete)
		if skipped > 0 {
			app.Quality.BadLines++
			app.Quality.Add(name, 0, fmt.Sprintf("offset %d: %d bytes that are no JSON object skipped", off-skipped, skipped))
		}
		jobs++
		if err := each(app); err != nil {
			return err
		}
	}
	if jobs == 0 {
		return offsetErr(name, 0, "a JSON object (Rumen LoggedJob), got empty input")
	}
	return nil
}

// framer cuts a stream into top-level JSON objects, aware of strings.
type framer struct {
	r   *bufio.Reader
	buf []byte
	off int64 // stream offset of the next unread byte
}

// maxObject caps one job object.
const maxObject = 1 << 30

// next returns the next top-level object, its stream offset, how many
// bytes that were no object it skipped before it, and whether it ended
// before the input did.
func (f *framer) next() (obj []byte, off, skipped int64, complete bool, err error) {
	// skip white space and anything before the next '{'
	for {
		c, err := f.r.ReadByte()
		if err != nil {
			return nil, f.off, skipped, false, err
		}
		f.off++
		if c == '{' {
			break
		}
		if c != ' ' && c != '\n' && c != '\r' && c != '\t' {
			skipped++
		}
	}
	off = f.off - 1
	f.buf = append(f.buf[:0], '{')
	depth, inStr := 1, false
	for {
		chunk, rerr := f.r.ReadSlice('}')
		i := 0
		for ; i < len(chunk); i++ {
			c := chunk[i]
			if inStr {
				switch c {
				case '\\':
					i++
				case '"':
					inStr = false
				}
				continue
			}
			switch c {
			case '"':
				inStr = true
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			if depth == 0 {
				i++
				break
			}
		}
		if i > len(chunk) { // an escape split across chunks
			i = len(chunk)
			if b, err := f.r.ReadByte(); err == nil {
				chunk = append(chunk[:len(chunk):len(chunk)], b)
				i = len(chunk)
			}
		}
		if len(f.buf)+i <= maxObject {
			f.buf = append(f.buf, chunk[:i]...)
		}
		// ReadSlice stops at a '}', so an object ends at the end of a chunk
		// unless it is malformed ("{]"); the rest of such a chunk is dropped.
		f.off += int64(len(chunk))
		if depth == 0 {
			return f.buf, off, skipped, true, nil
		}
		if rerr == bufio.ErrBufferFull {
			continue
		}
		if rerr != nil {
			if rerr == io.EOF {
				return f.buf, off, skipped, false, nil
			}
			return nil, off, skipped, false, rerr
		}
	}
}

// rumenDecoder decodes one LoggedJob with a pull scanner.
type rumenDecoder struct {
	sc       jsonscan.Scanner
	b        *builder
	file     string
	attempts []attemptRec
	ctrs     []counters
	locs     []string
}

func (d *rumenDecoder) job(obj []byte, file string, off int64, complete bool) *model.App {
	d.b, d.file = newBuilder(file), file
	b := d.b
	s := &d.sc
	s.Reset(obj)
	var outcome string
	var props [][2]string
	if s.Object() {
		for k := s.Key(); k != nil; k = s.Key() {
			switch string(k) {
			case "jobID":
				b.app.ID = s.String()
			case "user":
				b.app.User = s.String()
			case "jobName":
				b.app.Name = s.String()
			case "submitTime":
				b.submit = pos(s.Int())
			case "launchTime":
				b.launch = pos(s.Int())
			case "finishTime":
				b.finish = pos(s.Int())
			case "outcome":
				outcome = s.String()
			case "priority":
				b.priority = s.String()
			case "queue":
				b.queue = s.String()
			case "totalMaps":
				b.declared[model.StageMap] = int32(pos(s.Int()))
			case "totalReduces":
				b.declared[model.StageReduce] = int32(pos(s.Int()))
			case "jobProperties":
				if s.Object() {
					for pk := s.Key(); pk != nil; pk = s.Key() {
						key := string(pk)
						props = append(props, [2]string{key, s.String()})
					}
				}
			case "mapTasks":
				d.tasks(model.StageMap)
			case "reduceTasks":
				d.tasks(model.StageReduce)
			case "otherTasks":
				d.tasks(model.StageSetup)
			default:
				s.Skip()
			}
		}
	}
	q := &b.app.Quality
	q.Lines = 1
	if err := s.End(); err != nil {
		if complete {
			q.BadLines++
			q.Add(file, 0, fmt.Sprintf("offset %d: job object: %v", off+int64(s.Offset()), err))
		} else {
			q.Truncated = true
			q.Add(file, 0, fmt.Sprintf("offset %d: job object cut short by the end of the input", off))
		}
	}
	switch outcome {
	case "SUCCESS", "SUCCEEDED":
		b.status = "SUCCEEDED"
	case "":
	default:
		b.status = outcome
	}
	b.complete = outcome != "" && b.finish > 0
	app := b.build()
	if len(props) > 0 {
		sort.SliceStable(props, func(i, j int) bool { return props[i][0] < props[j][0] })
		ApplyConf(app, props)
	}
	d.b = nil
	return app
}

// pos maps Rumen's -1 (unknown) and other negatives to 0.
func pos(v int64) int64 {
	if v < 0 {
		return 0
	}
	return v
}

// tasks reads an array of LoggedTask; def is the kind when a task does not say.
func (d *rumenDecoder) tasks(def model.StageKind) {
	s := &d.sc
	if !s.Array() {
		return
	}
	for s.Next() {
		d.task(def)
	}
}

func (d *rumenDecoder) task(def model.StageKind) {
	s := &d.sc
	if !s.Object() {
		return
	}
	d.attempts, d.ctrs, d.locs = d.attempts[:0], d.ctrs[:0], d.locs[:0]
	var taskID, taskType, status string
	var start, finish int64
	for k := s.Key(); k != nil; k = s.Key() {
		switch string(k) {
		case "taskID":
			taskID = s.String()
		case "taskType":
			taskType = s.String()
		case "taskStatus":
			status = s.String()
		case "startTime":
			start = pos(s.Int())
		case "finishTime":
			finish = pos(s.Int())
		case "preferredLocations":
			if s.Array() {
				for s.Next() {
					if l := d.location(); l != "" {
						d.locs = append(d.locs, l)
					}
				}
			}
		case "attempts":
			if s.Array() {
				for s.Next() {
					d.attempt()
				}
			}
		default:
			s.Skip()
		}
	}
	kind := def
	if k, ok := kindOfType(taskType); ok {
		kind = k
	}
	if _, _, idx, ok := parseTaskID(taskID); ok {
		d.b.task(kind, idx, start, finish, status, "", strings.Join(d.locs, ","))
	}
	for i := range d.attempts {
		r := &d.attempts[i]
		r.kind = kind
		if r.ctr != nil {
			r.ctr = &d.ctrs[i]
		}
		if r.id != "" {
			d.b.attempt(r)
		}
	}
}

// location reads a LoggedLocation {"layers": [rack, host]} as "/rack/host".
func (d *rumenDecoder) location() string {
	s := &d.sc
	if !s.Object() {
		return ""
	}
	var parts []string
	for k := s.Key(); k != nil; k = s.Key() {
		if string(k) != "layers" || !s.Array() {
			s.Skip()
			continue
		}
		for s.Next() {
			parts = append(parts, unbackslash(s.String()))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "/" + strings.Join(parts, "/")
}

// unbackslash drops escape backslashes Rumen kept from legacy histories.
func unbackslash(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	return string(unescapeLegacy(nil, []byte(s)))
}

func (d *rumenDecoder) attempt() {
	s := &d.sc
	if !s.Object() {
		return
	}
	d.attempts = append(d.attempts, attemptRec{})
	d.ctrs = append(d.ctrs, counters{})
	r := &d.attempts[len(d.attempts)-1]
	c := &d.ctrs[len(d.ctrs)-1]
	var location string
	set := func(m model.Metric) {
		if v := s.Int(); v >= 0 {
			c.set(m, v)
		}
	}
	for k := s.Key(); k != nil; k = s.Key() {
		switch string(k) {
		case "attemptID":
			r.id = s.String()
		case "hostName":
			r.rack, r.host = splitHost(unbackslash(s.String()))
		case "location":
			location = d.location()
		case "startTime":
			r.start = pos(s.Int())
		case "finishTime":
			r.finish = pos(s.Int())
		case "shuffleFinished":
			r.shuffleFinish = pos(s.Int())
		case "sortFinished":
			r.sortFn = pos(s.Int())
		case "result":
			if v := s.String(); v != "" {
				r.status, r.hasStatus = parseStatus(v)
				if !r.hasStatus {
					r.status, r.hasStatus = model.TaskUnknown, true
				}
			}
		case "hdfsBytesRead":
			set(model.HDFSBytesRead)
		case "hdfsBytesWritten":
			set(model.HDFSBytesWritten)
		case "fileBytesRead":
			set(model.FileBytesRead)
		case "fileBytesWritten":
			set(model.FileBytesWritten)
		case "mapInputRecords":
			set(model.MapInputRecords)
		case "mapOutputBytes":
			set(model.MapOutputBytes)
		case "mapOutputRecords":
			set(model.MapOutputRecords)
		case "reduceInputRecords":
			set(model.ReduceInputRecords)
		case "reduceShuffleBytes":
			set(model.ReduceShuffleBytes)
		case "reduceOutputRecords":
			set(model.ReduceOutputRecords)
		case "spilledRecords":
			set(model.SpilledRecords)
		case "resourceUsageMetrics":
			if s.Object() {
				for rk := s.Key(); rk != nil; rk = s.Key() {
					switch string(rk) {
					case "cumulativeCpuUsage":
						set(model.CPUMillis)
					case "virtualMemoryUsage":
						set(model.VirtualMemoryBytes)
					case "physicalMemoryUsage":
						set(model.PhysicalMemoryBytes)
					case "heapUsage":
						set(model.CommittedHeapBytes)
					default:
						s.Skip()
					}
				}
			}
		default:
			s.Skip()
		}
	}
	if r.host == "" && location != "" {
		r.rack, r.host = splitHost(location)
	}
	if c.seen {
		r.ctr = c // re-pointed after the slice stops growing
	}
}
