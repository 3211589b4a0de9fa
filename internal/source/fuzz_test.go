package source

import (
	"bytes"
	"testing"

	"github.com/clusterlens/clusterlens/internal/codec"
)

// FuzzSniff checks that kind sniffing never panics, gives a reason exactly
// when the kind is Unknown, and keeps its Spark verdict when more bytes follow.
func FuzzSniff(f *testing.F) {
	for _, s := range []string{
		sparkLines,
		"\xef\xbb\xbf" + sparkLines,
		"Avro-Json\n{}",
		"Obj\x01 org.apache.hadoop.mapreduce.jobhistory",
		"Meta VERSION=\"1\" .\n",
		"Job JOBID=\"job_1_1\"",
		"\f!!FILE=x!!\n",
		"{\n  \"priority\" : \"NORMAL\",\n  \"jobID\" : \"job_1_1\"",
		`{"name":"<root>","children":[]}`,
		`<?xml version="1.0"?><configuration>`,
		"PK\x03\x04",
		"garbage\x00\x01",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, head []byte) {
		k, reason := Sniff(head, testFormats)
		if (k == Unknown) != (reason != "") {
			t.Fatalf("kind %v with reason %q", k, reason)
		}
		if k == SparkEventLog {
			if k2, _ := Sniff(append(bytes.Clone(head), "\nmore"...), testFormats); k2 != SparkEventLog {
				t.Fatalf("Spark verdict lost with more bytes: %v", k2)
			}
		}
	})
}

// FuzzScanFile scans a folder holding one arbitrary file, plain and as a
// compressed stream: it must never panic, and a log found must open.
func FuzzScanFile(f *testing.F) {
	f.Add("app-1", []byte(sparkLines), uint8(0))
	f.Add("job_1_1.jhist", []byte("Avro-Json\n"), uint8(3))
	f.Add("EVENT_LOG_1", []byte(sparkLines), uint8(4))
	f.Add("eventlog-2021-06-15--15-00", []byte(sparkLines), uint8(1))
	f.Fuzz(func(t *testing.T, name string, data []byte, c uint8) {
		if len(name) == 0 || len(name) > 100 || bytes.ContainsAny([]byte(name), "/\\\x00") || name == "." || name == ".." {
			return
		}
		cs := append([]codec.Codec{codec.None}, codec.Codecs()...)
		if cc := cs[int(c)%len(cs)]; cc != codec.None {
			data = compressed(t, cc, string(data))
		}
		logs, _, _ := Scan(mapFS(map[string][]byte{"d/" + name: data}), "d", testOpts)
		for _, l := range logs {
			for i := range l.Parts {
				r, err := l.Open(i)
				if err != nil {
					t.Fatalf("%s: %v", l.Name, err)
				}
				buf := make([]byte, 4096)
				for {
					if _, err := r.Read(buf); err != nil {
						break
					}
				}
				r.Close()
			}
		}
	})
}
