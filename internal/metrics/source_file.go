package metrics

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/clusterlens/clusterlens/internal/codec"
	"github.com/clusterlens/clusterlens/internal/model"
)

// sourceKind is the format of a metric file.
type sourceKind uint8

const (
	sourceUnknown sourceKind = iota
	sourceCSV                // timestamp_ms,host,metric,value, any codec
	sourceSadf               // sadf -j JSON, any codec
	sourceSadc               // a sadc binary data file (read through sadf)
	sourceNmon               // an nmon recording, any codec
)

// sourceSniffSize is how many (decompressed) leading bytes decide a
// file's format.
const sourceSniffSize = 512

// ReadCSVFile streams the samples of a CSV metric file, decompressing it
// when it is zstd or gzip (by magic number, else by extension: .zst,
// .zstd, .gz; internal/codec), as the simulator writes metrics.csv.zst.
func ReadCSVFile(path string, fn func(*model.Sample) error) error {
	return sourceOpen(path, func(r *bufio.Reader) error { return ReadCSV(r, path, fn) })
}

// ReadSysstatFile streams the samples of a sadf -j file, decompressing it
// like ReadCSVFile.
func ReadSysstatFile(path string, fn func(*model.Sample) error) error {
	return sourceOpen(path, func(r *bufio.Reader) error { return ReadSysstat(r, path, fn) })
}

// ReadNmonFile streams the samples of an nmon recording (ReadNmon, times
// in loc), decompressing it like ReadCSVFile.
func ReadNmonFile(path string, loc *time.Location, fn func(*model.Sample) error) (NmonInfo, error) {
	var info NmonInfo
	err := sourceOpen(path, func(r *bufio.Reader) error {
		var err error
		info, err = ReadNmon(r, path, loc, fn)
		return err
	})
	return info, err
}

// sourceOpen opens path, decompresses it and hands the stream to read.
func sourceOpen(path string, read func(*bufio.Reader) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	rc, _, err := codec.Open(path, f)
	if err != nil {
		return err
	}
	defer rc.Close()
	return read(bufio.NewReaderSize(rc, 64<<10))
}

// sourceSniff tells a metric file's format from its content (after
// decompression): sysstat's magic number, a JSON object naming "sysstat"
// near its start, nmon's AAA first line, or a first line that is the CSV
// header or a timestamp_ms,host,metric,value row.
func sourceSniff(path string) (sourceKind, error) {
	f, err := os.Open(path)
	if err != nil {
		return sourceUnknown, err
	}
	defer f.Close()
	var raw [16]byte
	n, _ := io.ReadFull(f, raw[:])
	if IsSadc(raw[:n]) {
		return sourceSadc, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return sourceUnknown, err
	}
	rc, _, err := codec.Open(path, f)
	if err != nil {
		return sourceUnknown, nil
	}
	defer rc.Close()
	head := make([]byte, sourceSniffSize)
	n, _ = io.ReadFull(rc, head)
	return sourceSniffText(head[:n]), nil
}

// sourceSniffText tells sadf -j output, an nmon recording or metric CSV
// from its first bytes.
func sourceSniffText(head []byte) sourceKind {
	t := bytes.TrimLeft(head, " \t\r\n")
	if len(t) > 0 && t[0] == '{' && bytes.Contains(t, []byte(`"sysstat"`)) {
		return sourceSadf
	}
	if bytes.HasPrefix(head, []byte("AAA,")) {
		return sourceNmon
	}
	line, _, complete := bytes.Cut(head, []byte{'\n'})
	if !complete && len(head) == sourceSniffSize {
		return sourceUnknown
	}
	line = bytes.TrimRight(line, "\r")
	if string(line) == "timestamp_ms,host,metric,value" {
		return sourceCSV
	}
	f := bytes.Split(line, []byte{','})
	if len(f) != 4 || len(f[1]) == 0 || len(f[2]) == 0 {
		return sourceUnknown
	}
	if _, ok := csvInt(f[0]); !ok {
		return sourceUnknown
	}
	if _, ok := csvFloat(f[3]); !ok {
		return sourceUnknown
	}
	return sourceCSV
}

// sourceReadFile reads one metric file of a known kind, passing what the
// reader says about it to opt.Notes.
func sourceReadFile(ctx context.Context, path string, kind sourceKind, opt SourceOptions, fn func(*model.Sample) error) error {
	switch kind {
	case sourceCSV:
		return ReadCSVFile(path, fn)
	case sourceSadf:
		return ReadSysstatFile(path, fn)
	case sourceSadc:
		return ReadSadc(ctx, path, fn)
	case sourceNmon:
		info, err := ReadNmonFile(path, nil, fn)
		if opt.Notes != nil {
			for _, n := range info.Notes {
				opt.Notes(n)
			}
		}
		return err
	}
	return fmt.Errorf("%s: not a metric file: want timestamp_ms,host,metric,value CSV (optionally .zst or .gz), sadf -j JSON, a sadc data file or an nmon recording", path)
}
