package eventlog

import "bytes"

var (
	sniffStart = []byte(`{"Event":`)
	sniffAny   = []byte(`{"Event":"SparkListener`)
)

// Sniff tells whether head, a file's first decompressed bytes, starts a
// Spark event log: sure when its first line is an event ({"Event":...},
// after blanks), likely when a Spark listener event appears further on (a
// log whose first line is damaged). decodelogs' table of formats uses it.
func Sniff(head []byte) (sure, likely bool) {
	if bytes.HasPrefix(bytes.TrimLeft(head, " \t\r\n\f"), sniffStart) {
		return true, false
	}
	return false, bytes.Contains(head, sniffAny)
}
