package mapreduce

import (
	"bytes"
	"regexp"
)

var (
	avroJSON     = []byte("Avro-Json")
	avroBinary   = []byte("Obj\x01")
	jobHistoryNS = []byte("org.apache.hadoop.mapreduce.jobhistory")
	rumenBundle  = []byte("!!FILE=")
	legacyLine   = regexp.MustCompile(`^(Meta|Job|Task|MapAttempt|ReduceAttempt) [A-Z_]+=`)
	rumenJobID   = regexp.MustCompile(`"jobID"\s*:`)
)

// The sniffers of decodelogs' table of formats: each tells whether head,
// a file's first decompressed bytes, starts a log of its format, sure or
// likely (source.Format).

// SniffJhist is sure of a .jhist: Avro-JSON's "Avro-Json" line, or an
// Avro binary container of the job history's schema.
func SniffJhist(head []byte) (sure, likely bool) {
	return bytes.HasPrefix(head, avroJSON) || bytes.HasPrefix(head, avroBinary) && bytes.Contains(head, jobHistoryNS), false
}

// SniffLegacy is sure of a Hadoop 0.18–1.x history: a "Meta VERSION=" or
// "Job JOBID=" style line, or a Rumen bundle of them (!!FILE=).
func SniffLegacy(head []byte) (sure, likely bool) {
	t := bytes.TrimLeft(head, " \t\r\n\f")
	return bytes.HasPrefix(t, rumenBundle) || legacyLine.Match(t), false
}

// SniffRumen thinks likely a JSON object with a "jobID" a Rumen trace.
func SniffRumen(head []byte) (sure, likely bool) {
	t := bytes.TrimLeft(head, " \t\r\n\f")
	return false, bytes.HasPrefix(t, []byte("{")) && rumenJobID.Match(t)
}
