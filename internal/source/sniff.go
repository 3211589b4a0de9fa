package source

import (
	"github.com/clusterlens/clusterlens/internal/codec"

	"bytes"
	"fmt"
	"regexp"
)

// SniffSize is how many leading decompressed bytes Sniff looks at.
const SniffSize = 8 << 10

// other tells what a file that is not a log is.
type other uint8

const (
	otherNone     other = iota // it is a log
	otherEmpty                 // no bytes
	otherConf                  // Hadoop job configuration XML
	otherXML                   // some other XML
	otherTopology              // Rumen cluster topology
	otherJSON                  // some other JSON
	otherAvro                  // an Avro file that is not a job history
	otherZip                   // a zip archive
	otherTar                   // a tar archive
	otherText                  // some other text
	otherBinary                // some other binary data
)

var (
	bom          = []byte("\xef\xbb\xbf")
	avroBinary   = []byte("Obj\x01")
	zipMagic     = []byte("PK\x03\x04")
	topoChildren = regexp.MustCompile(`"children"\s*:`)
)

// Sniff tells the kind of log among formats whose first decompressed
// bytes (up to SniffSize) are head. For anything else it returns Unknown
// and a short description of what head looks like ("Hadoop job
// configuration XML", "empty file", "Rumen cluster topology", ...).
func Sniff(head []byte, formats []Format) (Kind, string) {
	k, o := sniff(head, formats)
	if k != Unknown {
		return k, ""
	}
	return Unknown, describe(o, head)
}

func sniff(head []byte, formats []Format) (Kind, other) {
	if len(head) == 0 {
		return Unknown, otherEmpty
	}
	if isTar(head) {
		// Before the formats: a tar of logs holds their bytes.
		return Unknown, otherTar
	}
	head = bytes.TrimPrefix(head, bom)
	for _, f := range formats {
		if sure, _ := f.Sniff(head); sure {
			return f.Kind, otherNone
		}
	}
	switch {
	case bytes.HasPrefix(head, zipMagic):
		return Unknown, otherZip
	case bytes.HasPrefix(head, avroBinary):
		return Unknown, otherAvro
	}
	for _, f := range formats {
		if _, likely := f.Sniff(head); likely {
			return f.Kind, otherNone
		}
	}
	trimmed := bytes.TrimLeft(head, " \t\r\n\f")
	switch {
	case bytes.HasPrefix(trimmed, []byte("{")):
		if topoChildren.Match(trimmed) {
			return Unknown, otherTopology
		}
		return Unknown, otherJSON
	case bytes.HasPrefix(trimmed, []byte("<")):
		if bytes.Contains(trimmed, []byte("<configuration")) {
			return Unknown, otherConf
		}
		if bytes.HasPrefix(trimmed, []byte("<?xml")) {
			return Unknown, otherXML
		}
	}
	if codec.IsText(head) {
		return Unknown, otherText
	}
	return Unknown, otherBinary
}

// describe says what a file that is not a log is.
func describe(o other, head []byte) string {
	switch o {
	case otherEmpty:
		return "empty file"
	case otherConf:
		return "Hadoop job configuration XML"
	case otherXML:
		return "XML file"
	case otherTopology:
		return "Rumen cluster topology"
	case otherJSON:
		return "JSON, but no Spark event or Rumen job"
	case otherAvro:
		return "Avro file, not a MapReduce job history"
	case otherZip:
		return "zip archive"
	case otherTar:
		return "tar archive"
	case otherText:
		line, _, _ := bytes.Cut(bytes.TrimPrefix(head, bom), []byte("\n"))
		if len(line) > 40 {
			line = append(line[:40:40], "..."...)
		}
		return fmt.Sprintf("text starting %q", line)
	}
	return "binary data"
}

// tarMagicEnd is where a tar header's "ustar" magic (POSIX and GNU) ends.
const tarMagicEnd = 262

// isTar reports whether head starts with a POSIX or GNU tar header.
func isTar(head []byte) bool {
	return len(head) >= tarMagicEnd && string(head[257:tarMagicEnd]) == "ustar"
}

// wantLog says what a log is, for errors about paths that are not logs.
const wantLog = "a Spark event log, a Spark rolling (eventlog_v2_*) or 1.x (EVENT_LOG_1) log folder, " +
	"a Databricks eventlog folder, a MapReduce .jhist, legacy job history or Rumen trace, or a folder, zip or tar of them"
