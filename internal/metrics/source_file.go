package metrics

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
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
	return localFiles(path).read(".", func(r *bufio.Reader, name string) error { return ReadCSV(r, name, fn) })
}

// ReadSysstatFile streams the samples of a sadf -j file, decompressing it
// like ReadCSVFile.
func ReadSysstatFile(path string, fn func(*model.Sample) error) error {
	return localFiles(path).read(".", func(r *bufio.Reader, name string) error { return ReadSysstat(r, name, fn) })
}

// ReadNmonFile streams the samples of an nmon recording (ReadNmon, times
// in loc), decompressing it like ReadCSVFile.
func ReadNmonFile(path string, loc *time.Location, fn func(*model.Sample) error) (NmonInfo, error) {
	return localFiles(path).readNmon(".", loc, fn)
}

// files is where metric files are read: a local file or folder, or an
// object-store bucket, as an fs.FS.
type files struct {
	fsys fs.FS
	// display names an fs path as the user wrote it (a path or a URL).
	display func(name string) string
	// local is the local path of an fs path, "" in an object store.
	local func(name string) string
}

// localFiles is the local file or folder at path, rooted at "." so that
// names keep the path as given.
func localFiles(path string) files {
	join := func(name string) string {
		if name == "." {
			return path
		}
		return filepath.Join(path, filepath.FromSlash(name))
	}
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		return files{fsys: singleFile(path), display: join, local: join}
	}
	return files{fsys: os.DirFS(path), display: join, local: join}
}

// singleFile is a file system holding the one file path, as ".".
type singleFile string

func (f singleFile) Open(name string) (fs.File, error) {
	if name != "." {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return os.Open(string(f))
}

// read opens name, decompresses it and hands the stream to fn with the
// name to give in errors.
func (f files) read(name string, fn func(r *bufio.Reader, name string) error) error {
	file, err := f.fsys.Open(name)
	if err != nil {
		return err
	}
	defer file.Close()
	display := f.display(name)
	rc, _, err := codec.Open(display, file)
	if err != nil {
		return err
	}
	defer rc.Close()
	return fn(bufio.NewReaderSize(rc, 64<<10), display)
}

// readNmon reads the nmon recording name (ReadNmon, times in loc).
func (f files) readNmon(name string, loc *time.Location, fn func(*model.Sample) error) (NmonInfo, error) {
	var info NmonInfo
	err := f.read(name, func(r *bufio.Reader, display string) error {
		var err error
		info, err = ReadNmon(r, display, loc, fn)
		return err
	})
	return info, err
}

// sniff tells a metric file's format from its content (after
// decompression): sysstat's magic number, a JSON object naming "sysstat"
// near its start, nmon's AAA first line, or a first line that is the CSV
// header or a timestamp_ms,host,metric,value row.
func (f files) sniff(name string) (sourceKind, error) {
	file, err := f.fsys.Open(name)
	if err != nil {
		return sourceUnknown, err
	}
	defer file.Close()
	br := bufio.NewReaderSize(file, 64<<10)
	raw, _ := br.Peek(16)
	if IsSadc(raw) {
		return sourceSadc, nil
	}
	rc, _, err := codec.Open(f.display(name), br)
	if err != nil {
		return sourceUnknown, nil
	}
	defer rc.Close()
	head := make([]byte, sourceSniffSize)
	n, _ := io.ReadFull(rc, head)
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

// readFile reads one metric file of a known kind, passing what the reader
// says about it to opt.Notes. A sadc file in an object store is copied to
// a temporary file first: sadf reads only local files.
func (f files) readFile(ctx context.Context, name string, kind sourceKind, opt SourceOptions, fn func(*model.Sample) error) error {
	switch kind {
	case sourceCSV:
		return f.read(name, func(r *bufio.Reader, display string) error { return ReadCSV(r, display, fn) })
	case sourceSadf:
		return f.read(name, func(r *bufio.Reader, display string) error { return ReadSysstat(r, display, fn) })
	case sourceSadc:
		if p := f.local(name); p != "" {
			return ReadSadc(ctx, p, fn)
		}
		return f.readSadcCopy(ctx, name, fn)
	case sourceNmon:
		info, err := f.readNmon(name, nil, fn)
		if opt.Notes != nil {
			for _, n := range info.Notes {
				opt.Notes(n)
			}
		}
		return err
	}
	return fmt.Errorf("%s: not a metric file: want timestamp_ms,host,metric,value CSV (optionally .zst or .gz), sadf -j JSON, a sadc data file or an nmon recording", f.display(name))
}

// readSadcCopy streams the sadc file name to a temporary file and reads
// that through sadf.
func (f files) readSadcCopy(ctx context.Context, name string, fn func(*model.Sample) error) error {
	src, err := f.fsys.Open(name)
	if err != nil {
		return err
	}
	defer src.Close()
	tmp, err := os.CreateTemp("", "clusterlens-sadc-*")
	if err != nil {
		return fmt.Errorf("%s: copy for sadf: %w", f.display(name), err)
	}
	defer os.Remove(tmp.Name())
	_, err = io.Copy(tmp, src)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: copy for sadf: %w", f.display(name), err)
	}
	if err := ReadSadc(ctx, tmp.Name(), fn); err != nil {
		return fmt.Errorf("%s: %w", f.display(name), err)
	}
	return nil
}
